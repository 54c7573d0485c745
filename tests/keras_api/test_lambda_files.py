"""`Lambda` layers holding Python lambdas save as Keras 3 saves them (the lambda's bytecode,
``__lambda__``) and load only with ``safe_mode=False``; the default safe mode is Keras's
ValueError. Files travel both ways with Keras 3.15 (the same Python writes and reads them)."""
import json
import warnings

import numpy as np
import pytest

import finegrad as tf
from finegrad._src.keras import python_code

K = tf.keras


@pytest.fixture(autouse=True)
def _fresh_session():
    K.backend.clear_session()
    yield
    K.backend.clear_session()


def _scaled(k):
    return lambda t, s=2.0: t * s + k         # a default and a closure cell


def _shifted(k):
    # Keras 3.15 cannot load its own file of a lambda with defaults (its func_load is given
    # the JSON list where Python wants a tuple: "arg 4 (defaults) must be None or tuple");
    # finegrad loads both
    return lambda t: t * 2.0 + k


def _model(keras_module, fn):
    L = keras_module.layers
    x = keras_module.Input((3,), name="x")
    h = L.Lambda(fn, name="lam")(L.Dense(4, name="d")(x))
    model = keras_module.Model(x, L.Dense(1, name="out")(h))
    model.compile(optimizer="sgd", loss="mse")
    return model


def _x():
    return np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)


def test_the_config_holds_the_bytecode_as_keras_writes_it():
    keras = pytest.importorskip("keras")
    fn = _scaled(0.5)
    ours = K.layers.Lambda(fn, name="lam").get_config()
    theirs = keras.layers.Lambda(fn, name="lam").get_config()
    assert json.loads(json.dumps(ours["function"])) == json.loads(json.dumps(theirs["function"]))
    assert ours["function"]["class_name"] == "__lambda__"
    assert set(ours) == set(theirs)


def test_loading_needs_safe_mode_false(tmp_path):
    pytest.importorskip("h5py")
    model = _model(K, _scaled(0.5))
    model.save(str(tmp_path / "m.keras"))
    with pytest.raises(ValueError, match="`safe_mode=False`"):
        K.saving.load_model(str(tmp_path / "m.keras"))
    loaded = K.saving.load_model(str(tmp_path / "m.keras"), safe_mode=False)
    np.testing.assert_allclose(loaded.predict(_x(), verbose=0), model.predict(_x(), verbose=0),
                               rtol=1e-6)
    config = model.get_config()
    with pytest.raises(ValueError, match="Python lambda"):
        K.Model.from_config(config)             # outside any loading call: safe
    layer_config = model.get_layer("lam").get_config()
    again = K.layers.Lambda.from_config(layer_config, safe_mode=False)
    np.testing.assert_allclose(again(tf.ones((1, 2))).numpy(), [[2.5, 2.5]])


def test_a_bare_lambda_is_saved_as_keras_saves_it():
    with pytest.warns(UserWarning, match="includes a `lambda`"):
        config = K.saving.serialize_keras_object(lambda v: v + 1)
    assert config["class_name"] == "__lambda__"
    with pytest.raises(ValueError, match="deserialization of a Python lambda"):
        K.saving.deserialize_keras_object(config)
    assert K.saving.deserialize_keras_object(config, safe_mode=False)(2) == 3


def test_the_bytecode_round_trips():
    fn = python_code.load(*python_code.dump(_scaled(1.0)))
    assert fn(3.0) == 7.0 and fn(3.0, 1.0) == 4.0


def test_files_travel_both_ways_with_keras(tmp_path):
    keras = pytest.importorskip("keras")
    pytest.importorskip("h5py")
    x = _x()
    ours = _model(K, _shifted(0.5))
    ours.save(str(tmp_path / "fg.keras"))
    with pytest.raises(ValueError, match="safe_mode=False"):
        keras.saving.load_model(str(tmp_path / "fg.keras"))
    in_keras = keras.saving.load_model(str(tmp_path / "fg.keras"), safe_mode=False)
    np.testing.assert_allclose(in_keras.predict(x, verbose=0), ours.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    keras.utils.clear_session()
    theirs = _model(keras, _shifted(-1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.save(str(tmp_path / "k.keras"))
    with pytest.raises(ValueError, match="safe_mode=False"):
        K.saving.load_model(str(tmp_path / "k.keras"))
    loaded = K.saving.load_model(str(tmp_path / "k.keras"), safe_mode=False)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), theirs.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    with_defaults = _model(keras, _scaled(1.0))     # Keras writes it (and cannot read it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with_defaults.save(str(tmp_path / "k2.keras"))
    loaded = K.saving.load_model(str(tmp_path / "k2.keras"), safe_mode=False)
    np.testing.assert_allclose(loaded.predict(x, verbose=0),
                               with_defaults.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


def test_enable_unsafe_deserialization_lets_lambdas_load(monkeypatch):
    monkeypatch.setitem(python_code._state, "safe_mode", None)    # restored after the test
    config = K.layers.Lambda(_shifted(1.0), name="lam").get_config()
    with pytest.raises(ValueError, match="enable_unsafe_deserialization"):
        K.layers.Lambda.from_config(config)
    K.config.enable_unsafe_deserialization()
    layer = K.layers.Lambda.from_config(config)
    np.testing.assert_allclose(layer(tf.ones((1, 2))).numpy(), [[3.0, 3.0]])
