"""`boolean_mask`: the entries of a tensor where a boolean mask is true, a result whose size
depends on the mask's values.

It is a `gather` at the positions of the true entries (primitive ``mask_indices``, not
differentiable), so its gradient scatters the cotangent back (gather's VJP). Inside
`finegrad.function` the graph's later ops may have written the traced number of entries
into the graph (a mean's divisor, a reshape), so ``mask_indices`` keeps that number and, when
a run of the graph selects another number, raises `DataDependentSize`: `finegrad.function`
then runs that call's Python eagerly (it never reuses a size baked in at trace time).
It imports the core modules and `ops.zeros_and_axes`, `ops.array`, `ops.array.gather` and
`ops.array.manipulation`.
"""

from __future__ import annotations

import itertools

import numpy as np

from finegrad._src import core, dims
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.ops.array.structural import _t, reshape, stack
from finegrad._src.ops.zeros_and_axes import _normalize_axis
from finegrad._src.ops.array.gather import take
from finegrad._src.ops.array.manipulation import _take_checked

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


class DataDependentSize(RuntimeError):
    """A traced graph's run selected a number of entries other than the traced one (caught
    by `finegrad.function`, which then runs the call eagerly; a `ConcreteFunction` called
    directly has no Python to run and raises it)."""


mask_indices_p = def_nondiff(Primitive("mask_indices", unify=False, fresh=True))
_fresh = itertools.count()


class OpenCount:
    """The count of a mask whose shape has an open size: while tracing, a fresh symbol
    (``k0``, ``k1``...) that later shapes follow, bound from the positions' size when a graph
    is resolved for a run's sizes (`graph.compile.symbolic.specialize`); in each resolved
    graph, the count its first run found: a later run of that graph selecting another
    count raises `DataDependentSize` (the graph has the count in its shapes), and the
    graph is resolved again (a TF1 session) or the call runs eagerly (`finegrad.function`)."""

    def __init__(self, dim=None):
        self.dim, self.seen = dim, None

    def _has_dims(self):
        return self.dim is not None

    def _resolve_dims(self, resolve):
        return OpenCount()    # a resolved graph's own record of its count

    def check(self, n):
        if self.seen is None:
            self.seen = n
        elif n != self.seen:
            raise DataDependentSize(f"finegrad.boolean_mask: this graph was resolved for a "
                                    f"mask of {self.seen} true entries, this run's has {n}")


@mask_indices_p.def_shape
def _mask_indices_shape(mask, *, traced_count):
    """The positions' count: the fresh symbol of an `OpenCount` (else the traced count,
    kept: the mask's open sizes are pinned)."""
    if isinstance(traced_count, OpenCount):
        return (traced_count.dim,)
    dims.pin(mask, "boolean_mask of a mask with open sizes")
    return (traced_count,)


@mask_indices_p.def_impl
def _mask_indices_impl(mask, *, traced_count):
    """The int64 positions of the true entries of the 1-D ``mask``."""
    idx = np.flatnonzero(mask).astype(np.int64)
    if isinstance(traced_count, OpenCount):
        traced_count.check(idx.size)
    elif traced_count is not None and idx.size != traced_count:
        raise DataDependentSize(f"finegrad.boolean_mask: the graph was traced with a mask of "
                                f"{traced_count} true entries, this call's has {idx.size} (the "
                                f"graph may have the traced count written into it)")
    return idx


def mask_indices(mask):
    """The positions of the true entries of the 1-D bool tensor ``mask`` (int64). Inside a
    trace, the graph checks each run's count against the traced one (see the module)."""
    traced: Any = None
    if core.current_tracer() is not None:
        traced = int(np.count_nonzero(mask._value))
        if dims.is_symbolic(core.shape_of(mask)):   # open sizes: the count is a symbol too
            traced = OpenCount(dims.Dim.symbol(f"k{next(_fresh)}", traced))
    return bind(mask_indices_p, mask, traced_count=traced)


def true_coordinates(condition):
    """The int64 coordinates ``(count, rank)`` of the true entries of the bool tensor
    ``condition`` (one-argument `where`): the positions `mask_indices` finds, unravelled, so
    that a traced graph computes them from each run's values."""
    if core.current_tracer() is None:
        return _t(np.argwhere(condition._value).astype(np.int64))
    shape = dims.pin(core.shape_of(condition), "where(condition) has no rule for dynamic axes")
    flat = mask_indices(reshape(condition, (-1,)))
    strides = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
    if not shape:
        return reshape(flat, (-1, 1))[:, :0]
    # (an empty condition selects nothing: any nonzero divisors do)
    return stack([(flat // max(st, 1)) % max(n, 1) for st, n in zip(strides, shape, strict=True)],
                 axis=1)


def boolean_mask(tensor: TensorLike, mask: Any, axis: Any = None,
                 name: str | None = None) -> Tensor:
    """The slices of ``tensor`` where ``mask`` is true (TensorFlow's ``tf.boolean_mask``).

    ``mask`` (bool, rank k >= 1) has the shape of ``tensor``'s axes ``axis .. axis + k``
    (``axis`` defaults to 0); those axes become one, holding the selected slices in row-major
    order. The gradient scatters the cotangent back to the selected positions.

    Inside `finegrad.function` the number of selected slices may change from call to call:
    a call whose mask selects another number than the traced one runs eagerly (correct
    values and gradients; a graph that also assigns variables refuses it instead).

    Raises:
        TypeError: for a mask that is not bool.
        ValueError: for a mask of rank 0 or a shape that does not match ``tensor``'s.

    >>> import finegrad as fg
    >>> fg.boolean_mask(fg.constant([[1., 2.], [3., 4.]]), [True, False]).numpy()
    array([[1., 2.]], dtype=float32)
    """
    fn = "finegrad.boolean_mask"
    t, m = _t(tensor), _t(mask)
    if not m.dtype.is_bool:
        raise TypeError(f"{fn}: mask must be bool, got {m.dtype.name}")
    k, shape = m._value.ndim, t._value.shape
    if k == 0:
        raise ValueError(f"{fn}: mask must have rank >= 1, got a scalar")
    a = 0 if axis is None else _normalize_axis(axis, max(t._value.ndim, 1), fn)
    sym = core.shape_of(t)
    # an open axis of the tensor takes any size of the mask's (TensorFlow's static check)
    opened = [type(d) is dims.Dim and type(e) is not dims.Dim
              for d, e in zip(sym[a:a + k], core.shape_of(m), strict=False)]
    pairs = zip(shape[a:a + k], m._value.shape, opened, strict=False)
    if len(shape[a:a + k]) != k or any(s != e and not o for s, e, o in pairs):
        raise ValueError(f"{fn}: mask of shape {list(m._value.shape)} does not match axes "
                         f"{a}..{a + k - 1} of tensor of shape {list(shape)}")
    flat = reshape(t, tuple(sym[:a]) + (-1,) + tuple(sym[a + k:])) if k != 1 else t
    m1 = reshape(m, (-1,)) if k != 1 else m
    if any(opened):   # a fixed mask over open sizes: the positions it selects, checked
        return _take_checked(flat, a, mask_indices(m1))   # against each run's size
    return take(flat, mask_indices(m1), axis=a)
