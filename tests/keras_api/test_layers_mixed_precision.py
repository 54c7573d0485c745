"""Built-in layers under the "mixed_float16" policy: float16 outputs from float32 weights,
gradients reaching the float32 weights, and Keras 3's values (float16 tolerance); a
custom gradient inside a Lambda layer."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_matches_keras, keras_module, randn

L = fg.keras.layers
MIXED = dict(dtype="mixed_float16")


@pytest.mark.parametrize("make,shape", [
    (lambda: L.Dense(3, **MIXED), (2, 4)), (lambda: L.Conv2D(2, 3, **MIXED), (1, 5, 5, 2)),
    (lambda: L.LayerNormalization(**MIXED), (2, 4)),
    (lambda: L.BatchNormalization(**MIXED), (4, 3)), (lambda: L.LSTM(3, **MIXED), (2, 3, 4)),
    (lambda: L.MultiHeadAttention(2, 2, **MIXED), (2, 3, 4)),
])
def test_float16_compute_float32_weights(make, shape):
    layer = make()
    x = fg.constant(randn(*shape))
    with fg.GradientTape() as tape:
        y = layer(x, x) if isinstance(layer, L.MultiHeadAttention) else layer(x, training=True) \
            if isinstance(layer, L.BatchNormalization) else layer(x)
        loss = fg.reduce_sum(fg.cast(y, "float32"))
    assert y.dtype == fg.float16
    assert all(w.dtype == fg.float32 for w in layer.weights)
    grads = tape.gradient(loss, layer.trainable_weights)
    assert all(g is not None and fg.convert_to_tensor(g).dtype == fg.float32 for g in grads)


def test_custom_gradient_inside_a_lambda_layer():
    @fg.custom_gradient
    def reverse(x):
        return fg.identity(x), lambda dy: -dy

    model = fg.keras.Sequential([L.Dense(2, kernel_initializer="ones"), L.Lambda(reverse)])
    x = fg.constant(randn(3, 4))
    with fg.GradientTape() as tape:
        tape.watch(x)
        loss = fg.reduce_sum(model(x))
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), -2 * np.ones((3, 4)))


@pytest.mark.parametrize("name,kwargs,shape", [
    ("Dense", dict(units=3), (2, 4)), ("Conv2D", dict(filters=2, kernel_size=3), (1, 5, 5, 2)),
    ("LayerNormalization", {}, (2, 4)), ("BatchNormalization", {}, (4, 3)),
    ("GRU", dict(units=3), (2, 3, 4)),
])
def test_mixed_matches_keras(name, kwargs, shape):
    keras = keras_module()
    ours = getattr(L, name)(dtype="mixed_float16", **kwargs)
    theirs = getattr(keras.layers, name)(dtype="mixed_float16", **kwargs)
    theirs.build(shape)
    theirs.set_weights([np.abs(randn(*w.shape, seed=i + 1)) * 0.5 + 0.1
                        for i, w in enumerate(theirs.weights)])
    out = assert_matches_keras(ours, theirs, [randn(*shape)], rtol=1e-2, atol=1e-2)
    assert out[0].dtype == np.float16
