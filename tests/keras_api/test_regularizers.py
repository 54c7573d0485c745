"""finegrad.keras.regularizers and constraints: closed forms, then Keras 3's values."""
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad.keras import constraints as C
from finegrad.keras import regularizers as R

W = np.array([[0.5, -1.5, 2.], [3., 0.25, -0.75]], np.float32)


def test_regularizer_closed_forms():
    assert float(R.L1(0.1)(W)) == pytest.approx(0.1 * np.abs(W).sum(), rel=1e-6)
    assert float(R.L2(0.1)(W)) == pytest.approx(0.1 * (W ** 2).sum(), rel=1e-6)
    assert float(R.L1L2(0.1, 0.2)(W)) == pytest.approx(
        0.1 * np.abs(W).sum() + 0.2 * (W ** 2).sum(), rel=1e-6)
    eye = np.eye(3, dtype=np.float32)
    assert float(R.OrthogonalRegularizer(1., "columns")(eye)) == 0.
    with pytest.raises(ValueError, match="non-negative"):
        R.L2(-1.)
    with pytest.raises(ValueError, match="rank 2"):
        R.OrthogonalRegularizer()(np.ones(3, np.float32))


def test_constraint_closed_forms():
    norms = np.sqrt((W ** 2).sum(0, keepdims=True))
    np.testing.assert_allclose(C.UnitNorm()(W).numpy(), W / (1e-7 + norms), rtol=1e-6)
    np.testing.assert_allclose(C.MaxNorm(1.)(W).numpy(),
                               W * np.minimum(norms, 1.) / (1e-7 + norms), rtol=1e-6)
    np.testing.assert_array_equal(C.NonNeg()(W).numpy(), np.maximum(W, 0))


def test_regularizer_gradient():
    v = fg.Variable(W)
    with fg.GradientTape() as tape:
        loss = R.L1L2(0.1, 0.2)(v)
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), 0.1 * np.sign(W) + 0.4 * W,
                               rtol=1e-6)


def test_get():
    assert isinstance(R.get("l2"), R.L2) and R.get(None) is None
    assert isinstance(C.get("max_norm"), C.MaxNorm)
    back = C.deserialize(C.serialize(C.MinMaxNorm(0.5, 2., 0.7, axis=1)))
    assert back.get_config() == {"min_value": 0.5, "max_value": 2., "rate": 0.7, "axis": 1}
    with pytest.raises(ValueError, match="could not interpret"):
        R.get("nope")


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    return pytest.importorskip("keras")


@pytest.mark.parametrize("make", [lambda m: m.L1(0.3), lambda m: m.L2(0.3),
                                  lambda m: m.L1L2(0.1, 0.2),
                                  lambda m: m.OrthogonalRegularizer(0.5),
                                  lambda m: m.OrthogonalRegularizer(0.5, "columns")])
def test_regularizers_equal_keras(keras, make):
    np.testing.assert_allclose(float(make(R)(fg.constant(W))),
                               float(make(keras.regularizers)(keras.ops.convert_to_tensor(W))),
                               rtol=1e-6)
    ours, theirs = make(R).get_config(), make(keras.regularizers).get_config()
    assert ours.keys() == theirs.keys()
    for k in ours:   # (Keras's L1 keeps l1 rounded to float32)
        assert ours[k] == (theirs[k] if isinstance(theirs[k], str) else pytest.approx(theirs[k]))


@pytest.mark.parametrize("make", [lambda m: m.MaxNorm(1.5), lambda m: m.MaxNorm(2., axis=1),
                                  lambda m: m.NonNeg(), lambda m: m.UnitNorm(axis=1),
                                  lambda m: m.MinMaxNorm(1., 2.5, 0.6)])
def test_constraints_equal_keras(keras, make):
    np.testing.assert_allclose(make(C)(fg.constant(W)).numpy(),
                               np.asarray(make(keras.constraints)(W)), rtol=1e-6)
    assert make(C).get_config() == make(keras.constraints).get_config()
