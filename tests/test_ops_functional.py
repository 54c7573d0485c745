"""`keras.ops`'s function transformations (``jvp``, ``vectorize``, ``vectorized_map``, ``map``,
``associative_scan``) on each finegrad.ops backend against Keras 3.15 on the same backend
(the finegrad backend against Keras on JAX; where Keras on a backend refuses a call, as
``vectorize`` on TensorFlow, against Keras on JAX too), values and structure."""
import os
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

import ops_functional_cases
from finegrad import ops

HERE = pathlib.Path(__file__).resolve().parent
KERAS_OF = {"finegrad": "jax", "jax": "jax", "torch": "torch", "tensorflow": "tensorflow"}
_REFERENCES: dict = {}


def _reference(keras_backend, tmp_path_factory):
    if keras_backend not in _REFERENCES:
        path = tmp_path_factory.mktemp("keras") / f"{keras_backend}.pkl"
        env = {**os.environ, "KERAS_BACKEND": keras_backend, "PYTHONPATH": str(HERE),
               "TF_CPP_MIN_LOG_LEVEL": "3"}
        done = subprocess.run([sys.executable, str(HERE / "ops_functional_cases.py"),
                               str(path)], env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        with open(path, "rb") as f:
            _REFERENCES[keras_backend] = pickle.load(f)
    return _REFERENCES[keras_backend]


def _raised(want):
    return isinstance(want, tuple) and len(want) == 2 and isinstance(want[0], str)


@pytest.fixture(scope="module", params=sorted(KERAS_OF))
def backend_and_reference(request, tmp_path_factory):
    name = request.param
    pytest.importorskip("keras")
    pytest.importorskip("jax")
    if name != "finegrad":
        pytest.importorskip(name)
    own = _reference(KERAS_OF[name], tmp_path_factory)
    on_jax = _reference("jax", tmp_path_factory)
    return name, {k: on_jax[k] if _raised(v) else v for k, v in own.items()}


def _numpy(x):
    if isinstance(x, (list, tuple)):
        return tuple(_numpy(v) for v in x)
    return np.asarray(ops.convert_to_numpy(x))


def _same(got, want, where):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{where}: {got} vs {want}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, f"{where}[{i}]")
        return
    assert got.shape == want.shape, f"{where}: shape {got.shape} vs Keras's {want.shape}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} vs Keras's {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=where)


@pytest.mark.parametrize("case", sorted(ops_functional_cases.CASES))
def test_like_keras(backend_and_reference, case):
    name, reference = backend_and_reference
    want = reference[case]
    assert not _raised(want), f"Keras: {case}: {want[1]}"
    with ops.backend_scope(name):
        got = _numpy(ops_functional_cases.CASES[case](ops))
    _same(got, want, f"{case} on {name}")


def test_jvp_against_finite_differences_on_every_backend(backend_and_reference):
    name, _ = backend_and_reference
    x, t = ops_functional_cases.X.astype(np.float64), ops_functional_cases.T
    def f(a):
        return ops.sin(a) * a
    with ops.backend_scope(name):
        dtype = "float32" if name == "jax" else "float64"
        xt = ops.convert_to_tensor(x.astype(dtype))
        _, tangent = ops.jvp(f, (xt,), (ops.convert_to_tensor(t.astype(dtype)),))
        tangent = _numpy(tangent)
    h = 1e-6
    want = (np.sin(x + h * t) * (x + h * t) - np.sin(x - h * t) * (x - h * t)) / (2 * h)
    np.testing.assert_allclose(tangent, want, rtol=1e-5 if dtype == "float64" else 1e-4,
                               atol=1e-5)
