"""Pooling and global pooling layers: closed forms, gradients, and Keras 3's values."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers


def test_max_pooling_closed_form_and_gradient():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    y = L.MaxPooling2D()(x)
    np.testing.assert_array_equal(y.numpy()[0, :, :, 0], [[5., 7.], [13., 15.]])
    t = fg.constant(x)
    with fg.GradientTape() as tape:
        tape.watch(t)
        s = fg.reduce_sum(L.MaxPooling2D()(t))
    g = tape.gradient(s, t).numpy()[0, :, :, 0]
    assert g.sum() == 4 and g[1, 1] == g[1, 3] == g[3, 1] == g[3, 3] == 1


def test_average_pooling_same_counts_only_inside_values():
    y = L.AveragePooling1D(2, padding="same")(np.array([[[1.], [2.], [3.]]], np.float32))
    np.testing.assert_allclose(y.numpy()[0, :, 0], [1.5, 3.])


def test_global_average_pooling_1d_with_mask():
    x = np.array([[[1.], [3.], [100.]]], np.float32)
    layer = L.GlobalAveragePooling1D()
    y = layer(fg.constant(x), mask=fg.constant([[True, True, False]]))
    np.testing.assert_allclose(y.numpy(), [[2.]])
    assert L.GlobalMaxPooling2D(keepdims=True)(fg.ones([2, 3, 3, 4])).shape == (2, 1, 1, 4)


@pytest.mark.parametrize("layer", [L.AveragePooling2D(2, strides=1, padding="same",
                                                      dtype="float64"),
                                   L.GlobalAveragePooling2D(dtype="float64"),
                                   L.MaxPooling1D(3, strides=2, dtype="float64")])
def test_finite_differences(layer):
    shape = (2, 5, 3) if isinstance(layer, L.MaxPooling1D) else (1, 4, 3, 2)
    fg.testing.check_gradients(lambda t: layer(t), [randn(*shape, dtype=np.float64)], order=1)


CASES = [("MaxPooling1D", {}, (2, 7, 3)), ("MaxPooling1D", dict(pool_size=3, strides=2,
                                                                 padding="same"), (2, 8, 3)),
         ("MaxPooling2D", {}, (2, 6, 5, 3)),
         ("MaxPooling2D", dict(pool_size=(3, 2), strides=(2, 1), padding="same"), (2, 7, 5, 3)),
         ("AveragePooling1D", dict(pool_size=2), (2, 7, 3)),
         ("AveragePooling1D", dict(pool_size=3, strides=2, padding="same"), (2, 8, 3)),
         ("AveragePooling2D", dict(pool_size=2), (2, 6, 5, 3)),
         ("AveragePooling2D", dict(pool_size=3, strides=2, padding="same"), (2, 7, 5, 3)),
         ("MaxPooling2D", dict(data_format="channels_first"), (2, 3, 6, 4)),
         ("GlobalAveragePooling1D", {}, (2, 7, 3)), ("GlobalMaxPooling1D", {}, (2, 7, 3)),
         ("GlobalAveragePooling2D", {}, (2, 4, 5, 3)),
         ("GlobalMaxPooling2D", dict(keepdims=True), (2, 4, 5, 3)),
         ("GlobalAveragePooling2D", dict(data_format="channels_first"), (2, 3, 4, 5))]


@pytest.mark.parametrize("name,kwargs,shape", CASES)
def test_matches_keras(name, kwargs, shape):
    keras = keras_module()
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    out = assert_matches_keras(ours, theirs, [randn(*shape)])
    assert tuple(out[0].shape) == tuple(ours.compute_output_shape(shape))
    assert_config_keys_match(ours, theirs)


def test_global_average_pooling_mask_matches_keras():
    keras = keras_module()
    mask = np.array([[1, 1, 0, 1], [1, 0, 0, 0]], bool)

    def call(layer, xs, kwargs):
        return layer(xs[0], mask=xs[1])
    assert_matches_keras(L.GlobalAveragePooling1D(), keras.layers.GlobalAveragePooling1D(),
                         [randn(2, 4, 3), mask], call=call)


@pytest.mark.parametrize("name", ["GlobalAveragePooling3D", "GlobalMaxPooling3D"])
def test_global_3d(name):
    x = randn(2, 3, 2, 4, 3)
    reduce = np.mean if "Average" in name else np.max
    np.testing.assert_allclose(getattr(L, name)()(x).numpy(), reduce(x, axis=(1, 2, 3)),
                               rtol=1e-6)
    keras = keras_module()
    assert_matches_keras(getattr(L, name)(keepdims=True), getattr(keras.layers, name)(
        keepdims=True), [x])


def test_pooling_3d_closed_form_and_gradient():
    x = randn(1, 4, 4, 4, 2)
    y = L.MaxPooling3D()(x).numpy()
    np.testing.assert_allclose(y, x.reshape(1, 2, 2, 2, 2, 2, 2, 2).max(axis=(2, 4, 6)))
    a = L.AveragePooling3D(2)(x).numpy()
    np.testing.assert_allclose(a, x.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean(axis=(2, 4, 6)),
                               rtol=1e-5)
    layer = L.AveragePooling3D(3, strides=2, padding="same", dtype="float64")
    fg.testing.check_gradients(lambda t: layer(t), [randn(1, 3, 4, 3, 1, dtype=np.float64)])


@pytest.mark.parametrize("name,kwargs", [
    ("MaxPooling3D", {}), ("MaxPooling3D", dict(pool_size=(3, 2, 2), strides=(2, 1, 2),
                                                padding="same")),
    ("AveragePooling3D", dict(pool_size=2)),
    ("AveragePooling3D", dict(pool_size=3, strides=2, padding="same")),
    ("AveragePooling3D", dict(pool_size=(2, 3, 2), strides=1, padding="same"))])
def test_pooling_3d_matches_keras(name, kwargs):
    keras = keras_module()
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    shape = (2, 5, 4, 5, 2)
    out = assert_matches_keras(ours, theirs, [randn(*shape)])
    assert tuple(out[0].shape) == tuple(ours.compute_output_shape(shape))
    assert_config_keys_match(ours, theirs)
