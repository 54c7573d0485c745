"""TensorFlow 1's gradient override map: ``get_default_graph().gradient_override_map``.

Inside ``with get_default_graph().gradient_override_map({"Round": "Identity"}):`` every op of
type ``Round`` (finegrad's primitive ``round``) is recorded, by tapes and by `function`'s
tracer, as a copy of its primitive whose gradient is the one registered under ``Identity``:
a function registered with `RegisterGradient` under any name, or a TensorFlow op type whose
finegrad primitive's own gradient is used. TensorFlow's op types are CamelCase; finegrad's
primitive names are the same words in snake_case or run together (``MatMul`` is
``matmul``; ``IdentityN`` is finegrad's ``identity``, applied per tensor). As in TensorFlow,
the map decides where a registered name applies; it works eagerly and inside a traced
function (TensorFlow 2 itself honours it only in `gradients` inside a traced function).
"""

from __future__ import annotations

import copy
import re
import warnings

from finegrad._src.tracebacks import user_stacklevel
from finegrad._src import core
from finegrad._src.ad.register import RegisterGradient, registered_rule

from typing import Any


def _primitive_of(op_type):
    """The finegrad primitive of a TensorFlow op type (``"IdentityN"`` -> ``identity``)."""
    if op_type == "IdentityN":   # finegrad's identity_n is identity applied per tensor
        op_type = "Identity"
    if op_type in ("PyFunc", "PyFuncStateless"):   # TF1's py_func: finegrad's numpy_function
        op_type = "NumpyFunction"
    return core.find_primitive(op_type) or \
        core.find_primitive(re.sub(r"(?<!^)(?=[A-Z])", "_", op_type).lower()) or \
        core.find_primitive(op_type.lower())   # MatMul -> matmul


def _gradient_rule(prim, grad_name):
    """The VJP rule the name ``grad_name`` gives ops of ``prim``."""
    fn = RegisterGradient.lookup(grad_name)
    if fn is not None:
        return registered_rule(prim, fn)
    source = _primitive_of(grad_name)
    if source is None:
        raise LookupError(f"finegrad.gradient_override_map: no gradient registered under "
                          f"{grad_name!r}; register one with finegrad.RegisterGradient"
                          f"({grad_name!r})")
    rule = source.gradient_override or source.vjp
    if rule is None:
        raise LookupError(f"finegrad.gradient_override_map: {grad_name!r} has no gradient")
    return rule


def _overriding(prim, grad_name):
    """A copy of ``prim`` (same computation and declarations) with the gradient of
    ``grad_name``; not registered as a primitive of its own."""
    twin = copy.copy(prim)
    twin.gradient_override = _gradient_rule(prim, grad_name)
    twin.nondiff = False
    return twin


class Graph:
    """What ``get_default_graph()`` returns: the scope of gradient overrides."""

    def gradient_override_map(self, op_type_map):
        """Context manager: ops of the types in ``op_type_map`` get the gradient registered
        under the name each maps to (see the module docstring).

        >>> import finegrad as fg
        >>> x = fg.constant(1.4)
        >>> with fg.GradientTape() as t:
        ...     t.watch(x)
        ...     with fg.compat.v1.get_default_graph().gradient_override_map({"Round": "Identity"}):
        ...         y = fg.round(x)
        >>> y.numpy(), t.gradient(y, x).numpy()
        (np.float32(1.0), np.float32(1.0))

        Raises:
            TypeError: when ``op_type_map`` is not a dict of strings.
            LookupError: when a name it maps to has no gradient.
        """
        if not isinstance(op_type_map, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()):
            raise TypeError("finegrad.gradient_override_map: op_type_map must be a dict "
                            "from op type names to gradient names (strings)")
        overrides = {}
        for op_type, grad_name in op_type_map.items():
            prim = _primitive_of(op_type)
            if prim is None:
                warnings.warn(f"finegrad.gradient_override_map: {op_type!r} is not one "
                              f"finegrad primitive, so no op is overridden for it",
                              UserWarning, stacklevel=user_stacklevel())
                continue
            overrides[prim] = _overriding(prim, grad_name)
        return core.recorded_as(overrides)


_DEFAULT_GRAPH = Graph()


def get_default_graph() -> Any:
    """The default graph (TensorFlow 1's ``tf.compat.v1.get_default_graph``), whose use in
    TensorFlow 2 code is `Graph.gradient_override_map`.

    >>> import finegrad as fg
    >>> fg.compat.v1.get_default_graph() is fg.compat.v1.get_default_graph()
    True
    """
    return _DEFAULT_GRAPH
