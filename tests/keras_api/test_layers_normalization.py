"""BatchNormalization, LayerNormalization, GroupNormalization: closed forms, moving
statistics, finite differences, and Keras 3's values and gradients."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers


def test_batch_norm_training_and_inference():
    x = randn(8, 3) * 2 + 1
    bn = L.BatchNormalization(momentum=0.9)
    y = bn(x, training=True).numpy()
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
    assert [w.name for w in bn.non_trainable_weights] == ["moving_mean", "moving_variance"]
    assert [w.name for w in bn.trainable_weights] == ["gamma", "beta"]
    y_inf = bn(x).numpy()
    np.testing.assert_allclose(y_inf, (x - bn.moving_mean.numpy()) /
                               np.sqrt(bn.moving_variance.numpy() + 1e-3), rtol=1e-5)
    bn.trainable = False
    before = bn.moving_mean.numpy().copy()
    bn(x, training=True)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)


def test_batch_norm_float16_input_under_mixed_precision():
    bn = L.BatchNormalization(dtype="mixed_float16")
    y = bn(randn(4, 3), training=True)
    assert y.dtype == fg.float16 and bn.gamma.dtype == fg.float32


def test_layer_norm_closed_form_and_rms_scaling():
    x = randn(2, 3, 5)
    ln = L.LayerNormalization(axis=[1, 2])
    m = x.mean((1, 2), keepdims=True)
    v = x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(ln(x).numpy(), (x - m) / np.sqrt(v + 1e-3), rtol=1e-4,
                               atol=1e-5)
    assert ln.gamma.shape == (3, 5)
    rms = L.LayerNormalization(rms_scaling=True)
    np.testing.assert_allclose(rms(x).numpy(), x / np.sqrt(x.var(-1, keepdims=True) + 1e-3),
                               rtol=1e-4, atol=1e-5)
    assert rms.beta is None


def test_group_norm_closed_form():
    x = randn(2, 3, 4)
    g = x.reshape(2, 3, 2, 2)
    m, v = g.mean((1, 3), keepdims=True), g.var((1, 3), keepdims=True)
    expected = ((g - m) / np.sqrt(v + 1e-3)).reshape(2, 3, 4)
    np.testing.assert_allclose(L.GroupNormalization(groups=2)(x).numpy(), expected, rtol=1e-4,
                               atol=1e-5)
    with pytest.raises(ValueError, match="groups"):
        L.GroupNormalization(groups=3)(x)


@pytest.mark.parametrize("make", [
    lambda: L.LayerNormalization(dtype="float64"),
    lambda: L.GroupNormalization(groups=2, dtype="float64"),
    lambda: L.BatchNormalization(dtype="float64"),
])
def test_finite_differences(make):
    layer = make()
    x = randn(4, 3, 4, dtype=np.float64)
    layer(x)
    for w in layer.trainable_weights:
        w.assign(randn(*w.shape, seed=4, dtype=np.float64))
    train = isinstance(layer, L.BatchNormalization)
    fg.testing.check_gradients(lambda t: layer(t, training=train) if train else layer(t), [x],
                               order=1)


BN = [dict(), dict(axis=1, momentum=0.5), dict(center=False, scale=False, epsilon=0.1)]
CASES = [("BatchNormalization", dict(kw, training=t)) for kw in BN for t in (False, True)] + [
         ("LayerNormalization", {}), ("LayerNormalization", dict(axis=[1, 2])),
         ("LayerNormalization", dict(rms_scaling=True)),
         ("LayerNormalization", dict(center=False, epsilon=1e-5)),
         ("GroupNormalization", dict(groups=2)), ("GroupNormalization", dict(groups=-1)),
         ("GroupNormalization", dict(groups=3, axis=1))]


def _randomize(theirs, shape):
    theirs.build(shape)
    weights = [randn(*w.shape, seed=i + 1) for i, w in enumerate(theirs.weights)]
    for w, v in zip(theirs.weights, weights, strict=True):
        if "variance" in w.name:
            v[...] = np.abs(v) + 0.5
    theirs.set_weights(weights)


@pytest.mark.parametrize("name,kwargs", CASES)
def test_matches_keras(name, kwargs):
    keras = keras_module()
    kwargs = dict(kwargs)
    training = kwargs.pop("training", None)
    shape = (4, 6, 4) if kwargs.get("axis") == 1 else (4, 3, 4)
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    _randomize(theirs, shape)
    x = randn(*shape)
    extra = {} if training is None else dict(training=training)
    assert_matches_keras(ours, theirs, [x], rtol=1e-4, atol=1e-5, **extra)
    if name == "BatchNormalization":   # the moving statistics moved alike (twice: 2 calls)
        for a, b in zip(ours.non_trainable_weights, theirs.non_trainable_weights, strict=True):
            np.testing.assert_allclose(a.numpy(), np.asarray(b), rtol=1e-5, atol=1e-6)
    assert_config_keys_match(ours, theirs, ignore=("axis", "renorm", "renorm_clipping",
                                                   "renorm_momentum"))


def test_batch_norm_mask_matches_keras():
    keras = keras_module()
    mask = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]], bool)

    def call(layer, xs, kwargs):
        return layer(xs[0], mask=xs[1], training=True)
    ours, theirs = L.BatchNormalization(), keras.layers.BatchNormalization()
    _randomize(theirs, (4, 3, 4))
    assert_matches_keras(ours, theirs, [randn(4, 3, 4), mask], call=call, rtol=1e-4,
                         atol=1e-5)


def test_rms_and_unit_normalization_closed_forms():
    x = randn(2, 3, 4)
    np.testing.assert_allclose(L.RMSNormalization()(x).numpy(),
                               x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6), rtol=1e-5)
    np.testing.assert_allclose(L.UnitNormalization(axis=[1, 2])(x).numpy(),
                               x / np.sqrt((x ** 2).sum((1, 2), keepdims=True)), rtol=1e-5)
    layer = L.RMSNormalization(dtype="float64")
    fg.testing.check_gradients(lambda t: layer(t), [randn(2, 4, dtype=np.float64)])


@pytest.mark.parametrize("name,kwargs", [("RMSNormalization", {}),
                                         ("RMSNormalization", dict(axis=[1, 2], epsilon=0.1)),
                                         ("UnitNormalization", {}),
                                         ("UnitNormalization", dict(axis=[1, 2]))])
def test_rms_and_unit_match_keras(name, kwargs):
    keras = keras_module()
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    if name == "RMSNormalization":
        _randomize(theirs, (2, 3, 4))
    assert_matches_keras(ours, theirs, [randn(2, 3, 4)], rtol=1e-5, atol=1e-6)
    assert_config_keys_match(ours, theirs, ignore=("axis",))
