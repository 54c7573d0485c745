"""Graphs: what `finegrad.function` records, and how they print.

A `Graph` is a list of `Node`s over numbered *slots* (the values: arguments, constants and
node outputs), in program order. Nodes are ordinary primitives, plus `read_variable` and
`assign_variable`, which touch variables when the graph runs (variables are captured by
reference). The same rules serve eager and graph mode: a graph's gradient nodes are the VJP
rules' ops, recorded while tracing.

How a graph is compiled and run is `graph/compile/` (its passes in order:
`compile.pipeline`); this module imports none of it.
"""
import threading

import numpy as np

from finegrad._src import dtypes, nest
from finegrad._src.core import Primitive, def_nondiff
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


@size_guard_p.def_lowering
def _size_guard_lower(x, *, value, what):
    """Compiled with XLA: checked while lowering when ``x`` is known then (a size: shapes are
    static there), else on the host at each run (the fallback callback of the impl)."""
    import jax
    try:
        v = np.asarray(x)
    except jax.errors.TracerArrayConversionError:
        return NotImplemented
    return _size_guard_impl(v, value=value, what=what)


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
    """Whether running ``node`` may update a variable or have another side effect (directly
    or in a sub-graph)."""
    if node.prim is assign_variable_p or node.prim is size_guard_p or node.prim.effects:
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
        self.sym = {}       # slot -> its shape with symbolic sizes (graph/compile/symbolic.py)
        self.guards = []    # the size comparisons the trace decided (dims.Guard)
        self._compiled = None  # its executable form (`compile.pipeline.compiled`)

    def __str__(self):
        return format_graph(self)

    def __repr__(self):
        return f"<finegrad Graph {self.name}: {len(self.nodes)} nodes>"



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
    leaves = [name(o.slot) if isinstance(o, OutSlot) else repr(o)
              for o in nest.flatten(g.outputs)]
    lines.append(f"  return {', '.join(leaves)}")
    return "\n".join(lines)


def out_slots(g):
    """The slots of ``g``'s outputs."""
    return {o.slot for o in nest.flatten(g.outputs) if isinstance(o, OutSlot)}


def tensor_meta(t):
    v = t._value
    return (tuple(v.shape), v.dtype)
