"""TensorFlow's ``tf.nn`` namespace."""
from finegrad._src.ops.elementwise import relu, sigmoid, tanh, softplus  # noqa: F401
from finegrad._src.ops.nn import (softmax, log_softmax, softmax_cross_entropy_with_logits,  # noqa
                                  sparse_softmax_cross_entropy_with_logits,
                                  sigmoid_cross_entropy_with_logits, l2_loss)
