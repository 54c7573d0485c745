"""Fusing elementwise chains: the compiler pass that runs consecutive kernels block by block.

Large elementwise ops each stream their operands through memory; a chain of them (``log(1 +
exp(x))`` over 10^7 floats) is bound by memory traffic, not arithmetic. `fuse_runs` finds runs
of two or more consecutive nodes whose primitives declare a ``kernel`` (a NumPy ufunc) over
one large float shape, and replaces each run by one `Fused` pseudo-primitive that applies the
same ufuncs to cache-sized blocks. Each element goes through the same ufuncs as unfused, so
results are bitwise identical. With the fast path (`fast`), the blocks are split over
threads (still the same bits) and a sum over all axes of a chain's value joins the chain
(added block by block: within float rounding). The pass works on node
lists; `fuse_elementwise` (the pass) wraps it.
"""
import numpy as np

from finegrad._src import threads
from finegrad._src.graph.compile import fast, graph_ops, jit
from finegrad._src.graph.ir import Graph, Node, out_slots

#: elements per block when a chain of 8-byte values runs block by block (256 KiB per value:
#: a chain's scratch buffers stay in a core's L2 cache); 4-byte values take twice as many
CHUNK = 1 << 15
#: arrays smaller than this are not worth fusing (the blocks would be the whole array)
FUSE_MIN = 1 << 17
#: how far ahead fusion looks for elementwise nodes to move into a chain
LOOKAHEAD = 64


class Fused:
    """A pseudo-primitive: consecutive elementwise kernel nodes over one large shape, run
    block by block so the intermediates stay in cache. Values used only inside the chain
    live in block-sized scratch buffers; the others are written to full arrays.

    With the fast path on (`graph/compile/fast.py`), the blocks are split over threads (each thread
    a contiguous part, with scratch buffers of its own: the same ufuncs per element, so the
    same bits), and ``reductions``, nodes reducing a chain value over all its axes with a
    primitive that declares a ``reducer``, are computed per block and combined, so the value
    they reduce is never written out (the sum then adds in another order: within rounding).
    """

    multiple_results = True
    fresh = True        # its outputs are new arrays (or recycled buffers handed to it)
    kernel = None
    name = "fused_elementwise"
    vjp = jvp = shape_rule = None
    nondiff = False
    into_pool = False

    def __init__(self, nodes, ext, escaping, shape, meta, reductions=(), threaded=False,
                 compiled=False, scatter=None):
        self.nodes, self.reductions, self.compiled = nodes, list(reductions), compiled
        # a compiled chain's absorbed scatter: (its output, [(a chain value, its index)])
        self.scatter = None if scatter is None else \
            (scatter.outs[0], list(zip(scatter.ins, scatter.params["indices"], strict=True)))
        self.size = int(np.prod(shape))
        self.kernels = {}   # a compiled chain's loops, by which inputs are arrays
        self.ext, self.escaping, self.shape, self.meta = ext, escaping, shape, meta
        reduced = {m.outs[0] for m in self.reductions}
        if scatter is not None:
            reduced.add(scatter.outs[0])
        internal = {s for n in nodes for s in n.outs} - set(escaping)
        self.internal = sorted(internal)
        # slots: the external inputs, then the full-size outputs, then the scratch buffers
        self.full = [s for s in escaping if s not in reduced]
        order = list(ext) + self.full + self.internal
        slot = {s: i for i, s in enumerate(order)}
        self.plan = [(n.prim.kernel, tuple(slot[x] for x in n.ins), slot[n.outs[0]])
                     for n in nodes]
        self.reduce_plan = [(m.prim.reducer, slot[m.ins[0]], escaping.index(m.outs[0]),
                             m.params.get("keepdims", False)) for m in self.reductions]
        self.threaded = threaded
        absorbed = self.reductions + ([scatter] if scatter is not None else [])
        self.label = "[" + ", ".join(n.prim.name for n in nodes + absorbed) + "]"
        if compiled:
            self.label += " compiled"
        if threaded:
            self.label += " threaded"

    def impl(self, *vals, outs=None):
        """Run the chain; ``outs`` (one buffer or None per escaping value) receive them."""
        if self.compiled:
            return jit.run(self, vals, outs)
        size = self.size
        flat_ext = []
        for v in vals:
            if isinstance(v, np.ndarray) and v.shape == self.shape:
                if not any(v.strides):
                    flat_ext.append((False, v.flat[0]))
                elif v.flags.c_contiguous:
                    flat_ext.append((True, v.reshape(-1)))
                else:
                    return self._unfused(vals)
            else:
                flat_ext.append((False, v))
        given = dict(zip(self.escaping, outs or [None] * len(self.escaping), strict=True))
        full = [np.empty(self.shape, self.meta[s][1]) if given[s] is None else given[s]
                for s in self.full]
        sources = flat_ext + [(True, o.reshape(-1)) for o in full]

        def run(lo, hi):
            return self._run(lo, hi, sources)
        parts = threads.run_parts(run, size) if self.threaded else [run(0, size)]
        results = dict(zip(self.full, full, strict=True))
        for k, (reducer, _, j, keepdims) in enumerate(self.reduce_plan):
            s = self.escaping[j]
            dtype = np.dtype(self.meta[s][1])
            total = reducer.reduce(np.array([v for p in parts for v in p[k]], dtype))
            results[s] = np.reshape(total, self.meta[s][0]) if keepdims else dtype.type(total)
        return tuple(results[s] for s in self.escaping)

    @property
    def chunk(self):
        """Elements per block: `CHUNK` scaled to the chain's widest values."""
        width = max(np.dtype(self.meta[s][1]).itemsize for s in (*self.ext, *self.escaping))
        return max(1, CHUNK * 8 // width)

    def _run(self, lo, hi, sources):
        """The chain over elements ``lo:hi``, block by block; the partial results of each
        reduction, one per block."""
        chunk = self.chunk
        tmps = [np.empty(min(chunk, hi - lo), self.meta[s][1]) for s in self.internal]
        partials = [[] for _ in self.reduce_plan]
        n_src = len(sources)
        cur = [v for _, v in sources] + tmps
        for start in range(lo, hi, chunk):
            stop = min(hi, start + chunk)
            for i, (is_array, v) in enumerate(sources):
                if is_array:
                    cur[i] = v[start:stop]
            if stop - start < chunk:
                for i, t in enumerate(tmps):
                    cur[n_src + i] = t[:stop - start]
            for kernel, ins, out in self.plan:
                kernel(*[cur[i] for i in ins], out=cur[out])
            for k, (reducer, i, _, _) in enumerate(self.reduce_plan):
                partials[k].append(reducer.reduce(cur[i]))
        return partials

    def _unfused(self, vals):
        env = dict(zip(self.ext, vals, strict=True))
        for n in self.nodes:
            env[n.outs[0]] = n.prim.kernel(*[env[x] for x in n.ins])
        for m in self.reductions:
            env[m.outs[0]] = m.prim.impl(env[m.ins[0]], **m.params)
        return tuple(env[s] for s in self.escaping)


def fusable(n, meta):
    """The shape of node ``n``'s output when it may join a fused chain, else None: `FUSE_MIN`
    elements or more, or `jit.JIT_MIN` for a step a compiled chain takes."""
    if n.prim.kernel is None or n.params or len(n.outs) != 1:
        return None
    shape, dtype = n.meta[0]
    size = int(np.prod(shape, dtype=np.int64))
    if np.dtype(dtype).kind not in "fc" or size < FUSE_MIN and not compilable(n, meta):
        return None
    for x in n.ins:
        xs = meta[x][0]
        if tuple(xs) not in ((), tuple(shape)):
            return None
    return tuple(shape)


def compilable(n, meta):
    """Whether node ``n`` may be a step of a compiled chain (`graph/compile/jit.py`) now."""
    return int(np.prod(n.meta[0][0], dtype=np.int64)) >= jit.JIT_MIN and jit.enabled() and \
        jit.takes(n, meta)


def fuse_runs(nodes, ready, out_slots, meta):
    """``nodes`` with each run of two or more consecutive large elementwise kernel nodes of one
    shape replaced by a `Fused` (the other items are the nodes themselves, in order).

    ``ready``: the slots available before the first node (arguments, constants, outer values);
    ``out_slots``: the graph's outputs (a fused chain writes those to full arrays).
    """
    uses = {}
    for i, n in enumerate(nodes):
        for x in n.ins:
            uses.setdefault(x, []).append(i)
    chain = _Chain(nodes, set(ready), uses, out_slots, meta, fast.threaded())
    for i, n in enumerate(nodes):
        if id(n) in chain.taken:
            continue
        shape = fusable(n, meta)
        if shape is not None and (not chain.run or shape == chain.shape):
            chain.join(n, shape)
            continue
        if chain.run:
            chain.pull_ahead(i)
        chain.flush()
        if id(n) in chain.taken:    # a reduction the chain absorbed
            continue
        if shape is not None:
            chain.join(n, shape)
        else:
            chain.items.append(n)
            chain.available.update(n.outs)
    chain.flush()
    return chain.items


class _Chain:
    """The state of `fuse_runs`: the run being built and the items emitted so far."""

    def __init__(self, order, available, uses, out_slots, meta, threaded):
        self.order, self.available, self.uses = order, available, uses
        self.out_slots, self.meta, self.threaded = out_slots, meta, threaded
        self.items, self.run, self.shape, self.taken = [], [], None, set()

    def join(self, n, shape):
        self.run.append(n)
        self.shape = shape
        self.available.update(n.outs)

    def flush(self):
        run = self.run
        produced = [n.outs[0] for n in run]
        compiled = bool(run) and all(compilable(n, self.meta) for n in run)
        reductions = self.reductions(produced) if self.threaded and run and not compiled \
            else []
        scatter = self.scatter(produced) if compiled else None
        if len(run) + len(reductions) >= 2:
            ext = list(dict.fromkeys(x for n in run for x in n.ins if x not in produced))
            members = {id(n) for n in run + reductions}
            escaping = [s for s in produced if s in self.out_slots or any(
                id(self.order[u]) not in members for u in self.uses.get(s, ()))]
            escaping += [m.outs[0] for m in reductions]
            self.taken.update(id(m) for m in reductions)
            if scatter is not None:
                escaping = [s for s in escaping if s not in scatter.ins] + [scatter.outs[0]]
                self.taken.add(id(scatter))
            self.items.append(Fused(list(run), ext, escaping, self.shape, self.meta,
                                    reductions, self.threaded, compiled, scatter))
        else:
            self.items.extend(run)
        self.run = []

    def reductions(self, produced):
        """The nodes that reduce a value of the run over all its axes with a primitive that
        declares a ``reducer`` (the fast path computes them block by block)."""
        found = []
        for s in produced:
            for u in self.uses.get(s, ()):
                m = self.order[u]
                if getattr(m.prim, "reducer", None) is None or id(m) in self.taken:
                    continue
                if m.ins == (s,) and len(m.outs) == 1 and \
                        tuple(m.params.get("axis", ())) == tuple(range(len(self.shape))):
                    found.append(m)
        return found

    def scatter(self, produced):
        """The node, if any, that interleaves values of a compiled 1-D run into a new array
        (a `graph_ops.scatter_sum_p` whose basic indices cover it, the sole reader of each of
        them): the compiled loop then writes them into it directly."""
        if len(self.shape) != 1 or not produced:
            return None
        members = {id(n) for n in self.run}
        for u in self.uses.get(produced[-1], ()):
            m = self.order[u]
            if m.prim is not graph_ops.scatter_sum_p or not m.params.get("covers") or \
                    id(m) in self.taken or not all(i.basic for i in m.params["indices"]) or \
                    len(set(m.ins)) != len(m.ins):
                continue
            if all(s in produced and s not in self.out_slots and
                   self.meta[s][1] == m.meta[0][1] and
                   all(v == u or id(self.order[v]) in members for v in self.uses[s])
                   for s in m.ins):
                return m
        return None

    def pull_ahead(self, start):
        """Join later elementwise nodes of the run's shape whose inputs are ready: pure
        ops move earlier, so a chain split by a reduction can stay in one pass."""
        changed = True
        while changed:
            changed = False
            for j in range(start, min(len(self.order), start + LOOKAHEAD)):
                m = self.order[j]
                if id(m) in self.taken or fusable(m, self.meta) != self.shape:
                    continue
                if all(x in self.available for x in m.ins):
                    self.run.append(m)
                    self.taken.add(id(m))
                    self.available.update(m.outs)
                    changed = True


def fuse_elementwise(g):
    """Replace runs of two or more consecutive large elementwise kernel nodes of one shape by
    one fused node (see `Fused`)."""
    ready = set(g.args) | set(g.consts) | set(g.outer)
    nodes = []
    for item in fuse_runs(g.nodes, ready, out_slots(g), g.meta):
        if isinstance(item, Fused):
            item = Node(item, tuple(item.ext), {}, tuple(item.escaping),
                        [g.meta[s] for s in item.escaping])
        nodes.append(item)
    return Graph(g.name, g.args, g.arg_names, g.consts, nodes, g.outputs, g.meta, g.outer)
