"""Activation, ReLU, LeakyReLU, PReLU, ELU, Softmax: closed forms, finite differences and
Keras 3's outputs and gradients."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers
X = np.array([[-3., -1., -0.25, 0.5, 1.5, 7.]], np.float32)


def test_relu_options_closed_form():
    x = X[0]
    y = L.ReLU(max_value=2., negative_slope=0.1, threshold=0.5)(X).numpy()[0]
    np.testing.assert_allclose(y, np.where(x > 0.5, np.minimum(x, 2.), 0.) -
                               0.1 * np.maximum(0.5 - x, 0.), rtol=1e-6)
    with pytest.raises(ValueError, match="max_value"):
        L.ReLU(max_value=-1.)


def test_leaky_relu_elu_closed_forms():
    x = X[0]
    np.testing.assert_allclose(L.LeakyReLU()(X).numpy()[0], np.where(x > 0, x, 0.3 * x),
                               rtol=1e-6)
    np.testing.assert_allclose(L.ELU(alpha=0.5)(X).numpy()[0],
                               np.where(x > 0, x, 0.5 * np.expm1(x)), rtol=1e-6)


def test_prelu_shared_axes_and_gradient():
    layer = L.PReLU(alpha_initializer="ones", shared_axes=[1], dtype="float64")
    x = randn(2, 3, 4, dtype=np.float64)
    layer(x)
    assert layer.alpha.shape == (1, 4)
    layer.alpha.assign(np.full((1, 4), 0.25))
    np.testing.assert_allclose(layer(x).numpy(), np.where(x > 0, x, 0.25 * x))
    with fg.GradientTape() as tape:
        loss = fg.reduce_sum(layer(x))
    np.testing.assert_allclose(tape.gradient(loss, layer.alpha).numpy(),
                               np.minimum(x, 0).sum(axis=(0, 1))[None], rtol=1e-12)


def test_softmax_mask_and_finite_differences():
    x = randn(2, 5, dtype=np.float64)
    mask = np.array([[True, True, False, True, False], [False] * 5])
    y = L.Softmax(dtype="float64")(fg.constant(x), mask=fg.constant(mask)).numpy()
    e = np.exp(x[0, mask[0]] - x[0, mask[0]].max())
    np.testing.assert_allclose(y[0, mask[0]], e / e.sum(), rtol=1e-12)
    assert not y[0, ~mask[0]].any() and not y[1].any()
    fg.testing.check_gradients(lambda t: L.Softmax(axis=0, dtype="float64")(t), [x])


def test_activation_layer_applies_a_named_function():
    np.testing.assert_allclose(L.Activation("sigmoid")(X).numpy(), 1 / (1 + np.exp(-X)),
                               rtol=1e-6)


CASES = [("Activation", dict(activation="tanh")), ("ReLU", {}),
         ("ReLU", dict(max_value=6.)), ("ReLU", dict(max_value=2., negative_slope=0.2,
                                                     threshold=0.3)),
         ("LeakyReLU", {}), ("LeakyReLU", dict(negative_slope=0.05)), ("ELU", {}),
         ("ELU", dict(alpha=0.7)), ("Softmax", {}), ("Softmax", dict(axis=1)),
         ("Softmax", dict(axis=(1, 2))), ("PReLU", {}), ("PReLU", dict(shared_axes=[1, 2]))]


@pytest.mark.parametrize("name,kwargs", CASES)
def test_matches_keras(name, kwargs):
    keras = keras_module()
    x = randn(2, 3, 4)
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    if name == "PReLU":
        ours.build(x.shape)
        theirs.build(x.shape)
        theirs.set_weights([randn(*theirs.alpha.shape, seed=3)])
    assert_matches_keras(ours, theirs, [x])
    assert_config_keys_match(ours, theirs)


def test_softmax_mask_matches_keras():
    keras = keras_module()
    x = randn(2, 4)
    mask = np.array([[1, 1, 0, 1], [0, 0, 0, 0]], bool)

    def call(layer, xs, kwargs):
        return layer(xs[0], mask=xs[1])
    assert_matches_keras(L.Softmax(), keras.layers.Softmax(), [x, mask], call=call)
