"""Graphs: what `finegrad.function` records, how they print, and how they run fast.

A `Graph` is a list of `Node`s over numbered *slots* (the values: arguments, constants and
node outputs), in program order. Nodes are ordinary primitives, plus `read_variable` and
`assign_variable`, which touch variables when the graph runs (variables are captured by
reference). The same rules serve eager and graph mode: a graph's gradient nodes are the VJP
rules' ops, recorded while tracing.

`compile_graph` turns a graph into one generated Python function, in named passes: `simplify`
(dead code removed, common subexpressions merged, constants folded), `fuse_elementwise`
(chains of large elementwise kernels run block by block, see graph/fuse.py), `plan_buffers`
(each value freed after its last use; which buffers may be recycled), `emit_steps` (one `Step`
per node, e.g. a primitive's ``kernel`` writing into a dying input's buffer, ``out=``, where
that buffer is ours alone) and `codegen.generate` (one statement per step, compiled once).
`Compiled.run` calls the generated function.
"""
import operator
import sys
import threading
from typing import NamedTuple

import numpy as np

from finegrad._src import dtypes
from finegrad._src.core import Primitive, def_nondiff
from finegrad._src.graph import codegen, fast, fuse
from finegrad._src.ops.array.boolean_mask import DataDependentSize

# effects: gradients reach variables through the tensors reads produce (see replay)
read_variable_p = def_nondiff(Primitive("read_variable", unify=False))
assign_variable_p = def_nondiff(Primitive("assign_variable", unify=False))
# a traced integer whose value the trace used as a Python int (a shape, a range's bound):
# each run checks the value is the traced one (graph/value_sizes.py)
size_guard_p = def_nondiff(Primitive("size_guard", multiple_results=True, unify=False))


# While a trace evaluates a sub-graph (a cond branch, a loop body) to learn its values, its
# variable updates must not touch the real variables: they go to the trace's shadow values.
_DRY = threading.local()


class dry_run:
    """Context manager: read/assign nodes use ``shadow`` (id(var) -> value), not variables."""

    def __init__(self, shadow):
        self._shadow = shadow

    def __enter__(self):
        self._saved = getattr(_DRY, "shadow", None)
        _DRY.shadow = self._shadow

    def __exit__(self, *exc):
        _DRY.shadow = self._saved


@size_guard_p.def_impl
def _size_guard_impl(x, *, value, what):
    if np.asarray(x).tolist() != _thawed(value):
        raise DataDependentSize(f"{what} was traced as {_thawed(value)} and this call's is "
                                f"{np.asarray(x).tolist()} (the graph has the traced value "
                                f"written into it)")
    return ()


def frozen(a):
    """NumPy value ``a`` as a hashable param (nested tuples of Python numbers)."""
    a = np.asarray(a)
    return a.item() if a.ndim == 0 else tuple(frozen(r) for r in a)


def _thawed(v):
    return [_thawed(r) for r in v] if isinstance(v, tuple) else v


def current_shadow():
    """The variable values a `dry_run` block gives read/assign nodes (a TF1 session's), or
    None."""
    return getattr(_DRY, "shadow", None)


@read_variable_p.def_impl
def _read_variable_impl(*, var):
    shadow = getattr(_DRY, "shadow", None)
    v = var._storage if shadow is None else shadow.get(id(var), var._storage)
    return v if v.ndim else v[()]


@assign_variable_p.def_impl
def _assign_variable_impl(value, *, var, mode, index=None):
    shadow = getattr(_DRY, "shadow", None)
    if shadow is None:
        with var._lock:   # atomic, as the eager update
            return _assign_into(var, value, mode, index, None)
    return _assign_into(var, value, mode, index, shadow)


def _assign_into(var, value, mode, index, shadow):
    if index is None and mode == "assign":   # (the old value is not read: a TF1 session's
        cur = None                           # initializer assigns an uninitialized variable)
    else:
        cur = var._storage if shadow is None else shadow.get(id(var), var._storage)
    if index is not None:   # v[index].assign(value): the slice takes value, broadcast
        cur = np.array(cur)
        cur[index.idx] = value
        value = cur
    elif mode == "assign_add":
        value = cur + value
    elif mode == "assign_sub":
        value = cur - value
    if shadow is None:
        var._set(value)
    else:
        shadow[id(var)] = np.asarray(value, var._storage.dtype)
    return ()


def has_effects(node):
    """Whether running ``node`` may update a variable (directly or in a sub-graph)."""
    if node.prim is assign_variable_p or node.prim is size_guard_p:
        return True
    for key in ("branches", "parts"):
        for sub in node.params.get(key, ()):
            if any(has_effects(n) for n in sub.graph.nodes):
                return True
    return False


EFFECTS = (assign_variable_p, read_variable_p)   # never merged, folded or reordered


class Node:
    """One op: ``outs = prim(*ins, **params)`` over slots; ``meta`` is (shape, dtype) per out."""

    __slots__ = ("prim", "ins", "params", "outs", "meta", "vjp_graph")

    def __init__(self, prim, ins, params, outs, meta):
        self.prim, self.ins, self.params, self.outs, self.meta = prim, ins, params, outs, meta
        self.vjp_graph = None


class Graph:
    """A traced function: argument slots, constants, nodes and the output structure.

    ``outputs`` is the function's return structure with each tensor replaced by its slot
    (an `OutSlot`); ``meta`` maps every slot to its (shape, dtype) at trace time.
    """

    def __init__(self, name, args, arg_names, consts, nodes, outputs, meta, outer=()):
        self.name, self.args, self.arg_names = name, args, arg_names
        self.consts, self.nodes, self.outputs, self.meta = consts, nodes, outputs, meta
        self.outer = outer  # slots whose values come from an enclosing graph (sub-graphs)
        self.dyn = {}       # slot -> its open axes, in a graph that serves any size of them
        self.sym = {}       # slot -> its shape with symbolic sizes (graph/symbolic.py)
        self.guards = []    # the size comparisons the trace decided (dims.Guard)
        self._compiled = None

    def __str__(self):
        return format_graph(self)

    def __repr__(self):
        return f"<finegrad Graph {self.name}: {len(self.nodes)} nodes>"

    def compiled(self):
        if self._compiled is None:
            self._compiled = compile_graph(self)
        return self._compiled


class OutSlot:
    """A tensor leaf of a graph's output structure."""

    __slots__ = ("slot",)

    def __init__(self, slot):
        self.slot = slot

    def __repr__(self):
        return f"OutSlot({self.slot})"


# --- printing ---------------------------------------------------------------------------------

def _type_str(meta, dyn=()):
    shape, dtype = meta
    dims = ",".join("None" if i in dyn else str(s) for i, s in enumerate(shape))
    return f"{dtypes.from_numpy(np.dtype(dtype)).name}[{dims}]"


def _param_str(k, v):
    if isinstance(v, np.dtype) or hasattr(v, "name") and not isinstance(v, (str, tuple)):
        v = v.name
    s = repr(v) if not isinstance(v, str) else v
    return f"{k}={s if len(s) <= 40 else s[:37] + '...'}"


def format_graph(g):
    """A short listing, one op per line with its result types (in the spirit of a jaxpr)."""
    names = {}
    for i, s in enumerate(g.args):
        names[s] = g.arg_names[i] if i < len(g.arg_names) else f"arg{i}"
    for s in g.outer:
        names[s] = f"outer{s}"
    counter, nconst = [0], [0]

    def name(s):
        if s not in names:
            if s in g.consts:
                v = np.asarray(g.consts[s])
                if v.size == 1:
                    names[s] = repr(v.item())
                else:
                    names[s] = f"c{nconst[0]}:{_type_str((v.shape, v.dtype))}"
                    nconst[0] += 1
            else:
                names[s] = f"%{counter[0]}"
                counter[0] += 1
        return names[s]

    dyn = getattr(g, "dyn", {})
    params = ", ".join(f"{name(s)}: {_type_str(g.meta[s], dyn.get(s, ()))}" for s in g.args)
    lines = [f"def {g.name}({params}):"]
    for n in g.nodes:
        ins = ", ".join(name(s) for s in n.ins)
        ps = ", ".join(_param_str(k, v) for k, v in n.params.items() if k != "rule")
        label = getattr(n.prim, "label", "")
        call = f"{n.prim.name}{label}({ins}{', ' if ins and ps else ''}{ps})"
        if n.outs:
            outs = ", ".join(name(s) for s in n.outs)
            types = ", ".join(_type_str(m, dyn.get(s, ()))
                              for s, m in zip(n.outs, n.meta, strict=True))
            lines.append(f"  {outs} = {call}".ljust(48) + f"  # {types}")
        else:
            lines.append(f"  {call}")
    from finegrad._src import nest
    leaves = [name(o.slot) if isinstance(o, OutSlot) else repr(o)
              for o in nest.flatten(g.outputs)]
    lines.append(f"  return {', '.join(leaves)}")
    return "\n".join(lines)


# --- compiling --------------------------------------------------------------------------------

def _params_key(params):
    try:
        key = tuple(sorted(params.items()))
        hash(key)
        return key
    except TypeError:
        return None


def _out_slots(g):
    from finegrad._src import nest
    return {o.slot for o in nest.flatten(g.outputs) if isinstance(o, OutSlot)}


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
            except Exception:  # noqa: BLE001 - leave it to run time, with its real error
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
    from finegrad._src import nest
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


SCALAR_OPS = {np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
               np.true_divide: operator.truediv}


def _kernel(n):
    """The node's ufunc kernel, when it runs as one (a kernel primitive, no params)."""
    return n.prim.kernel if not n.params else None


def _refs_when_dropped():
    """sys.getrefcount of an array held only by an (array, key) pair in a list, seen from
    the loop in `Compiled._pool` (measured, not assumed: it differs between Pythons)."""
    held = [(np.empty(2), None)]
    for buf, _ in held:
        return sys.getrefcount(buf)


_DROPPED_REFS = _refs_when_dropped()


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
            if _kernel(n) is None or s not in consts or not n.outs:
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


def fuse_elementwise(g):
    """Replace runs of two or more consecutive large elementwise kernel nodes of one shape by
    one fused node (see `fuse.Fused`)."""
    ready = set(g.args) | set(g.consts) | set(g.outer)
    nodes = []
    for item in fuse.fuse_runs(g.nodes, ready, _out_slots(g), g.meta):
        if isinstance(item, fuse.Fused):
            item = Node(item, tuple(item.ext), {}, tuple(item.escaping),
                        [g.meta[s] for s in item.escaping])
        nodes.append(item)
    return Graph(g.name, g.args, g.arg_names, g.consts, nodes, g.outputs, g.meta, g.outer)


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
    outs = _out_slots(g)
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
    """One node as the generated code runs it (`graph/codegen.py` emits one statement each).

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
    ufunc = _kernel(n)
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
        elif _kernel(n) is not None:
            # a kernel always returns a fresh array (some impls return an input, e.g.
            # multiplying by a broadcast one), so its output can be recycled later
            fn, kind, key, dying = _kernel_step(n, plan, g, dying, index)
        elif n.prim.into_pool and n.meta[0][0]:
            # an impl taking ``out=`` (graph/rewrite.py): a recycled buffer when there is one
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

    It is one generated Python function (``source`` prints it; see `graph/codegen.py`).
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
        from finegrad._src import nest
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


def compile_graph(g):
    """The graph's executable form, after the passes: simplify, scalarize constants, fold
    negations (graph/rewrite.py), drop x * 1 and the like, merge commuted subexpressions
    and fold scalar factors (graph/algebra.py), products with diagonal matrices as
    scalings (graph/structure.py), merge scatters, copy slices into recycled buffers or
    read them in place (graph/rewrite.py), fuse, plan buffers, emit."""
    from finegrad._src.graph import algebra, rewrite, structure
    g = rewrite.fold_negations(scalarize_constants(simplify(g)))
    g = algebra.fold_scalar_factors(algebra.commute_operands(algebra.drop_identities(g)))
    g = structure.diagonal_matmuls(g)
    return Compiled(fuse_elementwise(rewrite.copy_slices(rewrite.merge_scatters(g))))


def specialize(g, values, outer=None):
    """Run graph ``g`` once, op by op, on argument ``values`` (and ``outer``, the values of
    a sub-graph's outer slots) whose open (symbolic) sizes have new values. Returns (the
    output values, a copy of ``g`` with this run's shapes in its meta and its symbolic params
    resolved, ready to compile for those sizes, and the symbol bindings: from the arguments'
    sizes, and fresh symbols from the values')."""
    from finegrad._src import core, nest
    from finegrad._src.graph import symbolic
    env = dict(zip(g.args, values, strict=True))
    env.update(g.consts)
    sym = g.sym
    binding = symbolic.bindings(g, values)
    for s, v in (outer or {}).items():
        env[s] = v
        if s in sym:
            symbolic.bind_shape(binding, sym[s], np.shape(v))
    meta = dict(g.meta)
    for s in list(g.args) + list(outer or ()):
        meta[s] = (tuple(np.shape(env[s])), np.asarray(env[s]).dtype)
    nodes = []
    for n in g.nodes:
        vals = [env[s] for s in n.ins]
        params = symbolic.resolve_params(n.params, binding)
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
                symbolic.bind_shape(binding, sym[s], meta[s][0])
        nodes.append(Node(n.prim, n.ins, params, n.outs, m))
    outs = [env[o.slot] if isinstance(o, OutSlot) else None for o in nest.flatten(g.outputs)]
    return outs, Graph(g.name, g.args, g.arg_names, g.consts, nodes, g.outputs, meta,
                       g.outer), binding


def tensor_meta(t):
    v = t._value
    return (tuple(v.shape), v.dtype)

