"""custom_gradient, RegisterGradient and no_gradient: users in control of the gradient.

`custom_gradient(f)` runs ``f`` as ordinary recorded ops, so the tensors ``f`` computes (and
that ``grad_fn`` closes over) are differentiable by outer tapes, as in TensorFlow's eager
mode. It then gives each output a fresh identity and records one op, ``custom_gradient``,
from the inputs (and the variables ``f`` read) to those outputs; that op's VJP calls
``grad_fn``. Gradients therefore reach the inputs only through ``grad_fn``; second
derivatives go through ``grad_fn``'s own ops; and forward mode transposes ``grad_fn``
(see forward.py).
"""
import functools
import inspect
import numbers

import numpy as np

from finegrad._src import core, nest
from finegrad._src.core import Primitive
from finegrad._src.tensor import Tensor, convert_to_tensor
from finegrad._src.variables import Variable

custom_p = Primitive("custom_gradient", multiple_results=True, unify=False)


@custom_p.def_vjp
def _custom_vjp(cts, *ins, out, rule):
    """VJP of a custom_gradient op: the user's grad_fn, checked."""
    return rule(cts)


class _VariableWatcher(core.Recorder):
    """Collects the trainable variables read while ``f`` runs, in first-read order."""

    def __init__(self):
        self.variables = {}

    def variable_read(self, variable, tensor):
        if variable.trainable:
            self.variables.setdefault(id(variable), variable)


def _accepts_variables(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in sig.parameters.values())


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


def _is_tensor_like(x):
    return isinstance(x, (Tensor, Variable, np.ndarray, np.generic)) or \
        isinstance(x, numbers.Number) and not isinstance(x, bool)


def custom_gradient(f=None):
    """Decorator: define the gradient of a function yourself (TensorFlow's contract).

    ``f(*x)`` returns ``(y, grad_fn)``; the decorated function returns ``y``, and every
    gradient through it is ``grad_fn(*grad_ys)``: one upstream gradient per output of ``y``
    (a tensor or nested sequence), one gradient (or None) per positional input returned. If
    ``f`` reads trainable variables, ``grad_fn(*grad_ys, variables=None)`` returns
    ``(grad_xs, grad_vars)``, variables listed in the order ``f`` first read them.

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
        TypeError: when ``f`` read variables and ``grad_fn`` has no ``variables`` parameter.
        ValueError: when ``grad_fn`` returns the wrong number of gradients or a wrong shape.
    """
    if f is None:
        return custom_gradient
    return _CustomGradient(f)


class _CustomGradient:
    """The decorated function; a descriptor, so it also works on methods."""

    def __init__(self, f, instance=None):
        self._f = f
        self._instance = instance
        functools.update_wrapper(self, f)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return _CustomGradient(self._f, instance)

    def __call__(self, *args, **kwargs):
        f = self._f if self._instance is None else functools.partial(self._f, self._instance)
        if not core.active_recorders():
            y, _ = _split(f(*args, **kwargs), self._f)
            return y
        watcher = _VariableWatcher()
        core.push_recorder(watcher)
        try:
            y, grad_fn = _split(f(*args, **kwargs), self._f)
        finally:
            core.pop_recorder(watcher)
        return _record(self._f, args, y, grad_fn, list(watcher.variables.values()),
                       skip_self=self._instance is not None)


def _split(result, f):
    if not isinstance(result, (tuple, list)) or len(result) != 2 or not callable(result[1]):
        raise TypeError(f"finegrad.custom_gradient: {f.__qualname__} must return "
                        f"(outputs, grad_fn), got {type(result).__name__}")
    return result[0], result[1]


def _record(f, args, y, grad_fn, variables, skip_self):
    name = f.__qualname__
    if variables and not _accepts_variables(grad_fn):
        raise TypeError(f"finegrad.custom_gradient: {name} reads the variables "
                        f"{[v.name for v in variables]} but its gradient function "
                        f"{getattr(grad_fn, '__name__', 'grad_fn')} has no `variables` "
                        f"parameter; define grad_fn(*dys, variables=None) returning "
                        f"(grad_inputs, grad_variables)")
    names = _param_names(f, len(args) + skip_self)[skip_self:]
    inputs = [convert_to_tensor(a) if _is_tensor_like(a) else None for a in args]
    reads = [v.read_value() for v in variables]
    flat_y = nest.flatten(y)
    for o in flat_y:
        if not isinstance(o, Tensor):
            raise TypeError(f"finegrad.custom_gradient: {name} returned an output of type "
                            f"{type(o).__name__}; outputs must be finegrad tensors")
    outs = tuple(Tensor(o._value) for o in flat_y)
    ins = tuple(t for t in inputs if t is not None) + tuple(reads)
    y_struct = y

    def rule(cts):
        upstream = nest.pack_sequence_as(y_struct, list(cts)) if nest.is_nested(y_struct) \
            else cts[0]
        dys = list(upstream) if isinstance(upstream, (list, tuple)) and \
            isinstance(y_struct, (list, tuple)) else [upstream]
        if variables:
            result = grad_fn(*dys, variables=variables)
            grads, var_grads = _split_var_grads(result, name, len(variables))
        else:
            grads, var_grads = grad_fn(*dys), []
        grads = _as_list(grads, len(args), name)
        out = [_check(g, t, nm, name) for g, t, nm in zip(grads, inputs, names, strict=True)
               if t is not None]
        out += [_check(g, r, f"variable {v.name!r}", name)
                for g, r, v in zip(var_grads, reads, variables, strict=True)]
        return tuple(out)

    core.record(custom_p, ins, {"rule": rule}, outs)
    return nest.pack_sequence_as(y, list(outs)) if nest.is_nested(y) else outs[0]


def _split_var_grads(result, name, nvars):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} was "
                         f"given variables, so it must return (grad_inputs, grad_variables), "
                         f"got {type(result).__name__}")
    grads, var_grads = result
    var_grads = list(var_grads) if isinstance(var_grads, (list, tuple)) else [var_grads]
    if len(var_grads) != nvars:
        raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                         f"{len(var_grads)} variable gradients for {nvars} variables")
    return grads, var_grads


def _as_list(grads, n, name):
    if isinstance(grads, (list, tuple)):
        grads = list(grads)
    else:
        if n != 1:
            raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} "
                             f"returned a single gradient for {n} inputs: return a tuple of "
                             f"{n} gradients (None for inputs without one)")
        grads = [grads]
    if len(grads) != n:
        raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                         f"{len(grads)} gradients for {n} inputs; return exactly one per "
                         f"input (None where there is none)")
    return grads


def _check(g, t, param, name):
    if g is None:
        return None
    g = g if type(g) is Tensor else convert_to_tensor(g, dtype_hint=t.dtype)
    bs = core.batch_shape()
    if tuple(g._value.shape) != bs + tuple(t._value.shape):
        raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                         f"a gradient of shape {tuple(g._value.shape)} for {param}, which has "
                         f"shape {tuple(t._value.shape)}; return one of the input's shape")
    if g._value.dtype != t._value.dtype and t._value.dtype.kind in "fc":
        raise TypeError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                        f"a {g.dtype.name} gradient for {param}, which is {t.dtype.name}; "
                        f"cast it with finegrad.cast")
    return g


# --- RegisterGradient and no_gradient ---------------------------------------------------------

class _Op:
    """What a registered gradient function sees of an op (TensorFlow's ``op`` argument)."""

    def __init__(self, prim, ins, out, params):
        self.type = self.name = prim.name
        self.inputs = list(ins)
        self.outputs = list(out) if isinstance(out, tuple) else [out]
        self._params = params

    def get_attr(self, name):
        return self._params[name]


class RegisterGradient:
    """Decorator: replace the gradient of a finegrad primitive, by its name.

    The function is called as ``fn(op, *grads)`` (``op.inputs``, ``op.outputs``,
    ``op.get_attr``) and returns one gradient per input, as in TensorFlow. Each primitive's
    docstring gives its name. Registering a name twice is a KeyError, as in TensorFlow; undo
    a registration with ``finegrad.RegisterGradient.remove(name)``.

    >>> import finegrad as fg
    >>> @fg.RegisterGradient("tanh")
    ... def _tanh_grad(op, grad):
    ...     return grad * 2.
    >>> x = fg.constant(0.5)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.tanh(x)
    >>> t.gradient(y, x).numpy()
    np.float32(2.0)
    >>> fg.RegisterGradient.remove("tanh")
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError(f"finegrad.RegisterGradient: op_type must be a string, got "
                            f"{type(op_type).__name__}")
        self._prim = core.get_primitive(op_type, "finegrad.RegisterGradient")

    def __call__(self, fn):
        prim = self._prim
        if prim.gradient_override is not None:
            raise KeyError(f"finegrad.RegisterGradient: a gradient for '{prim.name}' is already "
                           f"registered; call finegrad.RegisterGradient.remove('{prim.name}')")

        def rule(ct, *ins, out, **params):
            cts = ct if prim.multiple_results else (ct,)
            grads = fn(_Op(prim, ins, out, params), *cts)
            grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
            if len(grads) != len(ins):
                raise ValueError(f"finegrad.RegisterGradient: the gradient registered for "
                                 f"'{prim.name}' returned {len(grads)} values for "
                                 f"{len(ins)} inputs")
            return tuple(None if g is None else convert_to_tensor(g, dtype_hint=t.dtype)
                         for g, t in zip(grads, ins, strict=True))
        prim.gradient_override = rule
        return fn

    @staticmethod
    def remove(op_type):
        """Restore the built-in gradient of ``op_type`` (undoes RegisterGradient/no_gradient)."""
        prim = core.get_primitive(op_type, "finegrad.RegisterGradient.remove")
        prim.gradient_override = None
        prim.nondiff = getattr(prim, "_builtin_nondiff", prim.nondiff)


def no_gradient(op_type):
    """Declare that primitive ``op_type`` has no gradient: tapes pass None through it.

    >>> import finegrad as fg
    >>> fg.no_gradient("sin")
    >>> x = fg.constant(1.)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.sin(x)
    >>> print(t.gradient(y, x))
    None
    >>> fg.RegisterGradient.remove("sin")
    """
    prim = core.get_primitive(op_type, "finegrad.no_gradient")
    if not hasattr(prim, "_builtin_nondiff"):
        prim._builtin_nondiff = prim.nondiff
    prim.nondiff = True
    prim.gradient_override = None
