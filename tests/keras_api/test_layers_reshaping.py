"""Flatten, Reshape, Permute, RepeatVector, ZeroPadding, Cropping, UpSampling: closed forms,
gradients, and Keras 3's values."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers
X4 = np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2)


def test_closed_forms():
    np.testing.assert_array_equal(L.Flatten()(X4).numpy(), X4.reshape(2, -1))
    np.testing.assert_array_equal(L.Flatten(data_format="channels_first")(X4).numpy(),
                                  X4.transpose(0, 2, 3, 1).reshape(2, -1))
    np.testing.assert_array_equal(L.Reshape((4, -1))(X4).numpy(), X4.reshape(2, 4, 6))
    np.testing.assert_array_equal(L.Permute((3, 1, 2))(X4).numpy(), X4.transpose(0, 3, 1, 2))
    np.testing.assert_array_equal(L.RepeatVector(3)(X4[:, 0, 0]).numpy(),
                                  np.repeat(X4[:, None, 0, 0], 3, axis=1))
    np.testing.assert_array_equal(L.ZeroPadding2D(((1, 0), (0, 2)))(X4).numpy(),
                                  np.pad(X4, ((0, 0), (1, 0), (0, 2), (0, 0))))
    np.testing.assert_array_equal(L.Cropping2D(((1, 0), (1, 2)))(X4).numpy(), X4[:, 1:, 1:2])
    np.testing.assert_array_equal(L.UpSampling2D((2, 3))(X4).numpy(),
                                  X4.repeat(2, axis=1).repeat(3, axis=2))
    np.testing.assert_array_equal(L.UpSampling1D(3)(X4[:, :, 0]).numpy(),
                                  X4[:, :, 0].repeat(3, axis=1))
    np.testing.assert_array_equal(L.ZeroPadding1D((2, 1))(X4[:, :, 0]).numpy(),
                                  np.pad(X4[:, :, 0], ((0, 0), (2, 1), (0, 0))))
    np.testing.assert_array_equal(L.Cropping1D((1, 1))(X4[:, :, 0]).numpy(), X4[:, 1:2, 0])


def test_errors():
    with pytest.raises(ValueError, match="total size"):
        L.Reshape((5,))(X4)
    with pytest.raises(ValueError, match="permutation"):
        L.Permute((1, 1))
    with pytest.raises(NotImplementedError, match="interpolation"):
        L.UpSampling2D(interpolation="bicubic")


def test_bilinear_upsampling_closed_form_and_gradient():
    ramp = np.array([0., 1.], np.float32).reshape(1, 1, 2, 1)
    y = L.UpSampling2D((1, 2), interpolation="bilinear")(ramp).numpy()
    np.testing.assert_allclose(y[0, 0, :, 0], [0., 0.25, 0.75, 1.])
    layer = L.UpSampling2D((2, 3), interpolation="bilinear", dtype="float64")
    fg.testing.check_gradients(lambda t: layer(t), [randn(1, 3, 2, 2, dtype=np.float64)],
                               order=1)


def test_upsampling_gradient_sums_the_copies():
    t = fg.constant(X4)
    with fg.GradientTape() as tape:
        tape.watch(t)
        s = fg.reduce_sum(L.UpSampling2D((2, 3))(t))
    np.testing.assert_array_equal(tape.gradient(s, t).numpy(), np.full(X4.shape, 6.))


CASES = [("Flatten", {}), ("Flatten", dict(data_format="channels_first")),
         ("Reshape", dict(target_shape=(4, 6))), ("Reshape", dict(target_shape=(-1, 3))),
         ("Permute", dict(dims=(2, 3, 1))), ("ZeroPadding2D", {}),
         ("ZeroPadding2D", dict(padding=((1, 2), (0, 3)))),
         ("ZeroPadding2D", dict(padding=(2, 1), data_format="channels_first")),
         ("Cropping2D", dict(cropping=((1, 0), (1, 2)))), ("Cropping2D", dict(cropping=1)),
         ("UpSampling2D", {}), ("UpSampling2D", dict(size=(1, 3))),
         ("UpSampling2D", dict(size=(2, 3), interpolation="bilinear")),
         ("UpSampling2D", dict(size=3, interpolation="bilinear",
                               data_format="channels_first"))]


@pytest.mark.parametrize("name,kwargs", CASES)
def test_matches_keras(name, kwargs):
    keras = keras_module()
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    out = assert_matches_keras(ours, theirs, [randn(2, 3, 4, 2)])
    assert tuple(out[0].shape) == tuple(ours.compute_output_shape((2, 3, 4, 2)))
    assert_config_keys_match(ours, theirs)


@pytest.mark.parametrize("name,kwargs", [("RepeatVector", dict(n=3)),
                                         ("ZeroPadding1D", dict(padding=(2, 1))),
                                         ("Cropping1D", dict(cropping=(1, 2))),
                                         ("UpSampling1D", dict(size=3))])
def test_one_d_matches_keras(name, kwargs):
    keras = keras_module()
    shape = (2, 5) if name == "RepeatVector" else (2, 5, 3)
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    out = assert_matches_keras(ours, theirs, [randn(*shape)])
    assert tuple(out[0].shape) == tuple(ours.compute_output_shape(shape))
    assert_config_keys_match(ours, theirs)


@pytest.mark.parametrize("name,kwargs", [("ZeroPadding3D", dict(padding=((1, 0), (0, 2), 1))),
                                         ("Cropping3D", dict(cropping=((1, 0), 1, (0, 1)))),
                                         ("UpSampling3D", dict(size=(2, 1, 3))),
                                         ("UpSampling3D", dict(data_format="channels_first"))])
def test_three_d_matches_keras(name, kwargs):
    keras = keras_module()
    shape = (2, 3, 4, 3, 2)
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    out = assert_matches_keras(ours, theirs, [randn(*shape)])
    assert tuple(out[0].shape) == tuple(ours.compute_output_shape(shape))
    assert_config_keys_match(ours, theirs)


def test_three_d_closed_forms():
    x = randn(1, 2, 3, 4, 1)
    np.testing.assert_array_equal(L.ZeroPadding3D(((1, 0), (0, 0), (0, 1)))(x).numpy(),
                                  np.pad(x, ((0, 0), (1, 0), (0, 0), (0, 1), (0, 0))))
    np.testing.assert_array_equal(L.Cropping3D(((1, 0), (1, 1), (0, 2)))(x).numpy(),
                                  x[:, 1:, 1:2, :2])
    np.testing.assert_array_equal(L.UpSampling3D((1, 2, 1))(x).numpy(), x.repeat(2, axis=2))
