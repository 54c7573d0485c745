"""Weights: get_weights/set_weights, save_weights/load_weights in Keras 3's ``.weights.h5``
layout (h5py) and the same layout in ``.npz``; files interchangeable with Keras 3's."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import finegrad as tf
from finegrad._src.keras.saving import collect

K = tf.keras
L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_session():
    K.backend.clear_session()
    yield
    K.backend.clear_session()


def _mlp():
    return K.Sequential([K.Input((4,)), L.Dense(3), L.BatchNormalization(), L.Dense(2)])


def _randomize(model, seed=0):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(size=w.shape).astype("f4") for w in model.get_weights()])


def test_get_and_set_weights():
    m = _mlp()
    weights = m.get_weights()
    assert [w.shape for w in weights] == [(4, 3), (3,), (3,), (3,), (3,), (3,), (3, 2), (2,)]
    _randomize(m)
    assert not np.allclose(m.get_weights()[0], weights[0])
    with pytest.raises(ValueError, match="expecting 8 weights"):
        m.set_weights(weights[:2])
    with pytest.raises(ValueError, match="not compatible"):
        m.set_weights([np.zeros((5, 3))] + weights[1:])


@pytest.mark.parametrize("suffix", [".weights.h5", ".npz"])
def test_round_trip(tmp_path, suffix):
    if suffix.endswith("h5"):
        pytest.importorskip("h5py")
    m = _mlp()
    _randomize(m)
    path = str(tmp_path / f"m{suffix}")
    m.save_weights(path)
    other = _mlp()
    other.load_weights(path)
    for a, b in zip(m.get_weights(), other.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_h5_layout_is_keras(tmp_path):
    h5py = pytest.importorskip("h5py")
    m = _mlp()
    path = str(tmp_path / "m.weights.h5")
    m.save_weights(path)
    with h5py.File(path) as f:
        groups = {}

        def visit(name, obj):
            groups[name] = getattr(obj, "shape", None)   # (returning None: visit them all)
        f.visititems(visit)
        assert f["layers/dense_1/vars"].attrs["name"] == "dense_1"
        assert f["vars"].attrs["name"] == "sequential"
    assert groups["layers/dense/vars/0"] == (4, 3)
    assert groups["layers/batch_normalization/vars/3"] == (3,)
    assert groups["layers/dense_1/vars/1"] == (2,)


def test_subclassed_paths_follow_attributes(tmp_path):
    class S(K.Model):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(3)
            self.blocks = [L.Dense(2), L.Dense(1)]
            self.v = self.add_weight(shape=(2,), name="myvar")

        def call(self, x):
            return self.blocks[1](self.blocks[0](self.d(x)))

    s = S()
    s(np.ones((2, 4), np.float32))
    paths = {p: [tuple(v.shape) for v in vs] for p, (_, vs) in collect(s).items()}
    # Keras 3.15's file for the same model: blocks/dense, blocks/dense_1, d, and the root
    assert paths == {"": [(2,)], "blocks/dense": [(3, 2), (2,)],
                     "blocks/dense_1": [(2, 1), (1,)], "d": [(4, 3), (3,)]}


def test_mismatch_errors(tmp_path):
    m = _mlp()
    path = str(tmp_path / "m.npz")
    m.save_weights(path)
    other = K.Sequential([K.Input((4,)), L.Dense(3), L.BatchNormalization(), L.Dense(5)])
    with pytest.raises(ValueError, match="shape"):
        other.load_weights(path)
    with pytest.warns(UserWarning, match="shape"):
        other.load_weights(path, skip_mismatch=True)
    np.testing.assert_array_equal(other.get_weights()[0], m.get_weights()[0])
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        m.save_weights(str(tmp_path / "m.h5"))
    with pytest.raises(FileNotFoundError):
        m.load_weights(str(tmp_path / "absent.npz"))


def _run_keras(code):
    env = dict(os.environ, KERAS_BACKEND="tensorflow", TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_files_load_in_keras_and_back(tmp_path):
    pytest.importorskip("h5py")
    pytest.importorskip("keras")
    m = _mlp()
    _randomize(m, seed=3)
    mine, theirs = str(tmp_path / "fg.weights.h5"), str(tmp_path / "k.weights.h5")
    m.save_weights(mine)
    x = np.linspace(-1, 1, 8, dtype="f4").reshape(2, 4)
    np.save(tmp_path / "x.npy", x)
    _run_keras(f"""
        import numpy as np, keras
        m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3),
                              keras.layers.BatchNormalization(), keras.layers.Dense(2)])
        m.load_weights({mine!r})
        np.save({str(tmp_path / 'y.npy')!r}, np.asarray(m(np.load({str(tmp_path / 'x.npy')!r}))))
        rng = np.random.default_rng(7)
        m.set_weights([rng.normal(size=w.shape).astype("f4") for w in m.get_weights()])
        m.save_weights({theirs!r})
        np.save({str(tmp_path / 'y2.npy')!r}, np.asarray(m(np.load({str(tmp_path / 'x.npy')!r}))))
        """)
    np.testing.assert_allclose(m(x).numpy(), np.load(tmp_path / "y.npy"), rtol=1e-5)
    m.load_weights(theirs)
    np.testing.assert_allclose(m(x).numpy(), np.load(tmp_path / "y2.npy"), rtol=1e-5)


def test_registered_custom_layer_round_trips_through_a_config():
    @K.utils.register_keras_serializable(package="tests")
    class Scale(L.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    x = K.Input((2,))
    model = K.Model(x, Scale(3.0)(L.Dense(2)(x)))
    config = model.get_config()
    assert config["layers"][2]["registered_name"] == "tests>Scale"
    again = K.Model.from_config(config)
    assert again.layers[-1].factor == 3.0 and type(again.layers[-1]) is Scale


def test_to_categorical_and_seeding():
    # Keras 3: to_categorical([[1], [0]], 3) -> [[0, 1, 0], [1, 0, 0]] (float32)
    out = K.utils.to_categorical(np.array([[1], [0]]), 3)
    np.testing.assert_array_equal(out, [[0, 1, 0], [1, 0, 0]])
    assert out.dtype == np.float32
    K.utils.set_random_seed(3)
    a = np.random.rand()
    K.utils.set_random_seed(3)
    assert np.random.rand() == a
