"""Keras 3's ``Metric`` base class: state in non-trainable finegrad Variables (so
``update_state`` and ``result`` work eagerly and inside a traced `finegrad.function`, where
they read and update the variables each time the graph runs), ``update_state`` /
``result`` / ``reset_state``, and ``metric(y_true, y_pred)`` for one update and the result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.api.contexts import init_scope
from finegrad._src.keras import initializers, naming
from finegrad._src.keras.state_variables import state_variable

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor

def auto_name(cls_name: Any) -> Any:
    """Keras's default name: the class name in snake case, numbered after the first (the
    count shared with layers, and started again by `clear_session`)."""
    return naming.auto_name(cls_name)


class Metric:
    """The base class: subclasses create state with `add_variable` and define
    ``update_state`` and ``result``.

    >>> import finegrad as fg
    >>> class Count(fg.keras.metrics.Metric):
    ...     def __init__(self):
    ...         super().__init__(name="count")
    ...         self.n = self.add_variable((), "zeros", name="n")
    ...     def update_state(self, values):
    ...         self.n.assign_add(fg.cast(fg.size(values), "float32"))
    ...     def result(self):
    ...         return self.n.read_value()
    >>> m = Count()
    >>> float(m([1., 2.])), float(m([3.]))
    (2.0, 3.0)
    """

    _variables: list[Any]
    _metrics: list[Any]

    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        object.__setattr__(self, "_variables", [])
        object.__setattr__(self, "_metrics", [])
        self.name = name or auto_name(type(self).__name__)
        self._dtype = dtypes.as_dtype(dtype or "float32").name

    def __setattr__(self, name, value):
        if isinstance(value, Metric) and value is not self:
            self._metrics.append(value)
        object.__setattr__(self, name, value)

    @property
    def dtype(self) -> Any:
        """The dtype of the metric's computations and result (float32 by default)."""
        return self._dtype

    @property
    def variables(self) -> Any:
        """The state variables, this metric's then its sub-metrics'."""
        out = list(self._variables)
        for m in self._metrics:
            out.extend(m.variables)
        return out

    def add_variable(self, shape: Any, initializer: Any, dtype: Any = None,
                     aggregation: Any = "sum", name: str | None = None) -> Any:
        """A new non-trainable state variable of ``shape`` filled by ``initializer``."""
        init = initializers.get(initializer)
        dt = dtypes.as_dtype(dtype or self._dtype)
        with init_scope():
            value = init(tuple(shape), dtype=dt)
        v = state_variable(value, f"{self.name}/{name or 'variable'}")
        self._variables.append(v)
        return v

    def add_weight(self, shape: Any = (), initializer: Any = None, dtype: Any = None,
                   name: str | None = None) -> Any:
        """`add_variable` under its Keras 2 name (zeros by default)."""
        return self.add_variable(shape, initializer or "zeros", dtype, name=name)

    def update_state(self, *args, **kwargs) -> Any:
        """Accumulate statistics from a batch (each metric defines it)."""
        raise NotImplementedError(f"{type(self).__name__} must define update_state")

    def result(self) -> Any:
        """The metric's value from the accumulated state (each metric defines it)."""
        raise NotImplementedError(f"{type(self).__name__} must define result")

    def reset_state(self) -> None:
        """Set every state variable back to zero."""
        for v in self.variables:
            v.assign(np.zeros(tuple(v.shape), v.dtype._np))

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        """The constructor's arguments."""
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """A metric made from ``get_config()``'s dict."""
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"
