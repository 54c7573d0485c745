"""TensorFlow 1's graphs: ``Graph``, ``Operation``, placeholders and the default graph.

A TF1 `Graph` is the graph IR of `finegrad.function` (graph/ir.py), built by the same
recorder: while a graph is the default one (``with g.as_default():``, or after
``disable_eager_execution()``), its `GraphRecorder` (a `GraphBuilder`) is the current tracer,
so every ``bind`` appends a node, exactly as while a function traces. What differs is who
drives the trace (the user's Python, for as long as the graph is the default) and when it
runs: `Session.run` (v1/session.py) cuts out the nodes its fetches need and compiles them with
the same passes and executor. As in a function trace, ops compute values while the graph is
built: a placeholder holds an example value (zeros, 2 for each ``None`` size, which stays a
symbolic size) and a variable its initial value; those values only decide shapes.

On top of the IR, the recorder keeps what TF1 programs ask of a graph: the `Operation` of each
node (its name, ``"scope/type_1"``, unique as TensorFlow makes it; its type, the primitive's
name in CamelCase), the control inputs (``control_dependencies``), placeholders, variables and
collections. `finegrad.Tensor` asks its graph for ``.name``, ``.op`` and ``.graph`` through
`Graph.tensor_attribute` (``graph_values.live_graphs``).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading

import numpy as np

from finegrad._src import core, dtypes, graph_values, nest
from finegrad._src.api import contexts
from finegrad._src.api import scopes
from finegrad._src.graph import override
from finegrad._src.graph.tracing.builder import GraphBuilder
from finegrad._src.shapes import TensorShape
from finegrad._src.state import state as _state
from finegrad._src.graph_values import GraphOnly, OutOfScope
from finegrad._src.tensor import Tensor
from finegrad._src.v1 import random_seeds
from finegrad._src.v1.value_guards import GuardUses
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from collections.abc import Iterator

    from finegrad._src.types import TensorLike

#: the size a None dimension of a placeholder has while the graph is built (not 1, which
#: would broadcast); it stays symbolic, so any size is fed at run time
EXAMPLE_SIZE = 2


class Operation:
    """A node of a TF1 graph: ``name``, ``type``, ``inputs``, ``outputs``, ``control_inputs``.

    >>> import finegrad as fg
    >>> g = fg.Graph()
    >>> with g.as_default():
    ...     y = fg.add(fg.compat.v1.placeholder(fg.float32, [2], name="x"), 1., name="y")
    >>> y.op.name, y.op.type, [t.name for t in y.op.inputs]
    ('y', 'Add', ['x:0'])
    """

    def __init__(self, graph: Any, name: str, op_type: Any, node: Any, inputs: Any, outputs: Any,
                 control_inputs: Any = ()) -> None:
        self.graph, self.name, self.type = graph, name, op_type
        self.node = node            # index into the recorder's nodes, or None (no IR node)
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.control_inputs = list(control_inputs)

    def values(self) -> Any:
        return tuple(self.outputs)

    def run(self, feed_dict: Any = None, session: Any = None) -> None:
        """Run this op in ``session`` (default: the default session)."""
        from_session = _session_for(session, "Operation.run")
        from_session.run(self, feed_dict)

    @property
    def device(self) -> Any:
        return ""

    def __repr__(self):
        return f"<finegrad.Operation '{self.name}' type={self.type}>"


def _session_for(session, what):
    s = session if session is not None else get_default_session()
    if s is None:
        raise ValueError(f"Cannot evaluate tensor using `{what}`: No default session is "
                         f"registered. Use `with sess.as_default()` or pass an explicit "
                         f"session to `{what}(session=sess)`")
    return s


class _Sessions(threading.local):
    def __init__(self):
        self.stack = []


_sessions = _Sessions()


def get_default_session() -> Any:
    """The innermost session made default (``with sess.as_default():``, ``with Session()``,
    or an `InteractiveSession`), or None.

    >>> import finegrad as fg
    >>> fg.compat.v1.get_default_session() is None
    True
    """
    return _sessions.stack[-1] if _sessions.stack else None


@contextlib.contextmanager
def default_session(session):
    _sessions.stack.append(session)
    try:
        yield session
    finally:
        if session in _sessions.stack:
            _sessions.stack.remove(session)


def _camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


class GraphRecorder(GraphBuilder):
    """The recorder of a TF1 `Graph`: a `GraphBuilder` that also names each node's
    `Operation`, follows ``control_dependencies`` and refuses changes once finalized."""

    def __init__(self, graph):
        super().__init__("graph")
        self.v1_graph = graph
        self.poly = True        # placeholders' None sizes are symbolic
        self.examples = True    # placeholders hold made-up values
        self.producer = {}      # slot -> Operation
        self.control = []       # the control inputs of the open control_dependencies blocks
        self._entered = 0       # how many as_default blocks (or graph modes) build it now
        self.guard_owner = {}   # id(guard) -> the node whose recording decided it
        self.guard_uses = GuardUses(_calling_frame)   # what each value guard's value built

    def enter(self):
        """The graph is built again: its tensors get their example values back."""
        self._entered += 1
        if self._entered == 1:
            for t in self.alive.values():
                if type(t._value) is GraphOnly:
                    t._value = t._value.example

    def leave(self):
        """The graph is no longer built: its tensors refuse their (example) values, so that
        an eager op or Python using one raises instead of computing with it."""
        self._entered -= 1
        if self._entered == 0:
            for k, t in self.alive.items():
                if self.slots[k] not in self.consts and not isinstance(t._value, OutOfScope):
                    t._value = GraphOnly(t._value, self.v1_graph)

    def _slot_of(self, t):
        if id(t) not in self.slots:
            other = graph_of(t)
            if other is not None and other is not self.v1_graph:
                raise ValueError(f"Tensor {t!r} must be from the same graph as the op that "
                                 f"uses it: it belongs to another finegrad.Graph")
        return super().slot_of(t)

    def record(self, prim, ins, params, out):
        self.v1_graph._check_open()
        known = len(self.guards)
        super().record(prim, ins, params, out)
        if len(self.guards) > known:   # sizes this node's shape rule (or lack of one) fixed:
            for guard in self.guards[known:]:   # they bind only the runs that need the node
                self.guard_owner[id(guard)] = len(self.nodes) - 1
        self.guard_uses.node_recorded(len(self.nodes) - 1)
        outs = out if prim.multiple_results else (out,)
        self.v1_graph._add_op(_camel(prim.name), len(self.nodes) - 1, ins, outs)

    def static_value(self, t, what):
        """A value guard, noted with what is built from the guarded value (value_guards.py):
        a run checks it only when it needs one of those (session.py)."""
        known = len(self.nodes)
        v = super().static_value(t, what)
        if len(self.nodes) > known:
            self.guard_uses.guard_made(known)
        return v

    def knows(self, t):
        if id(t) not in self.slots and self.guard_uses.is_born(t):
            self.slot_of(t)   # a nested trace's capture: a constant of this graph
        return super().knows(t)

    def slot_of(self, t):
        known = id(t) in self.slots
        s = self._slot_of(t)
        if not known and s in self.consts:
            self.guard_uses.const_captured(t, s)
        return s

    def read_variable(self, var):
        if id(var) not in self.v1_graph._variables:
            # a variable made eagerly (or in another graph) has no place in this graph
            raise RuntimeError(f"resource: Attempting to capture an EagerTensor without "
                               f"building a function (variable {var.name} was not created "
                               f"in this graph)")
        t = super().read_variable(var)
        base = getattr(var, "_op_name", None)
        self.v1_graph._add_op("ReadVariableOp", len(self.nodes) - 1, (), (t,),
                           name=f"{base}/Read/ReadVariableOp" if base else None)
        return t

    def assign_variable(self, var, value, mode, key=None):
        """An assign node and, as TensorFlow's ``assign`` returns, a read of the new value
        (fetching it runs the assignment)."""
        self.v1_graph._check_open()
        super().assign_variable(var, value, mode, key)
        op_type = {"assign": "AssignVariableOp", "assign_add": "AssignAddVariableOp",
                   "assign_sub": "AssignSubVariableOp"}[mode]
        op = self.v1_graph._add_op(op_type, len(self.nodes) - 1, (value,), ())
        with self.v1_graph.control_dependencies([op]):
            return var.read_value()

    def create_variable(self, var, initial_value):
        self.v1_graph._check_open()
        self.v1_graph._new_variable(var, initial_value)

    def check_concrete(self, t, what):
        s = self.slots.get(id(t))
        if s is not None and s not in self.consts:
            if what.startswith("a Python bool"):
                raise TypeError("Using a symbolic `finegrad.Tensor` as a Python `bool` is not "
                                "allowed in graph execution: use finegrad.compat.v1.cond")
            if what == ".numpy()":
                raise AttributeError("'Tensor' object has no attribute 'numpy': a tensor of "
                                     "a graph has a value only when a Session runs it "
                                     "(sess.run(t) or t.eval())")
            raise TypeError(f"finegrad.compat.v1: {what} of a graph tensor: its value is only "
                            f"known when a Session runs it (sess.run(t) or t.eval())")

    def static_shape(self, t):
        known = self.v1_graph._static.get(id(t))
        return known if known is not None else super().static_shape(t)

    def set_shape(self, t, shape):
        self.v1_graph._set_shape(t, shape)

    def random_stream(self, op_seed):
        """The stream of a random op made now: TensorFlow 1's seeds and kernel bit stream."""
        return random_seeds.graph_stream(op_seed)

    def unique_scope(self, scope):
        """A name scope opened while this graph is the default, made unique as TensorFlow does
        (a second ``name_scope("layer")`` is ``layer_1/``)."""
        return self.v1_graph.unique_name(scope[:-1]) + "/"


class Graph:
    """A TensorFlow 1 graph: ops are added to it while it is the default graph.

    >>> import finegrad as fg
    >>> g = fg.Graph()
    >>> with g.as_default():
    ...     x = fg.compat.v1.placeholder(fg.float32, [None, 3], name="x")
    ...     y = fg.reduce_sum(x, axis=1, name="y")
    >>> y.name, y.shape, y.graph is g
    ('y:0', TensorShape([None]), True)
    >>> with fg.compat.v1.Session(graph=g) as sess:
    ...     sess.run(y, {x: [[1., 2., 3.]]})
    array([6.], dtype=float32)
    """

    def __init__(self) -> None:
        self._recorder = GraphRecorder(self)
        self._ops: list[Any] = []
        self._by_name: dict[Any, Any] = {}
        self._names_in_use: dict[Any, Any] = {}
        self._tensor_ops: dict[Any, Any] = {}  # id(tensor) -> (Operation, output index)
        self._static: dict[Any, Any] = {}  # id(tensor) -> static shape, set or declared
        self._placeholders: dict[Any, Any] = {}  # slot -> Operation
        self._variables: dict[Any, Any] = {}  # id(variable) -> variable
        self._collections: dict[Any, Any] = {}
        self._finalized = False
        self._last_call = None     # (frame, op) of the last op a public call named
        self.seed = None
        self._seed_offset = 0
        self._scope_store = None   # variable scopes (v1/variable_scope.py)
        self._pending_variable = None   # (name, collections) of the variable being made
        graph_values.add_graph(self)

    # --- being the default graph -----------------------------------------------------------

    def as_default(self) -> Any:
        """Context manager: this graph is the default graph in its block."""
        return _as_default(self)

    def finalize(self) -> None:
        """Make the graph read-only: adding an op is then a RuntimeError."""
        self._finalized = True

    @property
    def finalized(self) -> Any:
        return self._finalized

    building_function = False

    def name_scope(self, name: str) -> Any:
        """Context manager: a name scope for the ops of this graph."""
        return scopes.name_scope(name)

    def device(self, device_name_or_function: Any) -> Any:
        """Context manager: device placement, checked and ignored (one CPU process)."""
        return contexts.device(device_name_or_function)

    def as_graph_def(self, from_version: Any = None, add_shapes: bool = False) -> None:
        raise NotImplementedError("finegrad.Graph.as_graph_def: finegrad graphs are not "
                                  "TensorFlow GraphDef protocol buffers (see "
                                  "docs/tf1_graphs.md, 'What is not supported')")

    def _check_open(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    # --- names -------------------------------------------------------------------------------

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` made unique in this graph: ``name``, then ``name_1``, ``name_2``, ..."""
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = f"{base}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = f"{name}_{i - 1}"
        return name

    def _op_name(self, op_type, requested):
        """The name of a new op: the name its public call was given (the last op of a call
        that makes several keeps it; the others move under it, as TensorFlow's composite ops
        open a name scope of that name), else its type, in the current name scope."""
        scope = scopes._scopes.stack[-1]
        frame, name = _calling_frame()
        last = self._last_call
        if name is not None and last is not None and last[0] is frame and last[2] == name:
            prev = last[1]   # the same call made another op: the earlier one moves under it
            del self._by_name[prev.name]
            new = self.unique_name(f"{prev.name}/{prev.type}")
            self._by_name[new] = prev
            prev.name, own = new, prev.name
            self._last_call = (frame, None, name)
            return own, frame, name
        if name is not None:
            return self.unique_name(name if name.endswith("/") and name[:-1] else
                                    f"{scope}{name}").rstrip("/"), frame, name
        return self.unique_name(f"{scope}{op_type}"), None, None

    def _add_op(self, op_type, node, inputs, outputs, name=None, control_inputs=(),
                exact=False):
        if name is None:
            name, frame, requested = self._op_name(op_type, None)
        else:
            name, frame, requested = name if exact else self.unique_name(name), None, None
        rec = self._recorder
        controls = list(control_inputs) + [c for block in rec.control for c in block]
        op = Operation(self, name, op_type, node,
                       [t for t in inputs if isinstance(t, Tensor) and id(t) in self._tensor_ops],
                       outputs, controls)
        self._ops.append(op)
        self._by_name[name] = op
        if frame is not None:
            self._last_call = (frame, op, requested)
        for i, t in enumerate(outputs):
            self._tensor_ops[id(t)] = (op, i)
            s = rec.slots.get(id(t))
            if s is not None:
                rec.producer[s] = op
        return op

    def get_operations(self) -> Any:
        """The graph's operations, in the order they were made."""
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Any:
        """The operation named ``name``; a KeyError naming it when there is none."""
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not "
                            f"{type(name).__name__}.")
        if ":" in name:
            raise ValueError(f"Name '{name}' appears to refer to a Tensor, not a Operation.")
        op = self._by_name.get(name)
        if op is None:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")
        return op

    def get_tensor_by_name(self, name: str) -> Any:
        """The tensor named ``name`` (``"op_name:index"``)."""
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            raise ValueError(f"The name '{name}' looks a like an Operation name, not a Tensor "
                             f"name; Tensor names must be of the form "
                             f"\"<op_name>:<output_index>\".")
        op = self._by_name.get(op_name)
        if op is None:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The "
                           f"operation, '{op_name}', does not exist in the graph.")
        if int(index) >= len(op.outputs):
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The "
                           f"operation, '{op_name}', exists but only has {len(op.outputs)} "
                           f"outputs.")
        return op.outputs[int(index)]

    def as_graph_element(self, obj: Any, allow_tensor: bool = True,
                         allow_operation: bool = True) -> Any:
        """``obj`` (a tensor, an operation, a variable or a name) as an element of this graph."""
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else \
                self.get_operation_by_name(obj)
        if isinstance(obj, Operation):
            if obj.graph is not self:
                raise ValueError(f"Operation {obj!r} is not an element of this graph.")
            return obj
        if isinstance(obj, Tensor):
            if id(obj) not in self._tensor_ops and self._recorder.knows(obj):
                return obj
            if self._tensor_ops.get(id(obj), (None,))[0] is None:
                raise ValueError(f"Tensor {_describe(obj)} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")

    # --- control dependencies ------------------------------------------------------------

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Any) -> Iterator[None]:
        """Context manager: the ops made in the block run after ``control_inputs`` (tensors,
        operations or variables); None clears the enclosing blocks' inputs."""
        rec = self._recorder
        saved = rec.control
        if control_inputs is None:
            rec.control = []
        else:
            rec.control = saved + [[self._as_op(c) for c in control_inputs]]
        try:
            yield
        finally:
            rec.control = saved

    def _as_op(self, x):
        if isinstance(x, Operation):
            return x
        if isinstance(x, Variable):
            x = x.read_value()
        if isinstance(x, Tensor) and id(x) in self._tensor_ops:
            return self._tensor_ops[id(x)][0]
        if isinstance(x, Tensor):   # a constant: nothing to wait for
            return None
        raise TypeError(f"Control input must be Operation or Tensor: {x!r:.60}")

    def group(self, inputs: Any, name: str | None = None) -> Any:
        """One operation (type NoOp) that runs ``inputs`` (tensors, operations, lists)."""
        ops = [self._as_op(x) for x in nest.flatten(list(inputs)) if x is not None]
        return self._add_op("NoOp", None, (), (), name=self._scoped(name or "group_deps"),
                            control_inputs=[o for o in ops if o is not None])

    def no_op(self, name: str | None = None) -> Any:
        return self._add_op("NoOp", None, (), (), name=self._scoped(name) if name else None)

    def name_constant(self, t: Tensor, name: str | None) -> None:
        """A ``Const`` operation for constant ``t`` made while this graph is built, so that
        it has TensorFlow's name (``scope/name:0``) and can be fetched by it."""
        if id(t) not in self._tensor_ops:
            self._add_op("Const", None, (), (t,), name=self._scoped(name or "Const"))

    def _scoped(self, name):
        return name[:-1] if name.endswith("/") else scopes._scopes.stack[-1] + name

    # --- placeholders and variables ----------------------------------------------------------

    def placeholder(self, dtype: Any, shape: Any, name: str) -> Tensor:
        self._check_open()
        dt = dtypes.as_dtype(dtype)
        shape = TensorShape(shape)
        known = list(shape) if shape.rank is not None else []
        sizes = tuple(EXAMPLE_SIZE if d is None else d for d in known)
        if np.dtype(dt._np).kind == "O":   # strings stay arrays (a 0-d one's item is an int)
            t = Tensor(np.full(sizes, b"", object))
        else:
            example = np.zeros(sizes, dt._np)
            t = Tensor(example if example.ndim else example[()])
        rec = self._recorder
        rec.add_arg(t, dynamic=tuple(i for i, d in enumerate(known) if d is None))
        op = self._add_op("Placeholder", None, (), (t,),
                          name=self._scoped(name or "Placeholder"))
        self._placeholders[rec.slots[id(t)]] = op
        op.shape, op.dtype = shape, dt
        if shape.rank is None:
            self._static[id(t)] = shape
        return t

    def _new_variable(self, var, initial_value):
        """Name ``var`` in this graph and give it an initializer op (assigning its initial
        value, a graph tensor or a constant) and its collections."""
        pending, self._pending_variable = self._pending_variable, None
        collections = None if pending is None else pending[1]
        if pending is not None and pending[0] is not None:   # get_variable's full name,
            name = pending[0]                                 # outside name scopes
            self._names_in_use[name.lower()] = 1
        else:
            base = var.name.rpartition(":")[0]
            base = "Variable" if base.startswith("Variable:") or not base else base
            name = self.unique_name(self._scoped(base))
        var.name, var._op_name, var.graph = f"{name}:0", name, self
        var.eval = lambda session=None: _session_for(session, "eval()").run(var)
        var.load = lambda value, session=None: _session_for(session, "load()").load(var, value)
        rec = self._recorder
        value = initial_value.read_value() if isinstance(initial_value, Variable) else \
            initial_value
        if not (isinstance(value, Tensor) and rec.knows(value)):
            value = Tensor(var._storage if var._storage.ndim else var._storage[()])
        with self.control_dependencies(None):
            GraphBuilder.assign_variable(rec, var, value, "assign")
            var.initializer = self._add_op("AssignVariableOp", len(rec.nodes) - 1, (value,), (),
                                           name=f"{name}/Assign")
        var.initial_value = value
        var.op = self._add_op("VarHandleOp", None, (), (), name=name, exact=True)
        self._variables[id(var)] = var
        if collections is None:
            collections = ["variables"] + (["trainable_variables"] if var.trainable else [])
        for c in collections:
            self.add_to_collection(c, var)

    # --- collections ------------------------------------------------------------------------

    def add_to_collection(self, name: str, value: TensorLike) -> None:
        self._collections.setdefault(name, []).append(value)

    def get_collection(self, name: str, scope: Any = None) -> Any:
        items = list(self._collections.get(name, ()))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [x for x in items if getattr(x, "name", None) is not None and
                pattern.match(x.name)]

    def get_collection_ref(self, name: str) -> Any:
        return self._collections.setdefault(name, [])

    def get_all_collection_keys(self) -> Any:
        return [k for k, v in self._collections.items() if v]

    def clear_collection(self, name: str) -> None:
        self._collections.pop(name, None)

    # --- gradient overrides ------------------------------------------------------------------

    def gradient_override_map(self, op_type_map: Any) -> Any:
        """Context manager: ops of the types in ``op_type_map`` get the gradient registered
        under the name each maps to (see `finegrad.compat.v1.get_default_graph`)."""
        return override.get_default_graph().gradient_override_map(op_type_map)

    # --- what a Tensor asks -------------------------------------------------------------------

    def check_concrete(self, t: TensorLike, what: Any) -> None:
        """Refuse the value of a tensor of this graph (it has one only in a Session)."""
        self._recorder.check_concrete(t, what)

    def tensor_attribute(self, t: Any, name: str) -> Any:
        entry = self._tensor_ops.get(id(t))
        if entry is None:
            return _MISSING
        op, i = entry
        if name == "name":
            return f"{op.name}:{i}"
        if name == "op":
            return op
        if name == "graph":
            return self
        if name == "shape":
            return self._recorder.static_shape(t)
        if name == "repr":
            return f"<finegrad.Tensor '{op.name}:{i}' shape={self._recorder.static_shape(t)} " \
                   f"dtype={t.dtype.name}>"
        if name == "value_index":
            return i
        if name == "eval":
            return lambda feed_dict=None, session=None: \
                _session_for(session, "eval()").run(t, feed_dict)
        if name == "set_shape":
            return lambda shape: self._set_shape(t, shape)
        if name == "consumers":
            return lambda: [o for o in self._ops if any(x is t for x in o.inputs)]
        if name == "device":
            return ""
        return _MISSING

    def _set_shape(self, t, shape):
        old = t.shape
        new = TensorShape(shape)
        if not old.is_compatible_with(new):
            raise ValueError(f"Tensor's shape {old} is not compatible with supplied shape "
                             f"{new}.")
        self._static[id(t)] = old.merge_with(new)


_MISSING = graph_values.MISSING


def _describe(t):
    return f"Tensor(shape={tuple(np.shape(t._value))}, dtype={t.dtype.name})"


def graph_of(t):
    """The TF1 graph whose op made tensor ``t``, or None."""
    for g in graph_values.live_graphs():
        if id(t) in g._tensor_ops:
            return g
    return None


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _calling_frame():
    """The frame of the outermost finegrad function the user's code called, and the ``name``
    it was given (None when it takes none)."""
    f = sys._getframe(1)
    outer = None
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE):
        outer = f
        f = f.f_back
    if outer is None:
        return None, None
    name = outer.f_locals.get("name")
    return outer, name if isinstance(name, str) and name else None


# --- the default graph -----------------------------------------------------------------------

class _Default(threading.local):
    def __init__(self):
        self.stack = []          # graphs made default by `as_default`, innermost last


graph_stack = _Default()


@contextlib.contextmanager
def _as_default(graph):
    graph_stack.stack.append(graph)
    rec = graph._recorder
    saved = (_state.tracer, _state.recorders)
    _state.tracer, _state.recorders = rec, (rec,)
    rec.enter()
    try:
        yield graph
    finally:
        try:
            rec.leave()
        finally:   # even when leaving fails, later ops must not record into this graph
            _state.tracer, _state.recorders = saved
            graph_stack.stack.remove(graph)


def current_graph():
    """The TF1 graph being built now (its recorder is the current tracer), or None."""
    rec = core.current_tracer()
    return rec.v1_graph if isinstance(rec, GraphRecorder) else None
