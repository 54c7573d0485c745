"""Fusing elementwise chains: the compiler pass that runs consecutive kernels block by block.

Large elementwise ops each stream their operands through memory; a chain of them (``log(1 +
exp(x))`` over 10^7 floats) is bound by memory traffic, not arithmetic. `fuse_runs` finds runs
of two or more consecutive nodes whose primitives declare a ``kernel`` (a NumPy ufunc) over
one large float shape, and replaces each run by one `Fused` pseudo-primitive that applies the
same ufuncs to cache-sized blocks. Each element goes through the same ufuncs as unfused, so
results are bitwise identical. With the ``finegrad[fast]`` extra, a chain may instead run as
numexpr expressions (`graph/fast.py`; results within float rounding). The pass works on node
lists; `ir.fuse_elementwise` wraps it.
"""
import numpy as np

from finegrad._src.graph import fast

#: elements per block when a chain of elementwise ops runs block by block
CHUNK = 1 << 15
#: arrays smaller than this are not worth fusing (the blocks would be the whole array)
FUSE_MIN = 1 << 17
#: how far ahead fusion looks for elementwise nodes to move into a chain
LOOKAHEAD = 64


class Fused:
    """A pseudo-primitive: consecutive elementwise kernel nodes over one large shape, run
    block by block so the intermediates stay in cache. Values used only inside the chain
    live in block-sized scratch buffers; the others are written to full arrays."""

    multiple_results = True
    fresh = True        # its outputs are new arrays (or recycled buffers handed to it)
    kernel = None
    name = "fused_elementwise"
    vjp = jvp = shape_rule = None
    nondiff = False
    into_pool = False

    def __init__(self, nodes, ext, escaping, shape, meta):
        self.nodes = nodes
        self.ext, self.escaping, self.shape, self.meta = ext, escaping, shape, meta
        pos = {s: ("ext", i) for i, s in enumerate(ext)}
        internal = {s for n in nodes for s in n.outs} - set(escaping)
        self.internal = sorted(internal)
        for i, s in enumerate(escaping):
            pos[s] = ("out", i)
        for i, s in enumerate(self.internal):
            pos[s] = ("tmp", i)
        self.plan = [(n.prim.kernel, tuple(pos[x] for x in n.ins), pos[n.outs[0]])
                     for n in nodes]
        self.label = "[" + ", ".join(n.prim.name for n in nodes) + "]"
        # with the finegrad[fast] extra: the chain as numexpr expressions, when that pays
        self.fast = fast.compile_chain(self)
        if self.fast is not None:
            self.label += " numexpr"

    def impl(self, *vals, outs=None):
        """Run the chain; ``outs`` (one buffer or None per escaping value) receive them."""
        if self.fast is not None:
            res = self.fast.run(vals, outs, self.shape)
            if res is not None:
                return res
        size = int(np.prod(self.shape))
        flat_ext = []
        for v in vals:
            if isinstance(v, np.ndarray) and v.shape == self.shape:
                if not any(v.strides):
                    flat_ext.append(("scalar", v.flat[0]))
                elif v.flags.c_contiguous:
                    flat_ext.append(("array", v.reshape(-1)))
                else:
                    return self._unfused(vals)
            else:
                flat_ext.append(("scalar", v))
        outs = [np.empty(self.shape, self.meta[s][1]) if o is None else o
                for s, o in zip(self.escaping, outs or [None] * len(self.escaping), strict=True)]
        flat_out = [o.reshape(-1) for o in outs]
        tmps = [np.empty(CHUNK, self.meta[s][1]) for s in self.internal]
        for start in range(0, size, CHUNK):
            stop = min(size, start + CHUNK)
            m = stop - start

            def get(p, start=start, stop=stop, m=m):
                kind, i = p
                if kind == "ext":
                    k, v = flat_ext[i]
                    return v if k == "scalar" else v[start:stop]
                return flat_out[i][start:stop] if kind == "out" else tmps[i][:m]
            for ufunc, ins, out in self.plan:
                ufunc(*[get(p) for p in ins], out=get(out))
        return tuple(outs)

    def _unfused(self, vals):
        env = dict(zip(self.ext, vals, strict=True))
        for n in self.nodes:
            env[n.outs[0]] = n.prim.kernel(*[env[x] for x in n.ins])
        return tuple(env[s] for s in self.escaping)


def fusable(n, meta):
    """The shape of node ``n``'s output when it may join a fused chain, else None."""
    if n.prim.kernel is None or n.params or len(n.outs) != 1:
        return None
    shape, dtype = n.meta[0]
    if int(np.prod(shape, dtype=np.int64)) < FUSE_MIN or np.dtype(dtype).kind not in "fc":
        return None
    for x in n.ins:
        xs = meta[x][0]
        if tuple(xs) not in ((), tuple(shape)):
            return None
    return tuple(shape)


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
    chain = _Chain(nodes, set(ready), uses, out_slots, meta)
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
        if shape is not None:
            chain.join(n, shape)
        else:
            chain.items.append(n)
            chain.available.update(n.outs)
    chain.flush()
    return chain.items


class _Chain:
    """The state of `fuse_runs`: the run being built and the items emitted so far."""

    def __init__(self, order, available, uses, out_slots, meta):
        self.order, self.available, self.uses = order, available, uses
        self.out_slots, self.meta = out_slots, meta
        self.items, self.run, self.shape, self.taken = [], [], None, set()

    def join(self, n, shape):
        self.run.append(n)
        self.shape = shape
        self.available.update(n.outs)

    def flush(self):
        run = self.run
        if len(run) >= 2:
            produced = [n.outs[0] for n in run]
            ext = list(dict.fromkeys(x for n in run for x in n.ins if x not in produced))
            members = {id(n) for n in run}
            escaping = [s for s in produced if s in self.out_slots or any(
                id(self.order[u]) not in members for u in self.uses.get(s, ()))]
            self.items.append(Fused(list(run), ext, escaping, self.shape, self.meta))
        else:
            self.items.extend(run)
        self.run = []

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

