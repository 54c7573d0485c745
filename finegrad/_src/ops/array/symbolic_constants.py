"""``range``, ``eye`` and ``linspace`` of sizes a shape-polymorphic trace knows symbolically
(``b = shape(x)[0]`` of a placeholder's ``None`` axis, ``b - 1``, ``2 * b``): nodes whose
length is the symbol's expression, so one graph serves every fed size (TensorFlow's values
at 0 and 1 included) instead of a value guard that keeps the built size.

Each returns None when its arguments are not such sizes (the caller then computes as
before). The lengths use `dims.at_least_zero` (``range(b - 1)`` is empty at ``b = 0``, as
TensorFlow gives it); the values are ops on the bound tensors themselves, so their run-time
values are the fed ones.
"""
import numpy as np

from finegrad._src import dims, dtypes
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.errors import InvalidArgumentError
from finegrad._src import tensor as tensor_module
from finegrad._src.dims import Dim
from finegrad._src.ops.array.structural import broadcast_to, cast, expand_dims
from finegrad._src.ops.math.elementwise import equal, where
from finegrad._src.ops.zeros_and_axes import filled
from finegrad._src.tensor import Tensor


def size_arg(v):
    """``v`` as a size: a Python int, or the Dim a trace knows tensor ``v`` as; else None."""
    if isinstance(v, Tensor):
        if not v.dtype.is_integer or v._value.ndim:
            return None
        sym = tensor_module._static_size(v)
        return sym if type(sym) is Dim else None
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    return None


def _sizes(*args):
    """The sizes of ``args`` when each is one and at least one is symbolic, else None."""
    out = [size_arg(v) for v in args]
    if any(v is None for v in out) or not any(type(v) is Dim for v in out):
        return None
    return out


def iota(n, dt, what):
    """``[0, 1, ..., n - 1]`` of a (symbolic) length ``n``, as dtype ``dt``, for public
    function ``what`` (a negative ``n`` is TensorFlow's InvalidArgumentError when the graph
    runs)."""
    return bind(range_p, start=0, limit=n, delta=1, dtype=np.dtype(dt), what=what)


def _range_dtype(bounds, dtype):
    if dtype is not None:
        return np.dtype(dtypes.as_dtype(dtype)._np)
    wide = any(isinstance(b, Tensor) and b._value.dtype == np.int64 for b in bounds)
    return np.dtype(np.int64 if wide else np.int32)


def symbolic_range(start, limit, delta, dtype):
    """``range(start, limit, delta)`` with a symbolic bound and a Python int ``delta`` (a
    ``range`` node whose bounds are resolved at each run), or None."""
    sizes = _sizes(start, limit, delta)
    if sizes is None or type(sizes[2]) is Dim or sizes[2] == 0:
        return None
    s, lim, k = sizes
    return bind(range_p, start=s, limit=lim, delta=k, dtype=_range_dtype((start, limit), dtype),
                what="finegrad.range")


range_p = def_nondiff(Primitive("range", unify=False))


@range_p.def_impl
def _range_impl(*, start, limit, delta, dtype, what):
    """TensorFlow's ``Range`` kernel: bounds in the wrong order are its InvalidArgumentError
    (``range(b - 2)`` at ``b = 1``), not Python's empty range."""
    if (start > limit) if delta > 0 else (start < limit):
        rel, sign = ("<=", ">") if delta > 0 else (">=", "<")
        why = f"Requires start {rel} limit when delta {sign} 0: {start}/{limit}" \
            if what == "finegrad.range" else f"a size must be >= 0, got {limit}"
        raise InvalidArgumentError(None, None, f"{what}: {why} (computed when the graph "
                                   f"runs)")
    return np.arange(start, limit, delta).astype(dtype)


@range_p.def_shape
def _range_shape(*, start, limit, delta, dtype, what):
    span = limit - start if delta > 0 else start - limit
    return (dims.at_least_zero(span + abs(delta) - 1) // abs(delta),)


@range_p.def_lowering
def _range_lower(*, start, limit, delta, dtype, what):
    import jax.numpy as jnp
    return jnp.arange(start, limit, delta, dtype=dtype)


def symbolic_eye(num_rows, num_columns, batch_shape, dtype):
    """``eye(num_rows, num_columns)`` with a symbolic size, or None."""
    sizes = _sizes(num_rows, num_rows if num_columns is None else num_columns)
    if sizes is None:
        return None
    rows, cols = sizes
    m = cast(equal(expand_dims(iota(rows, np.int32, "finegrad.eye"), 1),
                   iota(cols, np.int32, "finegrad.eye")),
             dtypes.as_dtype(dtype))
    if batch_shape is None:
        return m
    return broadcast_to(m, tuple(int(b) for b in batch_shape) + (rows, cols))


def symbolic_linspace(a, b, num):
    """``linspace(a, b, num)`` of scalars ``a`` and ``b`` (tensors of one floating dtype)
    with a symbolic ``num``, or None: TensorFlow's values, ``a + delta * i`` with ``delta =
    (b - a) / max(num - 1, 1)``, the first exactly ``a`` and the last exactly ``b`` (``[a]``
    for ``num = 1``, ``[]`` for 0)."""
    n = size_arg(num)
    if type(n) is not Dim or a._value.ndim or b._value.ndim:
        return None
    dt = dtypes.as_dtype(a._value.dtype)
    steps = dims.dim_max(n - 1, 1)
    delta = (b - a) / filled((), steps, a._value.dtype)
    i = iota(n, np.int64, "finegrad.linspace")
    inner = a + delta * cast(i, dt)
    return where(equal(i, 0), a, where(equal(i, filled((), n - 1, np.int64)), b, inner))
