"""The first pass of the compiler: `simplify` (dead code removed, common subexpressions
merged, constants folded) and `scalarize_constants` (a constant input that is a whole array of
one value becomes that scalar). Other passes call `simplify` again after they rewrite."""
import numpy as np

from finegrad._src import nest
from finegrad._src.graph.ir import EFFECTS, Graph, Node, OutSlot, has_effects


def _params_key(params):
    try:
        key = tuple(sorted(params.items()))
        hash(key)
        return key
    except TypeError:
        return None


def simplify(g):
    """Dead code removal, common subexpressions merged, constants folded; a new node list."""
    consts = dict(g.consts)
    alias = {}
    seen = {}
    nodes = []
    for n in g.nodes:
        ins = tuple(alias.get(s, s) for s in n.ins)
        prim = n.prim
        pure = prim not in EFFECTS and prim.impl is not None and not n.params.get("rule") \
            and not prim.stateful and not has_effects(n)
        # (no inputs: a `full` of sizes a shape-polymorphic graph resolved for this call)
        if pure and all(s in consts for s in ins) and not prim.multiple_results:
            try:
                consts[n.outs[0]] = prim.impl(*[consts[s] for s in ins], **n.params)
                continue
            except Exception:  # leave it to run time, with its real error
                pass
        if pure:
            pk = _params_key(n.params)
            if pk is not None:
                key = (prim, ins, pk)
                if key in seen:
                    for a, b in zip(n.outs, seen[key], strict=True):
                        alias[a] = b
                    continue
                seen[key] = n.outs
        m = Node(prim, ins, n.params, n.outs, n.meta)
        m.vjp_graph = n.vjp_graph
        nodes.append(m)
    outputs = nest.map_structure(
        lambda o: OutSlot(alias.get(o.slot, o.slot)) if isinstance(o, OutSlot) else o, g.outputs)
    # dead code: keep effects and what the outputs need
    needed = {o.slot for o in nest.flatten(outputs) if isinstance(o, OutSlot)}
    kept = []
    for n in reversed(nodes):
        if has_effects(n) or any(s in needed for s in n.outs):
            kept.append(n)
            needed.update(n.ins)
    kept.reverse()
    used_consts = {s: v for s, v in consts.items() if s in needed}
    return Graph(g.name, g.args, g.arg_names, used_consts, kept, outputs, g.meta, g.outer)


def kernel_of(n):
    """The node's ufunc kernel, when it runs as one (a kernel primitive, no params)."""
    return n.prim.kernel if not n.params else None


def _uniform_scalar(v):
    """The one value of a constant array whose elements are all equal (not nan), as a NumPy
    scalar of its dtype; else None."""
    if not isinstance(v, np.ndarray) or v.size < 2 or v.dtype.kind not in "biufc":
        return None
    first = v.flat[0]
    return first if first == first and bool(np.all(v == first)) else None


def scalarize_constants(g):
    """A kernel's constant input that is a whole array of one value (a broadcast seed or a
    folded ``ones_like``) becomes that value as a scalar, where the others inputs give the
    output its shape: each element goes through the same ufunc with the same operands, so
    the results are identical, without reading the array."""
    consts, meta, nodes = dict(g.consts), dict(g.meta), []
    top = max([*consts, *meta, *g.args, *g.outer, -1]) + 1
    scalars = {}
    for n in g.nodes:
        ins = list(n.ins)
        for k, s in enumerate(n.ins):
            if kernel_of(n) is None or s not in consts or not n.outs:
                continue
            others = [np.shape(consts[x]) if x in consts else tuple(meta[x][0])
                      for x in ins if x != s]
            if not others or np.broadcast_shapes(*others) != tuple(n.meta[0][0]):
                continue
            value = _uniform_scalar(consts[s])
            if value is None:
                continue
            if s not in scalars:
                scalars[s] = top
                consts[top], meta[top] = value, ((), np.asarray(value).dtype)
                top += 1
            ins[k] = scalars[s]
        m = Node(n.prim, tuple(ins), n.params, n.outs, n.meta) if ins != list(n.ins) else n
        nodes.append(m)
    if not scalars:
        return g
    return simplify(Graph(g.name, g.args, g.arg_names, consts, nodes, g.outputs, meta,
                          g.outer))
