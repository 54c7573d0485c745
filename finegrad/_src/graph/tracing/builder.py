"""The graph builder: the recorder that turns a trace into a graph (`finegrad.function`).

While a `finegrad.function` traces, a `GraphBuilder` is the only active recorder (see
core.py): every primitive it sees becomes a node, tensors it has not seen are captured as
constants, and variables become read/assign nodes (captured by reference). The trace is
isolated: assignments inside it update a shadow value, not the variable. As the current
tracer it also answers what a `Tensor` asks during a trace: whether its value may be handed
to Python (`check_concrete`) and which of its sizes are open (`static_shape`). Under an
input_signature with ``None`` dimensions it keeps every value's shape with its symbolic
sizes (`dims.Dim`, graph/compile/symbolic.py) and the guards the trace decided.
"""

from __future__ import annotations

import contextlib

import numpy as np

from finegrad._src import core, dtypes, nest
from finegrad._src.ad import custom
from finegrad._src.graph import ir
from finegrad._src.graph.compile import symbolic
from finegrad._src.graph.tracing import size_values
from finegrad._src.ops.array import indexing
from finegrad._src.graph.ir import Graph, Node, OutSlot, read_variable_p, assign_variable_p
from finegrad._src.dims import Dim, has_dims, is_symbolic
from finegrad._src.graph_values import OutOfScope
from finegrad._src.tensor import Tensor, TensorShape
from finegrad._src import variables
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


class TensorSpec:
    """The shape (``None`` for any size) and dtype of a tensor argument.

    >>> import finegrad as fg
    >>> spec = fg.TensorSpec((None, 3), fg.float32)
    >>> spec.is_compatible_with(fg.zeros((5, 3)))
    True
    """

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> None:
        # None: an unknown shape (any rank), as in TensorFlow; () is a scalar
        self.shape = TensorShape(None) if shape is None else tuple(
            None if s is None else int(s) for s in shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @property
    def _rank_known(self):
        return self.shape.rank is not None if isinstance(self.shape, TensorShape) else True

    def is_compatible_with(self, t: Any) -> bool:
        if not self._rank_known:
            return t.dtype == self.dtype
        shape = tuple(t._value.shape) if isinstance(t, Tensor) else tuple(t.shape)
        return t.dtype == self.dtype and len(shape) == len(self.shape) and all(
            a is None or a == b for a, b in zip(self.shape, shape, strict=True))

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (other.shape,
                                                                            other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r})"


# params of ops that run sub-graphs or user code (which may read variables): never folded
_RUNS_CODE = frozenset(("rule", "branches", "parts", "func"))


# --- the graph builder --------------------------------------------------------------------------

class GraphBuilder(core.Recorder):
    """Records every op of a trace as a graph node (the recorder of `finegrad.function`)."""

    def __init__(self, name, parent=None):
        self.name = name
        self.parent = parent
        self.slots = {}      # id(tensor) -> slot
        self.alive = {}      # id(tensor) -> tensor (ids stay unique while tracing)
        self.meta = {}
        self.consts = {}
        self.nodes = []
        self.entries = []    # (prim, ins, params, out), as a tape keeps them: for gradients()
        self.args = []
        self.outer = []      # slots whose values come from the parent graph
        self.shadow = {}     # id(variable) -> its value as assigned so far in this trace
        self.var_reads = {}  # id(variable) -> the tensors its reads produced (for gradients)
        self.const_tensors = {}  # slot -> the captured tensor (replays keep the connection)
        self.folded = set()  # slots of constants and of values computed from them alone
        self.created_variables = []  # variables the traced Python created (finegrad.Variable)
        # whether some arguments are made-up values for TensorSpecs: a kernel's check of
        # values (gather's index range) then gives way, as only shapes are traced
        self.examples = parent.examples if parent is not None else False
        self._next = 0
        # shape polymorphism (graph/compile/symbolic.py): slot -> its shape with `Dim` sizes (slots
        # with an open size only), and the guards the trace decided (kept by the outermost
        # builder)
        self.poly = parent.poly if parent is not None else False
        self.sym = {}
        self.made_by = {}    # slot -> the index of the node that computes it
        self.guards = []
        self.declared = {}   # id(tensor) -> its static shape, declared (set_shape, py_func)
        self._nsym = 0
        self._rule = None      # the primitive whose shape rule runs (named by its guards)
        # the traces made inside this one (cond branches, loop bodies): out of scope with it
        self.subs = []
        if parent is not None:
            parent.subs.append(self)
        self._retired, self._gone, self._revived = [], None, 0   # see retire and revived

    @property
    def root(self):
        b = self
        while b.parent is not None:
            b = b.parent
        return b

    def shape_of(self, t):
        """`core.shape_of` inside this trace: ``t``'s shape with its open sizes as Dims."""
        s = self.slots.get(id(t))
        if s is None:
            return self.parent.shape_of(t) if self.parent is not None else t._value.shape
        return self.sym.get(s) or t._value.shape

    def new_symbol(self, value):
        root = self.root
        root._nsym += 1
        return Dim.symbol(f"n{root._nsym - 1}", value)

    def add_guard(self, guard):
        root = self.root
        if root._rule is not None and guard.reason is None:
            guard.reason = f"{root._rule} ({guard.describe()})"
        key = (guard.lhs, guard.op, guard.rhs)
        if all((g.lhs, g.op, g.rhs) != key for g in root.guards):
            root.guards.append(guard)

    def _new_slot(self, t):
        s = self._next
        self._next += 1
        self.slots[id(t)] = s
        self.alive[id(t)] = t
        self.meta[s] = ir.tensor_meta(t)
        return s

    def slot_of(self, t):
        s = self.slots.get(id(t))
        if s is not None:
            return s
        parent = self.parent
        if parent is not None and parent._gone is None and not parent.knows(t):
            # captured by the enclosing trace first (while it is still being built), so that
            # a tensor first used inside a branch or a loop body (a TF1 graph's constant) is
            # one input of the whole graph, and gradients reach it
            parent.slot_of(t)
        if parent is not None and parent.knows(t):
            shape = self.parent.shape_of(t) if self.poly else ()
            s = self._new_slot(t)
            self.outer.append(s)
            if is_symbolic(shape):
                self.sym[s] = shape
            return s
        s = self._new_slot(t)     # a tensor from outside the trace: captured by value
        self.consts[s] = t._value
        self.const_tensors[s] = t
        self.folded.add(s)
        return s

    def captured(self, s):
        """The tensor captured as constant slot ``s``."""
        t = self.const_tensors.get(s)
        return t if t is not None else Tensor(self.consts[s])

    def release(self, graph=None):
        """Put this trace's tensors (and its sub-traces': cond branches, loop bodies) out of
        scope once the graph is built, and drop what only the trace needed. A trace with a
        custom_gradient op anywhere in it keeps the values privately: its rule is traced
        lazily, by tensor identity, with those tensors revived for the while (`revived`)."""
        keep = self._has_custom()
        for b in self._tree():
            b.retire(keep)
            if not keep:
                b.slots, b.alive, b.entries, b.shadow, b.var_reads = {}, {}, [], {}, {}

    def _tree(self):
        yield self
        for sub in self.subs:
            yield from sub._tree()

    def _has_custom(self):
        return any(n.prim is custom.custom_p for b in self._tree() for n in b.nodes)

    def retire(self, keep_values=False):
        """Put the tensors this trace made (arguments, op outputs, variable reads) out of
        scope: one kept past the trace refuses to be used (`tensor.OutOfScope`, naming the
        traced function), instead of computing with the trace's example values. Captured
        tensors and the parent trace's are not this trace's and stay as they are. With
        ``keep_values`` the values stay here, for `revived`."""
        root = self
        while root.parent is not None:
            root = root.parent
        self._gone = OutOfScope(root.name)
        keep = set(self.consts) | set(self.outer)
        mine = [t for k, t in self.alive.items()
                if self.slots[k] not in keep and type(t._value) is not OutOfScope]
        if keep_values:
            self._retired += [(t, t._value) for t in mine]
        for t in mine:
            t._value = self._gone

    @contextlib.contextmanager
    def revived(self):
        """Give the retired tensors of this trace and of the traces around it their values
        back while a custom_gradient rule that closes over them is traced; the user's
        references to them are out of scope again afterwards."""
        chain = []
        b = self
        while b is not None:
            chain.append(b)
            b = b.parent
        for b in chain:
            b._revived += 1
            for t, v in b._retired:
                t._value = v
        try:
            yield
        finally:
            for b in chain:
                b._revived -= 1
                if not b._revived and b._gone is not None:
                    for t, _ in b._retired:
                        t._value = b._gone

    def knows(self, t):
        return id(t) in self.slots or (self.parent is not None and self.parent.knows(t))

    def add_arg(self, t, dynamic=(), shape=None):
        """A new argument; a symbol for each axis in ``dynamic``, or the symbolic ``shape``
        (a rule's cotangent shaped like a value of the enclosing trace)."""
        s = self._new_slot(t)
        self.args.append(s)
        if dynamic:
            shape = tuple(self.new_symbol(n) if i in dynamic else n
                          for i, n in enumerate(t._value.shape))
        if shape is not None and is_symbolic(shape):
            self.sym[s] = tuple(shape)
        return s

    def record(self, prim, ins, params, out):
        in_slots = tuple(self.slot_of(t) for t in ins)
        outs = out if prim.multiple_results else (out,)
        out_slots = tuple(self._new_slot(o) for o in outs)
        if self.poly and (self.sym or has_dims(params)):
            symbolic.record_shapes(self, prim, ins, in_slots, params, outs, out_slots)
        for s in out_slots:
            self.made_by[s] = len(self.nodes)
        self.nodes.append(Node(prim, in_slots, params, out_slots,
                               [self.meta[s] for s in out_slots]))
        self.entries.append((prim, ins, params, out))
        if all(s in self.folded for s in in_slots) and not prim.stateful \
                and not _RUNS_CODE.intersection(params):
            self.folded.update(out_slots)   # computed from constants alone: a constant too

    def read_variable(self, var):
        v = self.shadow.get(id(var), var._storage)
        t = Tensor(v if v.ndim else v[()])
        s = self._new_slot(t)
        self.nodes.append(Node(read_variable_p, (), {"var": var}, (s,), [self.meta[s]]))
        self.var_reads.setdefault(id(var), []).append(t)
        core.notify_variable_read(var, t)   # tapes inside the trace see the read
        return t

    def create_variable(self, var, initial_value):
        """Asked by `Variable` created during this trace. As in TensorFlow, its initial value
        must not be a traced tensor (its value is only known when the graph runs), and the
        function notes the creation: only a function's first trace may create variables."""
        if isinstance(initial_value, Tensor) and self.knows(initial_value) and \
                self.slots.get(id(initial_value)) not in self.consts:
            raise ValueError(f"finegrad.Variable: created inside {self.name!r} (traced by "
                             f"finegrad.function) from a traced tensor; TensorFlow refuses this "
                             f"too. Create the variable outside the function, or give a value "
                             f"that does not depend on the function's inputs, e.g. "
                             f"finegrad.Variable(lambda: finegrad.zeros(shape))")
        root = self
        while root.parent is not None:
            root = root.parent
        root.created_variables.append(var)

    def check_concrete(self, t, what):
        """Asked by `Tensor` before it hands its value to Python: a traced tensor has none
        to branch on (its value is only known when the graph runs)."""
        s = self.slots.get(id(t))
        if s is not None and s not in self.folded:
            raise TypeError(f"finegrad.function: {what} of a traced tensor (shape "
                            f"{tuple(t._value.shape)}) in {self.name}: its value is only known "
                            f"when the graph runs. Use finegrad.cond(pred, true_fn, false_fn) "
                            f"for a branch, finegrad.while_loop for a loop, and finegrad ops "
                            f"instead of NumPy or Python on tensors")

    def static_value(self, t, what):
        """Asked by `Tensor` for a traced value used as a static argument (a shape, a bound):
        the trace uses its value, and the graph checks each run's (`ir.size_guard_p`)."""
        if not self.knows(t):
            return t._value
        s = self.slot_of(t)
        if s not in self.folded:
            self.nodes.append(Node(ir.size_guard_p, (s,), {"value": ir.frozen(t._value),
                                                           "what": what}, (), []))
        return t._value

    def symbolic_size(self, t):
        """The value of ``t`` as symbolic sizes (``shape(x)[0]`` of an open axis), or None
        (graph/tracing/size_values.py)."""
        return size_values.symbolic_value(self, t) if self.poly else None

    def static_shape(self, t):
        """``Tensor.shape`` inside this trace: the axes left open (symbolic) are None; a
        shape declared (`declare_shape`) wins."""
        known = self.declared.get(id(t))
        if known is not None:
            return known
        if self.poly:
            return TensorShape(tuple(None if type(n) is Dim else n for n in self.shape_of(t)))
        return TensorShape(t._value.shape)

    def declare_shape(self, t, shape):
        """Declare ``t``'s static shape (a py_func's results start unknown,
        ``TensorShape(None)``, as in TensorFlow)."""
        self.declared[id(t)] = TensorShape(shape)

    def set_shape(self, t, shape):
        """``t.set_shape(shape)``: ``t``'s static shape merged with ``shape`` (TensorFlow's
        ValueError when they are not compatible)."""
        old, shape = self.static_shape(t), TensorShape(shape)
        if not old.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {old} is not compatible with supplied shape "
                             f"{shape}.")
        self.declared[id(t)] = old.merge_with(shape)

    def assign_variable(self, var, value, mode, key=None):
        """An assign node (``key``: TensorFlow's sliced assignment ``v[key].assign(value)``,
        which writes that slice when the graph runs); the trace's shadow value follows."""
        params = {"var": var, "mode": mode}
        if key is not None:
            params["index"], value = _slice_assignment(var, key, value)
        s = self.slot_of(value)
        self.nodes.append(Node(assign_variable_p, (s,), params, (), []))
        cur = self.shadow.get(id(var), var._storage)
        v = np.asarray(value._value)
        if key is not None:
            new = np.array(cur)
            new[params["index"].idx] = v
        else:
            new = v if mode == "assign" else cur + v if mode == "assign_add" else cur - v
        self.shadow[id(var)] = np.asarray(new, var._storage.dtype)

    def finish(self, outputs, arg_names):
        def leaf(o):
            if isinstance(o, Tensor):
                return OutSlot(self.slot_of(o))
            if isinstance(o, Variable):
                return OutSlot(self.slot_of(o.read_value()))
            return o
        with core.tracing(self):
            out = nest.map_structure(leaf, outputs)
        g = Graph(self.name, list(self.args), arg_names, dict(self.consts), list(self.nodes),
                  out, dict(self.meta), list(self.outer))
        if self.poly:
            g.sym = dict(self.sym)
            g.guards = self.guards   # shared: a custom_gradient rule traced later adds its own
            g.dyn = {s: frozenset(i for i, d in enumerate(sh) if type(d) is Dim)
                     for s, sh in self.sym.items()}
        return g


def _slice_assignment(var, key, value):
    """The index of ``v[key].assign(value)`` and the value as a tensor, checked as eagerly
    (dtype; a shape that broadcasts to the slice's): the node broadcasts it when it runs."""
    index = indexing._normalize_index(key, var._storage.shape)
    if isinstance(value, Variable):
        value = value.read_value()
    v = variables._slice_value(var, value, np.empty(var._storage.shape, np.bool_)[index.idx])
    return index, value if isinstance(value, Tensor) else Tensor(np.array(v))


def is_traced(t):
    """Whether ``t`` is a traced (not constant) tensor of the current trace."""
    tracer = core.current_tracer()
    if tracer is None or not isinstance(t, Tensor):
        return False
    s = tracer.slots.get(id(t))
    return s is not None and s not in tracer.consts


def get_static_value(tensor: TensorLike, partial: bool = False) -> Any:
    """The value of ``tensor`` as a NumPy array when it is known without running a graph
    (``tf.get_static_value``): eagerly, always; inside a `finegrad.function` trace, for
    tensors that do not depend on the function's arguments or variables (constants made or
    captured there), else None. A Variable gives None (its value may change); anything else
    that is not a tensor is returned as it is, as TensorFlow does.

    >>> import finegrad as fg
    >>> fg.get_static_value(fg.constant([1, 2]))
    array([1, 2], dtype=int32)
    >>> @fg.function
    ... def f(x):
    ...     return fg.constant(fg.get_static_value(x) is None)
    >>> bool(f(fg.constant(1.)))
    True
    """
    if isinstance(tensor, variables.Variable):
        return None
    if not isinstance(tensor, Tensor):
        return tensor
    tracer = core.current_tracer()
    while tracer is not None:
        s = tracer.slots.get(id(tensor))
        if s is not None:
            return np.asarray(tensor._value) if s in tracer.consts else None
        tracer = tracer.parent
    return np.asarray(tensor._value)
