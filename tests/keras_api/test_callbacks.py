"""Callbacks driven by fit: the order of the hooks, History, EarlyStopping, ModelCheckpoint,
LearningRateScheduler, ReduceLROnPlateau, TerminateOnNaN, CSVLogger, LambdaCallback (their
rules as Keras 3's callbacks define them)."""
import csv

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


def _setup(lr=0.05, n=64):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 3)).astype("f4")
    y = (x.sum(axis=1, keepdims=True)).astype("f4")
    m = K.Sequential([K.Input((3,)), L.Dense(1, kernel_initializer="zeros")])
    m.compile(K.optimizers.SGD(lr), "mse")
    return m, x, y


def test_hook_order_and_logs():
    calls = []

    class Recorder(K.callbacks.Callback):
        def on_train_begin(self, logs=None):
            calls.append("train_begin")

        def on_epoch_begin(self, epoch, logs=None):
            calls.append(f"epoch_begin {epoch}")

        def on_train_batch_end(self, batch, logs=None):
            calls.append(f"batch_end {batch} {sorted(logs)}")

        def on_test_begin(self, logs=None):
            calls.append("test_begin")

        def on_epoch_end(self, epoch, logs=None):
            calls.append(f"epoch_end {epoch} {sorted(logs)}")

        def on_train_end(self, logs=None):
            calls.append("train_end")

    m, x, y = _setup()
    rec = Recorder()
    m.fit(x, y, batch_size=32, epochs=2, validation_data=(x, y), callbacks=[rec], verbose=0)
    assert calls == ["train_begin", "epoch_begin 0", "batch_end 0 ['loss']",
                     "batch_end 1 ['loss']", "test_begin", "epoch_end 0 ['loss', 'val_loss']",
                     "epoch_begin 1", "batch_end 0 ['loss']", "batch_end 1 ['loss']",
                     "test_begin", "epoch_end 1 ['loss', 'val_loss']", "train_end"]
    assert rec.model is m and rec.params == {"verbose": 0, "epochs": 2, "steps": 2}


def test_early_stopping_restores_best_weights():
    m, x, y = _setup(lr=0.05)
    weights_at_end = []

    def diverge(epoch, logs):   # from the third epoch the rate makes the loss explode
        weights_at_end.append(m.get_weights())
        if epoch == 1:
            m.optimizer.learning_rate = 5.0

    stop = K.callbacks.EarlyStopping(monitor="loss", patience=1, restore_best_weights=True)
    h = m.fit(x, y, batch_size=64, epochs=20, shuffle=False, verbose=0,
              callbacks=[K.callbacks.LambdaCallback(on_epoch_end=diverge), stop])
    best = int(np.argmin(h.history["loss"]))
    assert len(h.history["loss"]) < 20 and stop.stopped_epoch == len(h.history["loss"]) - 1
    assert stop.best_epoch == best
    for a, b in zip(m.get_weights(), weights_at_end[best], strict=True):
        np.testing.assert_array_equal(a, b)


def test_early_stopping_needs_a_direction_for_unknown_metrics():
    m, x, y = _setup()
    with pytest.raises(ValueError, match="mode='max'"):
        m.fit(x, y, epochs=1, verbose=0,
              callbacks=[K.callbacks.EarlyStopping(monitor="weird")])


def test_model_checkpoint(tmp_path):
    m, x, y = _setup()
    pattern = str(tmp_path / "ckpt-{epoch:02d}.weights.h5")
    pytest.importorskip("h5py")
    m.fit(x, y, epochs=2, verbose=0,
          callbacks=[K.callbacks.ModelCheckpoint(pattern, save_weights_only=True,
                                                 monitor="loss")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt-01.weights.h5",
                                                          "ckpt-02.weights.h5"]
    fresh, _, _ = _setup()
    fresh.load_weights(str(tmp_path / "ckpt-02.weights.h5"))
    np.testing.assert_array_equal(fresh.get_weights()[0], m.get_weights()[0])
    best = str(tmp_path / "best.npz")
    cb = K.callbacks.ModelCheckpoint(best, save_weights_only=True, monitor="loss",
                                     save_best_only=True)
    m.fit(x, y, epochs=2, verbose=0, callbacks=[cb])
    assert cb.best is not None and (tmp_path / "best.npz").exists()
    with pytest.raises(ValueError, match="must end in `.keras`"):   # Keras 3's rule
        K.callbacks.ModelCheckpoint(str(tmp_path / "m.weights.h5"))
    whole = K.callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch}.keras"), monitor="loss")
    m.fit(x, y, epochs=1, verbose=0, callbacks=[whole])
    loaded = K.saving.load_model(str(tmp_path / "m-1.keras"))
    np.testing.assert_array_equal(loaded.get_weights()[0], m.get_weights()[0])
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        K.callbacks.ModelCheckpoint(str(tmp_path / "m.keras"), save_weights_only=True)


def test_learning_rate_scheduler():
    m, x, y = _setup()
    rates = []
    sched = K.callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))
    h = m.fit(x, y, epochs=3, verbose=0, callbacks=[
        sched, K.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: rates.append(
            float(np.asarray(m.optimizer.learning_rate))))])
    np.testing.assert_allclose(rates, [0.1, 0.05, 0.1 / 3], rtol=1e-6)
    np.testing.assert_allclose(h.history["learning_rate"], [0.1, 0.05, 0.1 / 3], rtol=1e-6)
    with pytest.raises(ValueError, match="should be a float"):
        m.fit(x, y, epochs=1, verbose=0,
              callbacks=[K.callbacks.LearningRateScheduler(lambda epoch: "fast")])


def test_reduce_lr_on_plateau():
    m, x, y = _setup(lr=0.0)   # no progress: the loss stays on its plateau
    m.optimizer.learning_rate = 1e-9
    cb = K.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=1e-3)
    h = m.fit(x, y, epochs=4, verbose=0, callbacks=[cb])
    # epoch 0 sets the best; epochs 1, 2, 3 wait 1 each and reduce each time (no cooldown);
    # the logs (and so History) get the rate before that epoch's reduction, as in Keras
    np.testing.assert_allclose(h.history["learning_rate"], [1e-9, 1e-9, 5e-10, 2.5e-10],
                               rtol=1e-5)
    assert float(np.asarray(m.optimizer.learning_rate)) == pytest.approx(1.25e-10, rel=1e-5)
    with pytest.raises(ValueError, match="factor >= 1.0"):
        K.callbacks.ReduceLROnPlateau(factor=1.0)


def test_terminate_on_nan():
    m, x, y = _setup()
    y = y.copy()
    y[0] = np.nan
    h = m.fit(x, y, batch_size=16, epochs=3, verbose=0,
              callbacks=[K.callbacks.TerminateOnNaN()])
    assert len(h.history["loss"]) == 1 and np.isnan(h.history["loss"][0])
    with pytest.raises(RuntimeError, match="NaN or Inf loss"):
        m.fit(x, y, batch_size=16, epochs=1, verbose=0,
              callbacks=[K.callbacks.TerminateOnNaN(raise_error=True)])


def test_csv_logger(tmp_path):
    m, x, y = _setup()
    path = tmp_path / "log.csv"
    m.fit(x, y, epochs=2, verbose=0, callbacks=[K.callbacks.CSVLogger(str(path))])
    rows = list(csv.reader(path.open()))
    # Keras adds val_ columns when the logs have none (filled with NA)
    assert rows[0] == ["epoch", "loss", "val_loss"]
    assert [r[0] for r in rows[1:]] == ["0", "1"] and rows[1][2] == "NA"
    m.fit(x, y, epochs=1, verbose=0, callbacks=[K.callbacks.CSVLogger(str(path), append=True)])
    assert len(list(csv.reader(path.open()))) == 4


def test_history_and_stop_training_from_a_batch():
    m, x, y = _setup()

    class StopAtBatch(K.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 1:
                self.model.stop_training = True

    h = m.fit(x, y, batch_size=16, epochs=5, verbose=0, callbacks=[StopAtBatch()])
    assert h.epoch == [0]
