"""The compiler's last passes and the executor: `plan_buffers` (each value freed after its
last use; which buffers may be recycled), `emit_steps` (one `Step` per node, e.g. a
primitive's ``kernel`` writing into a dying input's buffer, ``out=``, where that buffer is
ours alone) and `Compiled`, whose `Compiled.run` calls the function `codegen.generate` made
from the steps (one statement per step, compiled once)."""
import operator
import sys
import threading
from typing import NamedTuple

import numpy as np

from finegrad._src import nest
from finegrad._src.graph.compile import codegen, fast, fuse
from finegrad._src.graph.compile.simplify import kernel_of
from finegrad._src.graph.ir import OutSlot, out_slots


SCALAR_OPS = {np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
               np.true_divide: operator.truediv}


def _refs_when_dropped():
    """sys.getrefcount of an array held only by an (array, key) pair in a list, seen from
    the loop in `Compiled._pool` (measured, not assumed: it differs between Pythons)."""
    held = [(np.empty(2), None)]
    for buf, _ in held:
        return sys.getrefcount(buf)


_DROPPED_REFS = _refs_when_dropped()


def _buffer_key(meta):
    """The pool key of a value: its shape and dtype."""
    return (tuple(meta[0]), np.dtype(meta[1]))


class BufferPlan:
    """Liveness and buffer recycling of a graph (the `plan_buffers` pass).

    ``last``: slot -> index of the last node that reads it (a value is dropped after it).
    ``recyclable``: values produced as new arrays whose consumers all produce new arrays too,
    so no view of them can outlive them: once dead, their buffers go to a pool keyed by shape
    and dtype. ``escaping``: the graph's outputs that are new arrays of ours (recycled once
    the caller lets them go).
    """

    __slots__ = ("args", "escaping", "last", "outs", "recyclable")

    def __init__(self, last, recyclable, escaping, outs, args):
        self.last, self.recyclable, self.escaping = last, recyclable, escaping
        self.outs, self.args = outs, args

    def dying(self, n, i):
        """The inputs of node ``n`` (the ``i``-th) that nothing reads after it."""
        return [s for s in dict.fromkeys(n.ins) if self.last.get(s) == i
                and s not in self.outs and s not in self.args]


def plan_buffers(g):
    """Liveness (each value's last use) and which values' buffers may be recycled."""
    outs = out_slots(g)
    last, consumers_fresh = {}, {}
    for i, n in enumerate(g.nodes):
        for s in n.ins:
            last[s] = i
            consumers_fresh[s] = consumers_fresh.get(s, True) and n.prim.fresh
    recyclable, fresh = set(), set()
    for n in g.nodes:
        if not n.prim.fresh:
            continue
        made = [s for s, (shape, _) in zip(n.outs, n.meta, strict=True) if shape]
        fresh.update(made)
        # a multi-output impl may return views of one array; a fused chain never does
        if not n.prim.multiple_results or isinstance(n.prim, fuse.Fused):
            recyclable.update(s for s in made if s not in outs and consumers_fresh.get(s))
    escaping = [s for s in dict.fromkeys(outs) if s in fresh]
    return BufferPlan(last, recyclable, escaping, outs, set(g.args))


class Step(NamedTuple):
    """One node as the generated code runs it (`graph/compile/codegen.py` emits one statement each).

    ``kind``: "call" (``fn(*ins, **params)`` gives the one output), "scalar" (a kernel on
    0-d values: NumPy-scalar arithmetic where ``fn`` is an `operator` function),
    "inplace" (a kernel writing into its input ``key``, a slot index, that dies here),
    "call_into_pool" (a kernel: ``out=`` a recycled buffer of ``key`` when one is free),
    "multi" (``fn`` returns one value per slot of ``outs``, maybe none), or "fused" (a
    fused chain; ``key`` is the buffer key of each output). ``free``: values dropped after
    the step; ``recycle``: those whose buffers go to the pool. ``name``: the primitive's.
    ``expr``: for a scalar step, the kernel as Python arithmetic over ``{0}``, ``{1}``, ...
    (the primitive's ``numexpr`` spelling when it is plain arithmetic), else None.
    """

    fn: object
    ins: tuple
    outs: tuple
    kind: str
    key: object
    free: tuple
    recycle: tuple
    params: dict
    name: str
    expr: str | None = None


def _kernel_step(n, plan, g, dying, index):
    """(fn, kind, key, the dying inputs left to recycle) for a node run by its kernel."""
    ufunc = kernel_of(n)
    shape, dtype = n.meta[0]
    if not shape:
        # NumPy scalars' own arithmetic: 10x a ufunc call
        return SCALAR_OPS.get(ufunc, ufunc), "scalar", None, dying
    for s in n.ins:
        # write into a recyclable input that dies here (not into one read twice by the op)
        if s in dying and s in plan.recyclable and g.meta.get(s) == (shape, dtype) \
                and n.ins.count(s) == 1:
            return ufunc, "inplace", index[s], [d for d in dying if d != s]
    return ufunc, "call_into_pool", _buffer_key(n.meta[0]), dying


def emit_steps(g, index, plan):
    """One `Step` per node, in order."""
    steps = []
    for i, n in enumerate(g.nodes):
        dying = plan.dying(n, i)
        free = tuple(index[s] for s in dying)
        params = n.params
        if isinstance(n.prim, fuse.Fused):
            fn, kind, key = n.prim.impl, "fused", tuple(_buffer_key(m) for m in n.meta)
        elif n.prim.multiple_results or not n.outs:
            fn, kind, key = n.prim.impl, "multi", None
        elif kernel_of(n) is not None:
            # a kernel always returns a fresh array (some impls return an input, e.g.
            # multiplying by a broadcast one), so its output can be recycled later
            fn, kind, key, dying = _kernel_step(n, plan, g, dying, index)
        elif n.prim.into_pool and n.meta[0][0]:
            # an impl taking ``out=`` (`graph_ops`): a recycled buffer when there is one
            fn, kind, key = n.prim.impl, "call_into_pool", _buffer_key(n.meta[0])
        else:
            fn, kind, key = n.prim.impl, "call", None
        recycle = tuple(index[s] for s in dying if s in plan.recyclable)
        real = n.outs and np.dtype(n.meta[0][1]).kind in "fiu"
        expr = fast.arithmetic(n.prim) if kind == "scalar" and real else None
        steps.append(Step(fn, tuple(index[s] for s in n.ins), tuple(index[s] for s in n.outs),
                          kind, key, free, recycle, params, n.prim.name, expr))
    return steps


class Compiled:
    """The executable form: ``run(args)`` returns the values of the output slots.

    It is one generated Python function (``source`` prints it; see `graph/compile/codegen.py`).
    Memory: each value is dropped after its last use. A value produced as a new array, whose
    consumers all produce new arrays too (so no view of it can outlive it), is *recyclable*:
    an elementwise ufunc writes its result into a recyclable input that dies at that step,
    or into a recycled buffer of the right shape and dtype, instead of allocating (a fresh
    40 MB array costs page faults as much as a pass over memory).
    """

    def __init__(self, g):
        self.graph = g
        slots = set(g.args) | set(g.consts) | set(g.outer)
        for n in g.nodes:
            slots.update(n.ins)
            slots.update(n.outs)
        index = {s: i for i, s in enumerate(sorted(slots))}
        self.size = len(index)
        self.arg_idx = [index[s] for s in g.args]
        self.outer_idx = {s: index[s] for s in g.outer}
        self.const_items = [(index[s], v) for s, v in g.consts.items()]
        plan = plan_buffers(g)
        self.steps = emit_steps(g, index, plan)
        self._local = threading.local()
        self.pool_keys = {index[s]: _buffer_key(g.meta[s]) for s in plan.recyclable}
        # outputs that are new arrays of ours: once the caller drops them, they are recycled
        self.escape_keys = [(index[s], _buffer_key(g.meta[s])) for s in plan.escaping]
        self.out_leaves = [index[o.slot] if isinstance(o, OutSlot) else None
                           for o in nest.flatten(g.outputs)]
        self.rebuild()

    def rebuild(self, wrap=None):
        """(Re)generate the function; ``wrap(fn, step)`` replaces each step's callable (for
        profiling: ``bench/traced.py`` times each step so)."""
        self.source, self._fn, keys = codegen.generate(self, self.steps, wrap)
        self._keys = keys + [key for _, key in self.escape_keys]

    def step_records(self):
        """The steps as named `Step` records (the generated code has one statement each)."""
        return list(self.steps)

    def _pool(self):
        """This thread's buffer pool, with the outputs its callers let go added back."""
        # buffers recycled by earlier runs on this thread: after the first call a graph
        # allocates little but what it returns (an allocator cache, as frameworks keep)
        local = self._local.__dict__
        pool = local.get("pool")
        if pool is None:
            pool = local["pool"] = {key: [] for key in self._keys}
            local["escaped"] = []
        escaped = local["escaped"]
        for buf, key in escaped:
            # referenced only by this list entry and the loop: the caller let it go
            if sys.getrefcount(buf) <= _DROPPED_REFS:
                pool[key].append(buf)
        escaped.clear()
        return pool, escaped

    def run(self, arg_values, outer_values=None):
        """Run the generated function on ``arg_values``; the output leaves' values, in order."""
        pool, escaped = self._pool()
        result = self._fn(arg_values, outer_values, pool, escaped)
        _trim(pool)
        return result


def _trim(pool, keep=4):
    """Keep a few buffers per shape and dtype between runs."""
    for bufs in pool.values():
        del bufs[keep:]
