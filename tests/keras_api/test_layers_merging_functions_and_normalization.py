"""The functional merge forms, Wrapper, Normalization (adapt): closed forms and
Keras 3's values."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers


def test_functional_merge_forms():
    a, b = randn(2, 3), randn(2, 3, seed=1)
    np.testing.assert_allclose(L.add([a, b]).numpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose(L.subtract([a, b]).numpy(), a - b, rtol=1e-6)
    np.testing.assert_allclose(L.multiply([a, b]).numpy(), a * b, rtol=1e-6)
    np.testing.assert_allclose(L.average([a, b]).numpy(), (a + b) / 2, rtol=1e-6)
    np.testing.assert_allclose(L.maximum([a, b]).numpy(), np.maximum(a, b))
    np.testing.assert_allclose(L.minimum([a, b]).numpy(), np.minimum(a, b))
    np.testing.assert_allclose(L.concatenate([a, b], axis=0).numpy(), np.concatenate([a, b]))
    np.testing.assert_allclose(L.dot([a, b], axes=1).numpy()[:, 0], (a * b).sum(1), rtol=1e-5)


def test_wrapper_builds_and_tracks_the_wrapped_layer():
    class Scaled(L.Wrapper):
        def call(self, x):
            return 3. * self.layer(x)

    dense = L.Dense(2)
    layer = Scaled(dense)
    x = randn(2, 4)
    np.testing.assert_allclose(layer(x).numpy(), 3. * dense(x).numpy(), rtol=1e-6)
    assert len(layer.trainable_weights) == 2
    assert Scaled.from_config(layer.get_config()).layer.units == 2


def test_normalization_adapt_on_batches_equals_whole_data():
    data = randn(50, 3) * [1., 5., 10.] + [0., 2., -3.]
    whole, batched = L.Normalization(), L.Normalization()
    whole.adapt(data)
    batched.adapt([data[:20], data[20:35], data[35:]])
    np.testing.assert_allclose(batched.adapt_mean.numpy(), data.mean(0), rtol=1e-5)
    np.testing.assert_allclose(batched.adapt_variance.numpy(), data.var(0), rtol=1e-5)
    y = whole(data).numpy()
    np.testing.assert_allclose(y.mean(0), 0., atol=1e-5)
    np.testing.assert_allclose(y.std(0), 1., rtol=1e-4)
    back = L.Normalization(mean=data.mean(0), variance=data.var(0), invert=True)
    np.testing.assert_allclose(back(y).numpy(), data, rtol=1e-4, atol=1e-4)
    layer = L.Normalization(axis=None)
    layer.adapt(fg.data.Dataset.from_tensor_slices(data).batch(16))
    np.testing.assert_allclose(float(layer.adapt_mean.numpy()), data.mean(), rtol=1e-5)


@pytest.mark.parametrize("kwargs", [{}, dict(axis=None), dict(axis=(1, 2)),
                                    dict(mean=[1., 2., 3.], variance=[4., 5., 6.]),
                                    dict(mean=1., variance=4., invert=True)])
def test_normalization_matches_keras(kwargs):
    keras = keras_module()
    ours, theirs = L.Normalization(**kwargs), keras.layers.Normalization(**kwargs)
    x = randn(4, 2, 3) * 3 + 1
    if "mean" not in kwargs:
        ours.adapt(x)
        theirs.adapt(x)
    assert_matches_keras(ours, theirs, [x], rtol=1e-5, atol=1e-5)
    assert_config_keys_match(ours, theirs, ignore=("axis", "mean", "variance"))


def test_merge_forms_match_keras():
    keras = keras_module()
    a, b = randn(2, 3), randn(2, 3, seed=1)
    for name in ("add", "subtract", "multiply", "average", "maximum", "minimum",
                 "concatenate"):
        np.testing.assert_allclose(getattr(L, name)([a, b]).numpy(),
                                   np.asarray(getattr(keras.layers, name)([a, b])), rtol=1e-6)
