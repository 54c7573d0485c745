"""`keras.ops.nn`, linalg, math and core on finegrad's own ``nn``, ``linalg``, ``math`` and
control flow (``cond``, ``while_loop``, traceable under `finegrad.function`)."""
import finegrad as fg
from finegrad._src.backends.native import custom as _custom


def _f(x):
    x = _custom.convert_to_tensor(x)
    return x if x.dtype.is_floating or x.dtype.is_complex else fg.cast(x, "float32")


def sigmoid(x):
    return fg.sigmoid(_f(x))


def softplus(x):
    return fg.math.softplus(_f(x))


def relu(x):
    return fg.nn.relu(_f(x))


def softmax(x, axis=-1):
    return fg.nn.softmax(_f(x), axis=axis)


def log_softmax(x, axis=-1):
    return fg.nn.log_softmax(_f(x), axis=axis)


def stop_gradient(variable):
    return fg.stop_gradient(variable)


def cast(x, dtype):
    return fg.cast(x, dtype)


def erf(x):
    return fg.math.erf(_f(x))


def erfinv(x):
    return fg.math.erfinv(_f(x))


def logsumexp(x, axis=None, keepdims=False):
    return fg.reduce_logsumexp(_f(x), axis=axis, keepdims=keepdims)


def top_k(x, k, sorted=True):  # noqa: A002 (Keras's name)
    return fg.math.top_k(x, k, sorted=sorted)


def cholesky(x, upper=False):
    lower = fg.linalg.cholesky(_f(x))
    return fg.linalg.adjoint(lower) if upper else lower


def det(x):
    return fg.linalg.det(_f(x))


def eigh(x):
    return fg.linalg.eigh(_f(x))


def inv(x):
    return fg.linalg.inv(_f(x))


def qr(x, mode="reduced"):
    return fg.linalg.qr(_f(x), full_matrices=mode == "complete")


def solve(a, b):
    a, b = _f(a), _f(b)
    vec = b.shape.rank == 1
    out = fg.linalg.solve(a, b[:, None] if vec else b)
    return out[:, 0] if vec else out


def solve_triangular(a, b, lower=False):
    a, b = _f(a), _f(b)
    vec = b.shape.rank == 1
    out = fg.linalg.triangular_solve(a, b[:, None] if vec else b, lower=lower)
    return out[:, 0] if vec else out


def svd(x, full_matrices=True, compute_uv=True):
    if not compute_uv:
        return fg.linalg.svd(_f(x), compute_uv=False)
    s, u, v = fg.linalg.svd(_f(x), full_matrices=full_matrices)
    return u, s, fg.linalg.adjoint(v)


def cond(pred, true_fn, false_fn):
    return fg.cond(pred, true_fn, false_fn)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    is_tuple = isinstance(loop_vars, (tuple, list))
    state = tuple(loop_vars) if is_tuple else (loop_vars,)

    def b(*s):
        out = body(*s)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)
    out = fg.while_loop(cond, b, state, maximum_iterations=maximum_iterations)
    return tuple(out) if is_tuple else out[0]


def vectorized_map(function, elements):
    return fg.vectorized_map(function, elements)


def scatter_update(inputs, indices, updates, reduction=None):
    x = _custom.convert_to_tensor(inputs)
    fn = {None: fg.tensor_scatter_nd_update, "add": fg.tensor_scatter_nd_add,
          "max": fg.tensor_scatter_nd_max, "min": fg.tensor_scatter_nd_min}[reduction]
    return fn(x, indices, fg.cast(updates, x.dtype))


def unstack(x, num=None, axis=0):
    return fg.unstack(x, num, axis)
