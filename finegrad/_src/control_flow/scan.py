"""`map_fn`, `scan`, `foldl`, `foldr`: a function applied to, or carried over, the slices of
tensors along axis 0 (over an open axis 0, `map_fn` and `scan` are one while loop:
control_flow/open_axis.py).

As `map_fn` (control_flow/map_fn.py), these run ``fn`` once per slice in a Python loop over the
outputs of one ``unstack_rows`` (whose VJP stacks all the slices' cotangents at once), so
every op ``fn`` runs is an ordinary recorded op: tapes, accumulators and `finegrad.function`
traces see them and gradients (any order, both modes) flow through the accumulator chain.
Inside a trace the loop is unrolled into the graph. It imports the core modules and
`ops.array`, `ops.array.constants` and `control_flow.map_fn`.
"""

from __future__ import annotations

from finegrad._src.tracebacks import api_boundary
from finegrad._src import nest
from finegrad._src.core import bind
from finegrad._src.ops.array.structural import _t, stack, stop_gradient
from finegrad._src.ops.array.constants import zeros
from finegrad._src.ops.array.manipulation import reverse as flip
from finegrad._src.control_flow import open_axis
from finegrad._src.control_flow.map_fn import (_check_signature, _leading_size, _map,
                                               unstack_rows_p)

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike, TensorLike


def _slices(elems, where):
    """The number of slices of ``elems`` and a function giving slice ``i`` (packed as
    ``elems``)."""
    flat = [_t(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{where}: elems must hold at least one tensor")
    n = _leading_size(flat, where)
    columns = [bind(unstack_rows_p, t) for t in flat] if n else []
    return n, lambda i: nest.pack_sequence_as(elems, [c[i] for c in columns])


def _step(fn, a, x, where):
    """``fn(a, x)``, checked to return the accumulator's structure (as TensorFlow)."""
    out = fn(a, x)
    why = nest.structure_difference(a, out, False)
    if why is not None:
        raise ValueError(f"{where}: fn must return the accumulator's structure: {why[1]}")
    return nest.pack_sequence_as(a, [_t(t) for t in nest.flatten(out)])


def _carry(fn, elems, initializer, reverse, where):
    """The accumulators after each slice (in slice order) and the slices' count."""
    n, slice_at = _slices(elems, where)
    order = range(n - 1, -1, -1) if reverse else range(n)
    if initializer is None:
        if n == 0:
            raise ValueError(f"{where}: elems have zero slices and no initializer was given "
                             f"(the first slice is the initial accumulator)")
        a = nest.map_structure(_t, slice_at(order[0]))
        done = {order[0]: a}
        order = order[1:]
    else:
        a = nest.map_structure(_t, initializer)
        done = {}
    for i in order:
        a = _step(fn, a, slice_at(i), where)
        done[i] = a
    return a, done, n


def _open_carry(fn, elems, initializer, reverse, where):
    """Over an open axis 0: (the last accumulator, the accumulators after each slice in
    slice order, stacked), from one while loop (`open_axis.scan_open`); else None."""
    flat = [_t(e) for e in nest.flatten(elems)]
    count = open_axis.open_count(flat)
    if count is None:
        return None
    if reverse:   # reverse, not [::-1]: a strided slice decides its bounds on the size
        flat = [flip(t, [0]) for t in flat]
    a, last, stacked = open_axis.scan_open(lambda acc, x: _step(fn, acc, x, where), flat,
                                           elems, initializer, count)
    if reverse:
        stacked = [flip(t, [0]) for t in stacked]
    return nest.pack_sequence_as(a, last), nest.pack_sequence_as(a, stacked)


def _no_grad(out, back_prop):
    return out if back_prop else nest.map_structure(stop_gradient, out)


@api_boundary
def map_fn(fn: Any, elems: TensorLike, dtype: DTypeLike | None = None,
           parallel_iterations: Any = None, back_prop: bool = True, swap_memory: bool = False,
           infer_shape: bool = True,
           name: str | None = None, fn_output_signature: Any = None) -> Any:
    """``fn`` applied to each slice of ``elems`` along axis 0, the results stacked.

    ``elems`` is a tensor or a nested structure of tensors sharing the size of axis 0;
    ``fn`` receives one slice of the same structure and may return any structure of
    tensors, stacked leaf by leaf. ``fn_output_signature`` (or the older ``dtype``: dtypes
    or TensorSpecs) is checked against what ``fn`` returns and shapes the empty result for
    zero slices. ``fn`` runs once per slice, so gradients (any order, both modes) flow
    through its ops as they run; ``back_prop=False`` stops them. ``parallel_iterations``
    and ``swap_memory`` are accepted and have no effect. Inside `finegrad.function` (and a
    TF1 graph) the loop is unrolled into the graph, or, over an axis 0 left open (``None``),
    one while loop (`control_flow.open_axis`).

    >>> import finegrad as fg
    >>> fg.map_fn(lambda x: x[0] * x[1], (fg.constant([1., 2.]), fg.constant([3., 4.]))).numpy()
    array([3., 8.], dtype=float32)
    """
    signature = fn_output_signature if fn_output_signature is not None else dtype
    flat = [_t(e) for e in nest.flatten(elems)]
    n = open_axis.open_count(flat)
    if n is None:
        out = _map(fn, elems, signature, "finegrad.map_fn")
    else:   # an open axis 0: one while_loop serves every size
        first, stacked = open_axis.map_open(fn, flat, elems, n)
        if signature is not None:
            _check_signature(first, signature, "finegrad.map_fn")
        out = nest.pack_sequence_as(first, stacked) if nest.is_nested(first) else stacked[0]
    if not back_prop:
        out = nest.map_structure(stop_gradient, out)
    return out


@api_boundary
def scan(fn: Any, elems: TensorLike, initializer: Any = None, parallel_iterations: Any = None,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
         reverse: bool = False, name: str | None = None) -> Any:
    """The accumulators ``a = fn(a, x)`` over the slices ``x`` of ``elems`` along axis 0,
    stacked.

    ``elems`` is a tensor or a nested structure of tensors sharing the size of axis 0;
    ``initializer`` (any structure of tensors; by default the first slice of ``elems``,
    which is then the first output) is the starting accumulator, and ``fn`` must return the
    accumulator's structure. ``reverse=True`` runs from the last slice to the first (the
    outputs stay in slice order), as TensorFlow's ``tf.scan``. Gradients flow through
    ``fn``'s ops as they run; ``back_prop=False`` stops them. ``parallel_iterations``,
    ``swap_memory`` and ``infer_shape`` are accepted and have no effect.

    >>> import finegrad as fg
    >>> fg.scan(lambda a, x: a + x, fg.constant([1., 2., 3.])).numpy()
    array([1., 3., 6.], dtype=float32)
    """
    where = "finegrad.scan"
    opened = _open_carry(fn, elems, initializer, reverse, where)
    if opened is not None:   # an open axis 0: one while_loop serves every size
        return _no_grad(opened[1], back_prop)
    a, done, n = _carry(fn, elems, initializer, reverse, where)
    if n == 0:
        out = nest.map_structure(lambda t: zeros((0,) + tuple(t.shape), t.dtype), a)
    else:
        flat = [nest.flatten(done[i]) for i in range(n)]
        stacked = [stack([f[k] for f in flat]) for k in range(len(flat[0]))]
        out = nest.pack_sequence_as(a, stacked)
    return _no_grad(out, back_prop)


@api_boundary
def foldl(fn: Any, elems: TensorLike, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """The last accumulator of ``a = fn(a, x)`` over the slices ``x`` of ``elems`` along
    axis 0, first to last (TensorFlow's ``tf.foldl``).

    ``initializer`` defaults to the first slice of ``elems`` (then the fold starts at the
    second); structures are as in `scan`. With zero slices the initializer is returned.

    >>> import finegrad as fg
    >>> fg.foldl(lambda a, x: a * 10. + x, fg.constant([1., 2., 3.])).numpy()
    np.float32(123.0)
    """
    opened = _open_carry(fn, elems, initializer, False, "finegrad.foldl")
    if opened is not None:
        return _no_grad(opened[0], back_prop)
    return _no_grad(_carry(fn, elems, initializer, False, "finegrad.foldl")[0], back_prop)


@api_boundary
def foldr(fn: Any, elems: TensorLike, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """The last accumulator of ``a = fn(a, x)`` over the slices ``x`` of ``elems`` along
    axis 0, last to first (TensorFlow's ``tf.foldr``).

    ``initializer`` defaults to the last slice of ``elems`` (then the fold starts at the one
    before); structures are as in `scan`. With zero slices the initializer is returned.

    >>> import finegrad as fg
    >>> fg.foldr(lambda a, x: a * 10. + x, fg.constant([1., 2., 3.])).numpy()
    np.float32(321.0)
    """
    opened = _open_carry(fn, elems, initializer, True, "finegrad.foldr")
    if opened is not None:
        return _no_grad(opened[0], back_prop)
    return _no_grad(_carry(fn, elems, initializer, True, "finegrad.foldr")[0], back_prop)
