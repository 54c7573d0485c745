"""The positions behind `boolean_mask` (ops/array/manipulation.py): the entries of a tensor
where a boolean mask is true, a result whose size depends on the mask's values.

It is a `gather` at the positions of the true entries (primitive ``mask_indices``, not
differentiable), so its gradient scatters the cotangent back (gather's VJP). Inside
`finegrad.function` the graph's later ops may have written the traced number of entries
into the graph (a mean's divisor, a reshape), so ``mask_indices`` keeps that number and, when
a run of the graph selects another number, raises `DataDependentSize`: `finegrad.function`
then runs that call's Python eagerly (it never reuses a size baked in at trace time).
It imports the core modules and `ops.array.structural` (ops/math/elementwise.py imports it).
"""

from __future__ import annotations

import itertools

import numpy as np

from finegrad._src import core, dims
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.ops.array.structural import _t, reshape, stack

from typing import Any


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
