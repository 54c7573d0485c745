"""Graph rewrites that remove work a traced gradient leaves behind (passes of `ir.compile_graph`).

`merge_scatters`: the VJP of slicing scatters its cotangent into a new array of zeros
(``scatter_add_into_zeros``); a gradient that slices one array several times (``x[0::2]`` and
``x[1::2]``) then adds those arrays: each a full array of zeros written and read again. The
pass turns ``add(scatter(a, i), scatter(b, j))`` into one `scatter_sum_p` node that adds ``a``
and ``b`` into one array of zeros, when ``i`` and ``j`` address disjoint elements: each
element then gets ``0 + a`` (or ``0 + b``, or stays 0), the same value as before (``a + 0``),
so results are identical.
"""
import numpy as np

from finegrad._src.core import Primitive, def_nondiff
from finegrad._src.ops.indexing import scatter_add_p

scatter_sum_p = def_nondiff(Primitive("scatter_sum_into_zeros", unify=False, fresh=True))

#: arrays larger than this are not checked for disjoint scatters (the check is one pass)
MERGE_MAX = 1 << 24


@scatter_sum_p.def_impl
def _scatter_sum_impl(*cts, shape, indices):
    """The sum of the scatters of each ``cts[k]`` at ``indices[k]`` into zeros of ``shape``."""
    z = np.zeros(shape, cts[0].dtype)
    for ct, index in zip(cts, indices, strict=True):
        if index.basic:
            z[index.idx] += ct
        else:
            np.add.at(z, index.idx, ct)
    return z


def _scatters(n):
    """(the indices) of a scatter node (one or a merged sum), else None."""
    if n.prim is scatter_add_p:
        return (n.params["index"],)
    if n.prim is scatter_sum_p:
        return n.params["indices"]
    return None


def _disjoint(shape, indices):
    """Whether no element of an array of ``shape`` is addressed by two of ``indices``."""
    if not all(isinstance(d, (int, np.integer)) for d in shape) or \
            int(np.prod(shape, dtype=np.int64)) > MERGE_MAX:
        return False
    count = np.zeros(shape, np.int32)
    for index in indices:
        hit = np.zeros(shape, bool)
        try:
            hit[index.idx] = True
        except (IndexError, ValueError, TypeError):
            return False
        count += hit
    return bool(count.max(initial=0) <= 1)


def merge_scatters(g):
    """``add`` of two scatters into zeros (used only there) of disjoint elements: one
    `scatter_sum_p` node (see the module docstring). Returns ``g`` when nothing merges."""
    from finegrad._src.graph import ir
    outs = ir._out_slots(g)
    uses = {}
    for n in g.nodes:
        for s in n.ins:
            uses[s] = uses.get(s, 0) + 1
    producer, dropped, nodes = {}, set(), []
    for n in g.nodes:
        m = _merged(n, producer, g.meta)
        if m is not None:
            dropped.update(id(producer[s]) for s in n.ins)
            n = m
        if _scatters(n) is not None and n.outs[0] not in outs and uses.get(n.outs[0]) == 1:
            producer[n.outs[0]] = n
        nodes.append(n)
    if not dropped:
        return g
    nodes = [n for n in nodes if id(n) not in dropped]
    return ir.Graph(g.name, g.args, g.arg_names, g.consts, nodes, g.outputs, g.meta, g.outer)


def _merged(n, producer, meta):
    """The `scatter_sum_p` node replacing ``add`` node ``n`` of two scatters, or None."""
    if n.prim.kernel is not np.add or n.params or len(n.ins) != 2 or n.ins[0] == n.ins[1]:
        return None
    parts = [producer.get(s) for s in n.ins]
    if None in parts:
        return None
    shape = tuple(n.meta[0][0])
    if any(tuple(p.params["shape"]) != shape or meta[p.outs[0]] != n.meta[0] for p in parts):
        return None
    cts = [s for p in parts for s in p.ins]
    if any(meta[s][1] != n.meta[0][1] for s in cts):
        return None
    indices = tuple(i for p in parts for i in _scatters(p))
    if not _disjoint(shape, indices):
        return None
    from finegrad._src.graph import ir
    return ir.Node(scatter_sum_p, tuple(cts), {"shape": shape, "indices": indices}, n.outs,
                   n.meta)
