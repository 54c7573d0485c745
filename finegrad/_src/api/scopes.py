"""Context and introspection names of TensorFlow's API: name scopes, control dependencies,
``no_op``, ``executing_eagerly`` and ``is_tensor`` (``group``, ``tuple``, ``device`` and
``init_scope`` are in `contexts`).

finegrad runs operations in program order, eagerly or inside a `finegrad.function` trace, so
control dependencies have nothing to order and names label nothing; these names exist so that
code written for TensorFlow runs, and they do what TensorFlow 2 does in eager mode. The name
scope stack is per thread and only read by `name_scope` itself.
"""

from __future__ import annotations

import contextlib
import threading

from finegrad._src import core
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


class _Scopes(threading.local):
    def __init__(self):
        self.stack = [""]


_scopes = _Scopes()


class name_scope:  # TensorFlow's name
    """A context manager that opens a name scope; ``with`` gives the full scope, ``"a/b/"``.

    A name ending in ``/`` is taken as a full scope rather than nested.

    >>> import finegrad as fg
    >>> with fg.name_scope("outer"):
    ...     with fg.name_scope("inner") as scope:
    ...         scope
    'outer/inner/'

    Raises:
        ValueError: when ``name`` is not a string.
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise ValueError(f"finegrad.name_scope: name must be a string, got {name!r:.60}")
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        if not self._name or self._name.endswith("/"):
            scope = self._name
        else:
            scope = f"{_scopes.stack[-1]}{self._name}/"
            unique = getattr(core.current_tracer(), "unique_scope", None)
            if unique is not None:   # a TF1 graph's scopes are unique: "layer", "layer_1"
                scope = unique(scope)
        _scopes.stack.append(scope)
        return scope

    def __exit__(self, *exc: Any) -> Any:
        _scopes.stack.pop()
        return False


def control_dependencies(control_inputs: Any) -> Any:
    """A context manager that orders ``control_inputs`` before the ops in its block.

    finegrad runs ops in program order, eagerly and in traced functions, so there is nothing
    left to order: the block simply runs. ``control_inputs`` is a list of tensors or ops, or
    None.

    >>> import finegrad as fg
    >>> x = fg.constant(1.)
    >>> with fg.control_dependencies([fg.debugging.assert_positive(x)]):
    ...     y = fg.identity(x)
    >>> float(y)
    1.0
    """
    if control_inputs is not None and not isinstance(control_inputs, (list, tuple)):
        raise TypeError(f"finegrad.control_dependencies: control_inputs must be a list or None, "
                        f"got {type(control_inputs).__name__}")
    graph = _v1_graph()
    if graph is not None:   # a TF1 graph orders its ops by control inputs
        return graph.control_dependencies(control_inputs)
    return contextlib.nullcontext()


def _v1_graph():
    """The TF1 graph being built (v1/graphs.py), which the tracer knows, or None."""
    return getattr(core.current_tracer(), "v1_graph", None)


def no_op(name: str | None = None) -> None:
    """An operation that does nothing; ``None``, as eager TensorFlow returns.

    >>> import finegrad as fg
    >>> fg.no_op() is None
    True
    """
    graph = _v1_graph()
    if graph is not None:   # a TF1 graph: an op a Session can run
        return graph.no_op(name)
    del name


def executing_eagerly() -> bool:
    """Whether operations run now: False while `finegrad.function` traces its Python function.

    >>> import finegrad as fg
    >>> @fg.function
    ... def f(x):
    ...     return x * 2. if not fg.executing_eagerly() else x
    >>> fg.executing_eagerly(), float(f(fg.constant(1.)))
    (True, 2.0)
    """
    return core.current_tracer() is None


def executing_eagerly_outside_functions() -> bool:
    """Whether code outside `finegrad.function` runs eagerly: always True in finegrad.

    >>> import finegrad as fg
    >>> fg.compat.v1.executing_eagerly_outside_functions()
    True
    """
    return True


def is_tensor(x: TensorLike) -> bool:
    """Whether ``x`` is a finegrad tensor or variable (not a NumPy array or Python number).

    >>> import numpy as np, finegrad as fg
    >>> fg.is_tensor(fg.constant(1.)), fg.is_tensor(fg.Variable(1.)), fg.is_tensor(np.ones(2))
    (True, True, False)
    """
    return isinstance(x, (Tensor, Variable))


def get_current_name_scope() -> str:
    """The name scope open now, as `name_scope` builds it, without the trailing ``/``
    (``""`` outside every scope).

    >>> import finegrad as fg
    >>> with fg.name_scope("a"):
    ...     with fg.name_scope("b"):
    ...         fg.get_current_name_scope()
    'a/b'
    """
    scope = _scopes.stack[-1]
    return scope[:-1] if scope.endswith("/") else scope

