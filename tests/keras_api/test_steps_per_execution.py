"""``compile(steps_per_execution=N)``: N steps per call of the traced step function, and the
callbacks' batch hooks called once per call with Keras 3's step indices (compared live)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import finegrad as tf

K = tf.keras

# one source for both sides: `keras` is finegrad.keras here and Keras 3 in the subprocess
HOOKS = """
import numpy as np

def hooks(keras):
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    m.compile("sgd", "mse", steps_per_execution=4)
    calls = []
    cb = keras.callbacks.LambdaCallback(
        on_train_batch_begin=lambda b, logs=None: calls.append(["b", b]),
        on_train_batch_end=lambda b, logs=None: calls.append(["e", b, sorted(logs)]),
        on_test_batch_begin=lambda b, logs=None: calls.append(["tb", b]),
        on_test_batch_end=lambda b, logs=None: calls.append(["te", b]),
        on_predict_batch_end=lambda b, logs=None: calls.append(["pe", b]))
    x, y = np.ones((40, 3), "f4"), np.ones((40, 1), "f4")
    m.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[cb],
          validation_data=(x[:20], y[:20]))
    m.predict(x[:20], batch_size=4, verbose=0, callbacks=[cb])
    m.evaluate(x[:20], y[:20], batch_size=4, verbose=0, callbacks=[cb])
    return calls, int(m.optimizer.iterations.numpy())
"""


def test_batch_hooks_are_keras_3s():
    pytest.importorskip("keras")
    env = dict(os.environ, KERAS_BACKEND="tensorflow", TF_CPP_MIN_LOG_LEVEL="3")
    code = HOOKS + "\nimport json, keras\nprint(json.dumps(hooks(keras)))\n"
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    theirs = json.loads(run.stdout.strip().splitlines()[-1])
    namespace: dict = {}
    exec(HOOKS, namespace)   # the same code on our side
    calls, iterations = namespace["hooks"](K)
    assert [calls, iterations] == theirs
    assert iterations == 10                     # 10 batches: executions of 4, 4 and 2 steps


def test_same_training_as_one_step_per_call():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(40, 3)).astype("f4"), rng.normal(size=(40, 1)).astype("f4")
    weights = {}
    for n in (1, 4):
        K.backend.clear_session()
        K.utils.set_random_seed(1)
        m = K.Sequential([K.Input((3,)), K.layers.Dense(2, activation="tanh"),
                          K.layers.Dense(1)])
        m.compile(K.optimizers.Adam(0.01), "mse", metrics=["mae"], steps_per_execution=n)
        history = m.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
        weights[n] = (m.get_weights(), history.history, m.predict(x, batch_size=8, verbose=0))
        if n == 4:   # one traced graph runs 4 steps; the shorter last execution its own
            assert m.train_function.experimental_get_tracing_count() == 2
            assert m.get_compile_config()["steps_per_execution"] == 4
            assert np.isfinite(m.train_on_batch(x[:4], y[:4])[0])
    for a, b in zip(weights[1][0], weights[4][0], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert weights[1][1].keys() == weights[4][1].keys()
    np.testing.assert_allclose(weights[1][1]["loss"], weights[4][1]["loss"], rtol=1e-5)
    np.testing.assert_allclose(weights[1][2], weights[4][2], rtol=1e-6)


def test_invalid_values():
    m = K.Sequential([K.Input((3,)), K.layers.Dense(1)])
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="steps_per_execution"):
            m.compile("sgd", "mse", steps_per_execution=bad)
