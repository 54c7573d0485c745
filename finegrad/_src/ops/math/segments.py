"""Segment reductions: ``segment_{sum,mean,max,min,prod}`` (sorted ids, TensorFlow's
``tf.math.segment_*``) and ``unsorted_segment_*`` (any order, a given number of segments).

Row ``i`` of ``data`` (after flattening the leading axes that ``segment_ids`` covers) goes to
segment ``segment_ids[i]``. The sums are the transpose of a gather (primitive
``gather_transpose``, a scatter-add), so their gradient is a gather and every order comes from
those two ops; the mean divides the sum by the segment sizes. Max, min and prod are the
primitives ``segment_max``, ``segment_min`` and ``segment_prod`` whose rules are
TensorFlow's, written with gather, the scatter-add and `where`: max and min split the upstream
gradient equally among the entries that reach the extreme; prod's gradient is the product of
the other entries (exact where an entry is 0).

Segment ids are static (their values fix the output's shape and are checked here, as
TensorFlow's CPU kernels check them): inside a ``finegrad.function`` they must be constants.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind, shape_of
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.declare import sum_tangents
from finegrad._src.ops.math.arithmetic import divide, maximum
from finegrad._src.ops.array.structural import (cast, concat, convert_to_tensor, reshape,
                                                zeros_like, ones_like, transpose)
from finegrad._src.ops.zeros_and_axes import _static
from finegrad._src.ops.math.elementwise import equal, sqrt, where
from finegrad._src.ops.array.gather import take, gather_vjp_p
from finegrad._src.ops.math.reductions import cumprod
from finegrad._src.ops.special.error_and_gamma import truncatediv
from finegrad._src.shapes import as_int
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike
    from collections.abc import Callable


def _scatter_rows(x, ids, num):
    """Rows of ``x`` added into ``num`` rows of zeros at ``ids`` (int64 tensor)."""
    return bind(gather_vjp_p, x, ids, shape=(num,) + tuple(shape_of(x)[1:]), axis=0,
                batch_dims=0, nbatch=0)


# ---- the primitives: segment_max, segment_min, segment_prod ------------------------------------

def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


def segment_vmap(prim):
    """The batching rule of a segment reduction (segments along axis 0 of ``x``): with the
    ids unbatched, the batch moved to axis 1 and back; batched ids: ``NotImplemented``."""
    def rule(args, batched, **params):
        if batched[1]:
            return NotImplemented
        perm = (1, 0) + tuple(range(2, len(shape_of(args[0]))))
        return transpose(bind(prim, transpose(args[0], perm), args[1], **params), perm)
    return rule


def _segment_extreme(name, ufunc, init):
    """Primitive ``name``: rows of ``x`` reduced by ``ufunc`` into ``num`` segments, starting
    from ``init(dtype)`` (TensorFlow's lowest or highest value); an empty segment keeps that
    value, or 0 when ``zero_empty`` (the sorted ``segment_*`` ops)."""
    prim = Primitive(name, unify=False, batch_rule=True, fresh=True)
    how, init_value = ("max" if ufunc is np.maximum else "min"), init

    @prim.def_impl
    def _impl(x, ids, *, num, zero_empty):
        out = np.full((num,) + x.shape[1:], init(x.dtype), x.dtype)
        ufunc.at(out, ids, x)
        if zero_empty:
            out[np.bincount(ids, minlength=num) == 0] = 0
        return out

    @prim.def_lowering
    def _lower(x, ids, *, num, zero_empty):
        # XLA's scatter max/min propagate NaN as np.maximum.at does
        import jax.numpy as jnp
        init = jnp.full((num,) + x.shape[1:], init_value(np.dtype(x.dtype)), x.dtype)
        out = getattr(init.at[ids], how)(x, mode="drop")
        if zero_empty:
            count = jnp.zeros(num, jnp.int32).at[ids].add(1, mode="drop")
            out = jnp.where((count == 0).reshape((num,) + (1,) * (x.ndim - 1)),
                            jnp.zeros((), x.dtype), out)
        return out

    prim.def_vmap(segment_vmap(prim))

    def selected(x, ids, out):
        """Where each entry reaches its segment's extreme, and how many do per segment."""
        is_sel = equal(x, take(out, ids))
        count = _scatter_rows(cast(is_sel, x.dtype), ids, out._value.shape[0])
        return is_sel, maximum(count, 1)

    @prim.def_jvp
    def _jvp(primals, tangents, *, out, num, zero_empty):
        (x, ids), (x_dot, _) = primals, tangents
        if x_dot is None:
            return sum_tangents((), out)
        is_sel, count = selected(x, ids, out)
        return _scatter_rows(where(is_sel, x_dot, zeros_like(x_dot)), ids, num) / count

    @prim.def_vjp
    def _vjp(ct, x, ids, *, out, needs, batch, num, zero_empty):
        """VJP: the upstream of a segment split equally among its entries at the extreme."""
        is_sel, count = selected(x, ids, out)
        g = take(ct / count, ids, axis=len(batch))
        return (where(is_sel, g, zeros_like(g)), None)

    return prim


segment_max_p = _segment_extreme("segment_max", np.maximum, _lowest)
segment_min_p = _segment_extreme("segment_min", np.minimum, _highest)
segment_prod_p = Primitive("segment_prod", unify=False, batch_rule=True, fresh=True)


segment_prod_p.def_vmap(segment_vmap(segment_prod_p))


@segment_prod_p.def_impl
def _segment_prod_impl(x, ids, *, num, zero_empty):
    out = np.ones((num,) + x.shape[1:], x.dtype)
    np.multiply.at(out, ids, x)
    return out


@segment_prod_p.def_lowering
def _segment_prod_lower(x, ids, *, num, zero_empty):
    import jax.numpy as jnp
    return jnp.ones((num,) + x.shape[1:], x.dtype).at[ids].multiply(x, mode="drop")


def _prod_partials(x, ids, out):
    """d out[ids[i]] / d x[i]: the product of the segment's other entries (TensorFlow's rule:
    out / x where x != 0; at a zero, the product of the nonzero entries if it is the
    segment's only zero, else 0). Where a segment holds two zeros or more, the products of
    the other entries come from exclusive scans instead (`_others_by_scans`): their value is
    TensorFlow's 0, and their derivatives are right (TensorFlow's constant 0 loses the
    product that skips both zeros, so its second derivative is wrong there)."""
    num = out._value.shape[0]
    is_zero = equal(x, 0)
    zeros = _scatter_rows(cast(is_zero, x.dtype), ids, num)
    nonzero_x = where(is_zero, ones_like(x), x)
    nonzero_prod = bind(segment_prod_p, nonzero_x, ids, num=num, zero_empty=False)
    zeros_at = take(zeros, ids)
    one_zero = equal(zeros_at, 1)
    many = core.current_tracer() is not None or bool(np.any(zeros_at._value > 1))
    at_many = _others_by_scans(x, ids, num) if many else zeros_like(x)
    at_zero = where(one_zero, take(nonzero_prod, ids), at_many)
    return where(is_zero, at_zero, take(out, ids) / nonzero_x)


def _others_by_scans(x, ids, num):
    """For each row, the product of the other rows of its segment, with multiplications only
    (exact where rows are 0, to any order): the segments laid out as rows of a padded
    [num, longest] array (padding 1), then the exclusive products from both ends."""
    ids_np = np.asarray(ids._value)
    n = ids_np.shape[0]
    order = np.argsort(ids_np, kind="stable")
    sizes = np.bincount(ids_np, minlength=num)
    longest = max(int(sizes.max(initial=0)), 1)
    pos = np.empty(n, np.int64)
    pos[order] = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    layout = np.full((num, longest), n, np.int64)   # index n: the padding row of ones
    layout[ids_np, pos] = np.arange(n)
    padded = concat([x, ones_like(x[:1])], 0)
    dense = take(padded, Tensor(layout))
    others = (cumprod(dense, axis=1, exclusive=True)
              * cumprod(dense, axis=1, exclusive=True, reverse=True))
    flat = reshape(others, (num * longest,) + tuple(shape_of(x)[1:]))
    return take(flat, Tensor(ids_np * longest + pos))


@segment_prod_p.def_jvp
def _segment_prod_jvp(primals, tangents, *, out, num, zero_empty):
    (x, ids), (x_dot, _) = primals, tangents
    if x_dot is None:
        return sum_tangents((), out)
    return _scatter_rows(x_dot * _prod_partials(x, ids, out), ids, num)


@segment_prod_p.def_vjp
def _segment_prod_vjp(ct, x, ids, *, out, needs, batch, num, zero_empty):
    """VJP of segment_prod: the upstream times the product of the other entries."""
    return (take(ct, ids, axis=len(batch)) * _prod_partials(x, ids, out), None)


# ---- checking and flattening the arguments ---------------------------------------------------

def _prepare(fn, data, segment_ids, num_segments):
    """``(rows, ids, num)``: data with the id axes flattened into one, the ids as an int64
    tensor (negative ones dropped for the unsorted ops), and the number of segments."""
    x = convert_to_tensor(data)
    ids_t = convert_to_tensor(segment_ids)
    if not ids_t.dtype.is_integer:
        raise TypeError(f"finegrad.{fn}: segment_ids must be an integer tensor, got "
                        f"{ids_t.dtype.name}")
    if np.dtype(x._value.dtype).kind not in "iuf":
        raise TypeError(f"finegrad.{fn}: data must be a real numeric tensor, got "
                        f"{np.dtype(x._value.dtype).name}")
    ids = np.asarray(_static(ids_t, "segment_ids"), np.int64)
    shape = x._value.shape
    if num_segments is None:
        if ids.ndim != 1 or not shape or ids.shape[0] != shape[0]:
            raise ValueError(f"finegrad.{fn}: segment_ids must be a vector as long as data's "
                             f"first axis ({shape[0] if shape else 'a scalar data'}), got shape "
                             f"{ids.shape}")
        if ids.size and ids[0] < 0:
            raise InvalidArgumentError(f"finegrad.{fn}: segment_ids must not be negative, got "
                                       f"{ids.min()}")
        if np.any(np.diff(ids) < 0):
            k = int(np.argmax(np.diff(ids) < 0))
            raise InvalidArgumentError(f"finegrad.{fn}: segment_ids must be sorted (non-"
                                       f"decreasing), got {ids[k]} before {ids[k + 1]} at "
                                       f"position {k + 1}")
        num = int(ids[-1]) + 1 if ids.size else 0
    else:
        num = _num_segments(fn, num_segments)
        if shape[:ids.ndim] != ids.shape:
            raise ValueError(f"finegrad.{fn}: segment_ids' shape {ids.shape} must be a prefix "
                             f"of data's shape {shape}")
        if ids.size and ids.max() >= num:
            raise InvalidArgumentError(f"finegrad.{fn}: segment_ids must be < num_segments "
                                       f"({num}), got {ids.max()}")
    rest = shape[ids.ndim:]
    rows = reshape(x, (ids.size,) + rest) if ids.ndim != 1 else x
    ids = ids.reshape(-1)
    if ids.size and ids.min() < 0:     # unsorted ops drop rows with a negative id (TensorFlow)
        keep = np.flatnonzero(ids >= 0)
        rows, ids = take(rows, Tensor(keep)), ids[keep]
    return rows, Tensor(ids), num


def _num_segments(fn, num_segments):
    if isinstance(num_segments, Tensor):
        num_segments = _static(num_segments, "num_segments")
    n = as_int(num_segments, f"finegrad.{fn}", "num_segments")
    if n < 0:
        raise ValueError(f"finegrad.{fn}: num_segments must be >= 0, got {n}")
    return int(n)


def _counts(ids, num, rows):
    """Segment sizes (at least 1), shaped to divide the segment sums."""
    c = np.maximum(np.bincount(ids._value, minlength=num), 1)
    return Tensor(c.reshape((num,) + (1,) * (rows._value.ndim - 1)).astype(rows._value.dtype))


def _reduce(kind, rows, ids, num, sorted_ids):
    if kind == "sum":
        return _scatter_rows(rows, ids, num)
    if kind == "mean":
        total = _scatter_rows(rows, ids, num)
        counts = _counts(ids, num, rows)
        if np.dtype(rows._value.dtype).kind == "f":
            return divide(total, counts)
        return truncatediv(total, counts)
    if kind == "sqrt_n":
        if np.dtype(rows._value.dtype).kind != "f":
            raise TypeError(f"finegrad.unsorted_segment_sqrt_n: data must be a floating tensor, "
                            f"got {np.dtype(rows._value.dtype).name}")
        return divide(_scatter_rows(rows, ids, num), sqrt(_counts(ids, num, rows)))
    prim = segment_max_p if kind == "max" else segment_min_p if kind == "min" else \
        segment_prod_p
    return bind(prim, rows, ids, num=num, zero_empty=sorted_ids)


_EMPTY = {"sum": "0", "mean": "0", "prod": "1", "sqrt_n": "0",
          "max": "the dtype's lowest value", "min": "the dtype's highest value"}
_EXAMPLES = {"sum": "[3., 3.]", "mean": "[1.5, 3. ]", "max": "[2., 3.]", "min": "[1., 3.]",
             "prod": "[2., 3.]", "sqrt_n": "[2.1213205, 3.       ]"}


def _make(kind: Any, sorted_ids: Any) -> Callable[..., Tensor]:
    fn = f"segment_{kind}" if sorted_ids else f"unsorted_segment_{kind}"
    if sorted_ids:
        def op(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
            rows, ids, num = _prepare(fn, data, segment_ids, None)
            return _reduce(kind, rows, ids, num, True)
        empty = "0" if kind in ("max", "min") else _EMPTY[kind]
        call, what = "[0, 0, 1]", "``segment_ids`` a sorted (non-decreasing) vector, one id per "
        what += "row of ``data``"
        size = "max(segment_ids) + 1 segments"
    else:
        def op(data: TensorLike, segment_ids: TensorLike,  # type: ignore[misc]
               num_segments: TensorLike, name: str | None = None) -> Tensor:
            rows, ids, num = _prepare(fn, data, segment_ids, num_segments)
            return _reduce(kind, rows, ids, num, False)
        empty, call = _EMPTY[kind], "[1, 0, 0], num_segments=2"
        what = "``segment_ids`` in any order, shaped as a prefix of ``data``'s shape (rows with "
        what += "a negative id are dropped)"
        size = "``num_segments`` segments"
        if kind in ("sum", "mean", "sqrt_n"):
            call = "[0, 0, 1], num_segments=2"
    data = "[1., 2., 3.]" if sorted_ids or kind in ("sum", "mean", "sqrt_n") else "[3., 1., 2.]"
    op.__name__ = op.__qualname__ = fn
    what_kind = "sum divided by the square root of the size" if kind == "sqrt_n" else kind
    op.__doc__ = f"""The {what_kind} of the rows of ``data`` in each segment: {what};
    {size}, an empty one gives {empty} (as TensorFlow).

    Raises:
        TypeError: for non-integer ids or non-numeric data.
        ValueError: for ids of the wrong shape; `finegrad.errors.InvalidArgumentError` (a
            ValueError) for unsorted, negative or too large ids, as TensorFlow's kernels.

    >>> import finegrad as fg
    >>> fg.math.{fn}(fg.constant({data}), {call}).numpy()
    array({_EXAMPLES[kind]}, dtype=float32)
    """
    return op


segment_sum, segment_mean, segment_max, segment_min, segment_prod = (
    _make(k, True) for k in ("sum", "mean", "max", "min", "prod"))
(unsorted_segment_sum, unsorted_segment_mean, unsorted_segment_max, unsorted_segment_min,
 unsorted_segment_prod) = (_make(k, False) for k in ("sum", "mean", "max", "min", "prod"))
unsorted_segment_sqrt_n = _make("sqrt_n", False)
