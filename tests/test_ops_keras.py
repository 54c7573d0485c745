"""Every call of tests/ops_cases.py on each finegrad.ops backend gives Keras 3's value,
shape and dtype, with Keras on its TensorFlow backend as the reference (run once per session
in a subprocess: Keras fixes its backend at import). Skipped without Keras and TensorFlow."""
import os
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

import ops_cases
from finegrad import ops

HERE = pathlib.Path(__file__).resolve().parent
BACKENDS = ["finegrad", "jax", "torch", "tensorflow"]

# where finegrad.ops deliberately differs from Keras 3.15, and what is checked instead
DIFFERS = {
    # Keras's tau sums the cumulative sums over the support instead of taking the last one,
    # so its rows do not sum to 1 ([0.0405, 0, 0] for [1.43, -1.866, 0.919]); ours is
    # Martins & Astudillo's sparsemax, checked in test_sparsemax_is_a_projection_on_the_simplex
    "sparsemax": "Keras 3.15's sparsemax rows do not sum to 1",
    # any index order that partitions is valid; checked in test_argpartition_partitions
    "argpartition": "not unique",
}


def _reference(tmp_path_factory, keras_backend):
    path = tmp_path_factory.mktemp("keras") / f"{keras_backend}.pkl"
    env = {**os.environ, "KERAS_BACKEND": keras_backend, "PYTHONPATH": str(HERE),
           "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run([sys.executable, str(HERE / "keras_reference.py"), str(path)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(path, "rb") as f:
        return pickle.load(f)


@pytest.fixture(scope="session")
def keras_values(tmp_path_factory):
    """Keras on TensorFlow's values; where it raises (adaptive pooling and qr of NumPy
    inputs, pad reflect, top_k), Keras on JAX's when JAX is installed."""
    pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    values = _reference(tmp_path_factory, "tensorflow")
    if any(_raised(v) for v in values.values()):
        try:
            import jax  # noqa: F401
        except ImportError:
            return values
        on_jax = _reference(tmp_path_factory, "jax")
        values = {k: on_jax[k] if _raised(v) and k != ("size", 0) else v
                  for k, v in values.items()}
    return values


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param != "finegrad":
        pytest.importorskip(request.param)
    with ops.backend_scope(request.param):
        yield request.param


def _numpy(x):
    if isinstance(x, (list, tuple)):
        return type(x)(_numpy(v) for v in x)
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    return np.asarray(ops.convert_to_numpy(x))


def _raised(want):
    return isinstance(want, tuple) and len(want) == 2 and isinstance(want[0], str) and \
        want[0] == "raises"


def assert_like_keras(got, want, where):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), \
            f"{where}: {type(got).__name__} of {len(got)} vs Keras's {len(want)}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_like_keras(g, w, f"{where}[{i}]")
        return
    if not isinstance(want, np.ndarray):
        assert np.all(np.asarray(got) == want), f"{where}: {got!r} vs Keras's {want!r}"
        return
    got = np.asarray(got)
    assert got.shape == want.shape, f"{where}: shape {got.shape} vs Keras's {want.shape}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} vs Keras's {want.dtype}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def _function(name):
    fn = ops
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn


@pytest.mark.parametrize("name", sorted(set(ops_cases.CASES) - set(DIFFERS)))
def test_like_keras(keras_values, backend, name):
    for i, (args, kwargs) in enumerate(ops_cases.CASES[name]):
        want = keras_values[name, i]
        if _raised(want):
            continue   # Keras on TensorFlow refuses this call (pad reflect, top_k of NumPy)
        got = _numpy(_function(name)(*args, **kwargs))
        if name in SIGN_FREE:   # vectors are defined up to sign
            got, want = _abs(got), _abs(want)
        assert_like_keras(got, want, f"{name} call {i} on {backend}")


SIGN_FREE = {"eigh", "qr", "svd"}


def _abs(x):
    return type(x)(_abs(v) for v in x) if isinstance(x, (list, tuple)) else np.abs(x)


def test_sparsemax_is_a_projection_on_the_simplex(backend):
    z = ops_cases.S
    got = _numpy(ops.sparsemax(z))
    srt = -np.sort(-z, -1)
    k = np.arange(1, 4)
    support = 1 + k * srt > np.cumsum(srt, -1)
    kz = support.sum(-1, keepdims=True)
    tau = (np.take_along_axis(np.cumsum(srt, -1), kz - 1, -1) - 1) / kz
    np.testing.assert_allclose(got, np.maximum(z - tau, 0), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got.sum(-1), 1.0, rtol=1e-6)


def test_argpartition_partitions(backend):
    v = ops_cases.V
    idx = _numpy(ops.argpartition(v, 1))
    assert sorted(idx.tolist()) == [0, 1, 2, 3]
    assert v[idx[1]] == np.sort(v)[1]
    assert np.all(v[idx[:1]] <= v[idx[1]]) and np.all(v[idx[2:]] >= v[idx[1]])


def test_keras_refusals_are_numpys_values_here(keras_values, backend):
    # where Keras on TensorFlow raises, finegrad.ops gives NumPy's answer
    np.testing.assert_allclose(_numpy(ops.pad(ops_cases.S, 1, mode="reflect")),
                               np.pad(ops_cases.S, 1, mode="reflect"))
    values, indices = _numpy(ops.top_k(ops_cases.S, 2))
    np.testing.assert_allclose(values, -np.sort(-ops_cases.S, -1)[:, :2])
    assert indices.dtype == np.int32
