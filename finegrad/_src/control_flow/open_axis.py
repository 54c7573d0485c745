"""`map_fn` and `scan` over an open axis 0 (a ``None`` dimension of a placeholder or of an
input_signature): one `while_loop` node instead of a loop unrolled over the traced size, so
one graph serves every size, as TensorFlow's own while loop over a TensorArray does.

``fn`` runs once on a slice of zeros while the graph is built, only to learn its results' structure,
shapes and dtypes (those ops are left out of every run: nothing needs them), then once in the
traced loop body, which reads slice ``i`` with a gather and writes its result into row ``i``
of each output (`tensor_scatter_nd_update`), the outputs starting as zeros. The loop runs
from slice 0, so a run with zero slices gives empty outputs (and `scan`/`foldl` with an
initializer give it back), as TensorFlow's. Without an initializer slice 0 is the first
accumulator, read before the loop: zero slices are then an error, as in TensorFlow. The
loop's gradient is the while loop's (every order). One graph serves every count, whichever
count it was traced at (zero included: see `_slicer`).
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims, nest
from finegrad._src.control_flow.cond_while import while_loop
from finegrad._src.ops.array.gather import take
from finegrad._src.ops.array.scatter_nd import checked_gather_nd, tensor_scatter_nd_update
from finegrad._src.ops.array.structural import _t, broadcast_to, expand_dims, reshape
from finegrad._src.ops.math.elementwise import less
from finegrad._src.ops.math.reductions import cumsum
from finegrad._src.ops.zeros_and_axes import filled


def _rows_like(first, n):
    """Outputs of ``n`` rows, each row ``first`` (later rows are overwritten)."""
    return [broadcast_to(expand_dims(t, 0), (n,) + tuple(core.shape_of(t))) for t in first]


def _zero_rows(like, n):
    """Outputs of ``n`` zero rows shaped as the tensors ``like`` (every row is written)."""
    return [filled((n,) + tuple(core.shape_of(t)), 0, t.dtype.as_numpy_dtype) for t in like]


def _write(outs, i, values):
    index = reshape(i, [1, 1])
    return [tensor_scatter_nd_update(o, index, expand_dims(v, 0))
            for o, v in zip(outs, values, strict=True)]


def _example_slice(flat, elems):
    """A slice of ``elems`` of zeros, for learning ``fn``'s structure (not a read of slice
    0: a graph re-run op by op for a new size runs these ops too, fed zero rows)."""
    return nest.pack_sequence_as(elems, [
        filled(tuple(core.shape_of(t))[1:], 0, t._value.dtype) for t in flat])


def _traced_at_zero(n):
    """Whether the open count ``n`` is 0 in this trace (read without a guard). The loop body
    still runs once while it is built (its ops compute values), and neither slice 0 nor
    row 0 of the outputs exists: the slices are then read from the tensors with a row of
    zeros appended (a scatter into n + 1 rows), and the outputs get one spare row, cut off
    after the loop (a gather of the first ``n`` rows). At run time the loop reads and
    writes rows below the count only, so that graph serves every count, as one traced at
    another count does."""
    return dims.concrete(n) == 0


def _row_numbers(n):
    """``range(n)`` for an open ``n``, as graph ops (whose gradients slice nothing)."""
    return cumsum(filled((n,), 1, np.int32)) - 1


def _first_rows(outs, n):
    """The first ``n`` rows of each of ``outs`` (``n`` open)."""
    rows = _row_numbers(n)
    return [take(o, rows, axis=0) for o in outs]


def _slicer(flat, elems, n):
    """``slice_at(i)``: slice ``i`` of every tensor of ``flat``, packed as ``elems``."""
    if _traced_at_zero(n):
        rows = reshape(_row_numbers(n), [-1, 1])
        flat = [tensor_scatter_nd_update(
            filled((n + 1,) + tuple(core.shape_of(t))[1:], 0, t._value.dtype), rows, t)
            for t in flat]

    def slice_at(i):
        return nest.pack_sequence_as(elems, [take(t, i, axis=0) for t in flat])
    return slice_at


def map_open(fn, flat, elems, n):
    """`map_fn`'s stacked results (flat) for ``flat`` slices of open count ``n``."""
    slice_at = _slicer(flat, elems, n)
    spare = int(_traced_at_zero(n))
    first = fn(_example_slice(flat, elems))   # its structure, shapes and dtypes only
    first_flat = [_t(t) for t in nest.flatten(first)]
    count = filled((), n, np.int32)

    def body(i, *outs):
        values = [_t(t) for t in nest.flatten(fn(slice_at(i)))]
        return (i + 1, *_write(list(outs), i, values))
    loop = while_loop(lambda i, *outs: less(i, count), body,
                      (filled((), 0, np.int32), *_zero_rows(first_flat, n + spare)))
    return first, _first_rows(loop[1:], n) if spare else list(loop[1:])


def open_count(flat):
    """The open size shared by axis 0 of every tensor of ``flat``, or None (a fixed size,
    or sizes that differ: the unrolled loop then keeps the traced one)."""
    if not flat or any(t._value.ndim == 0 for t in flat):
        return None
    lead = [core.shape_of(t)[0] for t in flat]
    if all(type(d) is dims.Dim and d.poly == lead[0].poly for d in lead):
        return lead[0]
    return None


#: a scan, foldl or foldr without an initializer over zero slices (TensorFlow's class)
_NO_FIRST = ("finegrad.scan: elems has no slices along axis 0 (size {size}) and no "
             "initializer: the first slice is the first accumulator")


def scan_open(step, flat, elems, initializer, n):
    """For ``flat`` slices of open count ``n``: the accumulator's structure, the last
    accumulator (flat) and the accumulators after each slice (flat, stacked), ``step(a, x)``
    being one checked step of `scan`."""
    slice_at = _slicer(flat, elems, n)
    spare = int(_traced_at_zero(n))
    if initializer is None:   # slice 0 is the first accumulator and output (gather_nd:
        # zero slices are TensorFlow's InvalidArgumentError)
        a = nest.pack_sequence_as(elems, [checked_gather_nd(t, [0], _NO_FIRST) for t in flat])
        start, carried, rows = 1, nest.flatten(a), _rows_like(nest.flatten(a), n + spare)
    else:   # step(initializer, slice 0) gives the structure only: the loop starts at 0
        a = step(nest.map_structure(_t, initializer), _example_slice(flat, elems))
        start, carried = 0, nest.flatten(nest.map_structure(_t, initializer))
        rows = _zero_rows(nest.flatten(a), n + spare)
    a_flat = nest.flatten(a)
    count = filled((), n, np.int32)
    k = len(a_flat)

    def body(i, *carried):
        acc = nest.pack_sequence_as(a, list(carried[:k]))
        new = nest.flatten(step(acc, slice_at(i)))
        return (i + 1, *new, *_write(list(carried[k:]), i, new))
    loop = while_loop(lambda i, *rest: less(i, count), body,
                      (filled((), start, np.int32), *carried, *rows))
    stacked = list(loop[1 + k:])
    return a, list(loop[1:1 + k]), _first_rows(stacked, n) if spare else stacked
