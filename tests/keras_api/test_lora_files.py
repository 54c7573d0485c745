"""A model with LoRA layers saves what Keras 3 saves (its ``save_own_variables`` merges the
LoRA update into the kernel: the file holds a plain layer's weights), and the files travel both
ways with Keras 3.15: loading sets the LoRA weights to zeros, the predictions unchanged."""
import numpy as np
import pytest

import finegrad as tf

K = tf.keras


@pytest.fixture(autouse=True)
def _fresh_session():
    K.backend.clear_session()
    yield
    K.backend.clear_session()


def _model(keras_module):
    L = keras_module.layers
    tokens = keras_module.Input((3,), dtype="int32", name="tokens")
    h = L.Embedding(9, 4, lora_rank=2, name="emb")(tokens)
    h = L.EinsumDense("abc,cd->abd", (3, 5), bias_axes="d", lora_rank=2, name="ein")(h)
    out = L.Dense(1, lora_rank=2, lora_alpha=4, name="out")(L.Flatten()(h))
    model = keras_module.Model(tokens, out)
    model.compile(optimizer="adam", loss="mse")
    return model


def _data():
    rng = np.random.default_rng(5)
    return rng.integers(0, 9, size=(8, 3)).astype("int32"), rng.normal(size=(8, 1)).astype("f4")


def _datasets(path):
    import h5py
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: found.update({name: obj.shape})
                     if isinstance(obj, h5py.Dataset) else None)
    return found


def _weights_file(model, path):
    model.save_weights(str(path))
    return _datasets(path)


def test_lora_models_travel_both_ways_with_keras(tmp_path):
    keras = pytest.importorskip("keras")
    pytest.importorskip("h5py")
    x, y = _data()
    ours = _model(K)
    ours.fit(x, y, epochs=3, batch_size=4, verbose=0, shuffle=False)
    assert np.abs(ours.get_layer("out").lora_kernel_b.numpy()).max() > 0   # trained
    keras.utils.clear_session()
    theirs = _model(keras)
    theirs.fit(x, y, epochs=3, batch_size=4, verbose=0, shuffle=False)
    # the same datasets, no LoRA weights among them
    assert _weights_file(ours, tmp_path / "fg.weights.h5") == \
        _weights_file(theirs, tmp_path / "k.weights.h5")
    assert not any("lora" in k for k in _datasets(tmp_path / "fg.weights.h5"))
    ours.save(str(tmp_path / "fg.keras"))
    theirs.save(str(tmp_path / "k.keras"))

    in_keras = keras.saving.load_model(str(tmp_path / "fg.keras"))
    np.testing.assert_allclose(in_keras.predict(x, verbose=0), ours.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    assert in_keras.get_layer("out").lora_enabled
    np.testing.assert_allclose(np.asarray(in_keras.get_layer("out").kernel),
                               ours.get_layer("out").kernel.numpy(), rtol=1e-6, atol=1e-7)
    loaded = K.saving.load_model(str(tmp_path / "k.keras"))
    np.testing.assert_allclose(loaded.predict(x, verbose=0), theirs.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    layer = loaded.get_layer("ein")
    assert layer.lora_enabled and not np.any(layer.lora_kernel_b.numpy())
    np.testing.assert_allclose(layer.kernel.numpy(), np.asarray(theirs.get_layer("ein").kernel),
                               rtol=1e-6, atol=1e-7)
    loaded.fit(x, y, epochs=1, batch_size=4, verbose=0)      # the LoRA weights train on
    assert np.abs(loaded.get_layer("ein").lora_kernel_b.numpy()).max() > 0


@pytest.mark.parametrize("name", ["w.weights.h5", "w.npz"])   # HDF5, or the NumPy layout
def test_weights_round_trip_merges_the_update(tmp_path, name):
    if name.endswith(".h5"):
        pytest.importorskip("h5py")
    x, y = _data()
    model = _model(K)
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    want = model.predict(x, verbose=0)
    merged = model.get_layer("out").kernel.numpy()
    model.save_weights(str(tmp_path / name))
    other = _model(K)
    other.load_weights(str(tmp_path / name))
    np.testing.assert_allclose(other.predict(x, verbose=0), want, rtol=1e-5, atol=1e-6)
    out = other.get_layer("out")
    np.testing.assert_allclose(out._kernel.numpy(), merged, rtol=1e-6)
    assert not np.any(out.lora_kernel_a.numpy()) and not np.any(out.lora_kernel_b.numpy())
