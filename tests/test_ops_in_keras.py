"""finegrad.ops inside real Keras 3 models, under each Keras backend (a subprocess each:
Keras fixes its backend at import): a gradient-reversal layer written once with
ops.custom_gradient trains in a functional model under model.fit (compiled and eager) and
moves the weights exactly as the same layer written with keras.ops.custom_gradient;
finegrad.ops functions and custom-gradient functions apply to KerasTensors directly."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


def _run(script, keras_backend, code=None):
    pytest.importorskip("keras")
    pytest.importorskip(keras_backend)
    env = {**os.environ, "KERAS_BACKEND": keras_backend, "PYTHONPATH": str(ROOT),
           "TF_CPP_MIN_LOG_LEVEL": "3"}
    args = [sys.executable, str(HERE / script)] if code is None else \
        [sys.executable, "-c", code]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600,
                          cwd=str(HERE))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("keras_backend", ["jax", "torch", "tensorflow"])
def test_a_gradient_reversal_layer_trains_in_a_functional_model(keras_backend):
    out = json.loads(_run("keras_models.py", keras_backend))
    assert out["backend"] == out["keras"] == keras_backend   # ops.set_backend("keras")
    assert out["moved"] and out["differs_from_identity"]
    assert out["same_as_keras_custom_gradient"]
    assert out["eager_same_as_compiled"]
    assert out["direct_same_as_layer"]      # the rule applied to a KerasTensor directly
    assert out["sequential_shape"] == [5, 2]


@pytest.mark.parametrize("keras_backend", ["jax", "torch"])
def test_the_environment_variable_keras_follows_keras(keras_backend):
    code = ("import os; os.environ['FINEGRAD_BACKEND'] = 'keras'\n"
            "from finegrad import ops\nimport keras\n"
            "x = keras.Input((2,))\ny = ops.multiply(ops.exp(x), 2.0)\n"
            "print(ops.backend(), type(y).__name__, tuple(y.shape), y.dtype)")
    assert _run(None, keras_backend, code) == f"{keras_backend} KerasTensor (None, 2) float32"
