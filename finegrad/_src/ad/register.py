"""RegisterGradient and no_gradient: gradients chosen by name, as in TensorFlow.

`RegisterGradient(name)` under the name of a finegrad primitive replaces that primitive's
gradient (stored on the primitive, where its rules are); under any other name it keeps the
function for `gradient_override_map` (graph/override.py) to apply where the map says.
`no_gradient(name)` makes a primitive non-differentiable.
"""

from __future__ import annotations

from finegrad._src import core
from finegrad._src.ops.array.structural import convert_to_tensor

from typing import Any


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
    """Decorator: register a gradient function under a name, as TensorFlow does.

    The function is called as ``fn(op, *grads)`` (``op.inputs``, ``op.outputs``,
    ``op.get_attr``) and returns one gradient per input, as in TensorFlow. Registered under
    the name of a finegrad primitive (each primitive's docstring gives its name), it replaces
    that primitive's gradient everywhere. Under any other name (``"MyGrad"``), it applies
    where ``finegrad.compat.v1.get_default_graph().gradient_override_map`` maps an op type to
    it. Registering a name twice is a KeyError, as in TensorFlow; undo a registration with
    ``finegrad.RegisterGradient.remove(name)``.

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

    _by_name: dict = {}   # name -> gradient function, for names that are not primitives

    def __init__(self, op_type: Any) -> None:
        if not isinstance(op_type, str):
            raise TypeError(f"finegrad.RegisterGradient: op_type must be a string, got "
                            f"{type(op_type).__name__}")
        self._name = op_type

    def __call__(self, fn: Any) -> Any:
        name = self._name
        prim = core.find_primitive(name)
        if (prim.gradient_override is not None) if prim else (name in self._by_name):
            raise KeyError(f"finegrad.RegisterGradient: a gradient for '{name}' is already "
                           f"registered; call finegrad.RegisterGradient.remove('{name}')")
        if prim is None:
            self._by_name[name] = fn
        else:
            prim.gradient_override = registered_rule(prim, fn)
        return fn

    @staticmethod
    def remove(op_type: Any) -> None:
        """Restore the built-in gradient of ``op_type`` (undoes RegisterGradient/no_gradient),
        or forget the gradient registered under a name that is not a primitive."""
        if RegisterGradient._by_name.pop(op_type, None) is not None:
            return
        prim = core.get_primitive(op_type, "finegrad.RegisterGradient.remove")
        prim.gradient_override = None
        prim.nondiff = getattr(prim, "_builtin_nondiff", prim.nondiff)

    @staticmethod
    def lookup(name: str) -> Any:
        """The gradient function registered under ``name`` (not a primitive), or None."""
        return RegisterGradient._by_name.get(name)


def registered_rule(prim, fn):
    """A VJP rule for ``prim`` that calls a TensorFlow-style gradient ``fn(op, *grads)``."""
    def rule(ct, *ins, out, needs, batch, **params):
        cts = ct if prim.multiple_results else (ct,)
        grads = fn(_Op(prim, ins, out, params), *cts)
        grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
        if len(grads) != len(ins):
            raise ValueError(f"finegrad.RegisterGradient: the gradient registered for "
                             f"'{prim.name}' returned {len(grads)} values for "
                             f"{len(ins)} inputs")
        return tuple(None if g is None else convert_to_tensor(g, dtype_hint=t.dtype)
                     for g, t in zip(grads, ins, strict=True))
    return rule


def no_gradient(op_type: Any) -> None:
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
