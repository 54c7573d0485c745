"""Convolution layers (Conv1D/2D/3D, transposed, depthwise, separable): closed forms, finite
differences, and Keras 3's outputs and gradients on the same weights."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers


# --- without Keras ------------------------------------------------------------------------------

def test_conv2d_ones_closed_form():
    layer = L.Conv2D(1, 2, kernel_initializer="ones", bias_initializer="ones")
    y = layer(fg.ones([1, 3, 3, 1]))
    np.testing.assert_array_equal(y.numpy()[0, :, :, 0], np.full((2, 2), 5.))
    assert [w.name for w in layer.weights] == ["kernel", "bias"]
    assert layer.kernel.shape == (2, 2, 1, 1)


def test_conv1d_causal_matches_a_direct_sum():
    layer = L.Conv1D(1, 3, padding="causal", dilation_rate=2, use_bias=False)
    x = randn(1, 7, 1)
    y = layer(x).numpy()[0, :, 0]
    k = layer.kernel.numpy()[:, 0, 0]
    xp = np.concatenate([np.zeros(4, np.float32), x[0, :, 0]])
    np.testing.assert_allclose(y, [sum(k[j] * xp[t + 2 * j] for j in range(3)) for t in range(7)],
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make,shape", [
    (lambda: L.Conv1D(2, 3, strides=2, padding="same", groups=1, dtype="float64"), (2, 7, 3)),
    (lambda: L.Conv2D(4, (2, 3), padding="same", groups=2, dtype="float64"), (1, 4, 5, 2)),
    (lambda: L.Conv3D(2, 2, strides=(1, 2, 1), dtype="float64"), (1, 3, 4, 3, 2)),
    (lambda: L.Conv2DTranspose(2, 3, strides=2, padding="same", dtype="float64"),
     (1, 3, 2, 2)),
    (lambda: L.Conv1DTranspose(2, 3, strides=2, output_padding=1, dtype="float64"), (1, 4, 2)),
    (lambda: L.Conv3DTranspose(2, 2, strides=(2, 1, 1), padding="same", dtype="float64"),
     (1, 2, 3, 2, 2)),
    (lambda: L.DepthwiseConv2D(2, depth_multiplier=2, dtype="float64"), (1, 4, 4, 2)),
    (lambda: L.SeparableConv2D(3, 2, padding="same", dtype="float64"), (1, 4, 3, 2)),
    (lambda: L.Conv2D(2, 2, data_format="channels_first", dtype="float64"), (1, 2, 4, 3)),
])
def test_finite_differences(make, shape):
    layer = make()
    x = randn(*shape, dtype=np.float64)
    y = layer(x)
    assert tuple(y.shape) == tuple(layer.compute_output_shape(shape))
    fg.testing.check_gradients(lambda t: layer(t), [x], order=1)
    kernel = layer.trainable_weights[0]

    def of_kernel(k):
        kernel.assign(k)
        return layer(x)
    value = kernel.numpy()
    with fg.GradientTape() as tape:
        s = fg.reduce_sum(layer(x) ** 2)
    g = tape.gradient(s, kernel).numpy()
    d = randn(*value.shape, seed=3, dtype=np.float64)
    eps = 1e-6
    up = np.sum(of_kernel(value + eps * d).numpy() ** 2)
    down = np.sum(of_kernel(value - eps * d).numpy() ** 2)
    kernel.assign(value)
    np.testing.assert_allclose(np.sum(g * d), (up - down) / (2 * eps), rtol=1e-5)


def test_argument_errors():
    with pytest.raises(ValueError, match="padding"):
        L.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="dilation_rate"):
        L.Conv2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="groups"):
        L.Conv2D(3, 3, groups=2)
    with pytest.raises(ValueError, match="output_padding"):
        L.Conv2DTranspose(2, 3, strides=2, output_padding=2)


def test_subclass_overrides_call_and_reads_kernel():
    class Quantized(L.Conv2D):
        def call(self, x):
            return self.convolution_op(x, fg.round(self.kernel * 4.) / 4.)

    layer = Quantized(2, 3, padding="same")
    x = randn(1, 4, 4, 1)
    y = layer(x)
    q = np.round(layer.kernel.numpy() * 4.) / 4.
    ref = L.Conv2D(2, 3, padding="same", use_bias=False)
    ref(x)
    ref.set_weights([q])
    np.testing.assert_allclose(y.numpy(), ref(x).numpy(), rtol=1e-6)


# --- against Keras -----------------------------------------------------------------------------

CASES = [
    ("Conv1D", dict(filters=4, kernel_size=3), (2, 9, 3)),
    ("Conv1D", dict(filters=4, kernel_size=3, strides=2, padding="same"), (2, 9, 3)),
    ("Conv1D", dict(filters=4, kernel_size=2, padding="causal", dilation_rate=2), (2, 9, 3)),
    ("Conv1D", dict(filters=4, kernel_size=3, groups=2, activation="relu"), (2, 9, 4)),
    ("Conv2D", dict(filters=3, kernel_size=3), (2, 6, 5, 2)),
    ("Conv2D", dict(filters=3, kernel_size=(3, 2), strides=(2, 1), padding="same"),
     (2, 7, 5, 2)),
    ("Conv2D", dict(filters=3, kernel_size=2, dilation_rate=2, activation="tanh"),
     (2, 6, 6, 2)),
    ("Conv2D", dict(filters=4, kernel_size=3, groups=2, padding="same", use_bias=False),
     (1, 5, 5, 4)),
    ("Conv3D", dict(filters=2, kernel_size=2), (1, 4, 5, 3, 2)),
    ("Conv3D", dict(filters=2, kernel_size=3, strides=2, padding="same"), (1, 5, 4, 5, 2)),
    ("Conv1DTranspose", dict(filters=3, kernel_size=3), (2, 5, 2)),
    ("Conv1DTranspose", dict(filters=3, kernel_size=3, strides=2, padding="same"), (2, 5, 2)),
    ("Conv2DTranspose", dict(filters=3, kernel_size=3, strides=2), (2, 4, 3, 2)),
    ("Conv2DTranspose", dict(filters=3, kernel_size=(3, 2), strides=2, padding="same",
                             output_padding=1), (2, 4, 3, 2)),
    ("Conv2DTranspose", dict(filters=2, kernel_size=3, dilation_rate=2), (1, 4, 4, 2)),
    ("Conv3DTranspose", dict(filters=2, kernel_size=(3, 2, 2), strides=2, padding="same",
                             output_padding=1), (1, 3, 4, 3, 2)),
    ("Conv3DTranspose", dict(filters=2, kernel_size=2, dilation_rate=2), (1, 3, 3, 3, 2)),
    ("DepthwiseConv2D", dict(kernel_size=3), (2, 5, 5, 3)),
    ("DepthwiseConv2D", dict(kernel_size=2, strides=2, depth_multiplier=2, padding="same"),
     (2, 5, 5, 3)),
    ("SeparableConv2D", dict(filters=4, kernel_size=3), (2, 6, 5, 3)),
    ("SeparableConv2D", dict(filters=4, kernel_size=2, depth_multiplier=2, padding="same",
                             activation="relu"), (2, 5, 5, 3)),
    ("DepthwiseConv1D", dict(kernel_size=3, depth_multiplier=2), (2, 7, 3)),
    ("SeparableConv1D", dict(filters=4, kernel_size=3, padding="same"), (2, 7, 3)),
]


@pytest.mark.parametrize("name,kwargs,shape", CASES)
def test_matches_keras(name, kwargs, shape):
    keras = keras_module()
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    theirs.build(shape)
    theirs.set_weights([randn(*w.shape, seed=i + 1) for i, w in enumerate(theirs.weights)])
    out = assert_matches_keras(ours, theirs, [randn(*shape)], rtol=2e-5, atol=2e-5)
    assert tuple(out[0].shape) == tuple(ours.compute_output_shape(shape))
    assert_config_keys_match(ours, theirs)
