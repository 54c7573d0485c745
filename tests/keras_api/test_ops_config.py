"""Functional models whose graph holds finegrad.ops calls (``ops.sum(x, axis=1)``) save as Keras
3 saves its ``keras.ops`` calls: each call an entry of the Keras operation class
(``keras.src.ops.numpy.Sum``) whose config holds the constructor's arguments and whose node
the call's; configs compared live with Keras 3.15, and ``.keras`` files travel both ways."""
import ast
import importlib
import inspect
import json
import textwrap

import numpy as np
import pytest

import finegrad as tf
from finegrad import ops
from finegrad._src.backends.keras_signatures import PARAMETERS
from finegrad._src.keras.operation_classes import KERAS_OPS

K = tf.keras
L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_session():
    K.backend.clear_session()
    yield
    K.backend.clear_session()


def _graph(keras_module, o):
    """The same graph of ops calls in finegrad.keras or Keras (``o``: its ops)."""
    inp = keras_module.Input((3,), name="inp")
    x = o.add(inp, 1.0)
    y = o.exp(x)
    z = o.concatenate([x, y], axis=-1)
    outs = [o.sum(z, axis=1, keepdims=True),
            o.clip(o.transpose(o.reshape(z, (-1, 2, 3)), (0, 2, 1)), 0.0, 1.0),
            o.mean(o.square(o.subtract(z, 0.5)), axis=-1),
            o.cast(o.argmax(z, axis=-1), "float32"),
            o.einsum("bi,bj->bij", x, y),
            o.softmax(o.relu(z), axis=-1),
            o.where(o.greater(x, 1.5), x, o.zeros_like(x)),
            o.stack([x, y], axis=1),
            o.image.resize(o.reshape(z, (-1, 2, 3, 1)), (4, 6)),
            o.pad(x, [[0, 0], [1, 1]], constant_values=2.0)]
    return keras_module.Model(inp, outs)


def _inputs():
    return np.random.default_rng(0).normal(size=(4, 3)).astype("float32")


def _assert_same_outputs(a, b, x):
    for got, want in zip(a, b, strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_the_config_is_keras_config_and_rebuilds_the_model():
    keras = pytest.importorskip("keras")
    keras.utils.clear_session()
    want = json.loads(json.dumps(_graph(keras, keras.ops).get_config()))
    model = _graph(K, ops)
    got = json.loads(json.dumps(model.get_config()))
    assert got == want
    entry = next(e for e in got["layers"] if e["class_name"] == "Sum")
    assert entry["module"] == "keras.src.ops.numpy"
    assert entry["config"] == {"name": "sum", "axis": 1, "keepdims": True}
    again = K.Model.from_config(got)
    assert json.loads(json.dumps(again.get_config())) == got   # names kept, not renumbered
    x = _inputs()
    _assert_same_outputs(again(x), model(x), x)
    _assert_same_outputs(K.models.model_from_json(model.to_json())(x), model(x), x)


def test_values_match_keras_running_the_same_graph():
    keras = pytest.importorskip("keras")
    x = _inputs()
    _assert_same_outputs(_graph(K, ops)(x), _graph(keras, keras.ops)(x), x)


def _trainable(keras_module, o):
    inp = keras_module.Input((3,), name="inp")
    h = keras_module.layers.Dense(4, name="d1")(o.tanh(o.multiply(inp, 2.0)))
    h = o.concatenate([h, o.sqrt(o.abs(h))], axis=-1)
    out = keras_module.layers.Dense(1, name="d2")(o.mean(o.expand_dims(h, 1), axis=1))
    model = keras_module.Model(inp, out)
    model.compile(optimizer="adam", loss="mse")
    return model


def test_keras_files_with_ops_nodes_travel_both_ways(tmp_path):
    keras = pytest.importorskip("keras")
    pytest.importorskip("h5py")
    x, y = _inputs(), np.arange(4, dtype="float32")[:, None]
    ours = _trainable(K, ops)
    ours.fit(x, y, epochs=2, batch_size=2, verbose=0, shuffle=False)
    ours.save(str(tmp_path / "fg.keras"))
    in_keras = keras.saving.load_model(str(tmp_path / "fg.keras"))
    np.testing.assert_allclose(in_keras.predict(x, verbose=0), ours.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    assert [e["class_name"] for e in in_keras.get_config()["layers"]] == \
        [e["class_name"] for e in ours.get_config()["layers"]]
    keras.utils.clear_session()
    theirs = _trainable(keras, keras.ops)
    theirs.fit(x, y, epochs=2, batch_size=2, verbose=0, shuffle=False)
    theirs.save(str(tmp_path / "k.keras"))
    loaded = K.saving.load_model(str(tmp_path / "k.keras"))
    np.testing.assert_allclose(loaded.predict(x, verbose=0), theirs.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    loaded.fit(x, y, epochs=1, batch_size=2, verbose=0)   # trains on after loading
    assert int(loaded.optimizer.iterations.numpy()) == 6


def test_a_constant_keras_passes_by_name_is_a_node_kwarg():
    x = K.Input((4,))
    model = K.Model(x, ops.pad(x, [[0, 0], [1, 1]], constant_values=2.0))
    entry = model.get_config()["layers"][1]    # as Keras 3.15 writes it
    assert entry["config"] == {"name": "pad", "pad_width": [[0, 0], [1, 1]], "mode": "constant"}
    assert entry["inbound_nodes"][0]["kwargs"] == {"constant_values": 2.0}
    again = K.Model.from_config(model.get_config())
    np.testing.assert_array_equal(again(np.zeros((1, 4), "float32")).numpy(),
                                  [[2, 0, 0, 0, 0, 2]])


def _by_name(fn, class_name):
    """The call arguments Keras's function ``fn`` passes to its operation by name."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    names = set()
    for node in ast.walk(tree):
        f = node.func if isinstance(node, ast.Call) else None
        inner = f.value if isinstance(f, ast.Attribute) and f.attr == "symbolic_call" else f
        if isinstance(inner, ast.Call) and getattr(inner.func, "id", None) == class_name:
            names |= {k.arg for k in node.keywords if k.arg}
    return names


def _signature(cls, method, fn):
    params = inspect.signature(getattr(cls, method)).parameters.values()
    if method == "__init__":
        return tuple(p.name for p in params if p.name not in ("self", "name")
                     and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL))
    keyword = _by_name(fn, cls.__name__)
    return tuple(("*" if p.kind is p.VAR_POSITIONAL else "") + p.name +
                 ("=" if p.name in keyword else "")
                 for p in params if p.name != "self" and p.kind is not p.VAR_KEYWORD)


def _keras_classes():
    """The table of `operation_classes` read from the installed Keras."""
    from keras.src.ops.operation import Operation
    found = {}
    for group in ["numpy", "math", "nn", "core", "linalg", "image"]:
        module = importlib.import_module(f"keras.src.ops.{group}")
        classes = {n.lower(): c for n, c in vars(module).items() if inspect.isclass(c)
                   and issubclass(c, Operation) and c.__module__ == module.__name__}
        for name, fn in vars(module).items():
            cls = classes.get(name.replace("_", ""))
            public = f"image_{name}" if group == "image" else name
            if inspect.isfunction(fn) and cls is not None and public in KERAS_OPS:
                found[public] = (f"keras.src.ops.{group}", cls.__name__,
                                 _signature(cls, "__init__", fn), _signature(cls, "call", fn))
    return found


def test_the_table_is_the_installed_keras():
    pytest.importorskip("keras")
    found = _keras_classes()
    assert set(found) == set(KERAS_OPS)
    for name, spec in KERAS_OPS.items():
        assert found[name] == (spec.module, spec.class_name, spec.init, spec.call), name
        assert name in PARAMETERS


def _several_outputs(keras_module, o):
    inp = keras_module.Input((4,), name="inp")
    a, b = o.split(inp, 2, axis=-1)
    values, indices = o.top_k(inp, 2)
    product = o.matmul(inp, np.ones((4, 2), "float32"))       # a constant: __numpy__
    rows = o.unstack(o.reshape(inp, (-1, 2, 2)), axis=1)
    return keras_module.Model(inp, [a * 2.0, b, values, o.cast(indices, "float32"), product,
                                    rows[0], rows[1]])


def test_ops_of_several_outputs_and_constant_arguments_read_both_ways():
    keras = pytest.importorskip("keras")
    keras.utils.clear_session()
    theirs = _several_outputs(keras, keras.ops)
    ours = _several_outputs(K, ops)
    want = json.loads(json.dumps(theirs.get_config()))
    assert json.loads(json.dumps(ours.get_config())) == want
    x = np.random.default_rng(2).normal(size=(3, 4)).astype("float32")
    _assert_same_outputs(K.Model.from_config(want)(x), theirs(x), x)
    _assert_same_outputs(ours(x), keras.Model.from_config(ours.get_config())(x), x)


def test_an_unknown_keras_operation_is_a_value_error():
    x = K.Input((2,), name="x")
    config = K.Model(x, ops.exp(x)).get_config()
    entry = next(e for e in config["layers"] if e["class_name"] == "Exp")
    entry["class_name"] = "Frobnicate"   # no Keras 3.15 operation class of that name
    with pytest.raises(ValueError, match=r"keras\.src\.ops\.numpy\.Frobnicate .* no finegrad"):
        K.Model.from_config(config)
