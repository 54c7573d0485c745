"""custom_gradient: users in control of the gradient (RegisterGradient is in register.py).

`custom_gradient(f)` runs ``f`` as ordinary recorded ops, so the tensors ``f`` computes (and that
``grad_fn`` closes over) are differentiable by outer tapes, as in TensorFlow's eager mode. It then
gives each output a fresh identity and records one op, ``custom_gradient``, from the inputs (and
the variables ``f`` read) to those outputs; that op's VJP calls ``grad_fn``. Gradients therefore
reach the inputs only through ``grad_fn``; second derivatives go through ``grad_fn``'s own ops; and
forward mode transposes ``grad_fn`` (see forward.py).
"""

from __future__ import annotations

import dataclasses
import functools
import numbers
import warnings
from typing import Any

import numpy as np
from numpy import ndarray

from finegrad._src.tracebacks import api_boundary, defined_at, user_stacklevel
from finegrad._src import core, nest
from finegrad._src.ad.custom_returns import (_LEAF_CASES, _RETURN_CASES, _WARNED, _check,
                                             _split_var_grads, _unused, _warn_all_none,
                                             _without_empty_variable_grads)
from finegrad._src.ad import linearity
from finegrad._src.ad.rediff import jvp_by_transposing
from finegrad._src.ad.signatures import _accepts_variables, _param_names, _positional_count
from finegrad._src.core import Primitive
from finegrad._src.dtypes import INEXACT_SCALARS
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.ops.zeros_and_axes import instantiate_zeros
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable


class _CustomPrimitive(Primitive):
    """The custom_gradient primitive. Its VJP rule (`_custom_vjp`) is the call's own rule,
    ``params["rule"]``; `run_vjp` hands it over directly rather than by the keyword call every
    other rule gets (a reverse pass through a custom_gradient call comes here each time)."""

    def run_vjp(self, ct, ins, out, params, needs, batch=()):
        if self.gradient_override is not None:   # RegisterGradient("custom_gradient")
            return super().run_vjp(ct, ins, out, params, needs, batch)
        return _rule_vjp(params["rule"], ct, needs)


custom_p = _CustomPrimitive("custom_gradient", multiple_results=True, unify=False)


@dataclasses.dataclass(frozen=True)
class CustomLayout:
    """The inputs of one custom_gradient op, in order: the tensor leaves of ``f``'s
    arguments (``n_args``), the reads of the variables ``f`` used (``n_vars``), then the
    outputs ``f`` computed (``n_outs``), passed through so that a traced graph knows where
    its values come from. Gradients flow to the first two groups only."""

    n_args: int
    n_vars: int
    n_outs: int
    # n_args + n_vars: the inputs that get a gradient (a field, read by every reverse pass)
    n_differentiable: int = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "n_differentiable", self.n_args + self.n_vars)

    def differentiable(self, ins):
        """The inputs that get a gradient: the arguments' leaves, then the variable reads."""
        return ins[:self.n_differentiable]

    def outputs(self, ins):
        """The passed-through outputs of ``f`` (the op's last inputs)."""
        return ins[self.n_differentiable:]

    def pad(self, grads):
        """One cotangent per input from those of the differentiable ones (None after)."""
        return tuple(grads) + (None,) * self.n_outs


@custom_p.def_vjp
def _custom_vjp(cts, *ins, out, needs, batch, rule):
    """VJP of a custom_gradient op: the user's grad_fn, checked; nothing flows to the
    passed-through outputs. For a tape that watches none of the differentiable inputs (only
    tensors ``f`` computed from something it captured), the op is the identity on ``f``'s
    outputs, so that tape differentiates ``f``'s own ops, as TensorFlow's eager mode does
    (it records a custom gradient only for a tape that watches one of its inputs)."""
    return _rule_vjp(rule, cts, needs)


def _rule_vjp(rule, cts, needs):
    """`_custom_vjp` of the call whose rule is ``rule``: one cotangent per input."""
    layout = rule.layout
    n = layout.n_differentiable
    if not (needs[0] if n == 1 else any(needs[:n])):
        return (None,) * n + tuple(cts)
    return layout.pad(rule(cts))


@custom_p.def_impl
def _custom_impl(*vals, rule):
    """Forward of a custom_gradient op: the values ``f`` computed, passed through."""
    return rule.layout.outputs(vals)


custom_p.def_shape(lambda *shapes, rule: list(rule.layout.outputs(shapes)))
custom_p.def_lowering(lambda *vals, rule: tuple(rule.layout.outputs(vals)))   # XLA: f's values


@custom_p.def_jvp
def _custom_jvp(primals, tangents, *, out, rule):
    """JVP of a custom_gradient op: the user's forward rule, or grad_fn transposed."""
    ins, tans = rule.layout.differentiable(primals), rule.layout.differentiable(tangents)
    if all(t is None for t in tans):   # only f's own computation carries tangents (see VJP)
        return tuple(rule.layout.outputs(tangents))
    if rule.jvp is not None:
        return rule.forward(ins, instantiate_zeros(ins, tans))
    linearity.check_once(rule, out)   # the first forward-mode use: grad_fn linear in dy?
    return tuple(jvp_by_transposing(rule, ins, tans, out, rule.name))


class _VariableReads:
    """A read listener (`core.listen`) that sees which trainable variables ``f`` reads
    (first-read order) and the tensors the reads made; it passes every read on to the listener
    it replaced (an enclosing custom_gradient's, whose function this read is part of)."""

    __slots__ = ("variables", "reads", "outer")

    def __init__(self):
        self.variables = self.reads = self.outer = None   # made by the first read

    def variable_read(self, variable, tensor):
        if self.reads is None:
            self.variables, self.reads = {}, set()
        if variable.trainable:
            self.variables.setdefault(id(variable), variable)
        self.reads.add(id(tensor))
        if self.outer is not None:
            self.outer.variable_read(variable, tensor)


class _Watcher(_VariableReads):
    """What a recorded call watches while ``f`` runs: its variable reads (a read listener,
    not a recorder, so ``f``'s ops keep `bind`'s one-recorder path), and where each active
    recorder stood before (`Recorder.mark`), to find afterwards, among the ops a tape recorded
    meanwhile, the watched tensors ``f`` captured (`captured`). With a recorder that runs rules
    active (an accumulator), a tape also records the rules' ops, which consume tangents that
    ``f`` never saw; ``f``'s own ops are then logged by an innermost recorder, `_OpLog`.

    ``clean``: no recorder can see a captured tensor (each watched nothing but ``args`` when
    the call began, or keeps no record), so there is nothing to look for afterwards.
    ``opaque``: the one active recorder is clean and needs none of ``f``'s ops (a tape that
    differentiates once: its gradients can only go through the call's rule), so ``f`` runs
    unrecorded, as TensorFlow runs it."""

    __slots__ = ("marks", "log", "_logged", "clean", "opaque")

    def __init__(self, recs, args):
        self.variables = self.reads = self.outer = self.log = self._logged = None
        if len(recs) == 1 and not recs[0].runs_rules:   # the common case: one tape
            r = recs[0]
            m = r.mark(args)
            self.marks, self.clean = ((r, m),), m is None
            self.opaque = m is None and not r.inner_ops
            return
        self.clean = self.opaque = False
        for r in recs:
            if r.runs_rules:
                self.marks, self.log = None, _OpLog()
                return
        self.marks = [(r, r.mark(args)) for r in recs]
        self.clean = all(m is None for _, m in self.marks)

    def captured(self, rec, inputs):
        """The tensors ``rec`` watches that ``f``'s ops consumed and none of them produced,
        other than ``inputs`` and variable reads, in first-use order."""
        if self.log is not None:
            if self._logged is None:
                self._logged = self.log.captured(set(map(id, inputs)).union(self.reads or ()))
            return [t for t in self._logged if rec.watches(t)]
        for r, m in self.marks:
            if r is rec:
                return [] if m is None else r.captured_since(m, set(map(id, inputs)))
        return []   # a recorder that f started and left active: no mark to start from


class _OpLog(core.Recorder):
    """The innermost recorder while ``f`` runs, when a recorder that runs rules is active:
    ``f``'s ops (not the rules outer recorders run), each by one append (which keeps their
    tensors alive while ``f`` runs, so ids stay unambiguous)."""

    def __init__(self):
        self.ops = []

    def record(self, prim, ins, params, out):
        self.ops.append((ins, out))

    def captured(self, known):
        """The tensors ``f``'s ops consumed that none of them produced and whose ids are
        not in ``known``, in first-use order."""
        skip = set()   # what the ops produced, then the captured tensors already listed
        for _, out in self.ops:
            if type(out) is tuple:
                skip.update(map(id, out))
            else:
                skip.add(id(out))
        captured = []
        for ins, _ in self.ops:
            for t in ins:
                k = id(t)
                if k not in skip and k not in known:
                    captured.append(t)
                    skip.add(k)
        return captured


def _is_input(x):
    """Leaves that are differentiable inputs: tensors, variables, numbers and arrays."""
    return isinstance(x, (Tensor, Variable, np.ndarray, np.generic)) or \
        isinstance(x, numbers.Number) and not isinstance(x, bool)


def custom_gradient(f: Any = None, *, jvp: Any = None) -> Any:
    """Decorator: define the gradient of a function yourself (TensorFlow's contract, extended).

    ``f(*args, **kwargs)`` returns ``(y, grad_fn)``; the decorated function returns ``y``, and
    every gradient through it is computed by ``grad_fn``, a vector-Jacobian product:

    - it receives one upstream gradient per leaf of ``y`` when ``y`` is a nested structure
      (``f`` returning ``(a, (b, c))`` gives ``grad_fn(da, db, dc)``, as in TensorFlow), else
      one shaped like ``y``; a ``grad_fn`` whose signature takes exactly one argument per
      top-level output instead (and not one per leaf) gets them nested like the outputs;
    - it returns one gradient per positional argument (shaped like the argument, which may be
      a nested list/tuple/dict; None where there is none), followed by one per keyword
      argument holding tensors, in call order; or a flat sequence with one gradient per
      tensor leaf; or a dict keyed by parameter name;
    - if ``f`` reads trainable variables, it is called as ``grad_fn(*dys, variables=[...])``
      (variables in the order ``f`` first read them) and returns
      ``(grad_inputs, grad_variables)``.

    ``f`` and ``grad_fn`` may compute outside finegrad (NumPy, a simulator): NumPy arrays,
    NumPy scalars and Python numbers they return are converted to tensors, as in TensorFlow.

    Each call is recorded as one op, primitive ``custom_gradient``, from the inputs (and the
    variables read) to the outputs. The ops inside ``f`` and ``grad_fn`` are recorded like any
    others, so higher derivatives go through ``grad_fn``'s own computation (a lone
    non-persistent tape that watches only the arguments, whose gradient can only go through
    ``grad_fn``, runs ``f`` unrecorded, as TensorFlow does). In forward mode, ``grad_fn`` is
    transposed (it is linear in the upstream gradient), unless ``jvp(primals, tangents)`` is
    given: it receives the flat lists of input tensors and their tangents and returns the
    output tangents (structured like ``y``).

    >>> import finegrad as fg
    >>> @fg.custom_gradient
    ... def log1pexp(x):
    ...     e = fg.exp(x)
    ...     def grad(dy):
    ...         return dy * (1 - 1 / (1 + e))
    ...     return fg.math.log(1 + e), grad
    >>> x = fg.constant(100.)
    >>> with fg.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = log1pexp(x)
    >>> tape.gradient(y, x).numpy()
    np.float32(1.0)

    Raises:
        TypeError: when ``f`` read variables and ``grad_fn`` has no ``variables`` parameter,
            or a gradient has the wrong dtype.
        ValueError: when ``grad_fn`` returns the wrong number, structure or shape of gradients.
    """
    if f is None:
        return functools.partial(custom_gradient, jvp=jvp)
    return _CustomGradient(f, jvp=jvp)


class _CustomGradient:
    """The decorated function; a descriptor, so it also works on methods."""

    def __init__(self, f, instance=None, jvp=None):
        self._f = f
        self._instance = instance
        self._jvp = jvp
        self._linear = False   # grad_fn found linear in dy (ad/linearity.py), once
        self._names = {}  # number of positional arguments -> their parameter names
        functools.update_wrapper(self, f)

    def param_names(self, n):
        names = self._names.get(n)
        if names is None:
            skip = self._instance is not None
            names = self._names[n] = _param_names(self._f, n + skip)[skip:]
        return names

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return _CustomGradient(self._f, instance, self._jvp)

    @api_boundary
    def __call__(self, *args, **kwargs):
        f = self._f if self._instance is None else functools.partial(self._f, self._instance)
        recs = core.active_recorders()
        if not recs:
            return self._call_unrecorded(f, args, kwargs)
        watcher = _Watcher(recs, args)
        saved = core.listen(watcher, () if watcher.opaque else None)   # (opaque: unrecorded)
        if watcher.log is not None:
            core.push_recorder(watcher.log)
        try:
            result = f(*args, **kwargs)
        finally:
            if watcher.log is not None:
                core.pop_recorder(watcher.log)
            core.unlisten(saved)
        if type(result) is tuple and len(result) == 2 and callable(result[1]):
            y, grad_fn = result   # the common, well-formed return (`_split` checks others)
        else:
            y, grad_fn = _split(result, self._f)
        if _is_simple(args, kwargs, y, watcher):
            return _record_simple(self, args, y, grad_fn, watcher)
        return _record(self, args, kwargs, y, grad_fn, watcher)

    def _call_unrecorded(self, f, args, kwargs):
        """``f``'s outputs when nothing records; still a TypeError, as in TensorFlow, when
        ``f`` reads trainable variables and ``grad_fn`` cannot receive them."""
        reads = _VariableReads()
        saved = core.listen(reads)
        try:
            y, grad_fn = _split(f(*args, **kwargs), self._f)
        finally:
            core.unlisten(saved)
        if reads.variables:
            in_args = {id(x) for x in nest.flatten((args, kwargs)) if isinstance(x, Variable)}
            _check_variables_param(self._f.__qualname__, grad_fn,
                                   [v for k, v in reads.variables.items() if k not in in_args])
        return _as_outputs(y, self._f.__qualname__)

    def forward_without_rule(self, *args, **kwargs):
        """Run the function's forward computation alone; its autodiff ignores ``grad_fn``."""
        f = self._f if self._instance is None else functools.partial(self._f, self._instance)
        return _split(f(*args, **kwargs), self._f)[0]


def _split(result, f):
    if type(result) is tuple and len(result) == 2 and callable(result[1]):
        return result   # the common, well-formed return
    if isinstance(result, (tuple, list)) and len(result) == 2 and not callable(result[1]):
        raise TypeError(f"finegrad.custom_gradient: {f.__qualname__} must return "
                        f"(outputs, grad_fn); the second element is not callable but "
                        f"{type(result[1]).__name__} {result[1]!r:.40} (return several "
                        f"outputs as one tuple: ((y1, y2), grad_fn)){defined_at(f)}")
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        n = f" of length {len(result)}" if isinstance(result, (tuple, list)) else ""
        raise TypeError(f"finegrad.custom_gradient: {f.__qualname__} must return "
                        f"(outputs, grad_fn), got {type(result).__name__}{n}{defined_at(f)}")
    return result[0], result[1]


_NONE: frozenset = frozenset()


class _Params:
    """The inputs of one call: each parameter's structure and its tensor leaves."""

    __slots__ = ("names", "values", "leaves", "tensors", "variables_in_args", "constants",
                 "tensors_only")

    @classmethod
    def of_tensors(cls, cg, args):
        """The common call, tensors only: one leaf per parameter, nothing to convert."""
        p = cls.__new__(cls)
        p.names = cg.param_names(len(args))   # shared with later calls: read only
        p.values, p.leaves, p.tensors = args, [[a] for a in args], list(args)
        p.variables_in_args = p.constants = _NONE
        p.tensors_only = True   # every parameter is one tensor
        return p

    def __init__(self, cg, args, kwargs):
        self.names = list(cg.param_names(len(args)))
        self.values = list(args)
        for k, v in kwargs.items():
            # a keyword argument is an input only if it holds tensors (or variables), as
            # TensorFlow counts them: `h(x, n=3)` has one input
            if any(isinstance(x, (Tensor, Variable)) for x in nest.flatten(v)):
                self.names.append(k)
                self.values.append(v)
        self.leaves = []      # per parameter: list of (tensor or None) per leaf
        self.variables_in_args = set()
        self.constants = set()  # ids of the leaves made from numbers and arrays: no tape
        for i, v in enumerate(self.values):   # can watch them, so their gradients are unused
            if type(v) is Tensor:  # the common case: one tensor per parameter
                self.leaves.append([v])
                continue
            row = []
            for x in nest.flatten(v):
                if isinstance(x, Variable):
                    self.variables_in_args.add(id(x))
                is_input = _is_input(x) if i < len(args) else isinstance(x, (Tensor, Variable))
                t = convert_to_tensor(x) if is_input else None
                if t is not None and not isinstance(x, (Tensor, Variable)):
                    self.constants.add(id(t))
                row.append(t)
            self.leaves.append(row)
        self.tensors = [t for row in self.leaves for t in row if t is not None]
        self.tensors_only = all(type(v) is Tensor for v in self.values)


def _is_simple(args, kwargs, y, watcher):
    """Whether a call is the common one (`_record_simple`): tensor arguments, one output
    tensor or a flat tuple or list of them, no variables read."""
    if kwargs or watcher.variables:
        return False
    if type(y) is not Tensor:
        if type(y) is not tuple and type(y) is not list or not y:
            return False
        for o in y:
            if type(o) is not Tensor:
                return False
    for a in args:
        if type(a) is not Tensor:
            return False
    return True


def _record(cg, args, kwargs, y, grad_fn, watcher):
    name = cg._f.__qualname__
    params = _Params(cg, args, kwargs)
    variables = [v for k, v in (watcher.variables or {}).items()
                 if k not in params.variables_in_args]
    _check_variables_param(name, grad_fn, variables)
    y, flat_y = _outputs(y, name)
    inputs = params.tensors
    reads = [v.read_value() for v in variables]
    if not watcher.clean:
        _warn_captured(name, watcher, inputs + reads if reads else inputs,
                       core.active_recorders())
    outs = tuple([Tensor(o._value) for o in flat_y])
    rule = _Rule(cg, grad_fn, y, _layout(len(inputs), len(reads), len(flat_y)), params,
                 variables, reads)
    core.record(custom_p, (*inputs, *reads, *flat_y), {"rule": rule}, outs)
    return _structured_like(y, flat_y, outs)


def _structured_like(y, flat_y, outs):
    """``outs`` (one per leaf ``flat_y`` of ``y``) structured like ``y``."""
    if (type(y) is tuple or type(y) is list) and len(y) == len(flat_y) and \
            all(type(o) is Tensor for o in y):   # a flat tuple or list: nothing to walk
        return type(y)(outs)
    return nest.pack_sequence_as(y, list(outs)) if nest.is_nested(y) else outs[0]


def _outputs(y, name):
    """``f``'s outputs as tensors (`_as_outputs`) and their leaves."""
    if type(y) is Tensor:
        return y, [y]
    flat = nest.flatten(y)
    for o in flat:
        if type(o) is not Tensor:
            y = _as_outputs(y, name)
            return y, ([y] if type(y) is Tensor else nest.flatten(y))
    return y, flat   # tensors only: nothing to convert


def _record_simple(cg, args, y, grad_fn, watcher):
    """`_record` for the common call: tensor arguments, one output tensor (or a flat tuple or
    list of them), no variables. Its `_Params` are made only if a gradient asks for them."""
    recs = core.active_recorders()
    if not watcher.clean:
        _warn_captured(cg._f.__qualname__, watcher, args, recs)
    one = type(y) is Tensor
    flat_y = (y,) if one else tuple(y)
    outs = (Tensor(y._value),) if one else tuple([Tensor(o._value) for o in y])
    rule = _Rule(cg, grad_fn, y, _layout(len(args), 0, len(outs)), None, (), (),
                 one and len(args) == 1, args)
    if len(recs) == 1 and not recs[0].runs_rules:   # one tape: what `core.record` does
        recs[0].record(custom_p, args + flat_y, {"rule": rule}, outs)
    else:
        core.record(custom_p, args + flat_y, {"rule": rule}, outs)
    return outs[0] if one else type(y)(outs)


@functools.lru_cache(maxsize=256)
def _layout(n_args, n_vars, n_outs):
    """The (immutable) CustomLayout of these counts, made once."""
    return CustomLayout(n_args, n_vars, n_outs)


def _check_variables_param(name, grad_fn, variables):
    """A TypeError when ``f`` read ``variables`` and ``grad_fn`` cannot receive them."""
    if variables and not _accepts_variables(grad_fn):
        raise TypeError(f"finegrad.custom_gradient: {name} reads the variables "
                        f"{[v.name for v in variables]} but its gradient function "
                        f"{getattr(grad_fn, '__name__', 'grad_fn')} has no `variables` "
                        f"parameter; define grad_fn(*dys, variables=None) returning "
                        f"(grad_inputs, grad_variables)")


def _as_outputs(y, name):
    """``f``'s outputs as tensors: variables are read (e.g. ``v.assign(...)``), and NumPy
    arrays, NumPy scalars and Python numbers (a black-box computation) are converted, as
    TensorFlow converts them."""
    if type(y) is Tensor:
        return y
    flat = nest.flatten(y)
    out = []
    for o in flat:
        if isinstance(o, Variable):
            o = o.read_value()
        elif _is_input(o) or isinstance(o, bool):
            o = convert_to_tensor(o)
        elif not isinstance(o, Tensor):
            raise TypeError(f"finegrad.custom_gradient: {name} returned an output of type "
                            f"{type(o).__name__}; outputs must be tensors, NumPy arrays or "
                            f"numbers")
        out.append(o)
    return nest.pack_sequence_as(y, out) if nest.is_nested(y) else out[0]


_MISSING = object()


class _Rule:
    """Calls ``grad_fn`` with upstream gradients shaped like the outputs; checks its return."""

    __slots__ = ("cg", "grad_fn", "_params", "_args", "variables", "reads", "y", "layout",
                 "simple")

    def __init__(self, cg, grad_fn, y, layout, params, variables=(), reads=(), simple=None,
                 args=None):
        self.cg, self.grad_fn, self.y, self.layout = cg, grad_fn, y, layout
        self._params, self.variables, self.reads = params, variables, reads
        self._args = args   # a call of tensors only: its arguments (`params` made from them)
        # the common shape, one tensor in and one out: no structures to match (``simple``:
        # the caller knows already)
        self.simple = simple if simple is not None else not variables and \
            type(y) is Tensor and len(params.values) == 1 and type(params.values[0]) is Tensor

    @property
    def name(self):
        """The decorated function's qualified name (for messages)."""
        return self.cg._f.__qualname__

    @property
    def jvp(self):
        """The decorated function's forward rule (``custom_gradient(jvp=...)``), or None."""
        return self.cg._jvp

    @property
    def params(self):
        """The call's `_Params`; for a call of tensors only (`_record_simple`, which sets
        ``_args`` to its arguments), made on first use."""
        p = self._params
        if p is None:
            p = self._params = _Params.of_tensors(self.cg, self._args)
        return p

    def __repr__(self):
        return f"<custom gradient of {self.name}>"

    def upstream(self, cts):
        """grad_fn's positional arguments: one upstream per flattened output leaf, as in
        TensorFlow; the structured form (one per top-level output, nested like it) only for
        a grad_fn whose signature takes exactly that many and not the flat count."""
        y = self.y
        if isinstance(y, (list, tuple)) and len(cts) != len(y) and \
                _positional_count(self.grad_fn) == len(y):
            return list(nest.pack_sequence_as(y, list(cts)))
        if isinstance(y, dict) and len(cts) != 1 and _positional_count(self.grad_fn) == 1:
            return [nest.pack_sequence_as(y, list(cts))]
        return list(cts)

    def __call__(self, cts):
        if self.simple:
            result = _without_empty_variable_grads(self.grad_fn, self.grad_fn(cts[0]))
            g = result[0] if type(result) in (list, tuple) and len(result) == 1 else result
            if g is None:
                _warn_all_none(self.name, None)
            if type(g) is Tensor or g is None:
                if self._args is not None:   # a call of tensors only
                    (x,) = self._args
                    if g is not None:   # `_check`'s common case, without naming x first
                        gv, xv = g._value, x._value   # (NumPy scalars of one type match)
                        if type(gv) is type(xv) and (type(gv) in INEXACT_SCALARS or type(gv)
                                                     is ndarray and gv.shape == xv.shape and
                                                     gv.dtype == xv.dtype and
                                                     gv.dtype.kind in "fc"):
                            return (g,)
                    return (_check(g, x, self.cg.param_names(1)[0], self.name),)
                p = self.params
                return (_check(g, p.values[0], p.names[0], self.name),)
            return self._general(cts, result)
        return self._general(cts)

    def _general(self, cts, grads=_MISSING):
        dys = self.upstream(cts)
        if grads is not _MISSING:
            var_grads = []
        elif self.variables:
            result = self.grad_fn(*dys, variables=self.variables)
            grads, var_grads = _split_var_grads(result, self.name, self.variables)
        else:
            grads, var_grads = _without_empty_variable_grads(self.grad_fn,
                                                             self.grad_fn(*dys)), []
        _warn_all_none(self.name, grads)
        out = []
        constants = self.params.constants
        for row, g_row, pname in zip(self.params.leaves, self._tensor_rows(grads),
                                     self.params.names, strict=True):
            for i, (g, t) in enumerate(zip(g_row, row, strict=True)):
                if t is None:
                    continue
                label = pname if len(row) == 1 else f"{pname} (leaf {i})"
                check = _unused if id(t) in constants else _check
                out.append(check(g, t, label, self.name))
        out += [_check(g, r, f"variable {v.name!r}", self.name)
                for g, r, v in zip(var_grads, self.reads, self.variables, strict=True)]
        return tuple(out)

    def _tensor_rows(self, grads):
        """`_per_param`, read directly in the common case of parameters that are each one
        tensor and gradients that are each a tensor or None (one bare one for a single
        parameter, else a list or tuple of one per parameter): what `_RETURN_CASES` and
        `_LEAF_CASES` would read."""
        p = self.params
        if p.tensors_only:
            n = len(p.values)
            if n == 1 and (grads is None or type(grads) is Tensor):
                return [[grads]]
            if (type(grads) is tuple or type(grads) is list) and len(grads) == n:
                for g in grads:
                    if g is not None and type(g) is not Tensor:
                        break
                else:
                    return [[g] for g in grads]
        return self._per_param(grads)

    def _per_param(self, grads):
        """The gradients as one list of leaf gradients per parameter: the first case of
        `_RETURN_CASES` that applies to what grad_fn returned decides how to read it."""
        for applies, read in _RETURN_CASES:
            if applies(self.params, grads):
                return read(self, grads)
        raise AssertionError("the last case of _RETURN_CASES applies to everything")

    def _rows(self, per_param):
        """Leaf gradients per parameter from one gradient per parameter."""
        p = self.params
        return [self._leaves_of(g, v, row, nm)
                for g, v, row, nm in zip(per_param, p.values, p.leaves, p.names, strict=True)]

    def _leaves_of(self, g, value, row, pname):
        """One parameter's gradient as its leaf gradients (`_LEAF_CASES` decide)."""
        for applies, read in _LEAF_CASES:
            if applies(g, value, row):
                return read(self.name, g, value, row, pname)
        raise AssertionError("the last case of _LEAF_CASES applies to everything")

    def forward(self, primals, tangents):
        res = self.jvp(list(primals), list(tangents))
        flat = nest.flatten(res)
        if len(flat) != len(nest.flatten(self.y)):
            raise ValueError(f"finegrad.custom_gradient: the forward rule of {self.name} "
                             f"returned {len(flat)} tangents for {len(nest.flatten(self.y))} "
                             f"outputs")
        return tuple(None if t is None else convert_to_tensor(t) for t in flat)


def _warn_captured(name, watcher, inputs, recs):
    """Warn once when ``f`` used a tensor a tape watches without taking it as an input: an
    input of ``f``'s ops that the tape watched before the call, that is neither an argument
    nor a variable read, was captured from outside (`_Watcher.captured`). A recorder that
    watches none of the inputs differentiates ``f``'s own ops instead of the rule (see
    `_custom_vjp`), so the captured tensor does get its gradient there: no warning.
    ``recs``: the active recorders. (What was captured is asked first: for a tape that
    watched only the inputs before the call, that answer is immediate and empty.)"""
    for rec in recs:
        captured = watcher.captured(rec, inputs)
        if not captured:
            continue
        for t in inputs:
            if rec.watches(t):
                break
        else:
            continue
        for t in captured:
            _warn_once(name, t, rec.watch_site(t))


def _warn_once(name, t, site):
    key = (name, tuple(t._value.shape), site)
    if key in _WARNED:
        return
    _WARNED.add(key)
    where = f"watched at {site[0]}:{site[1]}" if site else "computed from watched tensors"
    warnings.warn(
        f"finegrad.custom_gradient: {name} uses a tensor of shape {tuple(t._value.shape)} "
        f"({where}) that a GradientTape watches but that is not one of its arguments; no "
        f"gradient reaches it through the custom rule. Pass it as an argument (and return "
        f"its gradient from grad_fn).", UserWarning, stacklevel=user_stacklevel())
