"""Algebraic rewrites of compiled graphs (passes of `pipeline.compile_graph`), each keeping values.

`commute_operands`: addition and multiplication commute exactly in IEEE arithmetic (real and
complex: the same products and sums, in the same order), and so does their broadcasting and
their type promotion; a traced gradient often computes ``2.0 * v`` in one rule and ``v * 2.0``
in another. The pass reads equal scalar constants (same type, same bits) from one slot and
swaps the two operands of an ``add`` or ``multiply`` kernel where that writes it as an
earlier node is written (other nodes keep the order the user wrote), so that `simplify`
merges such repeated subexpressions: one pass over memory instead of two, identical values.

`fold_scalar_factors`: ``c2 * (c1 * x)`` with scalar constants, where the inner product is
read only there, becomes ``(c1 * c2) * x`` when that is exact: both constants are exactly
representable in the array's floating dtype, one of them is a power of two, ``|c2| >= 1``,
and ``c1 * c2`` is exact and finite. Scaling by a power of two is exact (and with
``|c2| >= 1`` both forms overflow alike), so the values are identical, except where
``c1 * x`` falls among the subnormal numbers (below 2.2e-308 in float64, 1.2e-38 in
float32): the folded product is then rounded once instead of twice (the more accurate of
the two; they differ by at most one subnormal step times ``|c2|``). Forward-over-reverse
gradients scale one value by ``100``, then ``2``, then ``-1`` (after `fold_negations`,
``-200 * x`` then ``* 2``).

`drop_identities`: ``x * 1``, ``1 * x``, ``x / 1``, ``x - 0`` and ``x + (-0)`` are ``x``
exactly in IEEE arithmetic (signed zeros, infinities and nan included; ``x + 0`` is not:
``-0 + 0`` is ``+0``), so where the constant leaves the shape and dtype alone the node is
dropped and its readers read ``x``. Seeds of ones (a ``reduce_sum``'s gradient) leave such
products behind once `ir.scalarize_constants` has made the ones a scalar.
"""
import numpy as np

from finegrad._src import nest
from finegrad._src.graph import ir
from finegrad._src.graph.compile.simplify import simplify


def commute_operands(g):
    """Equal scalar constants read from one slot, and the operands of an ``add`` or
    ``multiply`` swapped where that writes it as an earlier node is written, then
    `simplify` (which merges them); again while that merges more. Returns ``g`` when
    nothing changes."""
    for _ in range(4):
        same, seen, nodes, changed = _same_scalars(g.consts), set(), [], False
        for n in g.nodes:
            ins = tuple(same.get(s, s) for s in n.ins)
            if n.prim.kernel in (np.add, np.multiply) and not n.params and len(ins) == 2 \
                    and len(n.outs) == 1:
                if (n.prim, ins) not in seen and (n.prim, ins[::-1]) in seen:
                    ins = ins[::-1]
                seen.add((n.prim, ins))
            if ins != n.ins:
                m = ir.Node(n.prim, ins, n.params, n.outs, n.meta)
                m.vjp_graph = n.vjp_graph
                n, changed = m, True
            nodes.append(n)
        if not changed:
            return g
        g = simplify(ir.Graph(g.name, g.args, g.arg_names, g.consts, nodes, g.outputs,
                                 g.meta, g.outer))
    return g


def _same_scalars(consts):
    """constant slot -> the first slot holding the same scalar (type and bits), for the
    scalars held twice."""
    first, same = {}, {}
    for s in sorted(consts):
        v = consts[s]
        if type(v) in (float, int, bool) or isinstance(v, np.generic) and v.dtype.kind in "biufc":
            key = (type(v), np.asarray(v).dtype.str, np.asarray(v).tobytes())
            if key in first:
                same[s] = first[key]
            else:
                first[key] = s
    return same


def _identity_operand(n, consts, meta):
    """The slot that ``n`` returns unchanged (see the module docstring), else None."""
    k = n.prim.kernel
    if k not in (np.multiply, np.true_divide, np.subtract, np.add) or n.params or \
            len(n.ins) != 2 or len(n.outs) != 1:
        return None
    pairs = [(n.ins[1], n.ins[0])] if k in (np.true_divide, np.subtract) else \
        [(n.ins[1], n.ins[0]), (n.ins[0], n.ins[1])]
    for c, x in pairs:
        v = consts.get(c)
        if x in consts or not _float_scalar(v) or meta[x] != n.meta[0]:
            continue
        if k in (np.multiply, np.true_divide) and v == 1:
            return x
        if k in (np.add, np.subtract) and v == 0 and np.signbit(v) == (k is np.add):
            return x
    return None


def drop_identities(g):
    """Nodes computing ``x`` exactly (``x * 1``, ...: see the module docstring) dropped,
    their readers reading ``x``. Returns ``g`` when there is none."""
    alias, nodes = {}, []
    for n in g.nodes:
        if any(s in alias for s in n.ins):
            m = ir.Node(n.prim, tuple(alias.get(s, s) for s in n.ins), n.params, n.outs, n.meta)
            m.vjp_graph = n.vjp_graph
            n = m
        x = _identity_operand(n, g.consts, g.meta)
        if x is not None:
            alias[n.outs[0]] = x
            continue
        nodes.append(n)
    if not alias:
        return g
    outputs = nest.map_structure(lambda o: ir.OutSlot(alias.get(o.slot, o.slot))
                                 if isinstance(o, ir.OutSlot) else o, g.outputs)
    return simplify(ir.Graph(g.name, g.args, g.arg_names, g.consts, nodes, outputs,
                                g.meta, g.outer))


def _float_scalar(v):
    """Whether constant ``v`` is a real floating scalar (a Python float or a NumPy one)."""
    return type(v) is float or (isinstance(v, np.generic) and v.dtype.kind == "f")


def _power_of_two(v):
    return bool(np.frexp(v)[0] in (0.5, -0.5))


def _foldable(c1, c2, dtype):
    """The constant ``c1 * c2`` (of the constants' kind) when ``c2 * (c1 * x)`` equals
    ``(c1 * c2) * x`` for every ``x`` of ``dtype`` but those making ``c1 * x`` subnormal,
    else None."""
    dt = np.dtype(dtype)
    if dt.kind != "f" or not (_float_scalar(c1) and _float_scalar(c2)):
        return None
    a, b = dt.type(c1), dt.type(c2)
    if float(a) != float(c1) or float(b) != float(c2) or not abs(b) >= 1:
        return None
    if not (_power_of_two(a) or _power_of_two(b)):
        return None
    with np.errstate(all="ignore"):
        p = a * b
    if not np.isfinite(p) or float(p) != float(a) * float(b):
        return None
    return float(p) if type(c1) is float and type(c2) is float else p


def fold_scalar_factors(g):
    """``c2 * (c1 * x)`` as ``(c1 * c2) * x`` where that is exact (see the module
    docstring). Returns ``g`` when nothing folds."""
    outs, uses = ir.out_slots(g), {}
    for n in g.nodes:
        for s in n.ins:
            uses[s] = uses.get(s, 0) + 1
    consts, meta = dict(g.consts), dict(g.meta)
    top = max([*consts, *meta, *g.args, *g.outer, -1]) + 1
    scaled, dropped, nodes = {}, set(), []
    for n in g.nodes:
        split = _scaling(n, consts)
        if split is not None:
            c2, y = split
            if y in scaled and meta[y][1] == n.meta[0][1]:
                m1, c1, x = scaled[y]
                p = _foldable(consts[c1], consts[c2], n.meta[0][1])
                if p is not None and meta[x][1] == n.meta[0][1]:
                    consts[top], meta[top] = p, ((), np.asarray(p).dtype)
                    n = ir.Node(n.prim, (top, x), n.params, n.outs, n.meta)
                    dropped.add(id(m1))
                    del scaled[y]
                    top += 1
                    c2, y = top - 1, x
            if uses.get(n.outs[0]) == 1 and n.outs[0] not in outs:
                scaled[n.outs[0]] = (n, c2, y)
        nodes.append(n)
    if not dropped:
        return g
    nodes = [n for n in nodes if id(n) not in dropped]
    return simplify(ir.Graph(g.name, g.args, g.arg_names, consts, nodes, g.outputs, meta,
                                g.outer))


def _scaling(n, consts):
    """(the constant's slot, the other operand) of a multiplication of an array by a real
    scalar constant, else None."""
    if n.prim.kernel is not np.multiply or n.params or len(n.ins) != 2 or len(n.outs) != 1 \
            or n.ins[0] == n.ins[1]:
        return None
    for c, x in (n.ins, n.ins[::-1]):
        if c in consts and _float_scalar(consts[c]) and x not in consts:
            return c, x
    return None
