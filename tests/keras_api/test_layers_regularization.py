"""Dropout and SpatialDropout1D/2D/3D: identity outside training, Keras's scaling and
gradient in training, whole channels dropped; Keras 3's inference values."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers


def test_dropout_identity_unless_training():
    x = randn(4, 5)
    np.testing.assert_array_equal(L.Dropout(0.5)(x).numpy(), x)
    np.testing.assert_array_equal(L.Dropout(0.5)(x, training=False).numpy(), x)
    np.testing.assert_array_equal(L.Dropout(0.)(x, training=True).numpy(), x)


def test_dropout_training_scales_kept_values_and_gradient():
    layer = L.Dropout(0.25, seed=3)
    x = fg.constant(np.ones((200, 50), np.float32))
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
    values = set(np.unique(y.numpy()).tolist())
    assert values == {0., np.float32(1 / 0.75)}
    kept = (y.numpy() != 0).mean()
    assert 0.72 < kept < 0.78
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
        s = fg.reduce_sum(y)
    g = tape.gradient(s, x).numpy()
    np.testing.assert_allclose(g, y.numpy(), rtol=1e-6)   # the same mask, the same scale


def test_dropout_noise_shape_shares_draws():
    y = L.Dropout(0.5, noise_shape=(None, 1, None))(np.ones((3, 4, 5), np.float32),
                                                    training=True).numpy()
    assert (y == y[:, :1]).all()


@pytest.mark.parametrize("layer,shape,axes", [
    (L.SpatialDropout1D(0.5), (4, 6, 8), (1,)),
    (L.SpatialDropout2D(0.5), (4, 3, 3, 8), (1, 2)),
    (L.SpatialDropout2D(0.5, data_format="channels_first"), (4, 8, 3, 3), (2, 3)),
    (L.SpatialDropout3D(0.5), (2, 2, 2, 2, 8), (1, 2, 3)),
])
def test_spatial_dropout_drops_whole_channels(layer, shape, axes):
    y = layer(np.ones(shape, np.float32), training=True).numpy()
    first = y[tuple(slice(0, 1) if a in axes else slice(None) for a in range(len(shape)))]
    assert (y == first).all() and set(np.unique(y).tolist()) <= {0., 2.}
    np.testing.assert_array_equal(layer(np.ones(shape, np.float32)).numpy(), np.ones(shape))


def test_rate_must_be_in_range():
    with pytest.raises(ValueError, match="rate"):
        L.Dropout(1.5)


@pytest.mark.parametrize("name,kwargs,shape", [
    ("Dropout", dict(rate=0.3), (2, 5)), ("Dropout", dict(rate=0.3, noise_shape=(2, 1)), (2, 5)),
    ("SpatialDropout1D", dict(rate=0.3), (2, 4, 3)),
    ("SpatialDropout2D", dict(rate=0.3), (2, 4, 4, 3))])
def test_inference_matches_keras(name, kwargs, shape):
    keras = keras_module()
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    assert_matches_keras(ours, theirs, [randn(*shape)])
    assert_config_keys_match(ours, theirs, ignore=("trainable", "dtype"))


def test_gaussian_noise_and_dropout_statistics():
    x = np.ones((400, 50), np.float32)
    noisy = L.GaussianNoise(0.5, seed=1)(x, training=True).numpy() - 1
    assert abs(noisy.mean()) < 0.02 and abs(noisy.std() - 0.5) < 0.02
    mult = L.GaussianDropout(0.2, seed=1)(x, training=True).numpy()
    assert abs(mult.mean() - 1) < 0.02 and abs(mult.std() - 0.5) < 0.02
    np.testing.assert_array_equal(L.GaussianNoise(0.5)(x).numpy(), x)


def test_activity_regularization_adds_its_loss():
    layer = L.ActivityRegularization(l1=0.1, l2=0.01)
    x = randn(3, 4)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    np.testing.assert_allclose(float(layer.losses[0]),
                               (0.1 * np.abs(x).sum() + 0.01 * (x ** 2).sum()) / 3, rtol=1e-5)


@pytest.mark.parametrize("name,kwargs", [
    ("GaussianNoise", dict(stddev=0.3)), ("GaussianDropout", dict(rate=0.3)),
    ("ActivityRegularization", dict(l1=0.1, l2=0.2))])
def test_noise_layers_match_keras(name, kwargs):
    keras = keras_module()
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    assert_matches_keras(ours, theirs, [randn(2, 5)])
    assert_config_keys_match(ours, theirs)
    if name == "ActivityRegularization":
        x = randn(2, 5)
        ours(x)
        theirs(x)
        np.testing.assert_allclose(float(ours.losses[0]), float(theirs.losses[0]), rtol=1e-5)


def test_alpha_dropout_keeps_mean_and_variance():
    x = randn(400, 100)
    y = L.AlphaDropout(0.2, seed=3)(x, training=True).numpy()
    assert abs(y.mean() - x.mean()) < 0.02 and abs(y.std() - x.std()) < 0.03
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = (0.8 * (1 + 0.2 * alpha_p ** 2)) ** -0.5
    dropped = np.isclose(y, a * alpha_p - a * alpha_p * 0.2, atol=1e-5)
    assert 0.18 < dropped.mean() < 0.22                           # SELU's saturation value
    np.testing.assert_allclose(y[~dropped], a * x[~dropped] - a * alpha_p * 0.2, rtol=1e-5)
    np.testing.assert_array_equal(L.AlphaDropout(0.2)(x).numpy(), x)


def test_alpha_dropout_inference_matches_keras():
    keras = keras_module()
    assert_matches_keras(L.AlphaDropout(0.3), keras.layers.AlphaDropout(0.3), [randn(2, 5)])
    assert_config_keys_match(L.AlphaDropout(0.3), keras.layers.AlphaDropout(0.3))
