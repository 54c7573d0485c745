"""`vectorized_map`: trace ``fn`` on one slice, then run the graph once over the whole batch.

``fn`` is traced once (a `GraphBuilder`, inside the enclosing trace when there is one) on
the first slice of ``elems``. The graph is then evaluated over the whole batch node by node,
through `core.bind` as `concrete.replay` does, so tapes, accumulators and an enclosing
`finegrad.function` record ordinary ops (gradients of any order, both modes, need no code
here). Each value is either *batched* (the slices along a new axis 0: what depends on
``elems``) or *unbatched* (constants, captured tensors, variable reads: never tiled unless
an output needs it). A node whose inputs are all unbatched runs as it was traced; one with
a batched input runs its primitive's batching rule (``Primitive.def_vmap``; elementwise
primitives without one align ranks and bind once), or the per-slice fallback: the batched
inputs unstacked, the primitive bound once per slice, the results stacked. Stateful
primitives (random draws) and custom_gradient nodes always take the fallback, so that each
slice draws its own numbers and each slice's gradient function sees its own values. A
``cond`` whose predicate differs between slices runs each branch once over its own slices,
and a ``while_loop`` runs each step once over the slices still looping (outside a trace,
where the predicate's values are known).

An ``fn`` that cannot be traced (it asks a slice's value in Python: ``.numpy()``, an ``if``
on a tensor; or it assigns a variable), or whose sizes depend on each slice's values (a
``boolean_mask``), runs slice by slice as `map_fn` does, with a warning
(``fallback_to_while_loop=True``), or raises (``False``). It imports `core`, `ops`, `ad`
and the graph builder.
"""

from __future__ import annotations

import warnings

import numpy as np

from finegrad._src.tracebacks import api_boundary, user_stacklevel
from finegrad._src import core, dims, nest
from finegrad._src.ad import custom
from finegrad._src.core import bind
from finegrad._src.graph.tracing.builder import GraphBuilder
from finegrad._src.graph.tracing.concrete import _ReplayRule
from finegrad._src.graph.ir import OutSlot, assign_variable_p, read_variable_p
from finegrad._src.control_flow import map_fn as mapping
from finegrad._src.ops.array.structural import (_t, batch_all, batch_size, broadcast_to, concat,
                                                convert_to_tensor, stack)
from finegrad._src.ops.array.gather import take
from finegrad._src.ops.array.scatter_nd import tensor_scatter_nd_update
from finegrad._src.ops.batching import aligned_vmap
from finegrad._src.ops.array.constants import zeros
from finegrad._src.ops.array.boolean_mask import DataDependentSize
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike

_FN = "finegrad.vectorized_map"


class _Untraceable(Exception):
    """``fn`` cannot be traced into a graph of one slice (see the module docstring)."""

    def __init__(self, message, kind=TypeError):
        super().__init__(message)
        self.kind = kind


class _VmapBuilder(GraphBuilder):
    """Traces ``fn`` on one slice; refuses what only a loop can run."""

    def check_concrete(self, t, what):
        s = self.slots.get(id(t))
        if s is not None and s not in self.consts and s not in self.outer:
            raise _Untraceable(f"{_FN}: fn asks for {what} of a tensor computed from a slice "
                               f"of elems, whose value a vectorized computation does not have "
                               f"(use finegrad ops: finegrad.where instead of an `if`)")
        if self.parent is not None:
            self.parent.check_concrete(t, what)

    def assign_variable(self, var, value, mode, key=None):
        raise _Untraceable(f"{_FN}: fn assigns variable {var.name!r}; slices assign one after "
                           f"the other, which only a loop does", ValueError)


@api_boundary
def vectorized_map(fn: Any, elems: TensorLike, fallback_to_while_loop: bool = True,
                   warn: bool = True) -> Any:
    """``fn`` applied to each slice of ``elems`` along axis 0, the results stacked, computed
    by one vectorized run of ``fn``'s ops over the whole batch (TensorFlow's
    ``tf.vectorized_map``).

    ``fn`` is traced once on one slice (its Python runs once, as in TensorFlow), then each
    of its ops runs once over all the slices (through the primitive's batching rule, or
    slice by slice for primitives without one).
    ``elems`` is a tensor or a nested structure of tensors sharing the size of axis 0;
    ``fn`` may return any structure; outputs that do not depend on ``elems`` (constants,
    Python numbers) are broadcast to the batch. Gradients (any order, both modes) flow as
    through the ops themselves. An ``fn`` that needs a slice's value in Python (``.numpy()``,
    an ``if`` on a tensor), assigns a variable, or selects a number of entries that depends
    on each slice's values (``boolean_mask``) runs as `map_fn` (once per slice), with a
    warning when ``warn``; with ``fallback_to_while_loop=False`` it is an error instead.
    (A primitive without a batching rule always runs slice by slice, within the vectorized
    run: that is exact, only slower.)

    >>> import finegrad as fg
    >>> fg.vectorized_map(lambda x: fg.reduce_sum(x * x), fg.constant([[1., 2.], [3., 4.]])).numpy()
    array([ 5., 25.], dtype=float32)
    """
    flat = [_t(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{_FN}: elems must hold at least one tensor")
    n = _batch_size(flat)
    try:
        graph, builder, outer = _trace(fn, elems, flat)
        try:
            return _run(graph, builder, outer, flat, n)
        except DataDependentSize as e:   # a boolean_mask: each slice selects its own count
            raise _Untraceable(f"{_FN}: fn selects a number of entries that depends on "
                               f"each slice's values ({e})", ValueError) from None
        finally:
            if builder.parent is None:
                builder.release(graph)
    except _Untraceable as e:
        if not fallback_to_while_loop:
            raise e.kind(f"{e} (fallback_to_while_loop=False)") from None
        if warn:
            warnings.warn(f"{e}; running fn once per slice instead", stacklevel=user_stacklevel())
        return mapping._map(fn, elems, None, _FN)


def _batch_size(flat):
    """The common size of axis 0 (a `Dim` inside a shape-polymorphic trace)."""
    sizes = []
    for t in flat:
        if t._value.ndim == 0:
            raise ValueError(f"{_FN}: elems must have rank >= 1 (their axis 0 is mapped), got "
                             f"a scalar")
        sizes.append(core.shape_of(t)[0])
    if len({t._value.shape[0] for t in flat}) != 1:
        raise ValueError(f"{_FN}: the tensors of elems must have the same size along axis 0, "
                         f"got {sorted({t._value.shape[0] for t in flat})}")
    first = sizes[0]
    if any(not dims.same_size(first, s) for s in sizes[1:]):   # equal now, not symbolically
        first = dims.pin(sizes[:1], f"{_FN} over elems of different symbolic sizes")[0]
    return first


def _example(t):
    """A tensor standing for one slice of ``t``: its first slice (zeros for zero slices)."""
    v = t._value
    return Tensor(v[0] if v.shape[0] else zeros(v.shape[1:], t.dtype)._value)


def _trace(fn, elems, flat):
    """Trace ``fn`` on one slice. Returns (graph, builder, {slot: enclosing tensor})."""
    parent = core.current_tracer()
    b = _VmapBuilder("vectorized_map_fn", parent=parent)
    examples = [_example(t) for t in flat]
    if not flat[0]._value.shape[0]:   # zero slices: the traced values are made up
        b.examples = True
    try:
        with core.tracing(b):
            for t, x in zip(flat, examples, strict=True):
                b.add_arg(x, shape=tuple(core.shape_of(t))[1:] if b.poly else None)
            out = fn(nest.pack_sequence_as(elems, examples))
            if nest.is_nested(out) and not nest.flatten(out):
                raise ValueError(f"{_FN}: fn returned an empty structure")
    except BaseException:   # a trace that raised: what it made is out of scope all the same
        if parent is None:
            b.release()
        raise
    g = b.finish(out, [f"e{i}" for i in range(len(flat))])
    outer = {b.slots[k]: t for k, t in b.alive.items() if b.slots[k] in b.outer}
    return g, b, outer


def _run(graph, builder, outer, flat, n):
    env = dict(zip(graph.args, flat, strict=True))
    env.update(outer)
    batched = _evaluate(graph, builder, env, set(graph.args), n)
    return nest.map_structure(lambda o: _output(o, env, batched, n), graph.outputs)


def _evaluate(graph, builder, env, batched, n):
    """Run ``graph``'s nodes over the batch, filling ``env`` (slot -> tensor; the arguments
    and outer slots given); returns the set of batched slots."""
    for s in graph.consts:
        env[s] = builder.captured(s)   # the captured tensor itself: tapes see the connection
    for node in graph.nodes:
        if node.prim is read_variable_p:
            env[node.outs[0]] = node.params["var"].read_value()
            continue
        if node.prim is assign_variable_p:   # in a cond branch (fn's own are refused)
            raise _Untraceable(f"{_FN}: fn assigns variable {node.params['var'].name!r}; "
                               f"slices assign one after the other, which only a loop does",
                               ValueError)
        flags = [s in batched for s in node.ins]
        if node.prim is custom.custom_p:
            outs = _per_slice(node, env, batched, n, builder)
        elif any(flags) or node.prim.stateful:
            outs = _batched(node, [env[s] for s in node.ins], flags, n)
        else:
            outs = core.bind(node.prim, *[env[s] for s in node.ins], **node.params)
            env.update(zip(node.outs, outs if node.prim.multiple_results else (outs,),
                           strict=True))
            continue
        env.update(zip(node.outs, outs, strict=True))
        batched.update(node.outs)
    return batched


def cond_rule(args, batched, *, branches):
    """The batching rule of ``cond`` (declared in control_flow/cond_while.py) for a predicate that
    differs between slices, outside any trace (where its values are known): the slices
    partitioned by the predicate, each branch run once over its slices (as TensorFlow's
    vectorization of a cond does), the results put back in order by one gather. Inside a
    trace the partition would have a data-dependent size: ``NotImplemented``."""
    if not batched[0] or core.current_tracer() is not None:
        return NotImplemented
    pred = np.asarray(args[0]._value, bool)
    parts, order = [], []
    for branch, idx in zip(branches, (np.flatnonzero(pred), np.flatnonzero(~pred)),
                           strict=True):
        if idx.size:
            captured = [take(x, idx) if b else x
                        for x, b in zip(args[1:], batched[1:], strict=True)]
            parts.append(_run_branch(branch, captured, batched[1:], idx.size))
            order.append(idx)
    perm = np.argsort(np.concatenate(order), kind="stable")
    return tuple(take(concat(list(p), 0) if len(p) > 1 else p[0], perm)
                 for p in zip(*parts, strict=True))


def _run_branch(branch, captured, flags, n, args=()):
    """A cond branch's (or a loop's condition's or body's) outputs (OutSlot leaves) over
    ``n`` slices, batch at axis 0; ``args`` (batched) feed the graph's arguments."""
    g = branch.graph
    env = dict(zip(g.args, args, strict=True))
    env.update({s: captured[i] for s, i in branch.outer_index.items()})
    batched = _evaluate(g, branch.builder, env, set(g.args) |
                        {s for s, i in branch.outer_index.items() if flags[i]}, n)
    return [_output(o, env, batched, n) for o in nest.flatten(g.outputs)
            if isinstance(o, OutSlot)]


def while_rule(args, batched, *, parts, n, max_iter):
    """The batching rule of ``while_loop`` (declared in `cond_while`), outside any trace:
    every slice keeps its own loop variables; each step runs the condition once over the
    slices still looping and the body once over those whose condition holds (so a finished
    slice never runs the body again, as in the loop), writing their new values back with
    one scatter per variable. Inside a trace (or with a traced maximum_iterations):
    ``NotImplemented``."""
    if core.current_tracer() is not None or max_iter == "input":
        return NotImplemented
    size = _slices(batch_size(args, batched), "while_loop")
    state = batch_all(args[:n], batched[:n]) if any(batched[:n]) else \
        [broadcast_to(v, (size,) + tuple(core.shape_of(v))) for v in args[:n]]
    captured, flags = list(args[n:]), list(batched[n:])
    active, step = np.arange(size), 0
    while active.size and (max_iter is None or step < max_iter):
        cap = [take(c, active) if f else c for c, f in zip(captured, flags, strict=True)]
        pred = _run_branch(parts[0], cap, flags, active.size,
                           [take(v, active) for v in state])[0]
        active = active[np.asarray(pred._value, bool)]
        if active.size:
            cap = [take(c, active) if f else c for c, f in zip(captured, flags, strict=True)]
            new = _run_branch(parts[1], cap, flags, active.size,
                              [take(v, active) for v in state])
            rows = active[:, None]
            state = [tensor_scatter_nd_update(v, rows, u) for v, u in zip(state, new,
                                                                          strict=True)]
        step += 1
    return tuple(state)


def _output(o, env, batched, n):
    """One output leaf with the batch at axis 0 (an unbatched one broadcast to it; None
    stays None)."""
    if isinstance(o, OutSlot):
        t = env[o.slot]
        if o.slot in batched:
            return t
    elif o is None:   # passed through, as TensorFlow does
        return None
    else:
        t = convert_to_tensor(o)
    return broadcast_to(t, (n,) + tuple(core.shape_of(t)))


def _batched(node, ins, flags, n):
    """The outputs (a tuple) of ``node`` over the batch: its primitive's batching rule, the
    elementwise default, or the per-slice fallback."""
    prim = node.prim
    rule = prim.vmap
    if rule is None and prim.elementwise:   # the default: ranks aligned, one bind
        rule = aligned_vmap(prim)
    out = NotImplemented
    if rule is not None and not prim.stateful:
        out = rule(ins, flags, **node.params)
    if out is NotImplemented:
        return _fallback(node, ins, flags, n)
    return tuple(out) if prim.multiple_results else (out,)


def _slices(n, what):
    """The number of slices as an int (a symbolic batch size is pinned: the loop of the
    fallback is unrolled)."""
    return dims.pin((n,), f"{_FN}: {what} runs once per slice")[0] if type(n) is dims.Dim \
        else n


def _fallback(node, ins, flags, n):
    """Bind ``node``'s primitive once per slice (the batched inputs unstacked), then stack."""
    m = _slices(n, f"the primitive {node.prim.name} (no batching rule)")
    if m == 0:
        return _empty(node)
    cols = [bind(mapping.unstack_rows_p, x) if f else None
            for x, f in zip(ins, flags, strict=True)]
    rows = []
    for i in range(m):
        args = [x if c is None else c[i] for x, c in zip(ins, cols, strict=True)]
        out = bind(node.prim, *args, **node.params)
        rows.append(out if node.prim.multiple_results else (out,))
    return tuple(stack(list(r)) for r in zip(*rows, strict=True))


def _empty(node):
    """The outputs of ``node`` for zero slices: empty, shaped like its traced outputs."""
    return tuple(zeros((0,) + tuple(shape), dt) for shape, dt in node.meta)


class _SliceEnv:
    """The values of one slice ``i``: a batched value's row ``i``, an unbatched one as is."""

    def __init__(self, env, batched, i, cols):
        self.env, self.batched, self.i, self.cols = env, batched, i, cols

    def __getitem__(self, s):
        t = self.env[s]
        if s not in self.batched:
            return t
        if s not in self.cols:
            self.cols[s] = bind(mapping.unstack_rows_p, t)
        return self.cols[s][self.i]


def _per_slice(node, env, batched, n, builder):
    """A custom_gradient node, slice by slice: each slice's gradient function (traced once)
    is evaluated with that slice's values."""
    m = _slices(n, "a custom_gradient function")
    if m == 0:
        return _empty(node)
    cols, rows = {}, []
    for i in range(m):
        senv = _SliceEnv(env, batched, i, cols)
        rule = _ReplayRule(node, builder, senv, node.params["rule"])
        rows.append(core.bind(node.prim, *[senv[s] for s in node.ins], rule=rule))
    return tuple(stack(list(r)) for r in zip(*rows, strict=True))
