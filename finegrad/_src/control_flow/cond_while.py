"""Control flow: cond and while_loop, eager and traced, differentiable.

Eagerly (or when the predicate is a constant), `cond` calls one branch and `while_loop` runs
a Python loop, as TensorFlow does; tapes record what runs. Inside a trace with a traced
predicate, the branches (loop condition and body) are traced into sub-graphs and one node
runs them: ``cond`` with the sub-graphs and the tensors they captured as inputs.

Gradients: the VJP of a cond node is a cond of the branches' VJPs (each branch replayed under
a tape), so it works eagerly and traced, at any order; the JVP likewise with an accumulator.
A while node's gradient re-runs the loop under a tape: ordinary recorded ops outside a trace,
a `while_grad` node inside one; both to any order.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from finegrad._src.tracebacks import api_boundary
from finegrad._src import core, dims, nest
from finegrad._src.api.tensor_array import TensorArray
from finegrad._src.ad.rediff import jvp_by_transposing, vjp_of
from finegrad._src.core import Primitive, bind
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.zeros_and_axes import instantiate_zeros
from finegrad._src.graph.tracing.builder import GraphBuilder, is_traced
from finegrad._src.graph.tracing.subgraph import SubGraph as _Branch
from finegrad._src.graph import ir
from finegrad._src.control_flow import vectorized_map as vmap
from finegrad._src.control_flow import while_lowering, while_reverse
from finegrad._src.graph.ir import OutSlot
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.tensor import Tensor
from finegrad._src.state import state as _state
from finegrad._src.graph.xla import lower as xla

from typing import Any


def _trace_sub(fn, name, parent, args, inside=()):
    sub = _SubBuilder(name, parent, core.active_recorders(), inside)
    with core.tracing(sub):
        targs = []
        for a in args:
            t = Tensor(a._value)
            # a loop variable's open sizes stay open in the body (see _while_shape)
            sub.add_arg(t, shape=parent.shape_of(a) if parent.poly else None)
            targs.append(t)
        out = fn(*targs)
    return sub.finish(out, [f"v{i}" for i in range(len(args))]), sub


class _SubBuilder(GraphBuilder):
    """Traces a branch or loop body. Its variable reads happen in the enclosing graph (before
    the cond or while node) and are captured, so gradients reach the variables, unless the
    sub-graph itself assigned the variable first."""

    def __init__(self, name, parent, parent_recorders, inside=()):
        super().__init__(name, parent=parent)
        self._parent_recorders = parent_recorders
        self._assigned = set(inside)   # ids of the variables read inside the sub-graph
        self.outer_reads = set()       # ids of those read in the enclosing graph

    def read_variable(self, var):
        if id(var) in self._assigned:
            self.shadow.setdefault(id(var), self.parent.shadow.get(id(var), var._storage))
            return super().read_variable(var)
        self.outer_reads.add(id(var))
        with core.tracing(self.parent), core.inner_stack(self._parent_recorders):
            return self.parent.read_variable(var)

    def assign_variable(self, var, value, mode, key=None):
        self._assigned.add(id(var))
        # later reads in the enclosing trace see the value as it stands at trace time
        self.shadow.setdefault(id(var), self.parent.shadow.get(id(var), var._storage))
        super().assign_variable(var, value, mode, key)


def _captured(parent, subs):
    """The enclosing-trace tensors the sub-graphs captured, and each one's outer-slot map."""
    tensors, index, maps = [], {}, []
    for sub in subs:
        m = {}
        for k, t in sub.alive.items():
            s = sub.slots[k]
            if s in sub.outer:
                if k not in index:
                    index[k] = len(tensors)
                    tensors.append(t)
                m[s] = index[k]
        maps.append(m)
    return tensors, maps


# --- cond -------------------------------------------------------------------------------------

cond_p = Primitive("cond", multiple_results=True, unify=False)


@api_boundary
def cond(pred: Any, true_fn: Any = None, false_fn: Any = None, name: str | None = None) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()``, as one differentiable op in graphs.

    Eagerly (or with a constant predicate) only the chosen branch runs. Inside
    `finegrad.function` with a traced predicate, both branches are traced; they must return
    the same structure of tensors with the same shapes and dtypes.

    >>> import finegrad as fg
    >>> @fg.function
    ... def relu_ish(x):
    ...     return fg.cond(fg.reduce_sum(x) > 0, lambda: x * 2., lambda: x * 0.)
    >>> relu_ish(fg.constant([1., 2.])).numpy(), relu_ish(fg.constant([-1., 0.])).numpy()
    (array([2., 4.], dtype=float32), array([-0.,  0.], dtype=float32))
    """
    if true_fn is None or false_fn is None:
        raise TypeError("finegrad.cond: give both true_fn and false_fn")
    tracer = core.current_tracer()
    p = pred if isinstance(pred, Tensor) else convert_to_tensor(pred)
    if p._value.ndim != 0:   # TensorFlow: "The second input must be a scalar"
        raise InvalidArgumentError(f"finegrad.cond: pred must be a scalar (shape ()), got "
                                   f"shape {tuple(p._value.shape)}; reduce it (reduce_all, "
                                   f"reduce_any) or use finegrad.where for elementwise choices")
    if not is_traced(p):
        with core.inner_stack(core.active_recorders()):
            return true_fn() if bool(p._value) else false_fn()
    g_t, sub_t = _trace_sub(lambda: _tensor_leaves(true_fn()), "cond_true", tracer, [])
    g_f, sub_f = _trace_sub(lambda: _tensor_leaves(false_fn()), "cond_false", tracer, [])
    _same_outputs(g_t, g_f)
    captured, (m_t, m_f) = _captured(tracer, (sub_t, sub_f))
    branches = (_Branch(g_t, sub_t, m_t), _Branch(g_f, sub_f, m_f))
    outs = bind(cond_p, p, *captured, branches=branches)
    it = iter(outs)
    return nest.map_structure(lambda o: next(it) if isinstance(o, OutSlot) else o, g_t.outputs)


def _tensor_leaves(out):
    """Numbers and arrays a branch returns become tensors, as in TensorFlow."""
    return nest.map_structure(
        lambda o: convert_to_tensor(o) if isinstance(o, (int, float, np.ndarray, np.generic))
        and not isinstance(o, bool) else o, out)


def _same_outputs(a, b):
    la = [o for o in nest.flatten(a.outputs)]
    lb = [o for o in nest.flatten(b.outputs)]
    ma = [a.meta[o.slot] if isinstance(o, OutSlot) else o for o in la]
    mb = [b.meta[o.slot] if isinstance(o, OutSlot) else o for o in lb]
    if not nest.same_structure(a.outputs, b.outputs) or len(ma) != len(mb) or any(
            (x[0], np.dtype(x[1])) != (y[0], np.dtype(y[1])) if isinstance(x, tuple) and
            isinstance(y, tuple) else x != y for x, y in zip(ma, mb, strict=True)):
        raise ValueError(f"finegrad.cond: true_fn and false_fn must return the same structure "
                         f"of tensors with the same shapes and dtypes; got {ma} and {mb}")


def _dry(fn):
    """Inside a trace, run a sub-graph for its values with variable updates going to the
    trace's shadow values; outside, for real."""
    tracer = core.current_tracer()
    if tracer is None:
        return fn()
    with ir.dry_run(tracer.shadow):
        return fn()


cond_p.def_vmap(vmap.cond_rule)   # the slices partitioned by the predicate


@cond_p.def_shape
def _cond_shape(pred, *captured, branches):
    """The branches' output shapes, whose open sizes are the enclosing trace's when the
    branches were traced with them (else, and where the two branches differ, the sizes
    flowing in are kept at their traced values, as for an op without a shape rule)."""
    def shape(b, s):
        return tuple(b.graph.sym.get(s, b.graph.meta[s][0]))
    same_sizes = all(core.same_shape(shape(b, s), tuple(captured[i]))
                     for b in branches for s, i in b.outer_index.items())
    t, f = ([shape(b, o.slot) for o in nest.flatten(b.graph.outputs) if isinstance(o, OutSlot)]
            for b in branches)
    if not same_sizes or not all(core.same_shape(a, b) for a, b in zip(t, f, strict=True)):
        dims.pin([d for sh in captured for d in sh], "cond has no rule for dynamic axes")
    return t


def _slot_values(b, values):
    """The values of the branch's tensor outputs alone (a branch may also return None or
    other Python values, which `cond` passes through: side-effect-only branches)."""
    leaves = nest.flatten(b.graph.outputs)
    if len(values) != len(leaves):   # already one per tensor output
        return tuple(values)
    return tuple(v for v, o in zip(values, leaves, strict=True) if isinstance(o, OutSlot))


@cond_p.def_impl
def _cond_impl(pred, *captured, branches):
    b = branches[0] if pred else branches[1]
    return _slot_values(b, _dry(lambda: b.run_values([], captured)))


@cond_p.def_lowering
def _cond_lower(pred, *captured, branches):
    """XLA: ``lax.cond`` of the lowered branches; the variables a branch assigns are carried
    through it."""
    from jax import lax
    low = xla.current()
    carried = low.carried([b.graph for b in branches])
    run_t, run_f = (xla.branch_function(b, carried) for b in branches)
    outs, state = lax.cond(pred, lambda s, c: run_t(s, [], c), lambda s, c: run_f(s, [], c),
                           [low.values[k] for k in carried], list(captured))
    low.values.update(zip(carried, state, strict=True))
    return tuple(outs)


@cond_p.def_vjp
def _cond_vjp(cts, pred, *captured, out, needs, batch, branches):
    """VJP of cond: a cond of the two branches' VJPs (each replays its branch under a tape,
    its variable updates left out: the cond made them)."""
    floats = [i for i, t in enumerate(captured) if t.dtype.is_differentiable]

    def branch_vjp(b):
        def run():
            return vjp_of(lambda *_: _slot_values(b, b.replay([], captured, effects=False)),
                          [captured[i] for i in floats], list(cts))
        return run
    if not floats:
        return (None,) * (1 + len(captured))
    grads = cond(pred, branch_vjp(branches[0]), branch_vjp(branches[1]))
    out_g = [None] * len(captured)
    for i, g in zip(floats, grads, strict=True):
        out_g[i] = g
    return (None, *out_g)


@cond_p.def_jvp
def _cond_jvp(primals, tangents, *, out, branches):
    pred, captured = primals[0], primals[1:]
    tans = instantiate_zeros(captured, tangents[1:])
    floats = [i for i, t in enumerate(captured) if t.dtype.is_differentiable]

    def branch_jvp(b):
        def run():
            from finegrad._src.ad.forward import ForwardAccumulator
            with ForwardAccumulator([captured[i] for i in floats],
                                    [tans[i] for i in floats]) as acc:
                outs = _slot_values(b, b.replay([], captured, effects=False))
            return [acc.jvp(o, unconnected_gradients="zero") for o in outs]
        return run
    return tuple(cond(pred, branch_jvp(branches[0]), branch_jvp(branches[1])))


# --- while_loop -----------------------------------------------------------------------------------

while_p = Primitive("while_loop", multiple_results=True, unify=False)


while_p.def_vmap(vmap.while_rule)   # each slice loops as long as its own condition holds


@while_p.def_shape
def _while_shape(*shapes, parts, n, max_iter):
    """The loop variables' shapes (the body keeps them), open sizes included, when the
    condition and body were traced with those sizes; else they are kept at their traced
    values, as for an op without a shape rule."""
    def sym(g, s):
        return tuple(g.sym.get(s, g.meta[s][0]))
    loop = [tuple(sh) for sh in shapes[:n]]
    captured = shapes[n:]
    body_out = [sym(parts[1].graph, o.slot) for o in nest.flatten(parts[1].graph.outputs)]
    same = all(core.same_shape(sym(p.graph, s), loop[i])
               for p in parts for i, s in enumerate(p.graph.args)) and \
        all(core.same_shape(o, v) for o, v in zip(body_out, loop, strict=True)) and \
        all(core.same_shape(sym(p.graph, s), tuple(captured[i]))
            for p in parts for s, i in p.outer_index.items())
    if not same:
        dims.pin([d for sh in shapes for d in sh], "while_loop has no rule for dynamic axes")
    return loop


@api_boundary
def while_loop(cond: Any, body: Any, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               maximum_iterations: Any = None, name: str | None = None) -> Any:
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the vars.

    Eagerly (and when the condition is not traced) this is a Python loop, recorded by tapes
    step by step. Inside `finegrad.function` with a traced condition, it is one node that
    runs the traced condition and body; its gradient (first order) re-runs the loop under a
    tape. ``body`` must keep each variable's shape and dtype.

    >>> import finegrad as fg
    >>> @fg.function
    ... def halve_until_small(x):
    ...     return fg.while_loop(lambda v: v > 1., lambda v: v / 2., [x])
    >>> halve_until_small(fg.constant(10.))[0].numpy()
    np.float32(0.625)
    """
    # loop_vars: one value or a list/tuple/namedtuple of them, each possibly a nested
    # structure (namedtuples, dicts, lists) of tensors, as in TensorFlow; the loop itself
    # runs over the flat list of tensors
    single = not isinstance(loop_vars, (list, tuple))
    structure = (loop_vars,) if single else loop_vars
    vars_: list[Any] = [v if isinstance(v, (Tensor, TensorArray)) else convert_to_tensor(v)
                        for v in nest.flatten(structure)]
    cond, body = _over_flat(cond, body, structure)
    tracer = core.current_tracer()
    # with traced loop variables the loop is traced: the condition runs in its sub-graph
    # only (a run here would add its ops, assignments included, to the enclosing graph)
    c = None if any(isinstance(v, Tensor) and is_traced(v) for v in vars_) else cond(*vars_)
    if c is not None and not is_traced(c):
        i = 0
        if isinstance(maximum_iterations, Tensor):
            maximum_iterations = int(maximum_iterations._value)
        while bool(c._value if isinstance(c, Tensor) else c) and (
                maximum_iterations is None or i < maximum_iterations):
            vars_ = body(*vars_)
            c = cond(*vars_)
            i += 1
        return _packed(structure, vars_, single)
    _refuse_tensor_arrays(vars_)
    (g_c, sub_c), (g_b, sub_b) = _trace_loop(cond, body, tracer, vars_)
    for i, (o, v) in enumerate(zip(nest.flatten(g_b.outputs), vars_, strict=True)):
        if not isinstance(o, OutSlot) or g_b.meta[o.slot] != (tuple(v._value.shape),
                                                              v._value.dtype):
            raise ValueError(f"finegrad.while_loop: the body must keep each loop variable's "
                             f"shape and dtype; variable {i} is {tuple(v._value.shape)} "
                             f"{v._value.dtype} before")
    captured, (m_c, m_b) = _captured(tracer, (sub_c, sub_b))
    max_iter = maximum_iterations
    if isinstance(max_iter, Tensor):
        if is_traced(max_iter):   # known only when the graph runs: the node's last input
            captured, max_iter = captured + [max_iter], "input"
        else:
            max_iter = int(max_iter._value)
    parts = (_Branch(g_c, sub_c, m_c), _Branch(g_b, sub_b, m_b))
    outs = bind(while_p, *vars_, *captured, parts=parts, n=len(vars_), max_iter=max_iter)
    return _packed(structure, list(outs), single)


def _refuse_tensor_arrays(vars_):
    """A traced loop carries tensors only: a TensorArray loop variable is refused, naming
    what to write instead."""
    if any(isinstance(v, TensorArray) for v in vars_):
        raise NotImplementedError(
            "finegrad.while_loop: a TensorArray loop variable needs a loop whose condition "
            "Python can evaluate (eagerly, or on values known while tracing); this loop is "
            "traced. Write it as a Python loop over finegrad.range (unrolled in a function), "
            "or carry a tensor and update it with tensor_scatter_nd_update")


def _trace_loop(cond, body, tracer, vars_):
    """The loop's condition and body traced: ((graph, builder), (graph, builder))."""
    c = _trace_sub(cond, "while_cond", tracer, vars_)
    b = _trace_sub(body, "while_body", tracer, vars_)
    assigned = c[1]._assigned | b[1]._assigned
    if assigned & (c[1].outer_reads | b[1].outer_reads):
        # a variable the loop assigns must be read inside it, where each iteration sees the
        # value of the one before (a read captured before the loop would see its first
        # value only): trace again with those reads inside
        c = _trace_sub(cond, "while_cond", tracer, vars_, assigned)
        b = _trace_sub(body, "while_body", tracer, vars_, assigned)
    return c, b


def _over_flat(cond, body, structure):
    """``cond`` and ``body`` as functions of the flat list of loop tensors: each call packs
    them into ``structure`` (its elements are the arguments) and flattens what body returns,
    which must have the same structure."""
    def packed_args(flat):
        return list(nest.pack_sequence_as(structure, list(flat)))

    def flat_cond(*flat):
        c = cond(*packed_args(flat))
        # a Python or NumPy bool is a constant condition (as in TensorFlow): a tensor, so
        # that a traced loop runs it as the graph's condition
        return c if isinstance(c, Tensor) else convert_to_tensor(np.asarray(c, dtype=bool))

    def flat_body(*flat):
        out = body(*packed_args(flat))
        if not nest.same_structure(out, list(structure)) and len(structure) == 1 and \
                nest.same_structure(out, structure[0]):
            out = (out,)   # one loop variable: the body may return it bare
        if not nest.same_structure(out, list(structure)):
            raise ValueError(f"finegrad.while_loop: the body returned {len(nest.flatten(out))} "
                             f"values for {len(flat)} loop variables, or another structure; "
                             f"it must return the structure of loop_vars")
        return [x if isinstance(x, (Tensor, TensorArray)) else convert_to_tensor(x)
                for x in nest.flatten(out)]
    return flat_cond, flat_body


def _packed(structure, flat, single):
    out = nest.pack_sequence_as(structure, list(flat))
    return out[0] if single else out


@while_p.def_impl
def _while_impl(*vals, parts, n, max_iter):
    c, b = parts
    vs, captured = list(vals[:n]), vals[n:]
    if max_iter == "input":   # a traced maximum_iterations: the last input
        max_iter, captured = int(captured[-1]), captured[:-1]

    def loop(vs):
        i = 0
        while c.run_values(vs, captured)[0] and (max_iter is None or i < max_iter):
            vs = b.run_values(vs, captured)
            i += 1
        return tuple(vs)
    assigned = _assigned(parts)
    before = _values_of(assigned)
    out = _dry(lambda: loop(vs))
    if assigned:   # (what the derivative's re-run reads: `_rerun`)
        _PRE_LOOP.__dict__.setdefault("runs", {})[id(b)] = (b, before, _values_of(assigned))
    return out


_PRE_LOOP = threading.local()   # .runs: id(body) -> (body, values before, values after)


def _assigned(parts):
    """The variables a loop's condition or body assigns."""
    return [v for p in parts for v in xla.graph_variables(p.graph, assigned_only=True)]


def _values_of(variables):
    """id(var) -> the value a read gives now (a `dry_run`'s shadow value, or its own)."""
    shadow = ir.current_shadow() or {}
    return {id(v): shadow.get(id(v), v._storage) for v in variables}


@while_p.def_lowering
def _while_lower(*vals, parts, n, max_iter):
    """XLA: ``lax.while_loop`` over (the iteration count, the loop variables, the variables
    the loop assigns, the condition's result); the condition is tested before the count, as
    in the impl (`while_lowering.lower_while`)."""
    return while_lowering.lower_while(vals, parts, n, max_iter)


@while_p.def_vjp
def _while_vjp(cts, *ins, out, needs, batch, parts, n, max_iter):
    """VJP of while_loop: the loop re-run under a tape. Outside a trace the re-run is ordinary
    recorded ops (differentiable again, to any order); while tracing, it is one while_grad
    node (first order)."""
    from finegrad._src.ops.array.structural import zeros_like
    cts = [zeros_like(o) if c is None else c for c, o in zip(cts, out, strict=True)]
    if core.current_tracer() is None:
        return _while_vjp_eager(list(ins), cts, parts, n, max_iter)
    grads = bind(while_grad_p, *ins, *cts, parts=parts, n=n, max_iter=max_iter,
                 n_base=len(ins), depth=1)
    return tuple(g if t.dtype.is_differentiable else None for g, t in zip(grads, ins, strict=True))


def _while_vjp_eager(ins, cts, parts, n, max_iter):
    from finegrad._src.ops.array.structural import identity
    # one tensor per input position: a loop variable may also be captured by the body
    ins = [identity(t) for t in ins]
    return tuple(vjp_of(lambda *ts: _while_eager(list(ts[:n]), list(ts[n:]), parts, max_iter),
                        ins, cts))


def _while_eager(vs, captured, parts, max_iter):
    c, b = parts
    if max_iter == "input":
        max_iter, captured = int(captured[-1]._value), captured[:-1]
    i = 0
    while bool(c.replay(vs, captured)[0]._value) and (max_iter is None or i < max_iter):
        vs = b.replay(vs, captured)
        i += 1
    return vs


@while_p.def_jvp
def _while_jvp(primals, tangents, *, out, parts, n, max_iter):
    from finegrad._src.ad.forward import ForwardAccumulator
    if core.current_tracer() is not None and not _assigned(parts):
        # inside a trace: a loop over the loop variables and their tangents
        return _while_jvp_traced(primals, tangents, parts, n, max_iter)
    if core.current_tracer() is not None:
        # a loop that assigns variables would assign them again: transpose the VJP (a
        # while_grad node, which re-runs the loop on the variables' values, dropped after)

        def vjp(us):
            return _while_vjp(tuple(us), *primals, out=out, needs=[True] * len(primals),
                              batch=(), parts=parts, n=n, max_iter=max_iter)
        return tuple(jvp_by_transposing(vjp, primals, tangents, out, "while_loop"))
    from finegrad._src.ops.array.structural import identity
    ins = [identity(t) for t in primals]
    floats = [i for i, t in enumerate(ins) if t.dtype.is_differentiable]
    tangents = instantiate_zeros(primals, tangents)
    with ForwardAccumulator([ins[i] for i in floats], [tangents[i] for i in floats]) as acc:
        vs = _while_eager(ins[:n], ins[n:], parts, max_iter)
    return tuple(acc.jvp(v, unconnected_gradients="zero") for v in vs)


def _while_jvp_traced(primals, tangents, parts, n, max_iter):
    """Forward mode through a traced loop that assigns no variable: one `while_loop` over
    the loop variables and the tangents of the floating ones, whose body is the original
    body's JVP (a `ForwardAccumulator` around its replay, the captured values' tangents
    captured). It is an ordinary loop (lowered natively by XLA, differentiable to any
    order), unlike a transposed VJP; it runs the body again beside the original loop."""
    if not any(primals[i].dtype.is_differentiable for i in range(n)):
        return (None,) * n
    res, fv = _jvp_loop(primals, instantiate_zeros(primals, tangents), parts, n, max_iter)
    it = iter(res[n:])
    return tuple(next(it) if i in fv else None for i in range(n))


def _jvp_loop(primals, tans, parts, n, max_iter):
    """`_while_jvp_traced`'s loop: (its results, the loop variables then the tangents of the
    floating ones, and those ones' positions)."""
    from finegrad._src.ad.forward import ForwardAccumulator
    from finegrad._src.ops.array.structural import identity
    c, b = parts
    captured, limit = list(primals[n:]), max_iter
    if max_iter == "input":
        limit, captured = captured[-1], captured[:-1]
    fv = [i for i in range(n) if primals[i].dtype.is_differentiable]
    fc = [i for i, t in enumerate(captured) if t.dtype.is_differentiable]

    def body(*xs):
        vs, cs = [identity(x) for x in xs[:n]], [identity(x) for x in captured]
        with ForwardAccumulator([vs[i] for i in fv] + [cs[i] for i in fc],
                                list(xs[n:]) + [tans[n + i] for i in fc]) as acc:
            out = b.replay(vs, cs)
        return list(out) + [acc.jvp(out[i], unconnected_gradients="zero") for i in fv]
    res = while_loop(lambda *xs: c.replay(list(xs[:n]), captured)[0], body,
                     list(primals[:n]) + [tans[i] for i in fv], maximum_iterations=limit)
    return list(res), fv


while_grad_p = Primitive("while_grad", multiple_results=True, unify=False)


def _level_sizes(n_in, n_out, depth):
    """(inputs, outputs) of the derivative of order ``depth`` of a loop with ``n_in`` inputs
    and ``n_out`` outputs: each order adds a cotangent per output, and returns one
    gradient per input of the order below."""
    ins, outs = n_in, n_out
    for _ in range(depth):
        ins, outs = ins + outs, ins
    return ins, outs


def _while_derivative(ts, depth, n_base, parts, n, max_iter):
    """The derivative of order ``depth`` of the loop, eagerly (nested tapes, so the ops of
    each order are recorded by the tapes of the orders above)."""
    if depth == 0:
        return list(_while_eager(list(ts[:n]), list(ts[n:]), parts, max_iter))
    m, _ = _level_sizes(n_base, n, depth - 1)
    xs, cts = list(ts[:m]), list(ts[m:])
    grads = vjp_of(lambda *x: _while_derivative(x, depth - 1, n_base, parts, n, max_iter),
                   xs, cts)
    return [Tensor(np.zeros_like(x._value)) if g is None else g
            for g, x in zip(grads, xs, strict=True)]


@while_grad_p.def_shape
def _while_grad_shape(*shapes, parts, n, max_iter, n_base=None, depth=1):
    """One gradient per input of the order below, shaped as that input (open sizes
    included: the loop's graphs are replayed at each run's sizes)."""
    n_base = len(shapes) - n if n_base is None else n_base
    m, _ = _level_sizes(n_base, n, depth - 1)
    return [tuple(s) for s in shapes[:m]]


@while_grad_p.def_impl
def _while_grad_impl(*vals, parts, n, max_iter, n_base=None, depth=1):
    # inside a trace, the gradient of a while node: the derivatives re-run the loop eagerly
    n_base = len(vals) - n if n_base is None else n_base
    ts = [Tensor(v) for v in vals]
    with _rerun(parts):
        out = _while_derivative(ts, depth, n_base, parts, n, max_iter)
    return tuple(t._value for t in out)


@contextlib.contextmanager
def _rerun(parts):
    """The eager re-runs of a loop for its derivative: seen by no tape and no trace, their
    variable updates going to a copy of the shadow values, dropped after (the forward loop
    made the updates once, as TensorFlow's accumulated gradient does not re-run them). The
    variables the loop assigns read the values they had before its last run (`_while_impl`
    keeps them), while they still hold the values it left; under XLA, whose program assigns
    them after it ran, the values they hold."""
    tracer = core.current_tracer()
    shadow = dict(tracer.shadow if tracer is not None else ir.current_shadow() or {})
    kept = getattr(_PRE_LOOP, "runs", {}).get(id(parts[1]))
    if kept is not None and kept[0] is parts[1]:
        now = _values_of(_assigned(parts))
        shadow.update((k, v) for k, v in kept[1].items() if now.get(k) is kept[2].get(k))
    saved = _state.tracer
    _state.tracer = None
    try:
        with core.inner_stack(()), ir.dry_run(shadow):
            yield
    finally:
        _state.tracer = saved


@while_grad_p.def_lowering
def _while_grad_lower(*vals, parts, n, max_iter, n_base=None, depth=1):
    """XLA (`while_lowering`): the loop re-run from the values the variables it assigns had
    before it (carried through it, not differentiated) and differentiated by JAX. With a
    static ``maximum_iterations``, the loop is a ``lax.scan`` of that many guarded trips,
    any order (nested ``jax.vjp``). Without one (None, or a tensor), the first order is a
    counted forward loop that stores the loop variables and a reverse loop over them
    (`while_reverse`; the host callback past its buffer's trips); higher orders give
    ``NotImplemented``: the impl runs on the host. Why: JAX's transposition needs a static
    trip count or a stored trajectory, and a higher order would differentiate the reverse
    loop again (a ``fori_loop`` of dynamic length, which ``jax.vjp`` refuses; forward mode
    inside a trace is a loop of JVPs instead, `_while_jvp`, and forward over reverse the
    VJP of that loop, `_while_grad_jvp_traced`: first-order nodes, except for a loop that
    assigns variables). A host callback in the body, which JAX cannot differentiate, also
    gives ``NotImplemented``."""
    low = xla.current()
    n_base = len(vals) - n if n_base is None else n_base
    if depth != 1 and type(max_iter) is not int:
        return NotImplemented
    carried = low.carried([p.graph for p in parts])
    made = len(low.callbacks)
    try:
        with low.differentiated():
            return _while_grad_native(vals, parts, n, max_iter, n_base, depth, carried)
    except Exception:   # (a host callback in the body: JAX cannot differentiate it)
        del low.callbacks[made:]
        return NotImplemented


def _while_grad_native(vals, parts, n, max_iter, n_base, depth, carried):
    """`_while_grad_lower`'s outputs, or an exception where JAX cannot differentiate."""
    if type(max_iter) is not int:
        return while_reverse.while_grad_unbounded(while_grad_p, vals, dict(
            parts=parts, n=n, max_iter=max_iter, n_base=n_base, depth=depth), carried)
    state = while_lowering.state_before(parts, carried)
    return while_lowering.grad_bounded(vals, parts, n, max_iter, carried, state, n_base,
                                       depth, lambda d: _level_sizes(n_base, n, d)[0])


@while_grad_p.def_vjp
def _while_grad_vjp(cts, *ins, out, needs, batch, parts, n, max_iter, n_base=None, depth=1):
    """VJP of a while derivative: the derivative of the next order (any order in a trace)."""
    from finegrad._src.ops.array.structural import zeros_like
    n_base = len(ins) - n if n_base is None else n_base
    cts = [zeros_like(o) if c is None else c for c, o in zip(cts, out, strict=True)]
    grads = bind(while_grad_p, *ins, *cts, parts=parts, n=n, max_iter=max_iter,
                 n_base=n_base, depth=depth + 1)
    return tuple(g if t.dtype.is_differentiable else None for g, t in zip(grads, ins, strict=True))


@while_grad_p.def_jvp
def _while_grad_jvp(primals, tangents, *, out, **params):
    if core.current_tracer() is not None and params.get("depth", 1) == 1 and \
            not _assigned(params["parts"]):
        return _while_grad_jvp_traced(primals, tangents, out, **params)
    # the derivative is linear in its cotangents: forward mode is its VJP transposed

    def vjp(us):
        return _while_grad_vjp(tuple(us), *primals, out=out, needs=[True] * len(primals),
                               batch=(), **params)
    return tuple(jvp_by_transposing(vjp, primals, tangents, out, "while_grad"))


def _while_grad_jvp_traced(primals, tangents, out, *, parts, n, max_iter, n_base=None,
                           depth=1):
    """Forward over reverse, in a trace, for a loop that assigns no variable: the JVP of
    ``g = J(x)^T c`` is ``J^T dc + sum_k c_k H_k dx``, which is the VJP, with cotangents
    ``(dc, c)``, of the JVP loop ``x -> (f(x), J(x) dx)`` (`_jvp_loop`; the Hessians H_k
    are symmetric): first-order nodes only, which XLA lowers natively."""
    from finegrad._src.ops.array.structural import identity, zeros_like
    n_base = len(primals) - n if n_base is None else n_base
    ins = [identity(t) for t in primals[:n_base]]
    cts = list(primals[n_base:])
    tans = instantiate_zeros(primals, tangents)
    fv = [i for i in range(n) if ins[i].dtype.is_differentiable]
    if not fv:
        return tuple(zeros_like(o) if o.dtype.is_differentiable else None for o in out)

    def forward(*xs):
        res, _ = _jvp_loop(list(xs), tans[:n_base], parts, n, max_iter)
        return [res[i] for i in fv] + res[n:]
    grads = vjp_of(forward, ins, [tans[n_base + i] for i in fv] + [cts[i] for i in fv])
    return tuple(None if not o.dtype.is_differentiable else zeros_like(o) if g is None else g
                 for g, o in zip(grads, out, strict=True))

