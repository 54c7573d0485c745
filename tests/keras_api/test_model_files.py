"""Whole-model files: ``model.save("m.keras")`` / ``keras.saving.load_model`` in Keras 3's
format (zip of config.json, metadata.json, model.weights.h5), configs of any object, JSON."""
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import finegrad as tf
from finegrad._src.keras import saving

K = tf.keras
L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_session():
    K.backend.clear_session()
    yield
    K.backend.clear_session()


def _data(seed=0, shape=(16, 4)):
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape).astype("f4"), rng.normal(size=(shape[0], 1)).astype("f4")


def _sequential():
    return K.Sequential([K.Input((4,)), L.Dense(5, activation="relu"), L.LayerNormalization(),
                         L.Dense(1)])


def _functional(dropout=0.0):
    a, b = K.Input((4,), name="a"), K.Input((2,), name="b")
    h = L.Dense(3, activation="tanh")(a)
    h = L.Concatenate()([h, L.Dense(2)(b)])
    h = L.BatchNormalization()(h)
    return K.Model([a, b], L.Dense(1)(L.Dropout(dropout)(h)))


def _train(model, x, y, epochs=1):
    model.compile(optimizer=K.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    model.fit(x, y, batch_size=4, epochs=epochs, verbose=0, shuffle=False)


def _all_values(model):
    return model.get_weights() + [v.numpy() for v in model.optimizer.variables]


@pytest.mark.parametrize("make", [_sequential, _functional])
def test_round_trip_keeps_weights_compile_config_and_optimizer_state(tmp_path, make):
    pytest.importorskip("h5py")
    x, y = _data()
    inputs = x if make is _sequential else [x, x[:, :2]]
    model = make()
    _train(model, inputs, y)
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
        config = json.loads(zf.read("config.json"))
    assert config["compile_config"]["loss"] == "mse"
    assert config["compile_config"]["optimizer"]["class_name"] == "Adam"
    loaded = K.models.load_model(path)
    assert type(loaded) is type(model)
    assert int(loaded.optimizer.iterations.numpy()) == 4
    for a, b in zip(_all_values(model), _all_values(loaded), strict=True):
        np.testing.assert_array_equal(a, b)
    # training goes on from the same state: bit for bit the same as the original
    model.fit(inputs, y, batch_size=4, verbose=0, shuffle=False)
    loaded.fit(inputs, y, batch_size=4, verbose=0, shuffle=False)
    for a, b in zip(_all_values(model), _all_values(loaded), strict=True):
        np.testing.assert_array_equal(a, b)


def test_unzipped_directory_and_uncompiled_model(tmp_path):
    pytest.importorskip("h5py")
    model = _sequential()
    path = str(tmp_path / "m.keras")
    K.saving.save_model(model, path, zipped=False)
    assert sorted(os.listdir(path)) == ["config.json", "metadata.json", "model.weights.h5"]
    loaded = K.saving.load_model(path)
    assert not loaded.compiled
    x, _ = _data()
    np.testing.assert_array_equal(model(x).numpy(), loaded(x).numpy())


@K.saving.register_keras_serializable(package="files")
class Scaled(K.Model):
    def __init__(self, units=3, scale=2.0, **kwargs):
        super().__init__(**kwargs)
        self.units, self.scale = units, scale
        self.dense = L.Dense(units)
        self.out = L.Dense(1)

    def call(self, x):
        return self.out(self.dense(x) * self.scale)

    def get_config(self):
        return {**super().get_config(), "units": self.units, "scale": self.scale}


def test_subclassed_registered_model_round_trips(tmp_path):
    pytest.importorskip("h5py")
    x, y = _data(1)
    model = Scaled(4, 0.5)
    _train(model, x, y)
    config = K.saving.serialize_keras_object(model)
    assert config["registered_name"] == "files>Scaled"
    assert config["build_config"] == {"input_shape": (4, 4)}   # the first call's batch
    path = str(tmp_path / "s.keras")
    model.save(path)
    loaded = K.saving.load_model(path)
    assert type(loaded) is Scaled and (loaded.units, loaded.scale) == (4, 0.5)
    np.testing.assert_array_equal(model.predict(x, verbose=0), loaded.predict(x, verbose=0))
    for a, b in zip(_all_values(model), _all_values(loaded), strict=True):
        np.testing.assert_array_equal(a, b)


def test_custom_objects_and_unknown_classes(tmp_path):
    pytest.importorskip("h5py")

    class Twice(L.Layer):    # not registered
        def call(self, x):
            return 2. * x

    class Thrice(L.Layer):
        def call(self, x):
            return 3. * x

    x = K.Input((3,))
    model = K.Model(x, Twice()(L.Dense(2)(x)))
    path = str(tmp_path / "c.keras")
    model.save(path)
    v = np.ones((2, 3), np.float32)
    loaded = K.saving.load_model(path, custom_objects={"Twice": Thrice})   # given wins
    assert type(loaded.layers[-1]) is Thrice
    np.testing.assert_array_equal(1.5 * model(v).numpy(), loaded(v).numpy())
    with K.saving.custom_object_scope({"Twice": Thrice}):
        assert type(K.saving.load_model(path).layers[-1]) is Thrice
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members["config.json"] = members["config.json"].replace(b'"Twice"', b'"Unknown"')
    with zipfile.ZipFile(path, "w") as zf:
        for n, data in members.items():
            zf.writestr(n, data)
    with pytest.raises(TypeError, match="Could not locate class 'Unknown'"):
        K.saving.load_model(path)


def test_serialize_and_deserialize_objects():
    ser, de = K.saving.serialize_keras_object, K.saving.deserialize_keras_object
    # Keras 3.15's dicts for the same objects
    assert ser(K.activations.relu) == {"module": "builtins", "class_name": "function",
                                       "config": "relu", "registered_name": "function"}
    assert de(ser(K.activations.relu)) is K.activations.relu
    assert ser(np.array([1., 2.])) == {"class_name": "__numpy__",
                                       "config": {"value": [1.0, 2.0], "dtype": "float64"}}
    assert ser((1, 2)) == (1, 2) and ser(np.float32(0.5)) == 0.5
    loss = de(ser(K.losses.Huber(delta=2.0)))
    assert type(loss) is K.losses.Huber and loss.get_config()["delta"] == 2.0
    metric = de({"module": "keras.metrics", "class_name": "MeanSquaredError",
                 "config": {"name": "m"}, "registered_name": None})
    assert isinstance(metric, K.metrics.MeanSquaredError)   # not the loss of that name
    opt = de(ser(K.optimizers.SGD(0.25, momentum=0.5)))
    assert type(opt) is K.optimizers.SGD and opt.get_config()["momentum"] == 0.5
    with pytest.warns(UserWarning, match="lambda"):      # its bytecode, as Keras 3 saves it
        assert ser(lambda v: v)["class_name"] == "__lambda__"
    with pytest.raises(TypeError, match="Could not locate class 'Nope'"):
        de({"module": "keras.layers", "class_name": "Nope", "config": {},
            "registered_name": None})


def test_operators_are_saved_as_keras_ops(tmp_path):
    model = _operators()
    config = json.loads(model.to_json())["config"]
    ops = [(e["module"], e["class_name"]) for e in config["layers"]
           if e["module"] == "keras.src.ops.numpy"]
    # Keras 3.15 writes these for the same expression
    assert [c for _, c in ops] == ["Add", "Multiply", "TrueDivide", "Subtract", "Negative",
                                   "Absolute", "Power", "GetItem"]
    key = [e for e in config["layers"] if e["class_name"] == "GetItem"][0]
    assert key["inbound_nodes"][0]["args"][1] == [
        {"class_name": "__slice__", "config": {"start": None, "stop": None, "step": None}},
        {"class_name": "__slice__", "config": {"start": 0, "stop": 2, "step": None}}]
    again = K.models.model_from_json(model.to_json())
    again.set_weights(model.get_weights())
    x, _ = _data(4)
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())


def test_json_and_from_config_rebuild_new_weights():
    model = _functional()
    again = K.models.model_from_json(model.to_json())
    assert [type(la).__name__ for la in again.layers] == \
        [type(la).__name__ for la in model.layers]
    seq = _sequential()
    config = seq.get_config()
    assert config["build_input_shape"] == [None, 4]
    rebuilt = K.Sequential.from_config(config)
    assert rebuilt.built and [w.shape for w in rebuilt.get_weights()] == \
        [w.shape for w in seq.get_weights()]


def test_errors(tmp_path, monkeypatch):
    model = _sequential()
    with pytest.raises(ValueError, match="legacy HDF5"):
        model.save(str(tmp_path / "m.h5"))
    with pytest.raises(ValueError, match="`.keras` extension"):
        model.save(str(tmp_path / "m.pkl"))
    with pytest.raises(ValueError, match="File not found"):
        K.saving.load_model(str(tmp_path / "absent.keras"))
    monkeypatch.setattr(saving, "h5py_module", lambda: None)
    with pytest.raises(ImportError, match=r"h5py.*finegrad\[keras\]"):
        model.save(str(tmp_path / "m.keras"))


def _run_keras(code):
    env = dict(os.environ, KERAS_BACKEND="tensorflow", TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def _cnn():
    return K.Sequential([K.Input((6, 6, 1)), L.Conv2D(2, 3, padding="same", activation="relu"),
                         L.MaxPooling2D(), L.Flatten(), L.Dense(1)])


def _rnn():
    tokens = K.Input((5,), dtype="int32")
    h = L.LSTM(3)(L.Embedding(7, 4)(tokens))
    return K.Model(tokens, L.Dense(1)(L.Dropout(0.1)(h)))


def _operators():
    x = K.Input((4,))
    h = L.Dense(3)(x)
    y = abs(-((h + 1.0) * h - h / 2.0)) ** 2.0
    return K.Model(x, L.Dense(1)(y[:, 0:2]))


def _interop_cases():
    x, y = _data(2)
    rng = np.random.default_rng(3)
    return {"seq": (_sequential(), [x]), "fun": (_functional(0.2), [x, x[:, :2]]),
            "cnn": (_cnn(), [rng.normal(size=(16, 6, 6, 1)).astype("f4")]),
            "rnn": (_rnn(), [rng.integers(0, 7, size=(16, 5)).astype("int32")]),
            "ops": (_operators(), [x])}, y


def _inputs(arrays):
    return arrays[0] if len(arrays) == 1 else list(arrays)


def test_files_travel_both_ways_with_keras(tmp_path):
    """Sequential and functional models of common layers (Dense, LayerNormalization,
    BatchNormalization, Concatenate, Dropout, Conv2D, MaxPooling2D, Flatten, Embedding, LSTM,
    operators on symbolic tensors), compiled and trained: finegrad's file loads in Keras 3
    (same predictions, optimizer state, compile config) and Keras 3's in finegrad."""
    pytest.importorskip("h5py")
    pytest.importorskip("keras")
    cases, y = _interop_cases()
    np.save(tmp_path / "y.npy", y)
    for name, (model, arrays) in cases.items():
        np.savez(tmp_path / f"{name}_x.npz", *arrays)
        _train(model, _inputs(arrays), y)
        model.save(str(tmp_path / f"fg_{name}.keras"))
        np.save(tmp_path / f"fg_{name}_pred.npy", model.predict(_inputs(arrays), verbose=0))
        np.savez(tmp_path / f"fg_{name}_opt.npz", *[v.numpy() for v in model.optimizer.variables])
    out = _run_keras(f"""
        import numpy as np, keras
        d = {str(tmp_path)!r}
        y = np.load(d + "/y.npy")
        for name in {list(cases)!r}:
            with np.load(d + f"/{{name}}_x.npz") as f:
                arrays = [f[k] for k in f.files]
            inputs = arrays[0] if len(arrays) == 1 else arrays
            m = keras.saving.load_model(d + f"/fg_{{name}}.keras")
            np.testing.assert_allclose(m.predict(inputs, verbose=0),
                                       np.load(d + f"/fg_{{name}}_pred.npy"), rtol=1e-5, atol=1e-6)
            want = np.load(d + f"/fg_{{name}}_opt.npz")
            got = [np.asarray(v) for v in m.optimizer.variables]
            assert len(got) == len(want.files), (name, len(got), len(want.files))
            for i, g in enumerate(got):
                np.testing.assert_allclose(g, want[f"arr_{{i}}"], rtol=1e-6)
            assert m.get_compile_config()["loss"] == "mse"
            m.fit(inputs, y, batch_size=4, epochs=1, verbose=0, shuffle=False)
            m.save(d + f"/k_{{name}}.keras")
            np.save(d + f"/k_{{name}}_pred.npy", m.predict(inputs, verbose=0))
            np.savez(d + f"/k_{{name}}_opt.npz", *[np.asarray(v) for v in m.optimizer.variables])
        print("keras ok")
        """)
    assert "keras ok" in out
    for name, (_, arrays) in cases.items():
        m = K.saving.load_model(str(tmp_path / f"k_{name}.keras"))
        np.testing.assert_allclose(m.predict(_inputs(arrays), verbose=0),
                                   np.load(tmp_path / f"k_{name}_pred.npy"), rtol=1e-5,
                                   atol=1e-6)
        want = np.load(tmp_path / f"k_{name}_opt.npz")
        assert int(m.optimizer.iterations.numpy()) == 8
        for i, v in enumerate(m.optimizer.variables):
            np.testing.assert_allclose(v.numpy(), want[f"arr_{i}"], rtol=1e-6)


@K.saving.register_keras_serializable(package="files")
class AutoConfig(K.Model):     # no get_config: the constructor's arguments are its config
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = L.Dense(units)

    def call(self, x):
        return self.dense(x)


def test_subclassed_model_with_the_automatic_config(tmp_path):
    pytest.importorskip("h5py")
    x = np.ones((2, 5), np.float32)
    model = AutoConfig(4, name="auto")
    model(x)
    assert model.get_config()["units"] == 4          # as Keras 3's automatic config
    model.save(str(tmp_path / "a.keras"))
    loaded = K.saving.load_model(str(tmp_path / "a.keras"))
    assert (type(loaded), loaded.units, loaded.name) == (AutoConfig, 4, "auto")
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
