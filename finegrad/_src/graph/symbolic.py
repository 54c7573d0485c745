"""Symbolic shapes in traced graphs: how ``None`` dimensions of an input_signature flow.

A trace under an input_signature with ``None`` dimensions runs the Python function once, with
the call's values, and builds ONE graph for every size of those dimensions (as TensorFlow's
graphs do). Each open axis of an argument is a symbol (`dims.Dim`); the builder keeps every
value's shape with its symbolic sizes, computed by the primitive's shape rule
(``Primitive(shape_rule=...)``, NumPy broadcasting for elementwise ones) from its inputs'.
Rules read those shapes with `core.shape_of` and pass them as params (a reshape target, a
broadcast shape, a mean's divisor); the graph's nodes keep them symbolic, and each call
resolves them from its argument sizes (`bindings`, `resolve_params`).

A primitive with only an out-axes rule (which axes of its result are open) gives its open
output sizes fresh symbols, bound from the value's shape when the graph runs. One with
neither, given a symbolic input, makes the trace *not polymorphic*: its graph is kept for the
traced shapes, and a call with other sizes traces again with a warning naming the op. Sizes
decided in Python (a Dim used as an int, or compared) are guards (`dims.Guard`): a call whose
sizes break one traces again, with a warning naming why. Nothing silently reuses a graph
whose sizes are baked in.
"""
from finegrad._src import core
from finegrad._src.dims import Dim, concrete, has_dims, is_symbolic, resolve


class GuardFailed(Exception):
    """A call's sizes break a guard of the polymorphic graph (its message says which)."""


def record_shapes(builder, prim, ins, in_slots, params, outs, out_slots):
    """Give the outputs of one recorded op their symbolic shapes (in ``builder.sym``)."""
    shapes = [builder.sym.get(s) or t._value.shape for s, t in zip(in_slots, ins, strict=True)]
    symbolic_params = has_dims(params)
    if not symbolic_params and not any(is_symbolic(sh) for sh in shapes):
        return
    rule, out_shapes = prim.shape_rule, None
    if rule is not None:
        root = builder.root
        saved, root._rule = root._rule, root._rule or prim.name
        try:
            out_shapes = rule(*shapes, **params)
        finally:
            root._rule = saved
        if out_shapes is not None and not prim.multiple_results:
            out_shapes = [out_shapes]
    if out_shapes is not None:
        pass
    elif prim.out_axes is not None and not symbolic_params:
        out_shapes = _fresh_shapes(builder, prim, ins, shapes, params, outs)
        if out_shapes is None:
            return
    else:
        builder.fail_poly(f"{prim.name} has no rule for dynamic axes")
        return
    for s, o, sh in zip(out_slots, outs, out_shapes, strict=True):
        sh = tuple(sh)
        if concrete(sh) != o._value.shape:
            raise AssertionError(f"finegrad: the shape rule of {prim.name} gives {sh} for an "
                                 f"output of shape {o._value.shape}")
        if is_symbolic(sh):
            builder.sym[s] = sh


def _fresh_shapes(builder, prim, ins, shapes, params, outs):
    """Output shapes from an out-axes rule: each open axis a new symbol, bound at run time."""
    dins = [frozenset(i for i, d in enumerate(sh) if type(d) is Dim) for sh in shapes]
    try:
        douts = prim.out_axes(dins, ins, params, outs)
    except core.NotPolymorphic as e:
        builder.fail_poly(str(e))
        return None
    return [tuple(builder.new_symbol(n) if i in d else n for i, n in enumerate(o._value.shape))
            for d, o in zip(douts, outs, strict=True)]


def concrete_nodes(nodes):
    """Nodes with every symbolic param at its trace value (a graph kept for those sizes)."""
    from finegrad._src.graph.ir import Node
    out = []
    for n in nodes:
        if has_dims(n.params):
            n2 = Node(n.prim, n.ins, concrete(n.params), n.outs, n.meta)
            n2.vjp_graph = n.vjp_graph
            n = n2
        out.append(n)
    return out


def bind_shape(env, sym_shape, shape):
    """Bind the symbols of ``sym_shape`` that are one symbol to the sizes of ``shape``."""
    for d, n in zip(sym_shape, shape, strict=True):
        if type(d) is Dim:
            name = d.symbol_name()
            if name is not None and name not in env:
                env[name] = n


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
