"""Gradients of finegrad.ops functions through ops.grad on each backend, against central
finite differences of the same function on the same backend (float64 where the backend has
it, float32 with a wider step on JAX without x64)."""
import numpy as np
import pytest

from finegrad import ops

BACKENDS = ["finegrad", "jax", "torch", "tensorflow"]

POSITIVE = """log log10 log1p log2 sqrt rsqrt cbrt reciprocal arccosh""".split()
UNIT = """arccos arcsin arctanh erfinv""".split()
UNARY = """abs exp exp2 expm1 sin cos tan tanh sinh cosh arcsinh arctan sinc deg2rad
rad2deg square negative sigmoid softplus softsign silu log_sigmoid elu selu gelu celu
leaky_relu hard_sigmoid hard_silu relu relu6 squareplus sparse_plus erf erfc
tanh_shrink soft_shrink hard_shrink hard_tanh""".split()
BINARY = """add subtract multiply divide true_divide power maximum minimum hypot arctan2
logaddexp logaddexp2 fmax fmin""".split()
REDUCE = """sum mean max min prod std var logsumexp amax amin ptp nansum nanmean norm
softmax log_softmax sparsemax cumsum cumprod sort""".split()


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param != "finegrad":
        pytest.importorskip(request.param)
    with ops.backend_scope(request.param):
        yield request.param


def _dtype(backend):
    if backend == "jax":
        import jax
        return "float64" if jax.config.read("jax_enable_x64") else "float32"
    return "float64"


def check(backend, f, x0, *rest):
    dtype = _dtype(backend)
    h, tol = (1e-6, 1e-5) if dtype == "float64" else (1e-2, 2e-2)

    def total(x, *r):
        return ops.sum(f(x, *r))
    x = ops.convert_to_tensor(np.asarray(x0, dtype))
    g = np.asarray(ops.convert_to_numpy(ops.grad(total)(x, *rest)), np.float64)
    want = np.zeros(x0.size)
    flat = np.asarray(x0, np.float64).ravel()
    for i in range(flat.size):
        up, down = flat.copy(), flat.copy()
        up[i] += h
        down[i] -= h
        fu = ops.convert_to_numpy(total(ops.convert_to_tensor(up.reshape(x0.shape).astype(dtype)),
                                        *rest))
        fd = ops.convert_to_numpy(total(ops.convert_to_tensor(
            down.reshape(x0.shape).astype(dtype)), *rest))
        want[i] = (float(fu) - float(fd)) / (2 * h)
    np.testing.assert_allclose(g.ravel(), want, rtol=tol, atol=tol)


X = np.array([[0.31, -0.72, 1.13], [-1.41, 0.27, 0.58]])
P = np.array([[1.31, 0.72, 2.13], [1.41, 1.27, 1.58]])
U = np.array([[0.31, -0.42, 0.13], [-0.61, 0.27, 0.58]])
Y = np.array([[0.52, 0.33, -0.91], [0.44, -1.2, 0.71]])


@pytest.mark.parametrize("name", UNARY + POSITIVE + UNIT)
def test_unary_gradient(backend, name):
    x = P + 0.5 if name in POSITIVE else U if name in UNIT else X
    check(backend, getattr(ops, name), x)


@pytest.mark.parametrize("name", BINARY)
def test_binary_gradient_in_each_argument(backend, name):
    x, y = (P, Y) if name == "power" else (X, Y)
    fn = getattr(ops, name)
    check(backend, lambda a: fn(a, ops.convert_to_tensor(y.astype(_dtype(backend)))), x)
    check(backend, lambda b: fn(ops.convert_to_tensor(x.astype(_dtype(backend))), b), y)


@pytest.mark.parametrize("name", REDUCE)
def test_reduction_gradient(backend, name):
    fn = getattr(ops, name)
    x = P if name in ("prod", "cumprod") else X
    if name in ("softmax", "log_softmax", "sparsemax", "cumsum", "cumprod", "sort"):
        check(backend, lambda a: ops.multiply(fn(a, axis=-1), ops.convert_to_tensor(
            Y.astype(_dtype(backend)))), x)
    else:
        check(backend, lambda a: fn(a, axis=1), x)
