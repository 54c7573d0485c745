"""finegrad.keras.initializers: closed forms, then Keras 3's own values (seeded draws agree
with Keras on TensorFlow, which uses the same stateless kernels)."""
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad._src.keras.initializers import compute_fans
from finegrad.keras import initializers as I

SEEDED = ["GlorotUniform", "GlorotNormal", "HeUniform", "HeNormal", "LecunUniform",
          "LecunNormal", "RandomNormal", "RandomUniform", "TruncatedNormal", "Orthogonal"]


def test_constant_zeros_ones_identity():
    assert np.array_equal(I.Zeros()((2, 3)).numpy(), np.zeros((2, 3), np.float32))
    assert I.Ones()((2,), "float64").dtype == fg.float64
    assert np.array_equal(I.Constant(2.5)((2,)).numpy(), [2.5, 2.5])
    assert np.array_equal(I.Identity(3.)((2, 3)).numpy(), 3 * np.eye(2, 3))
    with pytest.raises(ValueError, match="2-D"):
        I.Identity()((2, 2, 2))


@pytest.mark.parametrize("name", SEEDED)
def test_seeded_is_deterministic_and_unseeded_instances_differ(name):
    cls = getattr(I, name)
    a = cls(seed=3)((4, 5)).numpy()
    assert np.array_equal(a, cls(seed=3)((4, 5)).numpy())
    assert not np.array_equal(a, cls(seed=4)((4, 5)).numpy())
    init = cls()
    assert np.array_equal(init((4, 5)).numpy(), init((4, 5)).numpy())   # Keras 3: per instance
    assert not np.array_equal(init((4, 5)).numpy(), cls()((4, 5)).numpy())


def test_variance_scaling_bounds_and_fans():
    assert compute_fans((3, 3, 4, 8)) == (36, 72)
    assert compute_fans((5,)) == (5, 5) and compute_fans(()) == (1, 1)
    x = I.GlorotUniform(seed=1)((300, 100)).numpy()
    limit = np.sqrt(6 / 400)
    assert np.abs(x).max() <= limit and np.abs(x).max() > 0.95 * limit
    x = I.HeNormal(seed=1)((2000, 50)).numpy()
    assert abs(x.std() - np.sqrt(2 / 2000)) < 0.05 * np.sqrt(2 / 2000)
    assert np.abs(x).max() <= 2 * np.sqrt(2 / 2000) / 0.87962566103423978 + 1e-6
    with pytest.raises(ValueError, match="mode"):
        I.VarianceScaling(mode="fan_x")


def test_orthogonal_is_orthogonal():
    q = I.Orthogonal(gain=2., seed=5)((3, 5)).numpy()
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(3), atol=1e-5)
    with pytest.raises(ValueError, match="at least 2"):
        I.Orthogonal()((3,))


def test_get_serialize_roundtrip():
    assert isinstance(I.get("glorot_uniform"), I.GlorotUniform)
    assert isinstance(I.get(I.Zeros), I.Zeros)
    init = I.VarianceScaling(2., "fan_out", "uniform", seed=7)
    back = I.deserialize(I.serialize(init))
    assert back.get_config() == init.get_config()
    assert np.array_equal(back((3, 2)).numpy(), init((3, 2)).numpy())
    with pytest.raises(ValueError, match="could not interpret"):
        I.get("nope")


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    return pytest.importorskip("keras")


@pytest.mark.parametrize("name", SEEDED + ["VarianceScaling"])
@pytest.mark.parametrize("shape", [(4, 6), (3, 3, 2, 5), (7,)])
def test_seeded_values_equal_keras(keras, name, shape):
    if name == "Orthogonal" and len(shape) < 2:
        pytest.skip("Orthogonal needs 2 dimensions")
    ours = getattr(I, name)(seed=11)(shape).numpy()
    theirs = np.asarray(getattr(keras.initializers, name)(seed=11)(shape))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_configs_equal_keras(keras):
    for name in SEEDED + ["Zeros", "Ones", "Constant", "VarianceScaling"]:
        ours = getattr(I, name)().get_config()
        theirs = getattr(keras.initializers, name)().get_config()
        assert ours == theirs, name
