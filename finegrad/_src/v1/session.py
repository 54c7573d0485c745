"""TensorFlow 1's ``Session``: run the part of a graph that fetches need.

``sess.run(fetches, feed_dict)`` flattens ``fetches`` (any nesting of lists, tuples,
namedtuples and dicts of tensors, operations, variables and names), cuts out of the graph's
IR the nodes they need (through data and control inputs, stopping at fed tensors), and runs
that cut as a `ConcreteFunction` of the fed values: the compiler passes and the executor of
`finegrad.function`, with the placeholders' ``None`` sizes symbolic. The compiled plan is kept
per (fetches, fed tensors), so a training loop's ``run`` costs about what a function call does.

A session holds its own values of the graph's variables (what its initializers assigned): the
graph's read and assign nodes use them (``ir.dry_run``). Reading a variable that this session
has not initialized is TensorFlow's `FailedPreconditionError`.
"""

from __future__ import annotations

import collections

import numpy as np

from finegrad._src.tracebacks import api_boundary
from finegrad._src import nest
from finegrad._src.dims import Dim
from finegrad._src.errors import FailedPreconditionError, InvalidArgumentError
from finegrad._src.graph import ir
from finegrad._src.graph.compile import pipeline
from finegrad._src.graph.tracing.concrete import ConcreteFunction
from finegrad._src.graph.ir import Node, OutSlot, read_variable_p
from finegrad._src.graph.compile.symbolic import GuardFailed
from finegrad._src.ops.array.boolean_mask import DataDependentSize
from finegrad._src.ops.array.gather import IndexedSlices
from finegrad._src.v1.session_config import jit_level
from finegrad._src.shapes import TensorShape
from finegrad._src.state import state as _state
from finegrad._src.tensor import Tensor
from finegrad._src.v1 import default_graph, graphs
from finegrad._src.v1.graphs import Operation, current_graph, default_session
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


# what a fetched IndexedSlices (a gather's gradient) gives, as in TensorFlow 1
IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue",
                                            ["values", "indices", "dense_shape"])


def _slices_as_values(structure):
    """Fetched `IndexedSlices` (holding arrays after the run) as TF1's IndexedSlicesValue."""
    flat = nest.flatten(structure, expand_composites=False)
    if not any(type(x) is IndexedSlices for x in flat):
        return structure
    flat = [IndexedSlicesValue(x.values, x.indices, x.dense_shape)
            if type(x) is IndexedSlices else x for x in flat]
    return nest.pack_sequence_as(structure, flat, expand_composites=False)


class _Values(dict):
    """A session's variable values (id(variable) -> array): what its graph's read and assign
    nodes use while it runs. A variable of the graph that has none is uninitialized."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph

    def get(self, key, default=None):
        v = dict.get(self, key, _NONE)
        if v is not _NONE:
            return v
        var = self.graph._variables.get(key)
        if var is None:      # a variable of eager code: its own value
            return default
        raise FailedPreconditionError(
            None, None, f"Error while reading resource variable {var._op_name} from "
            f"Container: localhost. This could mean that the variable was uninitialized. "
            f"Run the variables' initializer first (e.g. "
            f"sess.run(finegrad.compat.v1.global_variables_initializer())).")


_NONE = object()


class _Outside:
    """Context manager: no trace and no recorder (a session runs its plan as `function` runs
    its graph), with the session's variable values."""

    __slots__ = ("_values", "_saved", "_dry")

    def __init__(self, values):
        self._values = values

    def __enter__(self):
        self._saved = (_state.tracer, _state.recorders)
        _state.tracer, _state.recorders = None, ()
        self._dry = ir.dry_run(self._values)
        self._dry.__enter__()

    def __exit__(self, *exc):
        self._dry.__exit__(*exc)
        _state.tracer, _state.recorders = self._saved


class Session:
    """Runs operations of a graph (TensorFlow 1's ``tf.compat.v1.Session``).

    Args:
        target: accepted and ignored (there is one local process).
        graph: the graph to run; the default graph if None.
        config: a `ConfigProto`: its ``graph_options.optimizer_options.global_jit_level``
            ``OptimizerOptions.ON_1`` or ``ON_2`` compiles what ``run`` runs with XLA, as
            ``finegrad.function(jit_compile=True)`` (with JAX installed; else, and for a
            graph XLA cannot take, finegrad's executor, with a warning); off by default.
            The other fields are accepted and ignored.

    >>> import finegrad as fg
    >>> g = fg.Graph()
    >>> with g.as_default():
    ...     x = fg.compat.v1.placeholder(fg.float32, [None])
    ...     y = x * 2.
    >>> with fg.compat.v1.Session(graph=g) as sess:
    ...     sess.run([y, {"sum": fg.reduce_sum(y)}], feed_dict={x: [1., 2.]})
    [array([2., 4.], dtype=float32), {'sum': np.float32(6.0)}]
    """

    def __init__(self, target: Any = "", graph: Any = None, config: Any = None) -> None:
        del target
        self._jit = jit_level(config)
        self._graph = graph if graph is not None else default_graph.get_default_graph()
        self._values = _Values(self._graph)
        self._plans: dict[Any, Any] = {}
        # id(feed key) -> (key, slot, dtype, static sizes, tensor)
        self._feed_info: dict[Any, Any] = {}
        self._closed = False
        self._contexts: list[Any] = []

    @property
    def graph(self) -> Any:
        return self._graph

    @property
    def graph_def(self) -> None:
        raise NotImplementedError("finegrad.compat.v1.Session.graph_def: finegrad graphs are "
                                  "not TensorFlow GraphDef protocol buffers")

    def as_default(self) -> Any:
        """Context manager: this session is the default one (`Tensor.eval`, `Operation.run`)."""
        return default_session(self)

    def __enter__(self) -> Any:
        if current_graph() is not self._graph:
            ctx = self._graph.as_default()
            ctx.__enter__()
            self._contexts.append(ctx)
        ctx = default_session(self)
        ctx.__enter__()
        self._contexts.append(ctx)
        return self

    def __exit__(self, *exc: Any) -> Any:
        while self._contexts:
            self._contexts.pop().__exit__(None, None, None)
        self.close()
        return False

    def close(self) -> None:
        """Free the session's values; using it afterwards is a RuntimeError."""
        self._closed = True
        self._values.clear()
        self._plans.clear()
        self._feed_info.clear()

    def list_devices(self) -> Any:
        return []

    # --- run --------------------------------------------------------------------------------

    @api_boundary
    def run(self, fetches: Any, feed_dict: Any = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """The values of ``fetches`` (tensors, operations, variables, their names, or any
        nesting of them in lists, tuples, namedtuples and dicts; an operation gives None),
        with the tensors of ``feed_dict`` taking the values given.

        Raises:
            RuntimeError: when the session is closed.
            TypeError: for a fetch or a feed key that is not a graph element.
            ValueError: for a fed value of a shape the tensor cannot have, or one that does
                not convert to its dtype.
            finegrad.errors.InvalidArgumentError: when a placeholder the fetches need is not
                fed.
            finegrad.errors.FailedPreconditionError: when they read an uninitialized variable.
        """
        del options, run_metadata
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if type(fetches) is list and all(isinstance(x, _LEAVES) for x in fetches):
            leaves = fetches     # the common case, without nest's walk
        else:
            leaves = nest.flatten(fetches) if not isinstance(fetches, _LEAVES) else [fetches]
        if fetches is None or not leaves and fetches is not None and \
                not isinstance(fetches, (list, tuple, dict)):
            raise TypeError(f"Argument `fetch` = {fetches!r} has invalid type "
                            f"\"{type(fetches).__name__}\". Cannot be None")
        items = [self._fetch_item(x) for x in leaves]
        feeds = self._feeds(feed_dict)
        key = (tuple(k for k, _ in items), tuple(feeds))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = _Plan(self._graph, items, list(feeds))
            plan.conc.jit_compile = self._jit
        consts = {i: x._value for i, ((kind, _), x) in enumerate(items) if kind == "c"}
        values = plan.run(self._values, list(feeds.values()), consts)
        if isinstance(fetches, _LEAVES):
            return values[0]
        if leaves is fetches:
            return values
        return _slices_as_values(nest.pack_sequence_as(fetches, values))

    def load(self, var: Any, value: TensorLike) -> None:
        """Give ``var`` the value ``value`` in this session (``Variable.load``)."""
        v = np.asarray(value, dtype=var._storage.dtype)
        if v.shape != tuple(var.shape):
            raise ValueError(f"Cannot feed value of shape {v.shape} for variable {var.name}, "
                             f"which has shape {tuple(var.shape)}")
        self._values[id(var)] = v

    def make_callable(self, fetches: Any, feed_list: Any = None,
                      accept_options: bool = False) -> Any:
        """A function of the values of ``feed_list`` that runs ``fetches``."""
        feed_list = list(feed_list or ())

        def call(*values):
            return self.run(fetches, dict(zip(feed_list, values, strict=True)))
        return call

    def _fetch_item(self, x):
        """(The plan's key for fetch ``x``, what the plan needs to get it)."""
        g = self._graph
        if x is None:
            raise TypeError("Argument `fetch` = None has invalid type \"NoneType\". Cannot be "
                            "None")
        if isinstance(x, str):
            x = _element(g, x, "fetch")
        if isinstance(x, Operation):
            if x.graph is not g:
                raise ValueError(f"Argument `fetch` = {x!r} cannot be interpreted as a Tensor. "
                                 f"(Operation {x.name} is not an element of this graph.)")
            return ("o", id(x)), x
        if isinstance(x, Variable):
            return ("v", id(x)), x
        if not isinstance(x, Tensor):
            raise TypeError(f"Argument `fetch` = {x!r:.60} has invalid type "
                            f"\"{type(x).__name__}\", must be a string or Tensor. (Can not "
                            f"convert a {type(x).__name__} into a Tensor or Operation.)")
        s = g._recorder.slots.get(id(x))
        if s is not None and g._recorder.alive.get(id(x)) is x:
            return ("t", s), x
        if graphs.graph_of(x) not in (None, g):
            raise ValueError(f"Argument `fetch` = {x.name} cannot be interpreted as a Tensor. "
                             f"(Tensor {x.name} is not an element of this graph.)")
        return ("c", None), x    # a constant made eagerly: its value, given at each run

    def _feeds(self, feed_dict):
        """{slot: value} of ``feed_dict``, each value converted to its tensor's dtype and
        checked against its static shape, as TensorFlow does."""
        out = {}
        if not feed_dict:
            return out
        known = self._feed_info
        for key, value in feed_dict.items():
            info = known.get(id(key))
            if info is None or info[0] is not key:
                info = known[id(key)] = (key,) + self._feed_target(key)
            _, slot, np_dtype, dims, t = info
            if isinstance(value, (Tensor, Variable)):
                raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable "
                                "feed values include Python scalars, strings, lists, numpy "
                                "ndarrays, or TensorHandles.")
            v = value if type(value) is np.ndarray and value.dtype == np_dtype else \
                np.asarray(value, dtype=np_dtype)
            shape = v.shape
            if len(shape) != len(dims) or any(
                    d is not None and d != n for d, n in zip(dims, shape, strict=True)):
                v = _feed_value(t, v)     # the checks, with TensorFlow's errors
            out[slot] = v if shape else v[()]
        return out

    def _feed_target(self, key):
        """(slot, NumPy dtype, static sizes, tensor) of feed_dict key ``key``."""
        g = self._graph
        rec = g._recorder
        t = key
        if isinstance(t, str):
            try:
                t = g.as_graph_element(t)
            except (KeyError, ValueError) as e:
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: "
                                f"{str(e).strip(chr(34))}") from None
        if isinstance(t, Variable):
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: the variable "
                            f"{t.name} cannot be fed; feed a placeholder instead")
        if not isinstance(t, Tensor):
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: Can not convert a "
                            f"{type(t).__name__} into a Tensor.")
        s = rec.slots.get(id(t))
        if s is None or rec.alive.get(id(t)) is not t:
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: Tensor "
                            f"{graphs._describe(t)} is not an element of this graph.")
        shape = t.shape
        dims = tuple(shape) if shape.rank is not None else (None,) * np.ndim(t._value)
        return s, t._value.dtype, dims, t


def _feed_value(t, value):
    np_dtype = t._value.dtype
    v = np.asarray(value, dtype=np_dtype)
    static = t.shape
    if not TensorShape(v.shape).is_compatible_with(static):
        raise ValueError(f"Cannot feed value of shape {v.shape} for Tensor {t.name}, which "
                         f"has shape {_shape_text(static)}")
    if static.rank is None and v.ndim != np.ndim(t._value):
        raise ValueError(f"finegrad.compat.v1.Session.run: placeholder {t.name} was made "
                         f"with an unknown shape, which finegrad builds as rank "
                         f"{np.ndim(t._value)}; fed a value of shape {v.shape}. Give the "
                         f"placeholder a shape (None for the sizes that vary)")
    return v if v.ndim else v[()]


def _shape_text(shape):
    if shape.rank is None:
        return "<unknown>"
    return "(" + ", ".join(str(d) for d in shape) + ("," if shape.rank == 1 else "") + ")"


def _element(g, name, what):
    try:
        return g.as_graph_element(name)
    except (KeyError, ValueError) as e:
        raise ValueError(f"Argument `{what}` = {name} cannot be interpreted as a Tensor. "
                         f"({str(e).strip(chr(34))})") from None


_LEAVES = (Tensor, Operation, Variable, str)


class _Plan:
    """The nodes some fetches need, compiled as one graph of the fed values."""

    def __init__(self, graph, items, feed_slots):
        rec = graph._recorder
        extra, outputs, extra_meta = [], [], {}
        nxt = rec._next
        walk = _Walk(graph, set(feed_slots))
        for (kind, _), x in items:
            if kind == "t":
                s = rec.slots[id(x)]
                outputs.append(OutSlot(s))
                walk.slot(s)
            elif kind == "o":
                outputs.append(None)
                walk.op(x)
            elif kind == "v":
                meta = ((tuple(x._storage.shape)), x._storage.dtype)
                extra.append(Node(read_variable_p, (), {"var": x}, (nxt,), [meta]))
                extra_meta[nxt] = meta
                outputs.append(OutSlot(nxt))
                nxt += 1
            else:
                outputs.append(None)
        _add_value_guards(graph, walk, set(feed_slots), any(k == "c" for (k, _), _ in items))
        needed = sorted(walk.nodes)
        nodes = [rec.nodes[i] for i in needed] + extra
        g = ir.Graph("session_run", list(feed_slots), [f"feed{i}" for i in range(len(feed_slots))],
                     {s: v for s, v in rec.consts.items() if s in walk.consts}, nodes,
                     list(outputs), {**rec.meta, **extra_meta})
        slots = set(feed_slots) | {s for n in nodes for s in n.outs}
        g.sym = {s: sh for s, sh in rec.sym.items() if s in slots}
        g.dyn = {s: frozenset(i for i, d in enumerate(sh) if type(d) is Dim)
                 for s, sh in g.sym.items()}
        g.guards = _guards(rec, g, walk.nodes)
        self.outputs = outputs
        self.conc = ConcreteFunction(g, rec, [True] * len(feed_slots))
        self.conc.polymorphic = bool(g.sym)

    def _run_compiled(self, compiled, feeds):
        try:
            return compiled.run(feeds)
        except DataDependentSize as e:
            if not self.conc.polymorphic:
                raise
            return _resolve_again(self.conc, feeds, e)

    def _run_executor(self, feeds):
        """The outputs of the plan run by finegrad's executor."""
        conc = self.conc
        if conc.polymorphic:   # compiled once per size of the fed None dims
            compiled, outs = conc._sized_for(feeds)
        else:
            compiled, outs = conc._compiled, None
            if compiled is None:
                compiled = conc._compiled = pipeline.compiled(conc.graph)
        return self._run_compiled(compiled, feeds) if outs is None else outs

    def _run_xla(self, feeds):
        """The outputs of the plan compiled with XLA (``global_jit_level`` ON_1 / ON_2), or
        None where it runs on the executor: XLA cannot take the graph (warned once), or a
        variable it reads or assigns has no value in this session yet (an initializer's
        plan; a read of it then raises TensorFlow's error from the executor)."""
        if not self.conc._uses_xla():
            return None
        try:
            return self.conc.run_xla(feeds)
        except FailedPreconditionError:
            return None

    def run(self, values, feeds, consts):
        conc = self.conc
        with _Outside(values):
            try:
                outs = self._run_xla(feeds) if conc.jit_compile else None
                if outs is None:
                    outs = self._run_executor(feeds)
            except GuardFailed as e:
                raise InvalidArgumentError(None, None, f"finegrad.compat.v1.Session.run: the "
                                           f"graph was built for other sizes of the fed "
                                           f"tensors' None dimensions: {e}") from None
            except DataDependentSize as e:   # no Python to run again, as a function would
                raise InvalidArgumentError(None, None, f"finegrad.compat.v1.Session.run: {e}; "
                                           f"finegrad's TF1 graphs keep sizes that depend on "
                                           f"values as the graph was built (TensorFlow "
                                           f"computes them when it runs): compute this "
                                           f"eagerly or in a finegrad.function") from None
        res = []
        for i, (o, v) in enumerate(zip(self.outputs, outs, strict=True)):
            if o is None:
                res.append(consts.get(i))
            else:
                if type(v) is np.ndarray and (not v.flags.writeable or not v.ndim):
                    v = v.copy() if v.ndim else v[()]
                res.append(v)
        return res


def _resolve_again(conc, feeds, error):
    """The outputs of a polymorphic plan whose compiled form had another `boolean_mask`
    count in its shapes: the plan resolved again for this run (op by op, then compiled).
    A plan that assigns variables refuses (its assignments before the mask already ran)."""
    if any(n.prim is ir.assign_variable_p for n in conc.graph.nodes):
        raise InvalidArgumentError(None, None, f"finegrad.compat.v1.Session.run: {error}; "
                                   f"this run also assigns variables, so it cannot be "
                                   f"resolved again: fetch the masked values and the "
                                   f"updates in two runs") from None
    conc._sized.pop(tuple(np.shape(v) for v in feeds), None)
    return conc._sized_for(feeds)[1]


def _guards(rec, g, nodes):
    """The trace's guards that this plan's symbols decide: those the Python that built the
    graph decided, and those of the nodes the plan runs (a guard a node's recording decided
    binds only the runs that need that node)."""
    binding = {}
    for sh in g.sym.values():
        for d in sh:
            if type(d) is Dim and d.symbol_name() is not None:
                binding[d.symbol_name()] = d.value
    out = []
    for guard in rec.root.guards:
        owner = rec.guard_owner.get(id(guard))
        if owner is not None and owner not in nodes:
            continue
        try:
            guard.holds(binding)
        except Exception:  # a guard on sizes this plan does not have
            continue
        out.append(guard)
    return out


def _add_value_guards(graph, walk, fed, every=False):
    """Add to the plan the graph's value guards (`ir.size_guard_p`: a tensor's value used
    as a size while building, as ``range(shape(x)[0])``) whose inputs this run can compute
    and that what the plan runs was built from (`value_guards.GuardUses`; a guard with
    no known use, or ``every`` for a plan fetching constants, joins every plan): a run
    feeding another value then raises instead of using the built one. A guard that needs an
    unfed placeholder is left out (the run cannot have changed its value)."""
    rec = graph._recorder
    targets, used = rec.guard_uses.targets, rec.guard_uses.used
    changed = True
    while changed:   # a guard's own inputs may need other guards
        changed = False
        for i, node in enumerate(rec.nodes):
            if node.prim is not ir.size_guard_p or i in walk.nodes:
                continue
            nodes, consts = targets.get(i, ((), ()))
            if i in used and not every and walk.nodes.isdisjoint(nodes) \
                    and walk.consts.isdisjoint(consts):
                continue
            sub = _Walk(graph, fed)
            try:
                for s in node.ins:
                    sub.slot(s)
            except InvalidArgumentError:
                continue
            walk.nodes |= sub.nodes | {i}
            walk.consts |= sub.consts
            changed = True


class _Walk:
    """The nodes (and constants) that fetches need, through data and control inputs, stopping
    at fed slots."""

    def __init__(self, graph, fed):
        self.graph, self.rec, self.fed = graph, graph._recorder, fed
        self.nodes, self.consts, self._seen, self._ops = set(), set(), set(), set()

    def slot(self, s):
        self._walk([("s", s)])

    def op(self, op):
        self._walk([("o", op)])

    def _walk(self, stack):
        rec = self.rec
        while stack:
            kind, x = stack.pop()
            if kind == "o":
                if id(x) not in self._ops:
                    self._ops.add(id(x))
                    stack += [("o", c) for c in x.control_inputs]
                    if x.node is not None:
                        self.nodes.add(x.node)
                        stack += [("s", s) for s in rec.nodes[x.node].ins]
            elif x not in self._seen and x not in self.fed:
                self._seen.add(x)
                if x in rec.consts:
                    self.consts.add(x)
                    continue
                ph = self.graph._placeholders.get(x)
                if ph is not None:
                    raise InvalidArgumentError(
                        None, ph, f"You must feed a value for placeholder tensor '{ph.name}' "
                        f"with dtype {ph.dtype.name} and shape {_tf_shape(ph.shape)}")
                op = rec.producer.get(x)
                if op is not None:
                    stack.append(("o", op))


def _tf_shape(shape):
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class InteractiveSession(Session):
    """A session that makes itself the default session when it is made (for shells and
    notebooks: `Tensor.eval` and `Operation.run` use it without a ``with`` block).

    >>> import finegrad as fg
    >>> g = fg.Graph()
    >>> with g.as_default():
    ...     x = fg.compat.v1.placeholder(fg.float32, [])
    ...     y = x + 1.
    >>> sess = fg.compat.v1.InteractiveSession(graph=g)
    >>> float(y.eval({x: 2.}))
    3.0
    >>> sess.close()
    """

    def __init__(self, target: str = "", graph: Any = None, config: Any = None) -> None:
        super().__init__(target, graph, config)
        self._default: Any = default_session(self)
        self._default.__enter__()

    def close(self) -> None:
        if getattr(self, "_default", None) is not None:
            self._default.__exit__(None, None, None)
            self._default = None
        super().close()
