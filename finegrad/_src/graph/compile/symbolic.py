"""Symbolic shapes in traced graphs: how ``None`` dimensions of an input_signature flow.

A trace under an input_signature with ``None`` dimensions runs the Python function once, with
the call's values, and builds ONE graph for every size of those dimensions (as TensorFlow's
graphs do). Each open axis of an argument is a symbol (`dims.Dim`); the builder keeps every
value's shape with its symbolic sizes, computed by the primitive's shape rule
(``Primitive(shape_rule=...)``, NumPy broadcasting for elementwise ones) from its inputs'.
Rules read those shapes with `core.shape_of` and pass them as params (a reshape target, a
broadcast shape, a mean's divisor); the graph's nodes keep them symbolic, and each call
resolves them from its argument sizes (`bindings`, `resolve_params`).

A primitive without a shape rule (`cond`, `while_loop`), given a symbolic input, keeps those
sizes at their traced values, and so do sizes decided in Python (a Dim used as an int, or
compared): each is a guard (`dims.Guard`), and a call whose sizes break one traces again,
with a warning naming why. Nothing silently reuses a graph whose sizes are baked in. Fresh
symbols (bound from a value's shape when the graph runs, `bind_shape` on the nodes' outputs)
are supported by the resolution for shapes no rule can compute.
"""
import numpy as np

from finegrad._src import core, dims, nest
from finegrad._src.dims import Dim, concrete, has_dims, is_symbolic, resolve
from finegrad._src.graph.ir import Graph, Node, OutSlot


class GuardFailed(Exception):
    """A call's sizes break a guard of the polymorphic graph (its message says which)."""


def record_shapes(builder, prim, ins, in_slots, params, outs, out_slots):
    """Give the outputs of one recorded op their symbolic shapes (in ``builder.sym``)."""
    shapes = [builder.sym.get(s) or t._value.shape for s, t in zip(in_slots, ins, strict=True)]
    symbolic_params = has_dims(params)
    if not symbolic_params and not any(is_symbolic(sh) for sh in shapes):
        return
    rule = prim.shape_rule
    if rule is None:   # sizes it cannot follow: kept at their traced values
        dims.pin([d for sh in shapes for d in sh] + dims.dims_in(params),
                 f"{prim.name} has no rule for dynamic axes")
        return
    root = builder.root
    saved, root._rule = root._rule, root._rule or prim.name
    try:
        out_shapes = rule(*shapes, **params)
    finally:
        root._rule = saved
    if not prim.multiple_results:
        out_shapes = [out_shapes]
    for s, o, sh in zip(out_slots, outs, out_shapes, strict=True):
        sh = tuple(sh)
        if concrete(sh) != o._value.shape:
            raise AssertionError(f"finegrad: the shape rule of {prim.name} gives {sh} for an "
                                 f"output of shape {o._value.shape}")
        if is_symbolic(sh):
            builder.sym[s] = sh


def at_traced_sizes(g):
    """Graph ``g`` with every symbolic param at its traced value (a sub-graph whose sizes the
    op running it pinned)."""
    if not any(has_dims(n.params) for n in g.nodes):
        return g
    nodes = []
    for n in g.nodes:
        if has_dims(n.params):
            n2 = Node(n.prim, n.ins, concrete(n.params), n.outs, n.meta)
            n2.vjp_graph = n.vjp_graph
            n = n2
        nodes.append(n)
    return Graph(g.name, g.args, g.arg_names, g.consts, nodes, g.outputs, g.meta, g.outer)


def bind_shape(env, sym_shape, shape):
    """Bind the symbols of ``sym_shape`` that are one symbol (or ``a*symbol + c``) to the
    sizes of ``shape``."""
    for d, n in zip(sym_shape, shape, strict=True):
        if type(d) is Dim:
            solved = d.solve(n)
            if solved is not None and solved[0] not in env:
                env[solved[0]] = solved[1]


def bindings(g, values, shape=None):
    """The symbol bindings of graph ``g`` for argument ``values`` ({symbol: size}); ``shape``
    gives a value's shape (default: NumPy's)."""
    import numpy as np
    shape = shape or np.shape
    env = {}
    for s, v in zip(g.args, values, strict=True):
        sh = g.sym.get(s)
        if sh is not None:
            bind_shape(env, sh, shape(v))
    return env


def resolve_params(params, env):
    return resolve(params, env) if has_dims(params) else params


def broken_guard(g, env):
    """The first guard of ``g`` that the sizes bound in ``env`` break, or None."""
    for guard in g.guards:
        if not guard.holds(env):
            return guard
    return None


def specialize(g, values, outer=None):
    """Run graph ``g`` once, op by op, on argument ``values`` (and ``outer``, the values of
    a sub-graph's outer slots) whose open (symbolic) sizes have new values. Returns (the
    output values, a copy of ``g`` with this run's shapes in its meta and its symbolic params
    resolved, ready to compile for those sizes, and the symbol bindings: from the arguments'
    sizes, and fresh symbols from the values')."""
    env = dict(zip(g.args, values, strict=True))
    env.update(g.consts)
    sym = g.sym
    binding = bindings(g, values)
    for s, v in (outer or {}).items():
        env[s] = v
        if s in sym:
            bind_shape(binding, sym[s], np.shape(v))
    meta = dict(g.meta)
    for s in list(g.args) + list(outer or ()):
        meta[s] = (tuple(np.shape(env[s])), np.asarray(env[s]).dtype)
    nodes = []
    for n in g.nodes:
        vals = [env[s] for s in n.ins]
        params = resolve_params(n.params, binding)
        try:
            out = n.prim.impl(*vals, **params)
        except ValueError as e:
            raise core._shape_error(n.prim, vals, e) from None
        outs = out if n.prim.multiple_results or not n.outs else (out,)
        m = []
        for s, o in zip(n.outs, outs, strict=True):
            env[s] = o
            meta[s] = (tuple(np.shape(o)), np.asarray(o).dtype)
            m.append(meta[s])
            if s in sym:
                bind_shape(binding, sym[s], meta[s][0])
        nodes.append(Node(n.prim, n.ins, params, n.outs, m))
    outs = [env[o.slot] if isinstance(o, OutSlot) else None for o in nest.flatten(g.outputs)]
    return outs, Graph(g.name, g.args, g.arg_names, g.consts, nodes, g.outputs, meta,
                       g.outer), binding
