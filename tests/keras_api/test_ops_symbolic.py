"""finegrad.ops on finegrad.keras's symbolic tensors (Keras 3's ops on KerasTensors): an ops call
or an ops.custom_gradient function applied to a keras.Input records a node of the functional
graph, so ``keras.Model(x, ops.exp(x) * 2)`` builds, predicts and trains. A plain finegrad
function (``tf.exp``) on a KerasTensor is Keras 3's ValueError (Keras 3.15 on TensorFlow 2.21
raises ValueError for ``tf.exp(keras.Input(...))``)."""
import numpy as np
import pytest

import finegrad as tf
from finegrad import ops

K = tf.keras
L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_session():
    K.backend.clear_session()
    yield
    K.backend.clear_session()


def test_ops_on_an_input_make_a_model():
    x = K.Input((4,))
    y = ops.exp(x) * 2
    assert type(y).__name__ == "KerasTensor" and y.shape == (None, 4)
    z = ops.sum(ops.matmul(y, ops.ones((4, 3))), axis=-1, keepdims=True)
    assert z.shape == (None, 1)
    model = K.Model(x, [y, z])
    data = np.random.default_rng(0).normal(size=(5, 4)).astype("float32")
    got_y, got_z = model.predict(data, verbose=0)
    np.testing.assert_allclose(got_y, np.exp(data) * 2, rtol=1e-6)
    np.testing.assert_allclose(got_z, 3 * (np.exp(data) * 2).sum(-1, keepdims=True), rtol=1e-5)
    assert model.layers == [model.layers[0]]   # ops are nodes, not layers (as in Keras 3)


def test_a_plain_finegrad_function_on_an_input_is_keras_value_error():
    x = K.Input((4,))
    with pytest.raises(ValueError, match="cannot be used as input to a finegrad function"):
        tf.exp(x)
    with pytest.raises(ValueError, match="KerasTensor"):
        tf.matmul(x, tf.ones((4, 2)))


def _sgd_model(with_ops, seed=3):
    x = K.Input((3,))
    h = L.Dense(4, kernel_initializer=K.initializers.GlorotUniform(seed))(x)
    h = ops.tanh(h) * 0.5 + ops.square(h) if with_ops else h
    y = L.Dense(1, kernel_initializer=K.initializers.GlorotUniform(seed + 1))(h)
    model = K.Model(x, y)
    model.compile(K.optimizers.SGD(0.1), "mse")
    return model


def test_a_model_with_ops_trains_as_keras():
    keras = pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    rng = np.random.default_rng(1)
    xs, ys = rng.normal(size=(8, 3)).astype("float32"), rng.normal(size=(8, 1)).astype("float32")
    model = _sgd_model(True)
    x = keras.Input((3,))
    h = keras.layers.Dense(4)(x)
    h = keras.ops.tanh(h) * 0.5 + keras.ops.square(h)
    ref = keras.Model(x, keras.layers.Dense(1)(h))
    ref.set_weights(model.get_weights())
    ref.compile(keras.optimizers.SGD(0.1), "mse")
    hist = model.fit(xs, ys, batch_size=4, epochs=2, shuffle=False, verbose=0)
    ref_hist = ref.fit(xs, ys, batch_size=4, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(hist.history["loss"], ref_hist.history["loss"], rtol=1e-5)
    for a, b in zip(model.get_weights(), ref.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.predict(xs, verbose=0), ref.predict(xs, verbose=0),
                               rtol=1e-5, atol=1e-6)


@ops.custom_gradient
def _reverse_gradient(x):
    def grad(upstream):
        return -upstream
    return ops.copy(x), grad


def _one_step(reverse, run_eagerly):
    K.backend.clear_session()
    x = K.Input((3,))
    y = L.Dense(1, kernel_initializer="ones", bias_initializer="zeros")(x)
    if reverse:
        y = _reverse_gradient(y)
    model = K.Model(x, y)
    model.compile(K.optimizers.SGD(0.5), "mse", run_eagerly=run_eagerly)
    xs = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], "float32")
    model.fit(xs, np.array([[1.0], [2.0]], "float32"), verbose=0, batch_size=2)
    return model.get_weights()[0] - 1.0, model.predict(xs, verbose=0)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_a_custom_gradient_on_an_input_reverses_the_update(run_eagerly):
    plain, _ = _one_step(False, run_eagerly)
    reversed_, out = _one_step(True, run_eagerly)
    assert np.abs(plain).min() > 0.1
    np.testing.assert_allclose(reversed_, -plain, rtol=1e-6)
    # the forward value is the identity's: a weight update of +plain gives this output
    xs = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], "float32")
    np.testing.assert_allclose(out, xs @ (1.0 - plain) + _bias_after(), rtol=1e-5)


def _bias_after():
    # mse gradient for the bias with kernel ones, bias 0: 2*mean(pred - y); reversed: +
    pred = np.array([6.0, 1.5])
    return 0.5 * 2 * np.mean(pred - np.array([1.0, 2.0]))


def test_a_model_with_ops_nodes_clones_and_its_config_rebuilds_it():
    x = K.Input((4,))
    model = K.Model(x, L.Dense(3, kernel_initializer="ones")(ops.exp(x) * 2))
    assert [type(la).__name__ for la in model.layers] == ["InputLayer", "Dense"]
    clone = K.models.clone_model(model)
    clone.set_weights(model.get_weights())
    data = np.ones((2, 4), "float32")
    np.testing.assert_allclose(clone.predict(data, verbose=0), model.predict(data, verbose=0))
    again = K.Model.from_config(model.get_config())
    again.set_weights(model.get_weights())
    np.testing.assert_allclose(again.predict(data, verbose=0), model.predict(data, verbose=0))


def test_a_custom_gradient_node_has_no_config():
    @ops.custom_gradient
    def double(v):
        return v * 2, lambda g: g * 2
    x = K.Input((4,))
    model = K.Model(x, double(x))
    with pytest.raises(NotImplementedError, match="cannot serialize"):
        model.get_config()


def test_ops_with_several_inputs_lists_and_open_batch_sizes():
    a, b = K.Input((2,)), K.Input((3,))
    c = ops.concatenate([a, b], axis=-1)
    d = ops.where(c > 0, c, ops.zeros_like(c))        # *_like keep the open batch size
    e = ops.mean(d, axis=-1, keepdims=True)

    @ops.custom_gradient
    def product(x, y):
        def grad(upstream):
            return upstream * y, upstream * x
        return x * y, grad
    f = product(e, ops.full_like(e, 2.0))
    assert (c.shape, d.shape, f.shape) == ((None, 5), (None, 5), (None, 1))
    model = K.Model([a, b], [c, d, f])
    xa = np.array([[1., -2.], [0.5, 0.5]], "float32")
    xb = np.array([[3., -1., 2.], [-1., -1., -1.]], "float32")
    got_c, got_d, got_f = model.predict([xa, xb], verbose=0)
    want_c = np.concatenate([xa, xb], -1)
    np.testing.assert_allclose(got_c, want_c)
    np.testing.assert_allclose(got_d, np.maximum(want_c, 0))
    np.testing.assert_allclose(got_f, 2 * np.maximum(want_c, 0).mean(-1, keepdims=True),
                               rtol=1e-6)
