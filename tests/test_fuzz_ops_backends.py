"""Property-based tests of `finegrad.ops` (the keras.ops namespace) on its backends.

Hypothesis draws shapes, dtypes and values (`fuzz_settings` holds the profiles: ``ci`` by
default, ``HYPOTHESIS_PROFILE=long`` by hand). What is checked:

- on the finegrad backend, elementwise, binary and reducing ops give NumPy's / SciPy's
  values, and their gradients (through finegrad's tape) agree with float64 central
  differences;
- on the jax, torch and tensorflow backends (each under ``importorskip``), the same ops give
  what Keras's own implementation of that op on that backend gives (Keras's backend modules,
  ``keras.src.backend.<name>``, called directly whatever backend Keras runs on), and their
  gradients through the backend's own autodiff (``ops.grad``) agree with finite differences.
"""
import importlib

import numpy as np
import pytest
import scipy.special as sp
from hypothesis import given, settings, strategies as st

import fuzz_settings  # noqa: F401 - registers and loads the hypothesis profile
import finegrad as fg
from finegrad import ops

shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)
float_dtypes = st.sampled_from(["float32", "float64"])
seeds = st.integers(0, 2 ** 32 - 1)


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


# (name in finegrad.ops, NumPy/SciPy reference, input range): smooth on the range
UNARY = [
    ("exp", np.exp, (-3, 3)), ("log1p", np.log1p, (-0.5, 3)), ("tanh", np.tanh, (-3, 3)),
    ("sin", np.sin, (-3, 3)), ("arctan", np.arctan, (-3, 3)), ("sqrt", np.sqrt, (0.1, 4)),
    ("sigmoid", sp.expit, (-6, 6)), ("softplus", lambda x: np.logaddexp(0, x), (-6, 6)),
    ("log_sigmoid", sp.log_expit, (-6, 6)), ("silu", lambda x: x * sp.expit(x), (-4, 4)),
    ("gelu", _gelu, (-4, 4)), ("softsign", lambda x: x / (1 + np.abs(x)), (0.1, 4)),
    ("erf", sp.erf, (-2, 2)), ("square", np.square, (-3, 3)),
    ("reciprocal", np.reciprocal, (0.5, 3)),
]
BINARY = [
    ("add", np.add, (-3, 3)), ("multiply", np.multiply, (-3, 3)),
    ("divide", np.divide, (0.5, 3)), ("arctan2", np.arctan2, (0.5, 3)),
    ("logaddexp", np.logaddexp, (-3, 3)), ("power", np.power, (0.5, 2)),
    ("hypot", np.hypot, (0.5, 3)),
]
REDUCING = [
    ("sum", lambda x: np.sum(x, axis=-1)), ("mean", lambda x: np.mean(x, axis=-1)),
    ("prod", lambda x: np.prod(x, axis=-1)),
    ("logsumexp", lambda x: sp.logsumexp(x, axis=-1)),
    ("softmax", lambda x: sp.softmax(x, axis=-1)),
    ("log_softmax", lambda x: sp.log_softmax(x, axis=-1)),
]
_AXIS = {"sum": {"axis": -1}, "mean": {"axis": -1}, "prod": {"axis": -1},
         "logsumexp": {"axis": -1}, "softmax": {"axis": -1}, "log_softmax": {"axis": -1}}


def _rtol(dtype):
    return 2e-5 if dtype == "float32" else 1e-10


def _draw(seed, shape, lo, hi, dtype):
    return np.asarray(np.random.default_rng(seed).uniform(lo, hi, shape), dtype)


def _call(name, *args):
    return getattr(ops, name)(*args, **_AXIS.get(name, {}))


def _fd_gradient(f, xs, k):
    """Central differences (float64) of ``sum(w * f(*xs))`` along each element of xs[k]."""
    w = np.random.default_rng(1).uniform(0.5, 1.5, np.shape(f(*xs)))
    out = np.zeros(xs[k].shape)
    for j in range(xs[k].size):
        h = 1e-6 * max(1.0, abs(float(xs[k].flat[j])))
        up = [x.copy() for x in xs]
        down = [x.copy() for x in xs]
        up[k].flat[j] += h
        down[k].flat[j] -= h
        out.flat[j] = (np.sum(w * f(*up)) - np.sum(w * f(*down))) / (2 * h)
    return w, out


def _finegrad_gradient(name, xs, w, k):
    ts = [fg.constant(x) for x in xs]
    with fg.GradientTape() as tape:
        tape.watch(ts)
        y = fg.reduce_sum(_call(name, *ts) * fg.constant(w))
    return np.asarray(tape.gradient(y, ts[k]).numpy(), np.float64)


# ---- the finegrad backend against NumPy / SciPy ------------------------------------------


@given(st.sampled_from(UNARY), shapes, float_dtypes, seeds)
def test_unary_ops_match_numpy_and_finite_differences(op, shape, dtype, seed):
    name, ref, (lo, hi) = op
    x = _draw(seed, shape, lo, hi, dtype)
    got = np.asarray(_call(name, fg.constant(x)).numpy())
    assert got.shape == shape and got.dtype == np.dtype(dtype), name
    np.testing.assert_allclose(got, ref(x.astype(np.float64)), rtol=_rtol(dtype), atol=1e-6)
    x64 = x.astype(np.float64)
    w, expected = _fd_gradient(ref, [x64], 0)
    np.testing.assert_allclose(_finegrad_gradient(name, [x64], w, 0), expected, rtol=1e-5,
                               atol=1e-7, err_msg=name)


@given(st.sampled_from(BINARY), shapes, st.booleans(), float_dtypes, seeds)
def test_binary_ops_broadcast_match_numpy_and_finite_differences(op, shape, scalar_second,
                                                                 dtype, seed):
    name, ref, (lo, hi) = op
    x = _draw(seed, shape, lo, hi, dtype)
    y = _draw(seed + 1, () if scalar_second else shape[-1:], lo, hi, dtype)
    got = np.asarray(_call(name, fg.constant(x), fg.constant(y)).numpy())
    want = ref(x.astype(np.float64), y.astype(np.float64))
    assert got.shape == want.shape, name
    np.testing.assert_allclose(got, want, rtol=_rtol(dtype), atol=1e-6, err_msg=name)
    xs = [x.astype(np.float64), y.astype(np.float64)]
    for k in (0, 1):     # the broadcast input's gradient is reduced to its own shape
        w, expected = _fd_gradient(ref, xs, k)
        got_k = _finegrad_gradient(name, xs, w, k)
        assert got_k.shape == xs[k].shape, (name, k)
        np.testing.assert_allclose(got_k, expected, rtol=1e-5, atol=1e-7, err_msg=name)


@given(st.sampled_from(REDUCING), st.lists(st.integers(1, 4), min_size=1, max_size=3)
       .map(tuple), float_dtypes, seeds)
def test_reducing_ops_match_scipy_and_finite_differences(op, shape, dtype, seed):
    name, ref = op
    x = _draw(seed, shape, 0.5, 2.0, dtype)
    got = np.asarray(_call(name, fg.constant(x)).numpy())
    np.testing.assert_allclose(got, ref(x.astype(np.float64)), rtol=5 * _rtol(dtype),
                               atol=1e-6, err_msg=name)
    x64 = x.astype(np.float64)
    w, expected = _fd_gradient(ref, [x64], 0)
    np.testing.assert_allclose(_finegrad_gradient(name, [x64], w, 0), expected, rtol=1e-5,
                               atol=1e-7, err_msg=name)


# ---- the jax / torch / tensorflow backends against Keras's own -----------------------------


def _keras_op(backend, name):
    """Keras's own implementation of ``name`` on ``backend`` (its numpy, nn or math
    module), called directly whatever backend Keras itself runs on."""
    for module in ("numpy", "nn", "math"):
        mod = importlib.import_module(f"keras.src.backend.{backend}.{module}")
        if hasattr(mod, name):
            return getattr(mod, name)
    raise AssertionError(f"Keras has no {name} on {backend}")


def _as_numpy(t):
    if hasattr(t, "detach"):
        t = t.detach().cpu()
    return np.asarray(t.numpy() if hasattr(t, "numpy") and not isinstance(t, np.ndarray)
                      else t, np.float64)


def _backend_case(backend, op, shape, dtype, seed):
    pytest.importorskip(backend)
    pytest.importorskip("keras")
    name, ref, (lo, hi) = op
    x = _draw(seed, shape, lo, hi, dtype)
    with ops.backend_scope(backend):
        got = _call(name, ops.convert_to_tensor(x))
        keras_got = _keras_op(backend, name)(ops.convert_to_tensor(x), **_AXIS.get(name, {}))
        grad = ops.grad(lambda t: ops.sum(_call(name, t)))(ops.convert_to_tensor(
            x.astype(np.float64)))
    np.testing.assert_allclose(_as_numpy(got), _as_numpy(keras_got), rtol=_rtol(dtype),
                               atol=1e-6, err_msg=f"{name} on {backend}")
    np.testing.assert_allclose(_as_numpy(got), ref(x.astype(np.float64)), rtol=1e-4,
                               atol=1e-5, err_msg=f"{name} on {backend}")
    # jax computes in float32 unless its 64-bit switch is on (left off here)
    expected = _fd_sum_gradient(ref, x.astype(np.float64))
    np.testing.assert_allclose(_as_numpy(grad), expected, rtol=3e-4,
                               atol=1e-5 * max(1.0, float(np.max(np.abs(expected),
                                                                 initial=0.0))),
                               err_msg=f"gradient of {name} on {backend}")


def _fd_sum_gradient(ref, x):
    out = np.zeros(x.shape)
    for j in range(x.size):
        h = 1e-6 * max(1.0, abs(float(x.flat[j])))
        up, down = x.copy(), x.copy()
        up.flat[j] += h
        down.flat[j] -= h
        out.flat[j] = (np.sum(ref(up)) - np.sum(ref(down))) / (2 * h)
    return out


# a fifth of the profile's examples per backend (each call goes through a framework)
_FEW = settings(max_examples=max(10, settings().max_examples // 5))


@pytest.mark.parametrize("backend", ["jax", "torch", "tensorflow"])
@_FEW
@given(op=st.sampled_from(UNARY), shape=shapes, dtype=float_dtypes, seed=seeds)
def test_ops_on_each_backend_equal_keras_own(backend, op, shape, dtype, seed):
    _backend_case(backend, op, shape, dtype, seed)
