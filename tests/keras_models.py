"""Keras 3 models with finegrad.ops inside, trained under the ``KERAS_BACKEND`` this script
runs with (tests/test_ops_in_keras.py runs it once per backend: Keras fixes its backend at
import). Prints one JSON object of checks."""
import json

import keras
import numpy as np

from finegrad import ops

ops.set_backend("keras")


@ops.custom_gradient
def reverse_gradient(x):
    return ops.multiply(x, 1.0), lambda dy: ops.negative(dy)


@keras.ops.custom_gradient
def keras_reverse_gradient(x):
    def grad(*args, upstream=None):
        if upstream is None:
            (upstream,) = args
        return keras.ops.negative(upstream)
    return keras.ops.multiply(x, 1.0), grad


class GradientReversal(keras.layers.Layer):
    def __init__(self, rule=reverse_gradient, **kwargs):
        super().__init__(**kwargs)
        self.rule = rule

    def call(self, x):
        return self.rule(x)


def model(middle, direct=False):
    """Dense -> middle -> tanh + 0.5 (finegrad.ops on KerasTensors) -> Dense."""
    inputs = keras.Input((3,))
    h = keras.layers.Dense(4, name="first")(inputs)
    h = reverse_gradient(h) if direct else middle(h)
    h = ops.add(ops.tanh(h), 0.5)
    out = keras.layers.Dense(1, name="last")(h)
    return keras.Model(inputs, out)


def trained(m, start, **compile_kwargs):
    """The weight changes of one epoch of SGD from the weights ``start``."""
    x = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
    y = np.random.default_rng(1).normal(size=(8, 1)).astype("float32")
    m.set_weights(start)
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", **compile_kwargs)
    m.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    return [w - s for w, s in zip(m.get_weights(), start, strict=True)]


def main():
    plain = model(keras.layers.Identity())
    start = plain.get_weights()
    base = trained(plain, start)
    mine = trained(model(GradientReversal()), start)
    mine_eager = trained(model(GradientReversal()), start, run_eagerly=True)
    direct = trained(model(None, direct=True), start)
    theirs = trained(model(GradientReversal(keras_reverse_gradient)), start)
    layer = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), GradientReversal()])
    out = {
        "backend": ops.backend(),
        "keras": keras.backend.backend(),
        "moved": bool(np.abs(mine[0]).max() > 1e-4),
        "same_as_keras_custom_gradient": all(np.allclose(a, b, atol=1e-6)
                                             for a, b in zip(mine, theirs, strict=True)),
        "eager_same_as_compiled": all(np.allclose(a, b, atol=1e-6)
                                      for a, b in zip(mine, mine_eager, strict=True)),
        "direct_same_as_layer": all(np.allclose(a, b, atol=1e-6)
                                    for a, b in zip(mine, direct, strict=True)),
        "differs_from_identity": not np.allclose(mine[0], base[0], atol=1e-6),
        "sequential_shape": list(layer(np.ones((5, 3), "float32")).shape),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
