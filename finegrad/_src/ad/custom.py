"""custom_gradient: users in control of the gradient (RegisterGradient is in register.py).

`custom_gradient(f)` runs ``f`` as ordinary recorded ops, so the tensors ``f`` computes (and
that ``grad_fn`` closes over) are differentiable by outer tapes, as in TensorFlow's eager
mode. It then gives each output a fresh identity and records one op, ``custom_gradient``,
from the inputs (and the variables ``f`` read) to those outputs; that op's VJP calls
``grad_fn``. Gradients therefore reach the inputs only through ``grad_fn``; second
derivatives go through ``grad_fn``'s own ops; and forward mode transposes ``grad_fn``
(see forward.py).
"""
import dataclasses
import functools
import inspect
import numbers
import warnings

import numpy as np

from finegrad._src import core, nest
from finegrad._src.ad.rediff import jvp_by_transposing
from finegrad._src.core import Primitive
from finegrad._src.ops.array import convert_to_tensor
from finegrad._src.ops.base import instantiate_zeros
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable

custom_p = Primitive("custom_gradient", multiple_results=True, unify=False)


@dataclasses.dataclass(frozen=True)
class CustomLayout:
    """The inputs of one custom_gradient op, in order: the tensor leaves of ``f``'s
    arguments (``n_args``), the reads of the variables ``f`` used (``n_vars``), then the
    outputs ``f`` computed (``n_outs``), passed through so that a traced graph knows where
    its values come from. Gradients flow to the first two groups only."""

    n_args: int
    n_vars: int
    n_outs: int

    @property
    def n_differentiable(self):
        return self.n_args + self.n_vars

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
    layout = rule.layout
    if not any(needs[:layout.n_differentiable]):
        return (None,) * layout.n_differentiable + tuple(cts)
    return layout.pad(rule(cts))


@custom_p.def_impl
def _custom_impl(*vals, rule):
    """Forward of a custom_gradient op: the values ``f`` computed, passed through."""
    return rule.layout.outputs(vals)


custom_p.def_shape(lambda *shapes, rule: list(rule.layout.outputs(shapes)))


@custom_p.def_jvp
def _custom_jvp(primals, tangents, *, out, rule):
    """JVP of a custom_gradient op: the user's forward rule, or grad_fn transposed."""
    ins, tans = rule.layout.differentiable(primals), rule.layout.differentiable(tangents)
    if all(t is None for t in tans):   # only f's own computation carries tangents (see VJP)
        return tuple(rule.layout.outputs(tangents))
    if rule.jvp is not None:
        return rule.forward(ins, instantiate_zeros(ins, tans))
    return tuple(jvp_by_transposing(rule, ins, tans, out, rule.name))


class _VariableReads(core.Recorder):
    """A recorder that sees only which trainable variables ``f`` reads (first-read order),
    for the check on ``grad_fn``'s ``variables`` parameter when no tape is active."""

    def __init__(self):
        self.variables = {}
        self.reads = set()

    def variable_read(self, variable, tensor):
        if variable.trainable:
            self.variables.setdefault(id(variable), variable)
        self.reads.add(id(tensor))


class _Watcher(_VariableReads):
    """The innermost recorder while ``f`` runs: the trainable variables it reads, and the
    tensors its ops consume and produce (to find watched tensors it captured). Being
    innermost, it sees ``f``'s own ops only, not the rules that outer recorders run."""

    def __init__(self):
        super().__init__()
        self.consumed = {}
        self.produced = set()

    def record(self, prim, ins, params, out):
        consumed, produced = self.consumed, self.produced
        for t in ins:
            consumed[id(t)] = t
        if prim.multiple_results:
            produced.update(id(o) for o in out)
        else:
            produced.add(id(out))


def _accepts_variables(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in sig.parameters.values())


def _positional_count(fn):
    """How many positional arguments ``fn`` takes exactly, or None when it takes any number
    (``*args``) or its signature is unknown."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "variables"
               for p in params)


def _param_names(f, n):
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        if i < len(params) and params[i].kind is not params[i].VAR_POSITIONAL:
            names.append(params[i].name)
        elif params and params[-1].kind is params[-1].VAR_POSITIONAL:
            names.append(f"{params[-1].name}[{i - len(params) + 1}]")
        else:
            names.append(f"argument {i}")
    return names


def _is_input(x):
    """Leaves that are differentiable inputs: tensors, variables, numbers and arrays."""
    return isinstance(x, (Tensor, Variable, np.ndarray, np.generic)) or \
        isinstance(x, numbers.Number) and not isinstance(x, bool)


def custom_gradient(f=None, *, jvp=None):
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
    others, so higher derivatives
    go through ``grad_fn``'s own computation. In forward mode, ``grad_fn`` is transposed (it is
    linear in the upstream gradient), unless ``jvp(primals, tangents)`` is given: it receives
    the flat lists of input tensors and their tangents and returns the output tangents
    (structured like ``y``).

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

    def __call__(self, *args, **kwargs):
        f = self._f if self._instance is None else functools.partial(self._f, self._instance)
        if not core.active_recorders():
            return self._call_unrecorded(f, args, kwargs)
        watcher = _Watcher()
        core.push_recorder(watcher)
        try:
            y, grad_fn = _split(f(*args, **kwargs), self._f)
        finally:
            core.pop_recorder(watcher)
        return _record(self, args, kwargs, y, grad_fn, watcher)

    def _call_unrecorded(self, f, args, kwargs):
        """``f``'s outputs when nothing records; still a TypeError, as in TensorFlow, when
        ``f`` reads trainable variables and ``grad_fn`` cannot receive them."""
        reads = _VariableReads()
        core.push_recorder(reads)
        try:
            y, grad_fn = _split(f(*args, **kwargs), self._f)
        finally:
            core.pop_recorder(reads)
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
    if isinstance(result, (tuple, list)) and len(result) == 2 and not callable(result[1]):
        raise TypeError(f"finegrad.custom_gradient: {f.__qualname__} must return "
                        f"(outputs, grad_fn); the second element is not callable but "
                        f"{type(result[1]).__name__} {result[1]!r:.40} (return several "
                        f"outputs as one tuple: ((y1, y2), grad_fn))")
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TypeError(f"finegrad.custom_gradient: {f.__qualname__} must return "
                        f"(outputs, grad_fn), got {type(result).__name__}"
                        + (f" of length {len(result)}" if isinstance(result, (tuple, list))
                           else ""))
    return result[0], result[1]


class _Params:
    """The inputs of one call: each parameter's structure and its tensor leaves."""

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

    def tensors(self):
        return [t for row in self.leaves for t in row if t is not None]


def _record(cg, args, kwargs, y, grad_fn, watcher):
    f = cg._f
    name = f.__qualname__
    params = _Params(cg, args, kwargs)
    variables = [v for k, v in watcher.variables.items() if k not in params.variables_in_args]
    _check_variables_param(name, grad_fn, variables)
    y = _as_outputs(y, name)
    flat_y = nest.flatten(y)
    inputs = params.tensors()
    reads = [v.read_value() for v in variables]
    _warn_captured(name, watcher, inputs + reads)
    outs = tuple(Tensor(o._value) for o in flat_y)
    rule = _Rule(name, grad_fn, params, variables, reads, y, cg._jvp)
    rule.layout = CustomLayout(len(inputs), len(reads), len(flat_y))
    core.record(custom_p, tuple(inputs) + tuple(reads) + tuple(flat_y), {"rule": rule}, outs)
    return nest.pack_sequence_as(y, list(outs)) if nest.is_nested(y) else outs[0]


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

    def __init__(self, name, grad_fn, params, variables, reads, y, jvp):
        self.name, self.grad_fn, self.params = name, grad_fn, params
        self.variables, self.reads, self.y, self.jvp = variables, reads, y, jvp

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
        p = self.params
        if not self.variables and type(self.y) is Tensor and len(p.values) == 1 and \
                type(p.values[0]) is Tensor:
            # the common shape, one tensor in and one out: no structures to match
            result = self.grad_fn(cts[0])
            g = result[0] if type(result) in (list, tuple) and len(result) == 1 else result
            if type(g) is Tensor or g is None:
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
            grads, var_grads = self.grad_fn(*dys), []
        out = []
        constants = self.params.constants
        for row, g_row, pname in zip(self.params.leaves, self._per_param(grads),
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


# --- what grad_fn may return ------------------------------------------------------------------
#
# Each table is a list of (applies, read) cases, tried in order; ``read`` returns the leaf
# gradients or raises the error that names the near miss.

def _one_nested(p):
    return len(p.values) == 1 and nest.is_nested(p.values[0])


def _is_by_name(p, grads):
    """A dict keyed by parameter names (a one-parameter dict with other keys is the
    parameter's own gradient)."""
    return isinstance(grads, dict) and not (len(p.values) == 1 and not set(grads) <= set(p.names))


def _is_sequence(p, grads):
    """A list or tuple of gradients (not the one nested parameter's own gradient)."""
    return isinstance(grads, (list, tuple)) and not (_one_nested(p) and len(grads) != 1)


def _n_leaves(p):
    return sum(len(row) for row in p.leaves)


def _read_by_name(rule, grads):
    p = rule.params
    unknown = set(grads) - set(p.names)
    if unknown:
        raise ValueError(f"finegrad.custom_gradient: the gradient function of "
                         f"{rule.name} returned gradients for {sorted(unknown)}, which "
                         f"are not parameters; expected keys among {p.names}")
    return rule._rows([grads.get(nm) for nm in p.names])


def _read_by_leaf(rule, grads):
    it = iter(grads)
    return [[next(it) for _ in row] for row in rule.params.leaves]


def _wrong_count(rule, grads):
    p, n = rule.params, len(rule.params.values)
    raise ValueError(f"finegrad.custom_gradient: the gradient function of "
                     f"{rule.name} returned {len(grads)} gradients for {n} inputs "
                     f"({', '.join(p.names)}); return exactly one per input (None "
                     f"where there is none)" + ("" if len(grads) < n else
                                                "; extra gradients are not dropped"))


def _bare(rule, grads):
    p, n = rule.params, len(rule.params.values)
    raise ValueError(f"finegrad.custom_gradient: the gradient function of "
                     f"{rule.name} returned a bare {type(grads).__name__} for {n} "
                     f"inputs ({', '.join(p.names)}): return a tuple of {n} "
                     f"gradients (None for inputs without one)")


_RETURN_CASES = (
    # the one nested parameter's gradient, shaped like it
    (lambda p, g: _one_nested(p) and nest.is_nested(g) and nest.same_structure(g, p.values[0]),
     lambda rule, g: rule._rows([g])),
    # {parameter name: gradient}
    (_is_by_name, _read_by_name),
    # one gradient per parameter
    (lambda p, g: _is_sequence(p, g) and len(g) == len(p.values),
     lambda rule, g: rule._rows(list(g))),
    # one gradient per tensor leaf, flat
    (lambda p, g: _is_sequence(p, g) and len(g) == _n_leaves(p) != len(p.values),
     _read_by_leaf),
    (_is_sequence, _wrong_count),
    (lambda p, g: len(p.values) != 1, _bare),
    # the one parameter's gradient
    (lambda p, g: True, lambda rule, g: rule._rows([g])),
)


def _not_single(name, g, value, row, pname):
    raise ValueError(f"finegrad.custom_gradient: the gradient function of "
                     f"{name} returned a {type(g).__name__} for {pname}, "
                     f"which is a single tensor; return one tensor")


def _wrong_structure(name, g, value, row, pname):
    raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} "
                     f"returned a gradient for {pname} structured as {_describe(g)}, but "
                     f"{pname} is {_describe(value)}; return the same structure")


_LEAF_CASES = (
    (lambda g, value, row: g is None, lambda name, g, value, row, pname: [None] * len(row)),
    (lambda g, value, row: not nest.is_nested(value) and nest.is_nested(g), _not_single),
    (lambda g, value, row: not nest.is_nested(value), lambda name, g, *_: [g]),
    (lambda g, value, row: nest.same_structure(g, value), lambda name, g, *_: nest.flatten(g)),
    # a flat list or tuple with one gradient per leaf of a (non-dict) structure
    (lambda g, value, row: isinstance(g, (list, tuple)) and not isinstance(value, dict)
     and len(nest.flatten(g)) == len(row), lambda name, g, *_: nest.flatten(g)),
    (lambda g, value, row: True, _wrong_structure),
)


def _describe(x):
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v)}" for k, v in x.items()) + "}"
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_describe(v) for v in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner})"
    return "tensor" if x is not None else "None"


def _split_var_grads(result, name, variables):
    nvars = len(variables)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise ValueError(f"finegrad.custom_gradient: {name} read variables "
                         f"{[v.name for v in variables]}, so its gradient function must "
                         f"return (grad_inputs, grad_variables), got {type(result).__name__}")
    grads, var_grads = result
    var_grads = list(var_grads) if isinstance(var_grads, (list, tuple)) else [var_grads]
    if len(var_grads) != nvars:
        raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                         f"{len(var_grads)} variable gradients for {nvars} variables "
                         f"{[v.name for v in variables]}")
    return grads, var_grads


def _check(g, t, param, name):
    if g is None:
        return None
    if not isinstance(g, (Tensor, Variable, np.ndarray, np.generic, numbers.Number)):
        raise TypeError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                        f"a {type(g).__name__} for {param}; return a tensor or None")
    g = g if type(g) is Tensor else convert_to_tensor(g, dtype_hint=t.dtype)
    if not t.dtype.is_differentiable:
        return None  # integer and bool inputs get no gradient
    if tuple(g._value.shape) != tuple(t._value.shape):
        raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                         f"a gradient of shape {tuple(g._value.shape)} for {param}, which has "
                         f"shape {tuple(t._value.shape)}; return one of the input's shape "
                         f"(e.g. finegrad.broadcast_to or reduce_sum the gradient)")
    if g._value.dtype != t._value.dtype:
        raise TypeError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                        f"a {g.dtype.name} gradient for {param}, which is {t.dtype.name}; "
                        f"cast it with finegrad.cast")
    return g


def _unused(g, t, param, name):
    """The check for a gradient of an input nobody can differentiate (a number or an array
    passed as an argument): none, as in TensorFlow, which drops such gradients; a gradient
    that `_check` would refuse warns once per function and parameter."""
    if g is not None:
        try:
            _check(g, t, param, name)
        except (TypeError, ValueError) as e:
            key = (name, param)
            if key not in _WARNED:
                _WARNED.add(key)
                warnings.warn(f"{e} (ignored: {param} is a constant, so its gradient is "
                              f"never used)", UserWarning, stacklevel=2)
    return None


_WARNED = set()


def _warn_captured(name, watcher, inputs):
    """Warn once when ``f`` used a tensor a tape watches without taking it as an input: an
    input of ``f``'s ops (as the watcher saw them) that an active recorder watches, that
    none of those ops produced, and that is neither an argument nor a variable read, was
    captured from outside. A recorder that watches none of the inputs differentiates ``f``'s
    own ops instead of the rule (see `_custom_vjp`), so the captured tensor does get its
    gradient there: no warning."""
    known = {id(t) for t in inputs} | watcher.reads
    produced = watcher.produced
    captured = [t for k, t in watcher.consumed.items() if k not in known and k not in produced]
    for rec in core.active_recorders():
        if not any(rec.watches(t) for t in inputs):
            continue
        for t in captured:
            if rec.watches(t):
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
        f"its gradient from grad_fn).", UserWarning, stacklevel=5)
