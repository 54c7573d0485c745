"""finegrad.keras.activations: closed forms and gradients, then Keras 3's values."""
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad.keras import activations as A

X = np.array([[-4., -1.5, -1., -0.3, 0., 0.4, 1., 2.5, 7.]], np.float32)
NAMES = ["relu", "leaky_relu", "relu6", "softmax", "celu", "elu", "selu", "softplus",
         "softsign", "squareplus", "soft_shrink", "sparse_plus", "silu", "gelu", "tanh",
         "tanh_shrink", "sigmoid", "sparse_sigmoid", "exponential", "hard_sigmoid", "hard_silu",
         "hard_tanh", "hard_shrink", "linear", "mish", "log_softmax", "log_sigmoid", "sparsemax",
         "swish", "hard_swish"]


def test_closed_forms():
    x = X[0]
    np.testing.assert_allclose(A.relu(x, max_value=2., threshold=0.5).numpy(),
                               np.where(x > 0.5, np.minimum(x, 2.), 0.))
    np.testing.assert_allclose(A.relu(x, negative_slope=0.1, threshold=1.).numpy(),
                               np.where(x > 1., x, 0.) - 0.1 * np.maximum(1. - x, 0.), rtol=1e-6)
    np.testing.assert_allclose(A.hard_sigmoid(x).numpy(), np.clip(x / 6 + 0.5, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(A.mish(x).numpy(), x * np.tanh(np.log1p(np.exp(x))), rtol=1e-5)
    np.testing.assert_allclose(A.softmax(X, axis=-1).numpy().sum(), 1., rtol=1e-6)
    s = A.sparsemax(fg.constant([[0.5, 0.3, -2.]])).numpy()
    np.testing.assert_allclose(s, [[0.6, 0.4, 0.]], atol=1e-6)
    np.testing.assert_allclose(A.glu(fg.constant([[1., 2., 0., 0.]])).numpy(), [[0.5, 1.]])


def test_gradients_flow_through():
    x = fg.constant([-1., 2.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(A.get("elu")(x) + A.relu(x, max_value=1.))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [np.exp(-1.), 1.], rtol=1e-6)


def test_get_and_serialize():
    assert A.get(None) is A.linear and A.get("swish") is A.silu
    assert A.get(np.tanh) is np.tanh
    assert A.serialize(A.hard_silu) == "hard_silu"
    with pytest.raises(ValueError, match="could not interpret"):
        A.get("nope")
    with pytest.raises(ValueError, match="even size"):
        A.glu(fg.ones((2, 3)))


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    return pytest.importorskip("keras")


@pytest.mark.parametrize("name", NAMES)
def test_values_equal_keras(keras, name):
    ours = np.asarray(A.get(name)(fg.constant(X)))
    theirs = np.asarray(keras.activations.get(name)(X))
    np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("kwargs", [dict(negative_slope=0.2), dict(max_value=6.),
                                    dict(max_value=1.5, threshold=0.5),
                                    dict(negative_slope=0.3, max_value=2., threshold=-0.5)])
def test_relu_options_equal_keras(keras, kwargs):
    np.testing.assert_allclose(A.relu(fg.constant(X), **kwargs).numpy(),
                               np.asarray(keras.activations.relu(X, **kwargs)), rtol=1e-6)


def test_parametrized_equal_keras(keras):
    ka = keras.activations
    for ours, theirs in [(A.elu(X, 0.5), ka.elu(X, 0.5)), (A.celu(X, 2.), ka.celu(X, 2.)),
                         (A.gelu(X, True), ka.gelu(X, True)),
                         (A.leaky_relu(X, 0.01), ka.leaky_relu(X, 0.01)),
                         (A.threshold(X, 0.5, -2.), ka.threshold(X, 0.5, -2.)),
                         (A.glu(X[:, :8]), ka.glu(X[:, :8])),
                         (A.softmax(X.T, axis=0), ka.softmax(X.T, axis=0))]:
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-6, atol=1e-6)
