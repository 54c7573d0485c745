"""finegrad.function: trace Python into a graph once per input signature, then run the graph.

`Function` is the decorated function: it keys calls by their input signature (shapes and
dtypes of tensors, values of Python arguments), traces a new signature by running the Python
function once with the call's own values while a `GraphBuilder` (graph/tracing/builder.py) is the
only active recorder, and keeps one `ConcreteFunction` (graph/tracing/concrete.py) per signature,
least recently used dropped first. The first call then runs the graph like every later call.
A Python ``if`` on a traced tensor is a TypeError that names `finegrad.cond`. Inside a trace,
`gradients` (graph/tracing/gradients.py) gives symbolic gradients; tapes and accumulators also work
inside traces (they record on top of the builder).

Under an input_signature with ``None`` dimensions, every value's shape holds symbolic sizes
(graph/compile/symbolic.py) that the graph resolves at each call, so one graph serves every size
(within the guards the trace decided). With ``reduce_retracing``, a retrace that differs from
an earlier one in sizes only opens those sizes, as TensorFlow generalizes shapes.

The names defined in builder.py, concrete.py and gradients.py stay importable from here.
"""

from __future__ import annotations

import collections
import functools
import inspect
import threading
import warnings
import weakref

import numpy as np

from finegrad._src.tracebacks import api_boundary, user_stacklevel
from finegrad._src import core, nest
from finegrad._src.graph.tracing.builder import GraphBuilder, TensorSpec, is_traced  # noqa: F401
from finegrad._src.graph.tracing.concrete import ConcreteFunction, replay  # noqa: F401
from finegrad._src.graph.tracing.gradients import gradients  # noqa: F401
from finegrad._src.graph.ir import assign_variable_p
from finegrad._src.graph.xla.inputs import adopt_arrays
from finegrad._src.graph.compile.symbolic import GuardFailed
from finegrad._src.api.device_config import _EAGER
from finegrad._src.api.scopes import name_scope
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.ops.array.boolean_mask import DataDependentSize
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable

from typing import Any


#: how many traced graphs one Function keeps (least recently used ones are dropped)
MAX_CONCRETE_FUNCTIONS = 256


# --- function ---------------------------------------------------------------------------------

def function(func: Any = None, input_signature: Any = None, autograph: bool = True,
             jit_compile: Any = None, reduce_retracing: bool = False,
             experimental_implements: Any = None, experimental_autograph_options: Any = None,
             experimental_attributes: Any = None, experimental_relax_shapes: Any = None,
             experimental_compile: Any = None, experimental_follow_type_hints: Any = None,
             name: str | None = None) -> Any:
    """Decorator: trace ``func`` into a graph once per input signature and run the graph.

    TensorFlow's arguments in its order; ``autograph`` and the ``experimental_*`` ones other
    than ``experimental_relax_shapes`` (an old name of ``reduce_retracing``) and
    ``experimental_compile`` (of ``jit_compile``) are accepted and ignored.

    ``jit_compile=True`` compiles each graph with XLA through JAX (graph/xla/): one
    executable per input signature (per concrete size of a None dimension), on the device of
    the enclosing `finegrad.device` block; nodes whose primitive has no lowering run on the
    host as callbacks, listed by ``get_concrete_function(...).compiled_source`` (which shows
    the jaxpr). Calls under a tape or an accumulator replay the graph as usual. Without JAX
    installed it warns once (``pip install "finegrad[xla]"``) and runs finegrad's executor;
    ``None`` and False run finegrad's executor. As in TensorFlow there is no ``device=``
    argument: a `finegrad.device` block around the call chooses the device. Its arguments
    may be JAX arrays and PyTorch CPU tensors (any DLPack producer on the CPU): they are
    tensors sharing the producer's buffer (graph/xla/inputs.py).

    The signature is the shapes and dtypes of tensor arguments and the values of Python
    arguments; a call with a new one traces again. Python side effects happen while tracing
    only. Variables are captured by reference; ``assign`` inside the function updates them
    at every call. With ``input_signature`` (a list of `TensorSpec`), calls are checked
    against it, and a ``None`` dimension gives one graph for every size of it (traced once;
    ``x.shape`` has None there while tracing, ``finegrad.shape(x)`` is the size). A graph
    whose code fixes such a size is kept for the traced size, and a new size traces again
    with a warning naming the op (see graph/compile/symbolic.py).

    As in TensorFlow: ``func`` may create a `Variable` on its first trace only. A first
    trace that creates variables is followed at once by a second one, which must create
    none (it uses those of the first: ``if self.v is None: self.v = finegrad.Variable(...)``);
    so a function that creates a variable at every call is a ValueError at its first call,
    never a variable that silently keeps or loses its state. A later trace that creates
    variables is a ValueError too, and so is a variable initialized from a traced tensor.
    A tensor made during a trace and kept past it (in a global or an attribute) is out of
    scope: using it raises a TypeError naming the function.

    >>> import finegrad as fg
    >>> @fg.function
    ... def f(x):
    ...     return fg.reduce_sum(x * x)
    >>> f(fg.constant([1., 2.])).numpy(), f(fg.constant([3., 4.])).numpy()
    (np.float32(5.0), np.float32(25.0))
    >>> f.experimental_get_tracing_count()
    1
    """
    if func is None:
        return functools.partial(function, input_signature=input_signature,
                                 reduce_retracing=reduce_retracing, jit_compile=jit_compile,
                                 experimental_relax_shapes=experimental_relax_shapes,
                                 experimental_compile=experimental_compile, name=name)
    return Function(func, input_signature, name=name,
                    reduce_retracing=bool(reduce_retracing or experimental_relax_shapes),
                    jit_compile=bool(jit_compile or experimental_compile))


class Function:
    """A Python function traced into graphs, one `ConcreteFunction` per input signature."""

    def __init__(self, func, input_signature=None, instance=None, name=None,
                 reduce_retracing=False, jit_compile=False):
        self._func = func
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._relaxed = []   # (key with None for the sizes that varied, ConcreteFunction)
        self._signature = None if input_signature is None else list(input_signature)
        try:
            self._instance = None if instance is None else weakref.ref(instance)
        except TypeError:   # no weak references to it (e.g. __slots__): held strongly
            self._instance = instance
        self._name = name or getattr(func, "__name__", "function")
        self._cache = collections.OrderedDict()   # signature -> ConcreteFunction, LRU
        self._polys = []      # the graphs serving every size of the signature's None dims
        #                       (more than one when a call broke the guards of the others)
        self._warned_shapes = False
        self._count = [0]
        self._lock = threading.RLock()
        self._last = None   # (the tensor key of the last call, its ConcreteFunction)
        self._traced = False  # whether this (bound) function has traced once: only its first
        #                       trace may create variables, as in TensorFlow
        functools.update_wrapper(self, func)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = self.__dict__.setdefault("_bound", {})
        key = id(instance)
        f = bound.get(key)
        if f is None or f._self() is not instance:
            f = Function(self._func, self._signature, instance, self._name,
                         self._reduce_retracing, self._jit_compile)
            f._count = self._count
            bound[key] = f
            try:   # the bound function must not keep the instance alive
                weakref.finalize(instance, bound.pop, key, None)
            except TypeError:
                pass
        return f

    def _self(self):
        inst = self._instance
        return inst() if isinstance(inst, weakref.ref) else inst

    @property
    def python_function(self):
        return self._func

    def experimental_get_tracing_count(self):
        """How many times the Python function has been traced."""
        return self._count[0]

    def _check_signature(self, args):
        if self._signature is None:
            return
        if len(args) != len(self._signature):
            raise TypeError(f"finegrad.function: {self._name} was declared with "
                            f"input_signature of {len(self._signature)} tensors, called with "
                            f"{len(args)} arguments")
        for i, (a, spec) in enumerate(zip(args, self._signature, strict=True)):
            t = a if isinstance(a, (Tensor, TensorSpec)) else convert_to_tensor(a, spec.dtype)
            if isinstance(t, TensorSpec):
                t = _spec_example(t)
            if not spec.is_compatible_with(t):
                raise TypeError(f"finegrad.function: argument {i} of {self._name} has shape "
                                f"{tuple(t.shape)} and dtype {t.dtype.name}, which does not "
                                f"match its input_signature {spec}")

    def _key(self, args, kwargs):
        def k(x):
            if isinstance(x, Tensor):
                return ("T", x._value.shape, x._value.dtype)
            if isinstance(x, TensorSpec):
                if not x._rank_known:
                    _spec_example(x)   # refuses it with the reason
                return ("T", tuple(_NONE_SIZE if s is None else s for s in x.shape),
                        x.dtype._np)
            if isinstance(x, Variable):
                return ("V", id(x))
            if isinstance(x, (np.ndarray, np.generic)):
                return ("A", np.shape(x), x.dtype)
            try:
                hash(x)
                return ("P", type(x), x)
            except TypeError:
                return ("O", id(x))
        flat = nest.flatten((args, kwargs))
        return (_structure_key((args, kwargs)), tuple(k(x) for x in flat))

    def get_concrete_function(self, *args, **kwargs):
        """The `ConcreteFunction` for these arguments (tensors or `TensorSpec`s), tracing it
        if needed. With no arguments, uses ``input_signature``."""
        if not args and not kwargs and self._signature is not None:
            args = tuple(self._signature)
        self._check_signature(args)
        with self._lock:   # concurrent first calls: one trace per signature, as in TensorFlow
            return self._concrete_function(args, kwargs)

    def _concrete_function(self, args, kwargs):
        broken = None
        if self._polys:
            conc, broken = self._polymorphic_function(args, kwargs)
            if conc is not None:
                return conc
        key = self._key(args, kwargs)
        conc = self._cache.get(key)
        if conc is None and self._reduce_retracing:
            conc = self._relaxed_function(key, args, kwargs)
        if conc is None:
            why = broken
            if why is not None and not self._warned_shapes:
                self._warned_shapes = True
                warnings.warn(f"finegrad.function: {self._name} is traced again for new "
                              f"argument shapes under its input_signature: its graph cannot "
                              f"serve these sizes of the None "
                              f"dimensions because of {why}, so each new size is one more "
                              f"trace (and its Python side effects run again)", UserWarning,
                              stacklevel=user_stacklevel())
            conc = self._trace(args, kwargs)
            if conc.polymorphic and self._signature is not None:
                self._polys.append(conc)  # calls under the signature run these graphs
                if len(self._polys) > MAX_CONCRETE_FUNCTIONS:
                    del self._polys[0]
                return conc
            self._cache[key] = conc
            if len(self._cache) > MAX_CONCRETE_FUNCTIONS:  # retracing must not leak
                self._cache.popitem(last=False)
        elif key in self._cache:
            self._cache.move_to_end(key)
        return conc

    def _polymorphic_function(self, args, kwargs):
        """(The first polymorphic graph whose guards these arguments' sizes keep, or None;
        the guard the last one broke)."""
        specs = [x for x in nest.flatten((args, kwargs)) if isinstance(x, TensorSpec)]
        if specs:   # (one of unknown rank: refused by _key, with the reason)
            return (self._polys[0] if all(x._rank_known for x in specs) else None), None
        broken = None
        for conc in self._polys:
            if not conc.ranks_match(args, kwargs):   # TensorSpec(None): one graph per rank
                continue
            try:
                conc.check(args, kwargs)
            except GuardFailed as e:
                broken = str(e)
                continue
            return conc, None
        return None, broken

    def _relaxed_function(self, key, args, kwargs):
        """reduce_retracing: a graph whose open sizes cover this call, or, when an earlier
        trace differs from it in sizes only, one traced with those sizes open (as
        TensorFlow generalizes shapes). None when neither applies."""
        for pattern, conc in self._relaxed:
            if _covers(pattern, key):
                try:
                    conc.check(args, kwargs)
                except GuardFailed:    # its trace decided something these sizes break
                    continue
                return conc
        for other in self._cache:
            pattern = _relax(other, key)
            if pattern is None:
                continue
            # one key entry per argument leaf (see _key): its open sizes are the dynamic axes
            dyn = [tuple(i for i, d in enumerate(p[1]) if d is None) if p[0] == "T" else ()
                   for p in pattern[1]]
            conc = self._trace(args, kwargs, dynamic=dyn)
            if conc.polymorphic:
                self._relaxed.append((pattern, conc))
                if len(self._relaxed) > MAX_CONCRETE_FUNCTIONS:
                    del self._relaxed[0]
                return conc
            self._cache[key] = conc
            return conc
        return None

    def _open_axes(self, leaves):
        """Per leaf, the axes its input_signature (or the TensorSpec given for it) leaves
        open (None); all of them for a spec of unknown rank (one graph per rank)."""
        specs = self._signature if self._signature is not None and \
            len(leaves) == len(self._signature) else [None] * len(leaves)
        out = []
        for x, spec in zip(leaves, specs, strict=True):
            spec = x if isinstance(x, TensorSpec) else spec
            if spec is not None and not spec._rank_known and not isinstance(x, TensorSpec):
                out.append(tuple(range(np.ndim(x._value if isinstance(x, Tensor) else x))))
            else:    # (a TensorSpec(None) leaf itself cannot be traced: _spec_example says so)
                out.append(() if spec is None or not spec._rank_known else
                           tuple(a for a, s in enumerate(spec.shape) if s is None))
        return out

    @api_boundary
    def __call__(self, *args, **kwargs):
        if _EAGER[0]:   # finegrad.config.run_functions_eagerly(True): the Python, as it is
            f = self._func if self._instance is None else functools.partial(self._func,
                                                                            self._self())
            return f(*args, **kwargs)
        last = self._last
        if last is not None and not kwargs and _tensor_key(args) == last[0]:
            conc = last[1]   # the last call's graph, for tensors of the same shapes and dtypes
        else:
            if self._jit_compile:   # JAX arrays, PyTorch tensors: tensors, not Python objects
                args, kwargs = adopt_arrays(args, kwargs)
            if self._signature is not None:
                args, kwargs = self._signature_args(args, kwargs), {}
            conc = None
        while True:
            if conc is None:
                conc = self.get_concrete_function(*args, **kwargs)
                self._remember(conc, args, kwargs)
            try:
                return conc(*args, **kwargs)
            except GuardFailed:   # a guard only the run could check: the next graph, or a
                conc = None       # new trace (get_concrete_function knows it is broken now)
            except DataDependentSize as e:
                return self._run_eagerly(conc, e, args, kwargs)

    def _remember(self, conc, args, kwargs):
        """Keep ``conc`` for the next call when that call can skip the signature's lookup:
        tensors only, of the same shapes and dtypes, and a graph traced for those (not one
        for every size of open axes, whose guards each call checks)."""
        key = None if kwargs or conc.polymorphic or self._polys else _tensor_key(args)
        self._last = None if key is None else (key, conc)

    def _signature_args(self, args, kwargs):
        """With an input_signature, TensorFlow accepts its arguments by keyword too, and
        Python lists and numbers for them: all as positional tensors of the spec's dtype."""
        if kwargs:
            params = list(inspect.signature(self._func).parameters)[
                (self._instance is not None) + len(args):]
            extra = [k for k in kwargs if k not in params[:len(self._signature) - len(args)]]
            if extra:
                raise TypeError(f"finegrad.function: {self._name} got unexpected keyword "
                                f"arguments {extra} for its input_signature of "
                                f"{len(self._signature)} tensors")
            args = tuple(args) + tuple(kwargs[k] for k in params if k in kwargs)
        specs = (list(self._signature) + [None] * len(args))[:len(args)]
        return tuple(convert_to_tensor(a, spec.dtype) if isinstance(spec, TensorSpec) and
                     not isinstance(a, (Tensor, TensorSpec)) and isinstance(
                         a, (list, tuple, int, float, np.ndarray, np.generic)) else a
                     for a, spec in zip(args, specs, strict=True))

    def _run_eagerly(self, conc, e, args, kwargs):
        """A size that depends on values (boolean_mask) differs from the traced one, and later
        ops may have written the traced size into the graph: run this call's Python eagerly
        instead (unless the graph has already assigned variables)."""
        if any(n.prim is assign_variable_p for n in conc.graph.nodes):
            raise ValueError(f"finegrad.function: {self._name} assigns variables and {e}; "
                             f"it cannot be run again eagerly for this call") from None
        f = self._func if self._instance is None else functools.partial(self._func, self._self())
        return f(*args, **kwargs)

    def _trace(self, args, kwargs, dynamic=None):
        self._count[0] += 1
        builder = GraphBuilder(self._name)
        leaves = nest.flatten((args, kwargs))
        if dynamic is None:
            dynamic = self._open_axes(leaves)
        builder.poly = any(dynamic)
        builder.examples = any(isinstance(x, TensorSpec) for x in leaves)
        try:
            out = self._run_trace(builder, args, kwargs, leaves, dynamic)
            first = not self._traced
            self._check_variable_creation(builder)
            again = first and builder.created_variables   # TF: traced again, creating none
            if not again:
                names = _arg_names(self._func, leaves, skip=self._instance is not None)
                graph = builder.finish(out, names)
        except BaseException:   # a trace that raised: what it made is out of scope too
            builder.release()
            raise
        if again:
            builder.release()
            return self._trace(args, kwargs, dynamic)
        builder.release(graph)
        conc = ConcreteFunction(graph, builder, [isinstance(x, (Tensor, TensorSpec, np.ndarray,
                                                                np.generic)) for x in leaves])
        conc.polymorphic = builder.poly
        conc.jit_compile = self._jit_compile
        return conc

    def _run_trace(self, builder, args, kwargs, leaves, dynamic):
        """Run the Python function on traced arguments under ``builder``; its output."""
        traced = []
        # as in TensorFlow, the function's graph starts at the root name scope
        with core.tracing(builder), name_scope(""):
            for x, dyn in zip(leaves, dynamic, strict=True):
                if isinstance(x, TensorSpec):
                    x = _spec_example(x)
                elif isinstance(x, (np.ndarray, np.generic)):
                    x = Tensor(x)
                if isinstance(x, Tensor):
                    t = Tensor(x._value)
                    builder.add_arg(t, dyn)
                    traced.append(t)
                else:
                    traced.append(x)
            targs, tkwargs = nest.pack_sequence_as((args, kwargs), traced)
            f = self._func if self._instance is None else \
                functools.partial(self._func, self._self())
            return f(*targs, **tkwargs)

    def _check_variable_creation(self, builder):
        """TensorFlow's rule for variables created by the traced Python: the first trace
        creates them once (the graph then uses those, so they keep their state from call to
        call); a later trace (new shapes or dtypes) creating variables is a ValueError."""
        if builder.created_variables and self._traced:
            raise ValueError(f"finegrad.function: {self._name!r} created "
                             f"{len(builder.created_variables)} finegrad.Variable(s) while "
                             f"traced again; it only supports singleton Variables created on "
                             f"the first trace, as in TensorFlow (a function creating one at "
                             f"every call would reset or keep its state wrongly). Create them "
                             f"outside the function (or once, e.g. `if self.v is None:`)")
        self._traced = True


def _relax(a, b):
    """The key that leaves open the sizes in which keys ``a`` and ``b`` differ, if they differ
    in tensor sizes only (same structure, dtypes, ranks and Python values); else None."""
    if a[0] != b[0] or len(a[1]) != len(b[1]) or a == b:
        return None
    out = []
    for x, y in zip(a[1], b[1], strict=True):
        if x[0] == "T" and y[0] == "T" and x[2] == y[2] and len(x[1]) == len(y[1]):
            dims = tuple(d if d == e else None for d, e in zip(x[1], y[1], strict=True))
            out.append(("T", dims, x[2]))
        elif x == y:
            out.append(x)
        else:
            return None
    return (a[0], tuple(out))


def _covers(pattern, key):
    if pattern[0] != key[0] or len(pattern[1]) != len(key[1]):
        return False
    for p, k in zip(pattern[1], key[1], strict=True):
        if p[0] == "T" and k[0] == "T":
            if p[2] != k[2] or len(p[1]) != len(k[1]) or any(
                    d is not None and d != e for d, e in zip(p[1], k[1], strict=True)):
                return False
        elif p != k:
            return False
    return True


def _tensor_key(args):
    """The shapes and dtypes of positional arguments that are all tensors (a list), or None
    (an argument that is not a `Tensor`)."""
    key = []
    for a in args:
        if type(a) is not Tensor:
            return None
        v = a._value
        key.append(v.shape)
        key.append(v.dtype)
    return key


def _structure_key(x):
    if isinstance(x, dict):
        return ("d", tuple((k, _structure_key(x[k])) for k in sorted(x, key=str)))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_structure_key(v) for v in x))
    return "."


#: the size a None dimension of a TensorSpec has while tracing (not 1: a size-1 axis would
#: broadcast, and a graph for every size must not rely on that)
_NONE_SIZE = 2


def _spec_example(spec):
    if not spec._rank_known:
        raise ValueError(f"finegrad.function: cannot trace for {spec!r}, whose shape (even "
                         f"its rank) is unknown; call the function with a tensor, or give the "
                         f"TensorSpec a shape with None for the sizes that vary")
    shape = tuple(_NONE_SIZE if s is None else s for s in spec.shape)
    return Tensor(np.zeros(shape, spec.dtype._np) if shape else spec.dtype._np.type(0))


def _arg_names(func, leaves, skip):
    try:
        params = list(inspect.signature(func).parameters)[skip:]
    except (TypeError, ValueError):
        params = []
    names, k = [], 0
    for i, x in enumerate(leaves):
        if isinstance(x, (Tensor, TensorSpec, np.ndarray, np.generic)):
            names.append(params[i] if i < len(params) and len(leaves) == len(params)
                         else f"arg{k}")
            k += 1
    return names
