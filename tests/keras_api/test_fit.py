"""Training: compile, fit, evaluate, predict, the *_on_batch methods, train_step overrides,
custom gradients inside training, mixed precision with loss scaling, and the progress output.

The reference for the numbers is the same training written by hand with a GradientTape (the
loop ``fit`` stands for), and Keras 3 on the same weights when it is installed."""
import io
import re
import sys

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


def _data(n=96, d=5, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype("f4")
    y = (x @ rng.normal(size=(d, 1)) + 0.1).astype("f4")
    return x, y


def _model(seed=1, d=5):
    m = K.Sequential([K.Input((d,)), L.Dense(8, activation="tanh"), L.Dense(1)])
    rng = np.random.default_rng(seed)
    m.set_weights([rng.normal(size=w.shape).astype("f4") * 0.5 for w in m.get_weights()])
    return m


def _tape_loop(model, x, y, lr, batch_size, epochs, sample_weight=None):
    """SGD on the mean squared error, by hand, in fit's batch order (no shuffling)."""
    for _ in range(epochs):
        for i in range(0, len(x), batch_size):
            xb, yb = tf.constant(x[i:i + batch_size]), tf.constant(y[i:i + batch_size])
            with tf.GradientTape() as tape:
                err = tf.reduce_mean(tf.square(model(xb) - yb), axis=-1)
                if sample_weight is not None:
                    err = err * sample_weight[i:i + batch_size]
                loss = tf.reduce_sum(err) / err.shape[0]
            grads = tape.gradient(loss, model.trainable_weights)
            for g, v in zip(grads, model.trainable_weights, strict=True):
                v.assign_sub(lr * g)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_equals_the_tape_loop(run_eagerly):
    x, y = _data()
    m, ref = _model(), _model()
    m.compile(K.optimizers.SGD(0.05), "mse", run_eagerly=run_eagerly)
    history = m.fit(x, y, batch_size=32, epochs=3, shuffle=False, verbose=0)
    _tape_loop(ref, x, y, 0.05, 32, 3)
    for a, b in zip(m.get_weights(), ref.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    assert list(history.history) == ["loss"] and len(history.history["loss"]) == 3
    assert history.history["loss"][2] < history.history["loss"][0]
    assert history.epoch == [0, 1, 2] and m.history is history


def test_last_partial_batch_and_evaluate():
    x, y = _data(n=70)
    m, ref = _model(), _model()
    m.compile(K.optimizers.SGD(0.05), "mse", metrics=["mae"])
    m.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
    _tape_loop(ref, x, y, 0.05, 32, 2)
    for a, b in zip(m.get_weights(), ref.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    pred = ref(x).numpy()
    mse, mae = float(np.mean((pred - y) ** 2)), float(np.mean(np.abs(pred - y)))
    loss, got_mae = m.evaluate(x, y, batch_size=16, verbose=0)
    np.testing.assert_allclose([loss, got_mae], [mse, mae], rtol=1e-5)
    assert m.evaluate(x, y, verbose=0, return_dict=True).keys() == {"loss", "mae"}
    np.testing.assert_allclose(m.predict(x, batch_size=16, verbose=0), pred, rtol=1e-5,
                               atol=1e-6)
    assert m.metrics_names == ["loss", "compile_metrics"]


def test_fit_matches_keras_on_the_same_weights():
    keras = pytest.importorskip("keras")
    x, y = _data()
    m = _model()
    km = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="tanh"),
                           keras.layers.Dense(1)])
    km.set_weights(m.get_weights())
    for model, opt in ((m, K.optimizers.SGD(0.05)), (km, keras.optimizers.SGD(0.05))):
        model.compile(opt, "mse")
    h = m.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
    kh = km.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(h.history["loss"], kh.history["loss"], rtol=1e-4)
    for a, b in zip(m.get_weights(), km.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_on_batch_methods():
    x, y = _data(n=8)
    m = _model()
    m.compile(K.optimizers.SGD(0.0), "mse", metrics=["mae"])
    pred = m(x).numpy()
    mse = float(np.mean((pred - y) ** 2))
    out = m.train_on_batch(x, y)
    np.testing.assert_allclose(out, [mse, float(np.mean(np.abs(pred - y)))], rtol=1e-5)
    assert m.test_on_batch(x, y, return_dict=True)["loss"] == pytest.approx(mse, rel=1e-5)
    np.testing.assert_allclose(m.predict_on_batch(x), pred, rtol=1e-6)
    single = _model()
    single.compile(K.optimizers.SGD(0.0), "mse")
    assert isinstance(single.evaluate(x, y, verbose=0), float)


def test_validation_split_and_data():
    x, y = _data(n=100)
    m = _model()
    m.compile(K.optimizers.SGD(0.01), "mse")
    h = m.fit(x, y, batch_size=20, epochs=2, validation_split=0.2, shuffle=False, verbose=0)
    assert sorted(h.history) == ["loss", "val_loss"]
    # the held-out rows are the last 20, evaluated after the last epoch
    assert h.history["val_loss"][-1] == pytest.approx(m.evaluate(x[80:], y[80:], verbose=0),
                                                       rel=1e-5)
    h = m.fit(x[:80], y[:80], validation_data=(x[80:], y[80:]), epochs=1, verbose=0)
    assert "val_loss" in h.history
    with pytest.raises(ValueError, match="only supported for Tensors or NumPy arrays"):
        m.fit((b for b in [(x, y)]), validation_split=0.5, verbose=0)


def test_sample_weight_and_class_weight():
    x, y = _data(n=32)
    sw = np.linspace(0.0, 2.0, 32).astype("f4")
    m, ref = _model(), _model()
    m.compile(K.optimizers.SGD(0.05), "mse")
    m.fit(x, y, sample_weight=sw, batch_size=32, epochs=1, shuffle=False, verbose=0)
    _tape_loop(ref, x, y, 0.05, 32, 1, sample_weight=sw)
    for a, b in zip(m.get_weights(), ref.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    labels = (np.arange(32) % 2).astype("f4").reshape(-1, 1)
    c, cref = _model(), _model()
    c.compile(K.optimizers.SGD(0.05), "mse")
    c.fit(x, labels, class_weight={0: 0.5, 1: 2.0}, batch_size=32, shuffle=False, verbose=0)
    _tape_loop(cref, x, labels, 0.05, 32, 1,
               sample_weight=np.where(labels[:, 0] == 1, 2.0, 0.5).astype("f4"))
    for a, b in zip(c.get_weights(), cref.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    with pytest.raises(ValueError, match="at the same time"):
        c.fit(x, labels, sample_weight=sw, class_weight={0: 1.0}, verbose=0)


def test_generators_and_iterables():
    x, y = _data(n=64)

    def gen():
        while True:
            for i in range(0, 64, 16):
                yield x[i:i + 16], y[i:i + 16]

    class Batches:   # what a finegrad.data dataset looks like to fit: an iterable of batches
        def __iter__(self):
            return ((x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16))

    m, ref = _model(), _model()
    m.compile(K.optimizers.SGD(0.05), "mse")
    m.fit(gen(), steps_per_epoch=4, epochs=1, verbose=0)
    m.fit(Batches(), epochs=1, verbose=0)
    _tape_loop(ref, x, y, 0.05, 16, 2)
    for a, b in zip(m.get_weights(), ref.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    assert m.predict(Batches(), verbose=0).shape == (64, 1)


def test_initial_epoch():
    x, y = _data(n=32)
    m = _model()
    m.compile(K.optimizers.SGD(0.01), "mse")
    h = m.fit(x, y, epochs=3, initial_epoch=1, verbose=0)
    assert h.epoch == [1, 2]


def test_fit_before_compile_is_an_error():
    with pytest.raises(ValueError, match="compile"):
        _model().fit(*_data(), verbose=0)


def test_train_step_override_with_custom_gradient():
    """The "customizing fit" pattern, with a gradient-reversal custom_gradient inside the
    train step: the update goes uphill, so the loss grows."""
    @tf.custom_gradient
    def reverse(x):
        return tf.identity(x), lambda dy: -dy

    class Custom(K.Model):
        def __init__(self):
            super().__init__()
            self.dense = L.Dense(1, kernel_initializer="ones")
            self.tracker = K.metrics.Mean(name="loss")

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(reverse(self(x, training=True)) - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
            self.tracker.update_state(loss)
            return {"loss": self.tracker.result()}

        @property
        def metrics(self):
            return [self.tracker]

    x, y = _data(n=32)
    m = Custom()
    m.compile(K.optimizers.SGD(0.01))
    h = m.fit(x, y, batch_size=32, epochs=3, verbose=0)
    assert h.history["loss"][2] > h.history["loss"][0]


def test_gradient_reversal_layer_in_fit():
    class GradReverse(L.Layer):
        def call(self, x):
            @tf.custom_gradient
            def f(x):
                return tf.identity(x), lambda dy: -0.5 * dy
            return f(x)

    x, y = _data(n=32)
    m = K.Sequential([K.Input((5,)), L.Dense(1, kernel_initializer="zeros"), GradReverse()])
    m.compile(K.optimizers.SGD(0.1), "mse")
    m.fit(x, y, batch_size=32, epochs=1, verbose=0)
    # one SGD step on MSE with the gradient scaled by -0.5: w = +0.5 * 0.1 * dL/dw
    ref_grad = -2.0 * (x * y).mean(axis=0)
    np.testing.assert_allclose(m.layers[0].kernel.numpy().ravel(), 0.05 * ref_grad,
                               rtol=1e-5, atol=1e-7)


def test_mixed_precision_with_loss_scaling():
    K.mixed_precision.set_global_policy("mixed_float16")
    try:
        x, y = _data(n=64)
        m = K.Sequential([K.Input((5,)), L.Dense(8, activation="tanh"), L.Dense(1)])
        m.compile(K.optimizers.SGD(0.05), "mse")
        assert type(m.optimizer).__name__ == "LossScaleOptimizer"
        assert m(x).dtype == tf.float16
        h = m.fit(x, y, batch_size=16, epochs=3, verbose=0)
    finally:
        K.mixed_precision.set_global_policy("float32")
    assert all(w.dtype == tf.float32 for w in m.weights)
    assert np.all(np.isfinite(h.history["loss"])) and h.history["loss"][2] < h.history["loss"][0]


def test_model_losses_join_the_training_loss():
    class Penalized(L.Layer):
        def call(self, x):
            self.add_loss(100.0 * tf.reduce_mean(tf.square(x)))
            return x

    x, y = _data(n=16)
    m = K.Sequential([K.Input((5,)), L.Dense(1), Penalized()])
    m.compile(K.optimizers.SGD(0.0), "mse")
    pred = m(x).numpy()
    expected = np.mean((pred - y) ** 2) + 100.0 * np.mean(pred ** 2)
    assert m.evaluate(x, y, verbose=0) == pytest.approx(expected, rel=1e-5)


def test_verbose_2_prints_one_line_per_epoch(capsys):
    x, y = _data(n=64)
    m = _model()
    m.compile(K.optimizers.SGD(0.01), "mse")
    m.fit(x, y, batch_size=16, epochs=2, verbose=2)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Epoch 1/2" and out[2] == "Epoch 2/2" and len(out) == 4
    assert re.fullmatch(r"4/4 - \d+s - \d+(ms|us|s)/step - loss: \d+\.\d{4}", out[1])


def test_verbose_1_on_a_pipe_is_one_line_per_epoch_and_0_is_silent(capsys):
    x, y = _data(n=64)
    m = _model()
    m.compile(K.optimizers.SGD(0.01), "mse")
    m.fit(x, y, batch_size=16, epochs=1, verbose=1)
    assert re.fullmatch(r"4/4 - \d+s - \d+(ms|us|s)/step - loss: \d+\.\d{4}\n",
                        capsys.readouterr().out)
    m.fit(x, y, batch_size=16, epochs=1, verbose=0)
    m.evaluate(x, y, verbose=0)
    m.predict(x, verbose=0)
    assert capsys.readouterr().out == ""


def test_verbose_1_on_a_terminal_draws_the_bar(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    x, y = _data(n=64)
    m = _model()
    m.compile(K.optimizers.SGD(0.01), "mse")
    m.fit(x, y, batch_size=16, epochs=1, verbose=1)
    text = screen.getvalue()
    assert "\r" in text and "\x1b[1m4/4\x1b[0m " in text
    assert "\x1b[32m" + "━" * 20 + "\x1b[0m" in text and text.endswith("\n")
    assert re.search(r"loss: \d+\.\d{4}", text)


def test_custom_gradient_layer_under_mixed_precision_and_loss_scaling():
    """A custom-gradient layer reading its float32 kernel in a float16 computation, trained
    by fit with the LossScaleOptimizer compile adds: the scaled float16 gradients reach the
    float32 kernel through variables=, and training makes progress."""
    class ScaledTanh(L.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(shape[-1],), initializer="ones", name="w")

        def call(self, x):
            @tf.custom_gradient
            def f(x):
                y = tf.tanh(x * self.w)

                def grad(dy, variables=None):
                    d = dy * (1 - y * y)
                    return d * tf.cast(self.w, d.dtype), [tf.cast(
                        tf.reduce_sum(d * x, axis=0), tf.float32)]
                return y, grad
            return f(x)

    K.mixed_precision.set_global_policy("mixed_float16")
    try:
        x, y = _data(n=64)
        layer = ScaledTanh()
        m = K.Sequential([K.Input((5,)), layer, L.Dense(1)])
        m.compile(K.optimizers.SGD(0.05), "mse")
        before = layer.w.numpy().copy()
        h = m.fit(x, y, batch_size=16, epochs=3, verbose=0)
    finally:
        K.mixed_precision.set_global_policy("float32")
    assert layer.w.dtype == tf.float32 and not np.allclose(layer.w.numpy(), before)
    assert np.all(np.isfinite(h.history["loss"])) and h.history["loss"][2] < h.history["loss"][0]


def test_finegrad_data_datasets_in_fit_evaluate_predict():
    x, y = _data(n=64)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    m, ref = _model(), _model()
    m.compile(K.optimizers.SGD(0.05), "mse")
    h = m.fit(ds, epochs=2, validation_data=ds, verbose=0)
    _tape_loop(ref, x, y, 0.05, 16, 2)
    for a, b in zip(m.get_weights(), ref.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    assert sorted(h.history) == ["loss", "val_loss"]
    assert m.evaluate(ds, verbose=0) == pytest.approx(m.evaluate(x, y, verbose=0), rel=1e-5)
    np.testing.assert_allclose(m.predict(ds.map(lambda a, b: a), verbose=0),
                               m.predict(x, verbose=0), rtol=1e-6)
    repeated = tf.data.Dataset.from_tensor_slices((x, y)).batch(16).repeat()
    assert len(m.fit(repeated, steps_per_epoch=3, epochs=2, verbose=0).history["loss"]) == 2


def test_several_outputs_losses_and_metrics_by_name():
    keras = pytest.importorskip("keras")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 3)).astype("f4")
    y1, y2 = rng.normal(size=(16, 1)).astype("f4"), np.eye(2, dtype="f4")[np.arange(16) % 2]

    def build(K):
        a = K.Input((3,))
        h = K.layers.Dense(4, activation="tanh")(a)
        return K.Model(a, [K.layers.Dense(1, name="o1")(h),
                           K.layers.Dense(2, activation="softmax", name="o2")(h)])

    m, km = build(K), build(keras)
    km.set_weights(m.get_weights())
    for model, opt in ((m, K.optimizers.SGD(0.1)), (km, keras.optimizers.SGD(0.1))):
        model.compile(opt, {"o2": "categorical_crossentropy", "o1": "mse"},
                      loss_weights={"o1": 0.5, "o2": 2.0},
                      metrics={"o1": ["mae"], "o2": ["accuracy"]})
    h = m.fit(x, {"o1": y1, "o2": y2}, batch_size=8, epochs=2, shuffle=False, verbose=0)
    kh = km.fit(x, {"o1": y1, "o2": y2}, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert sorted(h.history) == sorted(kh.history)
    for key in kh.history:
        np.testing.assert_allclose(h.history[key], kh.history[key], rtol=1e-4, err_msg=key)
