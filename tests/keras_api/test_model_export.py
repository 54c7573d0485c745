"""SavedModel signatures of finegrad.keras models as Keras 3 on TensorFlow 2.21 writes them:
``tf.saved_model.save(model)``'s ``serving_default`` for a model of several inputs (their
flat arguments named ``inputs``, ``inputs_1``..., a dict's in sorted key order; outputs
``output_0``...), and ``model.export``'s ``serve`` / ``serving_default`` (arguments named
after the Inputs). The names are compared live with TensorFlow's."""
import numpy as np
import pytest

import finegrad as tf

K = tf.keras


@pytest.fixture(autouse=True)
def _fresh_session():
    K.backend.clear_session()
    yield
    K.backend.clear_session()


def _two_inputs(keras_module, as_dict=False):
    L = keras_module.layers
    a, b = keras_module.Input((3,), name="a"), keras_module.Input((2,), name="b")
    h = L.Dense(1, name="d")(L.Concatenate()([a, b]))
    inputs = {"a": a, "b": b} if as_dict else [a, b]
    return keras_module.Model(inputs, [h, L.Dense(2, name="e")(a)])


def _arrays():
    rng = np.random.default_rng(1)
    return rng.normal(size=(4, 3)).astype("f4"), rng.normal(size=(4, 2)).astype("f4")


def _tf_names(signature):
    args, kwargs = signature.structured_input_signature
    return sorted(kwargs), sorted(signature.structured_outputs)


@pytest.mark.parametrize("as_dict", [False, True])
def test_saved_model_serving_default_of_several_inputs(tmp_path, as_dict):
    xa, xb = _arrays()
    model = _two_inputs(K, as_dict)
    tf.saved_model.save(model, str(tmp_path / "fg"))
    serve = tf.saved_model.load(str(tmp_path / "fg")).signatures["serving_default"]
    assert serve.input_names == ["inputs", "inputs_1"]        # a, then b (sorted keys)
    out = serve(inputs=xa, inputs_1=xb)
    want = model({"a": xa, "b": xb} if as_dict else [xa, xb])
    assert sorted(out) == ["output_0", "output_1"]
    for i in range(2):
        np.testing.assert_allclose(out[f"output_{i}"].numpy(), want[i].numpy(), rtol=1e-6)


def test_the_names_are_tensorflows(tmp_path):
    real_tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "tensorflow":
        pytest.skip("Keras runs on another backend")
    theirs = _two_inputs(keras)
    real_tf.saved_model.save(theirs, str(tmp_path / "tf"))
    want = _tf_names(real_tf.saved_model.load(str(tmp_path / "tf")).signatures[
        "serving_default"])
    theirs.export(str(tmp_path / "tf_export"), verbose=False)
    exported = real_tf.saved_model.load(str(tmp_path / "tf_export"))
    want_export = {name: _tf_names(s) for name, s in exported.signatures.items()}
    ours = _two_inputs(K)
    tf.saved_model.save(ours, str(tmp_path / "fg"))
    serve = tf.saved_model.load(str(tmp_path / "fg")).signatures["serving_default"]
    xa, xb = _arrays()
    assert (sorted(serve.input_names), sorted(serve(inputs=xa, inputs_1=xb))) == \
        (want[0], want[1])
    ours.export(str(tmp_path / "fg_export"), verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / "fg_export"))
    got_export = {name: (sorted(s.input_names), sorted(s(a=xa, b=xb)))
                  for name, s in loaded.signatures.items()}
    assert got_export == want_export == {"serve": (["a", "b"], ["output_0", "output_1"]),
                                         "serving_default": (["a", "b"],
                                                             ["output_0", "output_1"])}


def test_export_endpoint_and_variables(tmp_path, capsys):
    xa, xb = _arrays()
    model = _two_inputs(K)
    model.export(str(tmp_path / "art"))
    assert "Saved artifact at" in capsys.readouterr().out
    loaded = tf.saved_model.load(str(tmp_path / "art"))
    for got in (loaded.serve([xa, xb]), loaded.serve(xa, xb)):   # Keras's form, and flat
        for g, w in zip(got, model([xa, xb]), strict=True):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
    assert len(loaded.variables) == len(model.weights) == 4
    one = K.Sequential([K.Input((3,), name="x"), K.layers.Dense(2)])
    one.export(str(tmp_path / "one"), verbose=False)
    sig = tf.saved_model.load(str(tmp_path / "one")).signatures["serving_default"]
    assert sig.input_names == ["x"]
    np.testing.assert_allclose(sig(x=xa)["output_0"].numpy(), one(xa).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="Unrecognized format"):
        model.export(str(tmp_path / "bad"), format="zip")
    with pytest.raises(NotImplementedError, match="onnx"):
        model.export(str(tmp_path / "bad"), format="onnx")
    with pytest.raises(ValueError, match="not yet been built"):
        K.Sequential([K.layers.Dense(2)]).export(str(tmp_path / "bad"))


class _Subclassed(K.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = K.layers.Dense(2)

    def call(self, x):
        return self.dense(x)


def test_a_subclassed_model_exports_with_the_shape_of_its_first_call(tmp_path):
    # Keras 3.15 on TensorFlow names the argument args_0 and opens the batch size
    model = _Subclassed()
    with pytest.raises(ValueError, match="not yet been built"):
        model.export(str(tmp_path / "early"))
    model(np.ones((1, 3), "f4"))
    model.export(str(tmp_path / "sub"), verbose=False)
    sig = tf.saved_model.load(str(tmp_path / "sub")).signatures["serving_default"]
    xa, _ = _arrays()
    assert sig.input_names == ["args_0"]
    np.testing.assert_allclose(sig(args_0=xa)["output_0"].numpy(), model(xa).numpy(),
                               rtol=1e-6)


def test_export_with_an_input_signature(tmp_path):
    model = _two_inputs(K)
    specs = [[tf.TensorSpec((None, 3), "float32", name="left"),
              tf.TensorSpec((None, 2), "float32", name="right")]]
    model.export(str(tmp_path / "sig"), verbose=False, input_signature=specs)
    sig = tf.saved_model.load(str(tmp_path / "sig")).signatures["serve"]
    assert sig.input_names == ["left", "right"]
    xa, xb = _arrays()
    np.testing.assert_allclose(sig(left=xa, right=xb)["output_0"].numpy(),
                               model([xa, xb])[0].numpy(), rtol=1e-6)
