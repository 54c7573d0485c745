"""What the foreign backends' ``custom_gradient`` share: the inputs' structure, the one grad
signature, and finegrad's checks of what ``grad`` returns.

A call ``h(*args, **kwargs)`` of a decorated function is lowered to a function of the flat
tensor leaves of its inputs (`Inputs`), because each framework's own mechanism
(``jax.custom_vjp``, ``torch.autograd.Function``, ``tf.custom_gradient``) differentiates flat
tensors. In the backward pass `call_grad` calls the user's ``grad`` in whichever of the three
accepted forms it is written (``grad(*upstreams)``, Keras's ``grad(upstream)`` and
``grad(*args, upstream=...)``), reads what it returned with finegrad's own tables (the cases
of `finegrad._src.ad.custom`: one gradient per parameter, per leaf, by name, nested like the
parameter) and checks each leaf gradient's shape and dtype against its input, with messages
naming the function and the parameter, exactly as the finegrad backend does.
"""
import inspect
import numbers

import numpy as np

from finegrad._src import backends as _backends
from finegrad._src import nest
from finegrad._src.ad import custom as _custom


class Inputs:
    """The inputs of one call: per parameter its name, its value and its leaves (a backend
    tensor, or None for a leaf that is not an input); ``tensors`` are the input leaves, flat.
    ``names``, ``values`` and ``leaves`` are what finegrad's matcher reads;
    ``names_by_count`` caches the parameter names per number of positional arguments."""

    def __init__(self, f, args, kwargs, backend, names_by_count=None):
        names = None if names_by_count is None else names_by_count.get(len(args))
        if names is None:   # reading the signature costs more than the rest of a call
            names = _custom._param_names(f, len(args))
            if names_by_count is not None:
                names_by_count[len(args)] = names
        self.names = list(names)
        self.values = list(args)
        self.n_args = len(args)
        self.other_kwargs = {}
        for k, v in kwargs.items():   # a Python number by keyword is a setting (`scale=3.`),
            if any(backend.is_tensor(x) or isinstance(x, np.ndarray)   # as on finegrad
                   for x in nest.flatten(v)):
                self.names.append(k)
                self.values.append(v)
            else:
                self.other_kwargs[k] = v
        self.leaves = [[backend.convert_to_tensor(x) if _is_input(x, backend) else None
                        for x in nest.flatten(v)] for v in self.values]
        self.tensors = [t for row in self.leaves for t in row if t is not None]

    def rebuild(self, tensors):
        """``(args, kwargs)`` with the input leaves replaced, in order, by ``tensors``."""
        it = iter(tensors)
        values = []
        for v, row in zip(self.values, self.leaves, strict=True):
            flat = [x if t is None else next(it) for x, t in zip(nest.flatten(v), row,
                                                                   strict=True)]
            values.append(nest.pack_sequence_as(v, flat) if nest.is_nested(v) else flat[0])
        kwargs = dict(self.other_kwargs)
        kwargs.update(zip(self.names[self.n_args:], values[self.n_args:], strict=True))
        return values[:self.n_args], kwargs


def _is_input(x, backend):
    return backend.is_tensor(x) or isinstance(x, (np.ndarray, np.generic)) or \
        isinstance(x, numbers.Number) and not isinstance(x, bool)


def run(f, args, kwargs, backend):
    """``(y, grad)`` from ``f(*args, **kwargs)`` run on ``backend`` (a torch backward pass
    may rerun ``f`` outside the caller's scope)."""
    with _backends.scope(backend.name):
        y, grad = split(f(*args, **kwargs), f, backend.name)
    if not getattr(backend, "supports_variables", False) and takes_variables(grad):
        raise TypeError(f"finegrad.ops.custom_gradient ({backend.name} backend): the gradient "
                        f"function of {f.__qualname__} has a `variables` parameter "
                        f"(TensorFlow's contract for variables read inside the function), "
                        f"which the {backend.name} backend cannot honour: it has no variables "
                        f"to give gradients to. Pass the value as an argument of "
                        f"{f.__qualname__} (its gradient is then one of grad's results), or "
                        f"use the finegrad or tensorflow backend")
    return y, grad


def takes_variables(grad):
    """Whether ``grad`` names a ``variables`` parameter (TensorFlow's contract)."""
    code = getattr(grad, "__code__", None)
    if code is not None and not hasattr(grad, "__wrapped__"):
        return "variables" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    try:
        return "variables" in inspect.signature(grad).parameters
    except (TypeError, ValueError):
        return False


def split(result, f, backend_name):
    """``(y, grad)`` from what the user's function returned, or the TypeError naming it."""
    if isinstance(result, (tuple, list)) and len(result) == 2 and not callable(result[1]):
        raise TypeError(f"finegrad.ops.custom_gradient ({backend_name} backend): "
                        f"{f.__qualname__} must return (outputs, grad), and the second "
                        f"element is not callable: got {type(result[1]).__name__} "
                        f"{result[1]!r:.40}")
    if not isinstance(result, (tuple, list)) or len(result) != 2 or not callable(result[1]):
        raise TypeError(f"finegrad.ops.custom_gradient ({backend_name} backend): "
                        f"{f.__qualname__} must return (outputs, grad), got "
                        f"{type(result).__name__}")
    return result[0], result[1]


def takes_upstream_keyword(grad):
    """Whether ``grad`` is Keras's PyTorch form ``grad(*args, upstream)``: it has a
    keyword-only parameter named ``upstream``."""
    code = getattr(grad, "__code__", None)
    if code is not None and not hasattr(grad, "__wrapped__"):
        start = code.co_argcount
        return "upstream" in code.co_varnames[start:start + code.co_kwonlyargcount]
    try:
        param = inspect.signature(grad).parameters.get("upstream")
    except (TypeError, ValueError):
        return False
    return param is not None and param.kind is param.KEYWORD_ONLY


def upstreams(y, cts):
    """The positional upstream gradients of ``grad``: one per element of ``y`` when ``y`` is
    a list or tuple (each structured like it), else one structured like ``y``."""
    up = nest.pack_sequence_as(y, list(cts)) if nest.is_nested(y) else cts[0]
    return list(up) if isinstance(y, (list, tuple)) else [up]


def call_grad(grad, inputs, leaves, y, cts, name, backend, variables=None):
    """Call the user's ``grad`` with the upstream gradients ``cts`` (one per leaf of ``y``)
    and return its checked gradients, one per input tensor (None where it gave none).
    ``leaves`` are the input tensors the forward pass ran on (``grad(*args, upstream)``
    receives the arguments rebuilt from them). With ``variables`` (those ``f`` read, on a
    backend that tracks them), ``grad`` gets them too and the result is ``(per input,
    per variable)``, as in TensorFlow."""
    ups = upstreams(y, cts)
    extra = {} if not variables else {"variables": variables}
    if extra and not takes_variables(grad):
        raise TypeError(f"finegrad.ops.custom_gradient ({backend.name} backend): {name} reads "
                        f"the variables {[v.name for v in variables]} but its gradient "
                        f"function has no `variables` parameter; define grad(*upstreams, "
                        f"variables=None) returning (input gradients, variable gradients), "
                        f"or pass the variables as arguments")
    # the gradient is often taken after the caller's backend_scope has closed (or on the
    # framework's own thread): the rule's ops run on the backend it was defined for
    with _backends.scope(backend.name):
        if takes_upstream_keyword(grad):
            args, _ = inputs.rebuild(leaves)
            grads = grad(*args, upstream=ups[0] if len(ups) == 1 else tuple(ups), **extra)
        else:
            grads = grad(*ups, **extra)
    if extra:
        grads, var_grads = _split_variable_grads(grads, variables, name, backend)
        return _per_input(grads, inputs, name, backend), var_grads
    return _per_input(grads, inputs, name, backend)


def _split_variable_grads(result, variables, name, backend):
    """``(input gradients, checked variable gradients)`` from what ``grad`` returned."""
    where = f"finegrad.ops.custom_gradient ({backend.name} backend): the gradient function " \
            f"of {name}"
    if not isinstance(result, (tuple, list)) or len(result) != 2 or \
            not isinstance(result[1], (tuple, list)) or len(result[1]) != len(variables):
        raise ValueError(f"{where} was given variables= and must return (input gradients, "
                         f"[one gradient per variable]) for the {len(variables)} variables "
                         f"it read")
    return result[0], [check(g, v, f"variable {v.name}", name, backend)
                       for g, v in zip(result[1], variables, strict=True)]


def _per_input(grads, inputs, name, backend):
    rows = _Matcher(name, inputs)._per_param(grads)
    out = []
    for row, g_row, pname in zip(inputs.leaves, rows, inputs.names, strict=True):
        out += [check(g, t, pname if len(row) == 1 else f"{pname} (leaf {i})", name, backend)
                for i, (g, t) in enumerate(zip(g_row, row, strict=True)) if t is not None]
    return out


class _Matcher:
    """finegrad's reading of what a gradient function returned (the tables of
    `finegrad._src.ad.custom`), over an `Inputs` of any backend's tensors."""

    _per_param = _custom._Rule._per_param
    _rows = _custom._Rule._rows
    _leaves_of = _custom._Rule._leaves_of

    def __init__(self, name, params):
        self.name, self.params = name, params


def check(g, t, param, name, backend):
    """``g`` as a gradient for input ``t``: a backend tensor of ``t``'s shape and dtype, or
    None (also for inputs that are not floating point); otherwise the error naming
    ``name`` and ``param``."""
    if g is None or not backend.is_float(t):
        return None
    where = f"finegrad.ops.custom_gradient ({backend.name} backend): the gradient function " \
            f"of {name}"
    if not backend.is_tensor(g):
        if not isinstance(g, (np.ndarray, np.generic, numbers.Number)):
            raise TypeError(f"{where} returned a {type(g).__name__} for {param}; return a "
                            f"tensor or None")
        g = backend.convert_to_tensor(g, dtype=backend.dtype_name(t))
    gs, ts = backend.static_shape(g), backend.static_shape(t)
    if len(gs) != len(ts) or any(a is not None and b is not None and a != b
                                 for a, b in zip(gs, ts, strict=True)):
        raise ValueError(f"{where} returned a gradient of shape {gs} for {param}, which has "
                         f"shape {ts}; return one of the input's shape")
    if backend.dtype_name(g) != backend.dtype_name(t):
        raise TypeError(f"{where} returned a {backend.dtype_name(g)} gradient for {param}, "
                        f"which is {backend.dtype_name(t)}; cast it with ops.cast")
    return g
