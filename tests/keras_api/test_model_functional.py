"""Models: the functional API (traced symbolically with finegrad's graph builder), subclassed
models, Sequential, summary(), clone_model. Keras 3 (TensorFlow 2.21) is the specification:
outputs are compared with Keras on the same weights when it is installed, and the summary
tables were recorded from Keras 3.15.1 (``model.summary()``, 80-column pipe)."""
import numpy as np
import pytest

import finegrad as tf

K = tf.keras
L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_session():
    K.backend.clear_session()
    yield
    K.backend.clear_session()


def _two_branch():
    a, b = K.Input((3,), name="a"), K.Input((4,), name="b")
    x = L.Concatenate()([a, b])
    shared = L.Dense(5, activation="relu")
    y1 = L.Dense(2, name="out1")(shared(x))
    y2 = L.Dense(1, name="out2")(shared(x))
    return K.Model([a, b], [y1, y2])


def test_symbolic_tensors_have_open_batch_sizes():
    x = K.Input(shape=(28, 28))
    assert x.shape == (None, 28, 28) and x.dtype == "float32"
    y = L.Flatten()(x)
    assert y.shape == (None, 784)
    z = L.Dense(10)(y)
    assert z.shape == (None, 10)
    assert K.Input((2,), batch_size=8).shape == (8, 2)
    with pytest.raises(ValueError, match="symbolic"):
        np.asarray(x)


def test_functional_structure():
    model = _two_branch()
    assert type(model).__name__ == "Functional" and isinstance(model, K.Model)
    assert [layer.name for layer in model.layers] == \
        ["a", "b", "concatenate", "dense", "out1", "out2"]
    assert [len(layer._inbound_nodes) for layer in model.layers][3] == 2   # shared
    assert len(model.weights) == 6
    assert model.get_layer("out2") is model.layers[-1]
    assert model.get_layer(index=2).name == "concatenate"
    with pytest.raises(ValueError, match="No such layer: nope"):
        model.get_layer("nope")
    out = model([np.ones((2, 3)), np.ones((2, 4))])
    assert [tuple(o.shape) for o in out] == [(2, 2), (2, 1)]
    out = model({"a": np.ones((2, 3)), "b": np.ones((2, 4))})
    assert [tuple(o.shape) for o in out] == [(2, 2), (2, 1)]


def test_wrong_number_of_inputs():
    model = _two_branch()
    with pytest.raises(ValueError, match="expects 2 input"):
        model(np.ones((2, 3)))


def test_disconnected_graph_is_an_error():
    a, b = K.Input((3,)), K.Input((3,))
    y = L.Add()([a, b])
    with pytest.raises(ValueError, match="disconnected"):
        K.Model(a, y)


def test_nested_models_and_training_flag():
    inner_in = K.Input((4,))
    inner = K.Model(inner_in, L.Dropout(0.999)(L.Dense(4, kernel_initializer="ones")(inner_in)),
                    name="inner")
    x = K.Input((4,))
    outer = K.Model(x, L.Dense(1, kernel_initializer="ones")(inner(x)))
    assert [layer.name for layer in outer.layers] == ["input_layer_1", "inner", "dense_1"]
    assert len(outer.trainable_weights) == 4
    data = np.ones((3, 4), np.float32)
    np.testing.assert_allclose(outer(data).numpy(), np.full((3, 1), 16.0))
    trained = outer(data, training=True).numpy()   # dropout drops nearly everything
    assert np.count_nonzero(trained == 16.0) < 3


def test_subclassed_model():
    class MLP(K.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [L.Dense(8, activation="relu"), L.Dense(2)]

        def call(self, x, training=False):
            for b in self.blocks:
                x = b(x)
            return x

    m = MLP()
    assert not m.built
    m.build((None, 5))
    assert m.built and [tuple(w.shape) for w in m.weights] == [(5, 8), (8,), (8, 2), (2,)]
    assert tuple(m(np.ones((3, 5), np.float32)).shape) == (3, 2)
    assert m.layers == m.blocks


def test_model_requires_both_inputs_and_outputs():
    with pytest.raises(ValueError, match="both"):
        K.Model(inputs=K.Input((2,)))


def test_sequential_immediate_and_deferred_build():
    seq = K.Sequential([L.Dense(4, input_shape=(3,)), L.Dense(2)])
    assert seq.built and seq.output_shape == (None, 2)
    assert [layer.name for layer in seq.layers] == ["dense", "dense_1"]

    later = K.Sequential()
    later.add(L.Dense(4))
    later.add(L.Dense(2))
    assert not later.built and later.weights == []
    y = later(np.ones((5, 7), np.float32))
    assert tuple(y.shape) == (5, 2) and later.built and later.input_shape == (None, 7)
    popped = later.pop()
    assert popped.name == "dense_3" and len(later.layers) == 1
    with pytest.raises(ValueError, match="unique"):
        later.add(later.layers[0])
    with pytest.raises(ValueError, match="Only instances of `keras.Layer`"):
        later.add("dense")


def test_values_match_keras_on_the_same_weights():
    keras = pytest.importorskip("keras")
    model = _two_branch()
    ka, kb = keras.Input((3,)), keras.Input((4,))
    kx = keras.layers.Concatenate()([ka, kb])
    ks = keras.layers.Dense(5, activation="relu")
    kmodel = keras.Model([ka, kb], [keras.layers.Dense(2)(ks(kx)),
                                    keras.layers.Dense(1)(ks(kx))])
    kmodel.set_weights(model.get_weights())
    rng = np.random.default_rng(0)
    xa, xb = rng.normal(size=(4, 3)).astype("f4"), rng.normal(size=(4, 4)).astype("f4")
    for mine, theirs in zip(model([xa, xb]), kmodel([xa, xb]), strict=True):
        np.testing.assert_allclose(mine.numpy(), np.asarray(theirs), rtol=1e-5, atol=1e-6)


SEQUENTIAL_SUMMARY = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ (None, 64)             │        50,240 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ batch_normalization             │ (None, 64)             │           256 │
│ (BatchNormalization)            │                        │               │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dense_1 (Dense)                 │ (None, 10)             │           650 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 51,146 (199.79 KB)
 Trainable params: 51,018 (199.29 KB)
 Non-trainable params: 128 (512.00 B)
"""

FUNCTIONAL_SUMMARY = """\
Model: "functional"
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
│ input_layer         │ (None, 4)         │          0 │ -                 │
│ (InputLayer)        │                   │            │                   │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ input_layer_1       │ (None, 4)         │          0 │ -                 │
│ (InputLayer)        │                   │            │                   │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ dense (Dense)       │ (None, 4)         │         20 │ input_layer[0][0… │
│                     │                   │            │ input_layer_1[0]… │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ add (Add)           │ (None, 4)         │          0 │ dense[0][0],      │
│                     │                   │            │ dense[1][0]       │
└─────────────────────┴───────────────────┴────────────┴───────────────────┘
 Total params: 20 (80.00 B)
 Trainable params: 20 (80.00 B)
 Non-trainable params: 0 (0.00 B)
"""

UNBUILT_SUMMARY = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ ?                      │   0 (unbuilt) │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
"""


def _summary(model):
    lines = []
    model.summary(print_fn=lines.append, line_length=76)
    return "".join(lines)


def test_summary_matches_keras_sequential():
    m = K.Sequential([K.Input((784,)), L.Dense(64, activation="relu"),
                      L.BatchNormalization(), L.Dense(10)])
    assert _summary(m) == SEQUENTIAL_SUMMARY


def test_summary_matches_keras_functional_with_shared_layer():
    d = L.Dense(4)
    a, b = K.Input((4,)), K.Input((4,))
    m = K.Model([a, b], L.Add()([d(a), d(b)]))
    assert _summary(m) == FUNCTIONAL_SUMMARY


def test_summary_unbuilt(capsys):
    m = K.Sequential([L.Dense(3)])
    assert _summary(m) == UNBUILT_SUMMARY
    m.summary(line_length=76)
    assert capsys.readouterr().out == UNBUILT_SUMMARY


def test_clone_model_functional_and_sequential():
    model = _two_branch()
    clone = K.models.clone_model(model)
    assert [type(x).__name__ for x in clone.layers] == [type(x).__name__ for x in model.layers]
    assert all(w1 is not w2 for w1, w2 in zip(clone.weights, model.weights, strict=True))
    clone.set_weights(model.get_weights())
    data = [np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)]
    for a, b in zip(clone(data), model(data), strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    seq = K.Sequential([K.Input((3,)), L.Dense(2)])
    seq_clone = K.models.clone_model(seq)
    assert seq_clone.built and seq_clone.output_shape == (None, 2)


def test_clone_of_subclassed_model_is_refused():
    class M(K.Model):
        def call(self, x):
            return x
    with pytest.raises(ValueError, match="Sequential models or Functional models"):
        K.models.clone_model(M())


def test_lambda_layer_with_custom_gradient_in_a_functional_model():
    @tf.custom_gradient
    def reverse(x):
        return tf.identity(x), lambda dy: -dy

    x = K.Input((2,))
    y = L.Dense(1, kernel_initializer="ones", use_bias=False)(L.Lambda(reverse)(x))
    model = K.Model(x, y)
    data = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(data)
        out = tf.reduce_sum(model(data))
    np.testing.assert_allclose(tape.gradient(out, data).numpy(), [[-1.0, -1.0]])


def test_operators_on_symbolic_tensors_are_recorded():
    """``x + y``, ``x[:, :2]`` and the like on KerasTensors become operation nodes (Keras 3's
    ops), run again by the model; they are not among its layers."""
    x = K.Input((3,))
    h = L.Dense(3, kernel_initializer="ones", use_bias=False)(x)
    y = -(((h + x * 2.0 - 1.0)[:, :2] ** 2) / 2)
    assert y.shape == (None, 2)
    model = K.Model(x, y)
    assert [layer.name for layer in model.layers] == ["input_layer", "dense"]
    data = np.array([[1.0, 2.0, 3.0]], np.float32)
    h_val = data.sum() * np.ones(3)
    expected = -(((h_val + data[0] * 2 - 1)[:2]) ** 2) / 2
    np.testing.assert_allclose(model(data).numpy()[0], expected)
    np.testing.assert_allclose(K.models.clone_model(model)(data).shape, (1, 2))


def test_functional_config_round_trip():
    a, b = K.Input((3,), name="a"), K.Input((2,), name="b")
    d = L.Dense(2, name="d")
    y = L.Concatenate(name="c")([d(a), b])
    model = K.Model({"a": a, "b": b}, [y * 2.0], name="f")
    config = model.get_config()
    # Keras 3's layout: layers with name and inbound_nodes of __keras_tensor__ references,
    # in Keras's order (deepest first, then as a walk from the outputs meets them)
    assert [e["name"] for e in config["layers"]] == ["a", "d", "b", "c", "multiply"]
    arg = config["layers"][1]["inbound_nodes"][0]["args"][0]
    assert arg == {"class_name": "__keras_tensor__",
                   "config": {"shape": [None, 3], "dtype": "float32",
                              "keras_history": ["a", 0, 0]}}
    assert config["input_layers"] == {"a": ["a", 0, 0], "b": ["b", 0, 0]}
    assert config["output_layers"] == [["multiply", 0, 0]]
    rebuilt = K.Model.from_config(config)
    assert rebuilt.name == "f" and [x.name for x in rebuilt.layers] == ["a", "d", "b", "c"]
    rebuilt.set_weights(model.get_weights())
    data = {"a": np.ones((2, 3), "f4"), "b": np.ones((2, 2), "f4")}
    np.testing.assert_allclose(rebuilt(data)[0].numpy(), model(data)[0].numpy())


def test_sequential_config_round_trip():
    seq = K.Sequential([K.Input((3,)), L.Dense(2, activation="relu")], name="s")
    config = seq.get_config()
    assert [c["class_name"] for c in config["layers"]] == ["InputLayer", "Dense"]
    again = K.Sequential.from_config(config)
    assert again.name == "s" and again.built and again.output_shape == (None, 2)
    assert again.layers[0].get_config()["activation"] == "relu"


def test_masks_flow_through_functional_and_sequential_models():
    keras = pytest.importorskip("keras")
    x = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], np.int32)
    inp = K.Input((4,), dtype="int32", batch_size=2)
    model = K.Model(inp, L.LSTM(2)(L.Embedding(5, 3, mask_zero=True)(inp)))
    seq = K.Sequential([K.Input((4,), dtype="int32", batch_size=2),
                        L.Embedding(5, 3, mask_zero=True), L.LSTM(2)])
    seq.set_weights(model.get_weights())
    kin = keras.Input((4,), dtype="int32")
    kmodel = keras.Model(kin, keras.layers.LSTM(2)(
        keras.layers.Embedding(5, 3, mask_zero=True)(kin)))
    kmodel.set_weights(model.get_weights())
    want = np.asarray(kmodel(x))
    np.testing.assert_allclose(model(x).numpy(), want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(seq(x).numpy(), want, rtol=1e-5, atol=1e-7)


def test_grad_cam_pattern_intermediate_outputs():
    """Grad-CAM's model of an intermediate layer's output and the prediction, and the
    gradient of a class score with respect to that intermediate output."""
    inp = K.Input((6, 6, 1))
    conv = L.Conv2D(2, 3, name="last_conv", kernel_initializer="ones")(inp)
    out = L.Dense(3, kernel_initializer="ones")(L.GlobalAveragePooling2D()(conv))
    model = K.Model(inp, out)
    grad_model = K.Model(model.inputs, [model.get_layer("last_conv").output, model.output])
    assert model.get_layer("last_conv").output.shape == (None, 4, 4, 2)
    x = np.ones((1, 6, 6, 1), np.float32)
    with tf.GradientTape() as tape:
        conv_out, preds = grad_model(x)
        score = preds[:, 1]
    grads = tape.gradient(score, conv_out)
    # score = sum over channels of the spatial mean of conv_out (+ bias): d/dconv = 1/16
    np.testing.assert_allclose(grads.numpy(), np.full((1, 4, 4, 2), 1 / 16), rtol=1e-6)
    with pytest.raises(AttributeError, match="never been called"):
        _ = L.Dense(2).output


SHOW_TRAINABLE_SUMMARY = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━┓
┃ Layer (type)                ┃ Output Shape          ┃    Param # ┃ Trai… ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━┩
│ dense (Dense)               │ (None, 3)             │         15 │   Y   │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│ dropout (Dropout)           │ (None, 3)             │          0 │   -   │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│ dense_1 (Dense)             │ (None, 2)             │          8 │   N   │
└─────────────────────────────┴───────────────────────┴────────────┴───────┘
 Total params: 23 (92.00 B)
 Trainable params: 15 (60.00 B)
 Non-trainable params: 8 (32.00 B)
"""


def test_summary_show_trainable_and_a_frozen_layer_match_keras():
    m = K.Sequential([K.Input((4,)), L.Dense(3), L.Dropout(0.1), L.Dense(2, trainable=False)])
    lines = []
    m.summary(print_fn=lines.append, line_length=76, show_trainable=True)
    assert "".join(lines) == SHOW_TRAINABLE_SUMMARY
    frozen = m.layers[-1]
    assert frozen.trainable_weights == [] and not frozen.kernel.trainable
    frozen.trainable = True
    assert len(m.trainable_weights) == 4


def test_the_call_training_wins_over_a_training_given_when_building():
    """As in Keras 3 (checked with 3.15): a functional model passes its call's ``training``
    (when not None) to every layer, over a ``training=True`` written when the graph was
    built; with no ``training`` the written one stays."""
    x = K.Input((100,))
    model = K.Model(x, L.Dropout(0.5, seed=1)(x, training=True))
    data = np.ones((2, 100), "f4")
    np.testing.assert_array_equal(model.predict(data, verbose=0), data)
    np.testing.assert_array_equal(model(data, training=False).numpy(), data)
    assert set(np.unique(model(data).numpy())) == {0.0, 2.0}
