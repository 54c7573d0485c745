"""What a custom_gradient's ``grad_fn`` may return, read and checked.

``_RETURN_CASES`` read its return as one list of leaf gradients per parameter, and
``_LEAF_CASES`` one parameter's gradient as its leaves (both are used by `custom._Rule` and
by the backends' matcher); `_check` then holds each leaf gradient to its input's shape and
dtype. Every refusal names the function and the parameter.
"""
import numbers
import warnings

import numpy as np

from finegrad._src.tracebacks import user_stacklevel
from finegrad._src import nest
from finegrad._src.ad.signatures import _accepts_variables
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable


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


# --- the variables' gradients: grad_fn(*dys, variables=...) returns a pair -----------------

def _listed(var_grads):
    return list(var_grads) if isinstance(var_grads, (list, tuple)) else [var_grads]


def _not_a_pair(result, name, variables):
    raise ValueError(f"finegrad.custom_gradient: {name} read variables "
                     f"{[v.name for v in variables]}, so its gradient function must "
                     f"return (grad_inputs, grad_variables), got {type(result).__name__}")


def _wrong_var_count(result, name, variables):
    raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                     f"{len(_listed(result[1]))} variable gradients for {len(variables)} "
                     f"variables {[v.name for v in variables]}")


_VAR_GRAD_CASES = (
    (lambda result, n: not isinstance(result, (tuple, list)) or len(result) != 2, _not_a_pair),
    (lambda result, n: len(_listed(result[1])) != n, _wrong_var_count),
    # (grad_inputs, grad_variables): one variable's gradient may come bare
    (lambda result, n: True, lambda result, *_: (result[0], _listed(result[1]))),
)


def _split_var_grads(result, name, variables):
    """``(grad_inputs, [grad per variable])`` from what grad_fn returned when ``f`` read
    ``variables``: the first case of `_VAR_GRAD_CASES` that applies decides."""
    for applies, read in _VAR_GRAD_CASES:
        if applies(result, len(variables)):
            return read(result, name, variables)
    raise AssertionError("the last case of _VAR_GRAD_CASES applies to everything")


# --- one leaf's gradient, held to its input's shape and dtype ----------------------------------

_GRADIENT_TYPES = (Tensor, Variable, np.ndarray, np.generic, numbers.Number)


def _not_a_tensor(g, t, param, name):
    raise TypeError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                    f"a {type(g).__name__} for {param}; return a tensor or None")


def _wrong_shape(g, t, param, name):
    raise ValueError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                     f"a gradient of shape {tuple(g._value.shape)} for {param}, which has "
                     f"shape {tuple(t._value.shape)}; return one of the input's shape "
                     f"(e.g. finegrad.broadcast_to or reduce_sum the gradient)")


def _wrong_dtype(g, t, param, name):
    raise TypeError(f"finegrad.custom_gradient: the gradient function of {name} returned "
                    f"a {g.dtype.name} gradient for {param}, which is {t.dtype.name}; "
                    f"cast it with finegrad.cast")


_GRADIENT_CASES = (
    (lambda g, t: g is None, lambda *_: None),
    (lambda g, t: not isinstance(g, _GRADIENT_TYPES), _not_a_tensor),
    # arrays, numbers and variables: converted (to the input's dtype if they have none),
    # then checked as tensors
    (lambda g, t: type(g) is not Tensor,
     lambda g, t, param, name: _check(convert_to_tensor(g, dtype_hint=t.dtype), t, param, name)),
    # integer and bool inputs get no gradient
    (lambda g, t: not t.dtype.is_differentiable, lambda *_: None),
    (lambda g, t: tuple(g._value.shape) != tuple(t._value.shape), _wrong_shape),
    (lambda g, t: g._value.dtype != t._value.dtype, _wrong_dtype),
    (lambda g, t: True, lambda g, *_: g),
)


def _check(g, t, param, name):
    """``g`` checked as the gradient of input ``t`` (``param`` names it in errors): the
    first case of `_GRADIENT_CASES` that applies decides."""
    if type(g) is Tensor:   # the common case first: a tensor of the input's dtype and shape
        gv, tv = g._value, t._value
        if gv.dtype == tv.dtype and gv.shape == tv.shape and gv.dtype.kind in "fc":
            return g
    for applies, result in _GRADIENT_CASES:
        if applies(g, t):
            return result(g, t, param, name)
    raise AssertionError("the last case of _GRADIENT_CASES applies to everything")


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
                              f"never used)", UserWarning, stacklevel=user_stacklevel())
    return None


_WARNED: set = set()


def _without_empty_variable_grads(grad_fn, result):
    """``grad_fn(*dys, variables=None)`` of an ``f`` that read no variable may return
    ``(grads, [])``, TensorFlow's form (it always asks for the pair): its grads."""
    if type(result) in (tuple, list) and len(result) == 2 and \
            type(result[1]) in (tuple, list) and not result[1] and _accepts_variables(grad_fn):
        return result[0]
    return result


def _warn_all_none(name, grads):
    """A grad_fn that returns None for every input (a forgotten ``return``) warns once."""
    if (grads is None or type(grads) in (tuple, list) and grads and
            all(g is None for g in grads)) and ("all None", name) not in _WARNED:
        _WARNED.add(("all None", name))
        warnings.warn(f"finegrad.custom_gradient: the gradient function of {name} returned "
                      f"None for every input (a forgotten `return`?): no gradient flows "
                      f"through {name}", UserWarning, stacklevel=user_stacklevel())
