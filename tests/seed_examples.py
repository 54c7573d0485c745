"""The seed example of TensorFlow's custom_gradient documentation, shared by the test files.

``log1pexp`` in float32 has a nan gradient at x = 100 written with plain ops
(`plain_log1pexp`) and exactly 1.0 with its custom gradient.
"""
import finegrad as tf


def plain_log1pexp(x):
    return tf.math.log(1 + tf.exp(x))


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return tf.math.log(1 + e), grad
