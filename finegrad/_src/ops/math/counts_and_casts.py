"""Counts, order checks, casts and division variants of ``tf.math``: ``realdiv``, ``truncatemod``,
``scalar_mul``, ``saturate_cast``, ``math.nextafter``, ``math.count_nonzero``,
``math.zero_fraction``, ``math.is_non_decreasing``, ``math.is_strictly_increasing``,
``math.invert_permutation`` and ``math.accumulate_n``.

Most are composites of finegrad ops (their gradients come from those ops). Three are
primitives because NumPy has the kernel and no composite gives it: ``truncatemod`` (C's
``fmod``; no gradient, as in TensorFlow), ``invert_permutation`` (integers, no gradient) and
``nextafter``, whose gradient is TensorFlow's: 1 for ``x1`` and 0 for ``x2``.
"""

from __future__ import annotations

import collections

import numpy as np

from finegrad._src import core, dtypes
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math import sorting
from finegrad._src.ops.zeros_and_axes import normalize_axes
from finegrad._src.ops.array.gather import IndexedSlices
from finegrad._src.ops.array.structural import cast, reduce_sum, reshape, unbroadcast, zeros_like
from finegrad._src.ops.math.complex_numbers import complex as make_complex, imag, real
from finegrad._src.ops.math.reductions import reduce_mean
from finegrad._src.ops.special.error_and_gamma import truncated
from finegrad._src.shapes import as_int
from finegrad._src.tensor import Tensor, convert_to_tensor

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _float_pair(x, y, fn, kinds="fc"):
    """``x`` and ``y`` as tensors of one floating (or complex) dtype; a Python scalar takes
    the tensor's dtype. TypeError naming ``fn`` otherwise."""
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        y = convert_to_tensor(y)
        x = convert_to_tensor(x, dtype=y.dtype)
    else:
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype=x.dtype) if not isinstance(y, Tensor) else y
    for arg, t in (("x", x), ("y", y)):
        if t._value.dtype.kind not in kinds:
            raise TypeError(f"{fn}: {arg} must be a floating{' or complex' * ('c' in kinds)} "
                            f"tensor, got {t.dtype.name}")
    if x.dtype != y.dtype:
        raise TypeError(f"{fn}: x and y must have one dtype, got {x.dtype.name} and "
                        f"{y.dtype.name}")
    return x, y


def realdiv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise ``x / y`` of floating (or complex) tensors, as TensorFlow's ``RealDiv``;
    IEEE inf and nan where ``y`` is 0. Gradients ``1 / y`` and ``-x / y**2``.

    >>> import finegrad as fg
    >>> fg.realdiv(fg.constant([1., 3.]), 2.).numpy()
    array([0.5, 1.5], dtype=float32)

    Raises:
        TypeError: for integer, bool or string inputs (TensorFlow has no such kernel), or
            two different dtypes.
    """
    x, y = _float_pair(x, y, "finegrad.realdiv")
    return ar.divide(x, y)


# ---- truncatemod -------------------------------------------------------------------------

truncatemod_p = def_nondiff(Primitive("truncatemod", elementwise=True, fresh=True))


def truncatemod(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise remainder of the division rounded toward zero (C's ``fmod``): its sign is
    ``x``'s, where `finegrad.math.floormod` takes ``y``'s. Not differentiable (as in
    TensorFlow). An integer ``y`` of 0 raises `finegrad.errors.InvalidArgumentError`.
    Primitive ``truncatemod``.

    >>> import finegrad as fg
    >>> fg.truncatemod(fg.constant([7, -7]), 3).numpy()
    array([ 1, -1], dtype=int32)

    Raises:
        TypeError: for bool, complex or string inputs.
    """
    return bind(truncatemod_p, x, y)


@truncatemod_p.def_impl
def _truncatemod_impl(x, y):
    return truncated("truncatemod", x, y, np.fmod, np.fmod, "nan")


@truncatemod_p.def_lowering
def _truncatemod_lower(x, y):
    # lax.rem is C's fmod (the sign of x; nan for a float divisor of 0). Integers decline
    # (host callback): XLA cannot raise impl's InvalidArgumentError for a divisor of 0
    import jax.numpy as jnp
    from jax import lax
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return NotImplemented
    return lax.rem(*jnp.broadcast_arrays(x, y))


# ---- nextafter ---------------------------------------------------------------------------

nextafter_p = Primitive("nextafter", kernel=np.nextafter, lower_jax="nextafter")


def nextafter(x1: Any, x2: Any, name: str | None = None) -> Tensor:
    """Elementwise the next representable value after ``x1`` in the direction of ``x2``
    (float32 or float64). Gradient TensorFlow's: 1 for ``x1``, 0 for ``x2``. Primitive
    ``nextafter``.

    >>> import finegrad as fg
    >>> float(fg.math.nextafter(fg.constant(1.), 2.)) - 1.0 == 2.0 ** -23
    True

    Raises:
        TypeError: for inputs that are not float32 or float64, or of two dtypes.
    """
    x1, x2 = _float_pair(x1, x2, "finegrad.math.nextafter", kinds="f")
    if x1._value.dtype == np.float16:
        raise TypeError("finegrad.math.nextafter: x must be float32 or float64, got float16")
    return bind(nextafter_p, x1, x2)


nextafter_p.def_impl(np.nextafter)


@nextafter_p.def_jvp
def _nextafter_jvp(primals, tangents, *, out):
    x1_dot = tangents[0]
    return None if x1_dot is None else x1_dot + zeros_like(out)


@nextafter_p.def_vjp
def _nextafter_vjp(ct, x1, x2, *, out, needs, batch):
    """VJP of nextafter: (ct, 0), unbroadcast."""
    return (unbroadcast(ct, x1, batch) if needs[0] else None,
            unbroadcast(zeros_like(ct), x2, batch) if needs[1] else None)


# ---- scalar_mul, saturate_cast -----------------------------------------------------------

def scalar_mul(scalar: Any, x: TensorLike | IndexedSlices,
               name: str | None = None) -> Tensor | IndexedSlices:
    """``scalar * x`` for a 0-D ``scalar``; differentiable in both (as TensorFlow's). An
    `IndexedSlices` ``x`` stays sparse: its values are scaled.

    >>> import finegrad as fg
    >>> fg.scalar_mul(2., fg.constant([1., 3.])).numpy()
    array([2., 6.], dtype=float32)

    Raises:
        ValueError: when ``scalar`` is not 0-D.
        TypeError: when a tensor ``scalar`` has another dtype than ``x``.
    """
    if isinstance(x, IndexedSlices):
        return IndexedSlices(scalar_mul(scalar, x.values), x.indices, x.dense_shape)
    x = convert_to_tensor(x)
    s = scalar if isinstance(scalar, Tensor) else convert_to_tensor(scalar, dtype_hint=x.dtype)
    if len(s.shape) != 0:
        raise ValueError(f"finegrad.scalar_mul: scalar must be 0-D, got shape "
                         f"{list(s.shape)}")
    if s.dtype != x.dtype:
        raise TypeError(f"finegrad.scalar_mul: scalar must have x's dtype {x.dtype.name}, got "
                        f"{s.dtype.name}")
    return s * x


def _as_dtype(dtype, fn):
    try:
        return dtypes.as_dtype(dtype)
    except TypeError:
        raise TypeError(f"{fn}: dtype must be a dtype (finegrad.int32, 'int32', np.int32, ...), "
                        f"got {dtype!r}") from None


def _saturation_limits(in_dt, out_dt):
    """The clamp ``[lo, hi]`` (values of ``in_dt``) that keeps a cast to the real ``out_dt``
    in range. Each bound is the nearer of the two dtypes' limits; a float bound that rounds
    outside ``out_dt``'s range (float32's nearest to int32's max is 2**31) steps one ulp
    toward zero. Compared exactly, as Python ints or floats."""
    in_np, exact = in_dt.as_numpy_dtype, int if out_dt.is_integer else float
    lo = in_np(max(exact(in_dt.min), exact(out_dt.min)))
    hi = in_np(min(exact(in_dt.max), exact(out_dt.max)))
    if in_dt.is_floating and out_dt.is_integer:
        if int(lo) < int(out_dt.min):
            lo = np.nextafter(lo, in_np(0))
        if int(hi) > int(out_dt.max):
            hi = np.nextafter(hi, in_np(0))
    return lo, hi


def _real_dtype(dt):
    return {"complex64": dtypes.float32, "complex128": dtypes.float64}.get(dt.name, dt)


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Cast ``value`` to ``dtype``, first clamping it to the range ``dtype`` can hold
    (``tf.cast`` would overflow): ``300`` cast to uint8 is 255, ``-1e10`` to int32 is
    int32's min. Complex to real keeps the real part; complex to complex clamps the real and
    imaginary parts. Gradients flow between floating dtypes where the value is not clamped.
    The bounds are compared exactly, so where TensorFlow's own clamp overflows (float32 inf
    to int64 gives int64's min there, int64 to uint64 gives 0), finegrad saturates.

    >>> import finegrad as fg
    >>> fg.saturate_cast(fg.constant([300, -5]), fg.uint8).numpy()
    array([255,   0], dtype=uint8)

    Raises:
        TypeError: for bool or string values or a bool or string ``dtype`` (as TensorFlow).
    """
    value, dt = convert_to_tensor(value), _as_dtype(dtype, "finegrad.saturate_cast")
    for what, d in (("value", value.dtype), ("dtype", dt)):
        if d.is_bool or d == dtypes.string:
            raise TypeError(f"finegrad.saturate_cast: {what} must be numeric, got {d.name}")
    in_dt, out_real = value.dtype, _real_dtype(dt)
    if in_dt.is_complex:
        parts: Any = real(value), imag(value)
        if dt.is_complex:
            lo, hi = _saturation_limits(parts[0].dtype, out_real)
            parts = [ar.clip_by_value(p, lo, hi) for p in parts]
            return cast(make_complex(*parts), dt)
        value, in_dt = parts[0], parts[0].dtype
    lo, hi = _saturation_limits(in_dt, out_real)
    return cast(ar.clip_by_value(value, lo, hi), dt)


# ---- counting and order checks -----------------------------------------------------------

def count_nonzero(input: TensorLike, axis: Any = None, keepdims: Any = None,
                  dtype: DTypeLike = dtypes.int64, name: str | None = None) -> Tensor:
    """How many entries of ``input`` are not zero (not False, not the empty string) over
    ``axis`` (all axes by default), as ``dtype`` (int64 by default). Exact comparison with 0:
    tiny values count.

    >>> import finegrad as fg
    >>> fg.math.count_nonzero(fg.constant([[0, 1, 0], [1, 1, 0]]), axis=0).numpy()
    array([1, 2, 0])
    """
    x, fn = convert_to_tensor(input), "finegrad.math.count_nonzero"
    axis = normalize_axes(axis, len(x.shape), fn, reduction=True)
    dtype = _as_dtype(dtype, fn)
    if x.dtype.is_bool:
        nonzero = x
    else:   # (strings: the non-empty ones, against zeros_like's b"")
        nonzero = ew.not_equal(x, zeros_like(x))
    counts = reduce_sum(cast(nonzero, dtypes.int64), axis=axis, keepdims=bool(keepdims))
    return cast(counts, dtype)


def zero_fraction(value: TensorLike, name: str | None = None) -> Tensor:
    """The fraction of the entries of ``value`` that are zero, as a float32 scalar (nan for
    an empty tensor, as TensorFlow). Not differentiable.

    >>> import finegrad as fg
    >>> fg.math.zero_fraction(fg.constant([0., 1., 0., 2.])).numpy()
    np.float32(0.5)
    """
    x = convert_to_tensor(value)
    if x.dtype == dtypes.string:
        raise TypeError("finegrad.math.zero_fraction: value must be numeric or bool, got string")
    zero = ew.logical_not(x) if x.dtype.is_bool else ew.equal(x, zeros_like(x))
    return reduce_mean(cast(reshape(zero, [-1]), dtypes.float32))


def _ordered(x, fn, compare):
    x = convert_to_tensor(x)
    if x._value.dtype.kind not in "iuf":
        raise TypeError(f"finegrad.math.{fn}: x must be a real numeric tensor, got "
                        f"{x.dtype.name}")
    flat = reshape(x, [-1])
    # every neighbour pair in order: no pair fails (reduce_all's formula; True when empty)
    failed = cast(ew.logical_not(compare(flat[1:], flat[:-1])), dtypes.int32)
    return ew.equal(reduce_sum(failed), 0)


def is_non_decreasing(x: TensorLike, name: str | None = None) -> Tensor:
    """True when each entry of ``x`` (read in row-major order) is >= the one before; True
    for fewer than two entries.

    >>> import finegrad as fg
    >>> fg.math.is_non_decreasing([1, 2, 2]).numpy()
    np.True_

    Raises:
        TypeError: for bool, complex or string ``x`` (as TensorFlow).
    """
    return _ordered(x, "is_non_decreasing", ew.greater_equal)


def is_strictly_increasing(x: TensorLike, name: str | None = None) -> Tensor:
    """True when each entry of ``x`` (read in row-major order) is > the one before; True
    for fewer than two entries.

    >>> import finegrad as fg
    >>> fg.math.is_strictly_increasing([1, 2, 2]).numpy()
    np.False_

    Raises:
        TypeError: for bool, complex or string ``x`` (as TensorFlow).
    """
    return _ordered(x, "is_strictly_increasing", ew.greater)


invert_permutation_p = def_nondiff(Primitive("invert_permutation", fresh=True))
invert_permutation_p.def_shape(core.same_shape_rule)


def invert_permutation(x: TensorLike, name: str | None = None) -> Tensor:
    """The inverse of the permutation ``x`` (a 1-D int32 or int64 tensor of 0..n-1):
    ``y[x[i]] = i``. Not differentiable. Primitive ``invert_permutation``.

    >>> import finegrad as fg
    >>> fg.math.invert_permutation([3, 4, 0, 2, 1]).numpy()
    array([2, 4, 3, 0, 1], dtype=int32)

    Raises:
        TypeError: when ``x`` is not int32 or int64.
        finegrad.errors.InvalidArgumentError: when ``x`` is not 1-D, or not a permutation (a
            value out of range or repeated).
    """
    x = convert_to_tensor(x)
    if x._value.dtype not in (np.int32, np.int64):
        raise TypeError(f"finegrad.math.invert_permutation: x must be int32 or int64, got "
                        f"{x.dtype.name}")
    return bind(invert_permutation_p, x)


@invert_permutation_p.def_impl
def _invert_permutation_impl(x):
    if x.ndim != 1:
        raise InvalidArgumentError(f"finegrad.math.invert_permutation: x must be 1-D, got "
                                   f"shape {list(x.shape)}")
    n = x.shape[0]
    bad = (x < 0) | (x >= n)
    if bad.any():
        raise InvalidArgumentError(f"finegrad.math.invert_permutation: x must hold values in "
                                   f"[0, {n}), got {x[bad][0]}")
    out = np.full(n, -1, x.dtype)
    out[x] = np.arange(n, dtype=x.dtype)
    if (out < 0).any():
        counts = np.bincount(x, minlength=n)
        raise InvalidArgumentError(f"finegrad.math.invert_permutation: x must be a "
                                   f"permutation, got {int(np.argmax(counts > 1))} repeated")
    return out


def accumulate_n(inputs: TensorLike, shape: Any = None, tensor_dtype: DTypeLike | None = None,
                 name: str | None = None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype (TensorFlow's
    deprecated alias of `finegrad.math.add_n`, with its checks of ``shape`` and
    ``tensor_dtype``). Differentiable.

    >>> import finegrad as fg
    >>> fg.math.accumulate_n([fg.constant([1., 2.]), fg.constant([3., 4.])]).numpy()
    array([4., 6.], dtype=float32)

    Raises:
        ValueError: for an empty list, inputs of different shapes, or a ``shape`` they lack.
        TypeError: for inputs of several dtypes, or not of ``tensor_dtype``.
    """
    fn = "finegrad.math.accumulate_n"
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError(f"{fn}: inputs must be a non-empty list of tensors of one shape and "
                         f"dtype, got {type(inputs).__name__}"
                         + (" (empty)" if isinstance(inputs, (list, tuple)) else ""))
    ts = [convert_to_tensor(t) for t in inputs]
    found = sorted({t.dtype.name for t in ts})
    if len(found) > 1:
        raise TypeError(f"{fn}: inputs must have one dtype, got {found}")
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != ts[0].dtype:
        raise TypeError(f"{fn}: tensor_dtype is {dtypes.as_dtype(tensor_dtype).name} but the "
                        f"inputs are {ts[0].dtype.name}")
    shapes = sorted({tuple(t.shape) for t in ts})
    if len(shapes) > 1:
        raise ValueError(f"{fn}: inputs must have one shape, got {shapes}")
    if shape is not None and tuple(shape) != shapes[0]:
        raise ValueError(f"{fn}: shape is {list(shape)} but the inputs have shape "
                         f"{list(shapes[0])}")
    total = ts[0]
    for t in ts[1:]:
        total = total + t
    return total


def in_top_k(targets: TensorLike, predictions: TensorLike, k: Any,
             name: str | None = None) -> Tensor:
    """For each row ``i`` of ``predictions`` (``[batch, classes]``, float32), whether class
    ``targets[i]`` is among the ``k`` largest: fewer than ``k`` predictions of that row are
    strictly greater than its own (so ties at the boundary count as in). False for a
    target out of range or a row holding a non-finite prediction, as TensorFlow. Not
    differentiable.

    >>> import finegrad as fg
    >>> p = fg.constant([[0.1, 0.5, 0.5, 0.2], [0.9, 0.3, 0.1, 0.0]])
    >>> fg.math.in_top_k([2, 1], p, 1).numpy()
    array([ True, False])

    Raises:
        TypeError: for predictions that are not float32 or targets that are not int32/int64.
        ValueError: for predictions not 2-D, or targets not a vector of the batch size.
    """
    fn = "finegrad.math.in_top_k"
    p, t = convert_to_tensor(predictions), convert_to_tensor(targets)
    if p.dtype != dtypes.float32:
        raise TypeError(f"{fn}: predictions must be float32, got {p.dtype.name}")
    if t._value.dtype not in (np.int32, np.int64):
        raise TypeError(f"{fn}: targets must be int32 or int64, got {t.dtype.name}")
    shape = list(p._value.shape)
    if len(shape) != 2 or list(t._value.shape) != shape[:1]:
        raise ValueError(f"{fn}: predictions must be [batch, classes] and targets [batch], got "
                         f"shapes {shape} and {list(t._value.shape)}")
    k = int(convert_to_tensor(k)._value)
    classes = shape[1]
    valid = ew.logical_and(ew.greater_equal(t, 0), ew.less(t, classes))
    mask = ew.equal(reshape(cast(t, dtypes.int64), [-1, 1]),
                    Tensor(np.arange(classes, dtype=np.int64)))
    finite = ew.is_finite(p)
    own = reduce_sum(ew.where(mask, ew.where(finite, p, zeros_like(p)), zeros_like(p)), axis=1)
    greater = reduce_sum(cast(ew.greater(p, reshape(own, [-1, 1])), dtypes.int32), axis=1)
    all_finite = ew.equal(reduce_sum(cast(ew.logical_not(finite), dtypes.int32), axis=1), 0)
    return ew.logical_and(ew.logical_and(valid, all_finite), ew.less(greater, k))


ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])


def _approx_k(operand, k, reduction_dimension, fn, direction):
    x, fn = convert_to_tensor(operand), f"finegrad.math.{fn}"
    if x._value.dtype.kind != "f":   # TensorFlow's kernels: float16 and float32 only
        raise TypeError(f"{fn}: operand must be a floating tensor, got {x.dtype.name}")
    if not x._value.ndim:
        raise ValueError(f"{fn}: operand must have rank >= 1, got a scalar")
    axis = normalize_axes(reduction_dimension, x._value.ndim, fn)[0]
    k, size = as_int(k, fn, "k"), x._value.shape[axis]
    if not 0 <= k <= size:
        raise ValueError(f"{fn}: k must be in [0, {size}] (the size of reduction_dimension "
                         f"{reduction_dimension}), got {k}")
    # sorting is stable: among equal values the lower index comes first, as top_k's
    values = sorting.sort(x, axis=axis, direction=direction)
    indices = sorting.argsort(x, axis=axis, direction=direction, stable=True)
    keep = (slice(None),) * axis + (slice(0, k),)
    return ApproxTopK(values[keep], indices[keep])


def approx_max_k(operand: Any, k: Any, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
                 name: str | None = None) -> Any:
    """The ``k`` largest values of ``operand`` along ``reduction_dimension`` and their int32
    indices, a ``(values, indices)`` pair. finegrad computes them exactly (a recall of 1,
    which meets any ``recall_target``; TensorFlow's CPU kernel is exact too). ``operand`` is
    float16 or float32 as in TensorFlow, or float64 (finegrad only). Ties: the
    lower index first. The values are differentiable (the gradient goes back to where each
    came from).

    >>> import finegrad as fg
    >>> fg.math.approx_max_k(fg.constant([3., 1., 4., 1., 5.]), 2).indices.numpy()
    array([4, 2], dtype=int32)

    Raises:
        TypeError: for an ``operand`` that is not floating (as TensorFlow).
        ValueError: for a scalar ``operand``, or ``k`` beyond the dimension's size.
    """
    return _approx_k(operand, k, reduction_dimension, "approx_max_k", "DESCENDING")


def approx_min_k(operand: Any, k: Any, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
                 name: str | None = None) -> Any:
    """The ``k`` smallest values of ``operand`` along ``reduction_dimension`` (ascending)
    and their int32 indices, a ``(values, indices)`` pair; exact, as `approx_max_k`.

    >>> import finegrad as fg
    >>> fg.math.approx_min_k(fg.constant([3., 1., 4., 1., 5.]), 2).indices.numpy()
    array([1, 3], dtype=int32)

    Raises:
        TypeError: for an ``operand`` that is not floating (as TensorFlow).
        ValueError: for a scalar ``operand``, or ``k`` beyond the dimension's size.
    """
    return _approx_k(operand, k, reduction_dimension, "approx_min_k", "ASCENDING")
