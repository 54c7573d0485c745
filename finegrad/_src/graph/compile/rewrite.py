"""Graph rewrites that remove work a traced gradient leaves behind (passes of the `pipeline`).

`merge_scatters`: the VJP of slicing scatters its cotangent into a new array of zeros
(``scatter_add_into_zeros``); a gradient that slices one array several times (``x[0::2]`` and
``x[1::2]``) then adds those arrays: each a full array of zeros written and read again. The
pass turns ``add(scatter(a, i), scatter(b, j))`` into one `scatter_sum_p` node that adds ``a``
and ``b`` into one array of zeros, when ``i`` and ``j`` address disjoint elements: each
element then gets ``0 + a`` (or ``0 + b``, or stays 0), the same value as before (``a + 0``),
so results are identical. Its array of zeros is a recycled buffer, zeroed, when the pool
has one (a fresh large array costs page faults as much as a pass over memory).

`copy_slices`: a large strided slice is copied to a new contiguous array by ``strided_slice``
(ops on it are then faster); in a compiled graph it becomes `strided_slice_copy_p`, which
copies into a recycled buffer: the same values, without a fresh allocation per call. A
strided slice read by one elementwise kernel only (one that `graph/compile/fuse.py` will not fuse,
as fused blocks need contiguous operands), or only by steps of compiled chains (which read
any strides, `graph/compile/jit.py`), becomes `strided_view_p` instead, a view: the kernels read the
strided elements directly, the same values without the copy's pass.

`fold_negations`: forward-over-reverse gradients negate and scale the same values again and
again (``-(c * -x)``). A ``negative`` feeding only a multiplication by a scalar constant, or
a multiplication by a scalar constant feeding only a ``negative``, becomes one multiplication
by ``-c``: IEEE rounding is symmetric, ``-(c * x) == (-c) * x == c * -x`` exactly (only a
nan's sign bit may differ), so values are identical and two passes over memory become one.
"""
import numpy as np

from finegrad._src.graph import ir
from finegrad._src.graph.compile import fuse
from finegrad._src.graph.compile.graph_ops import scatter_sum_p, slice_copy_p, view_p
from finegrad._src.graph.compile.simplify import simplify
from finegrad._src.ops.array.indexing import COPY_MIN, getitem_p, scatter_add_p

#: arrays larger than this are not checked for disjoint scatters (the check is one pass)
MERGE_MAX = 1 << 24


def _copied(x_meta, index, out_meta):
    """Whether ``strided_slice`` copies: a large strided slice, told from the shapes alone
    (a strided probe over a one-element buffer, never read)."""
    shape, dtype = x_meta
    dtype = np.dtype(dtype)
    if not index.basic or dtype.kind not in "biufc" or \
            not all(isinstance(d, (int, np.integer)) for d in shape):
        return False
    strides = tuple(int(np.prod(shape[k + 1:], dtype=np.int64)) * dtype.itemsize
                    for k in range(len(shape)))
    probe = np.lib.stride_tricks.as_strided(np.empty(1, dtype), tuple(shape), strides)
    try:
        view = probe[index.idx]
    except (IndexError, TypeError, ValueError):
        return False
    return isinstance(view, np.ndarray) and view.size > COPY_MIN and \
        not view.flags.c_contiguous and view.shape == tuple(out_meta[0])


def copy_slices(g):
    """Each ``strided_slice`` that copies: a `slice_copy_p` node, or a `view_p` node when one
    elementwise kernel alone reads it, or compiled chains alone (see the module docstring).
    Returns ``g`` when there is none."""
    readers, outs = {}, ir.out_slots(g)
    for n in g.nodes:
        for s in n.ins:
            readers.setdefault(s, []).append(n)
    nodes, changed = [], False
    for n in g.nodes:
        if n.prim is getitem_p and _copied(g.meta[n.ins[0]], n.params["index"], n.meta[0]):
            r = readers.get(n.outs[0], [])
            view = n.outs[0] not in outs and r and (
                len(r) == 1 and r[0].prim.kernel is not None and not r[0].params and
                fuse.fusable(r[0], g.meta) is None or
                all(fuse.compilable(m, g.meta) for m in r))
            n = ir.Node(view_p if view else slice_copy_p, n.ins, n.params, n.outs, n.meta)
            changed = True
        nodes.append(n)
    if not changed:
        return g
    return ir.Graph(g.name, g.args, g.arg_names, g.consts, nodes, g.outputs, g.meta, g.outer)


def _scatters(n):
    """(the indices) of a scatter node (one or a merged sum), else None."""
    if n.prim is scatter_add_p:
        return (n.params["index"],)
    if n.prim is scatter_sum_p:
        return n.params["indices"]
    return None


def _coverage(shape, indices):
    """How ``indices`` address an array of ``shape``: None when an element is addressed by two
    of them (or it cannot be told), else whether each element is addressed exactly once."""
    if not all(isinstance(d, (int, np.integer)) for d in shape) or \
            int(np.prod(shape, dtype=np.int64)) > MERGE_MAX:
        return None
    count = np.zeros(shape, np.int32)
    for index in indices:
        hit = np.zeros(shape, bool)
        try:
            hit[index.idx] = True
        except (IndexError, ValueError, TypeError):
            return None
        count += hit
    if count.max(initial=0) > 1:
        return None
    # (slices only: an integer may pick one element, not a view to write into)
    return bool(count.min(initial=1) == 1) and all(
        i.basic and not any(isinstance(k, (int, np.integer)) for k in i.idx) for i in indices)


def merge_scatters(g):
    """``add`` of two scatters into zeros (used only there) of disjoint elements: one
    `scatter_sum_p` node (see the module docstring). Returns ``g`` when nothing merges."""
    outs = ir.out_slots(g)
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
    covers = _coverage(shape, indices)
    if covers is None:
        return None
    params = {"shape": shape, "indices": indices, "covers": covers}
    return ir.Node(scatter_sum_p, tuple(cts), params, n.outs,
                   n.meta)



def fold_negations(g):
    """``negative`` and multiplications by a scalar constant folded into one multiplication
    by the negated constant (see the module docstring). Returns ``g`` when nothing folds."""
    st = _Negations(g)
    nodes = [st.visit(n) for n in g.nodes]
    if not st.dropped:
        return g
    nodes = [n for n in nodes if id(n) not in st.dropped]
    # simplify drops the constants no longer read
    return simplify(ir.Graph(g.name, g.args, g.arg_names, st.consts, nodes, g.outputs,
                                      st.meta, g.outer))


class _Negations:
    """The state of `fold_negations`: the new constants and the candidates seen so far."""

    def __init__(self, g):
        self.consts, self.meta = dict(g.consts), dict(g.meta)
        self.top = max([*self.consts, *self.meta, *g.args, *g.outer, -1]) + 1
        self.negated = {}        # constant slot <-> the slot of its negation (both ways)
        outs = ir.out_slots(g)
        self.uses = {}
        for n in g.nodes:
            for s in n.ins:
                self.uses[s] = self.uses.get(s, 0) + 1
        self.outs = outs
        self.neg_of = {}         # slot -> the negative node making it (its only use ahead)
        self.scaled = {}         # slot -> (multiply node, constant, other operand)
        self.dropped = set()

    def single(self, s):
        return self.uses.get(s) == 1 and s not in self.outs

    def scalar(self, s):
        """Whether slot ``s`` is a real or complex scalar constant (a multiplier to negate)."""
        v = self.consts.get(s)
        return type(v) is float or (isinstance(v, np.generic) and v.dtype.kind in "fc")

    def minus(self, c):
        """The slot of constant ``-c``."""
        if c not in self.negated:
            v = self.consts[c]
            self.consts[self.top], self.meta[self.top] = -v, self.meta.get(c, ((), None))
            self.negated[c], self.negated[self.top] = self.top, c
            self.top += 1
        return self.negated[c]

    def times(self, m, c, x, out_node):
        """Multiply node ``m`` made to compute ``c * x`` into the outputs of ``out_node``
        (IEEE multiplication commutes exactly)."""
        return ir.Node(m.prim, (c, x), m.params, out_node.outs, out_node.meta)

    def visit(self, n):
        kernel = None if n.params or len(n.outs) != 1 else n.prim.kernel
        if kernel is np.multiply and len(n.ins) == 2 and n.ins[0] != n.ins[1]:
            for c, x in (n.ins, n.ins[::-1]):
                if self.scalar(c) and x in self.neg_of:   # c * -y: (-c) * y
                    neg = self.neg_of.pop(x)
                    self.dropped.add(id(neg))
                    n = self.times(n, self.minus(c), neg.ins[0], n)
                    break
            for c, x in (n.ins, n.ins[::-1]):
                if self.scalar(c) and self.single(n.outs[0]):
                    self.scaled[n.outs[0]] = (n, c, x)
                    break
        elif kernel is np.negative and len(n.ins) == 1:
            if n.ins[0] in self.scaled:                   # -(c * y): (-c) * y
                m, c, x = self.scaled.pop(n.ins[0])
                self.dropped.add(id(m))
                n = self.times(m, self.minus(c), x, n)
                if self.single(n.outs[0]):
                    self.scaled[n.outs[0]] = (n, n.ins[0], x)
            elif self.single(n.outs[0]):
                self.neg_of[n.outs[0]] = n
        return n
