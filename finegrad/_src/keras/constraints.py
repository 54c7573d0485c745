"""Keras 3's weight constraints (``keras.constraints``): callables ``c(w)`` returning the
projected weights, which an optimizer assigns after each update.
"""

from __future__ import annotations

from typing import Any

from finegrad._src.keras.registration import deserialize_object, get_object, serialize_object
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reduce_sum
from finegrad._src.ops.math.arithmetic import maximum, minimum

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor

_EPSILON = 1e-7


def _norms(w, axis):
    return ew.sqrt(reduce_sum(ew.square(w), axis=axis, keepdims=True))


class Constraint:
    """The base class: ``c(w)`` returns the projected weights (the base returns ``w``).

    >>> import finegrad as fg
    >>> fg.keras.constraints.NonNeg()(fg.constant([-1., 2.])).numpy()
    array([0., 2.], dtype=float32)
    """

    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict:
        """The constructor's arguments."""
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """A constraint made from ``get_config()``'s dict."""
        return cls(**config)


class MaxNorm(Constraint):
    """Rescales ``w`` so the norm along ``axis`` is at most ``max_value``.

    >>> import finegrad as fg
    >>> fg.keras.constraints.MaxNorm(1.)(fg.constant([[3.], [4.]])).numpy().round(4)
    array([[0.6],
           [0.8]], dtype=float32)
    """

    def __init__(self, max_value: Any = 2, axis: Any = 0) -> None:
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Tensor:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = minimum(maximum(norms, 0.0), float(self.max_value))
        return cast(w, norms.dtype) * (desired / (_EPSILON + norms))

    def get_config(self) -> Any:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """``max(w, 0)``.

    >>> import finegrad as fg
    >>> fg.keras.constraints.NonNeg()(fg.constant([-1., 2.])).numpy()
    array([0., 2.], dtype=float32)
    """

    def __call__(self, w: Any) -> Tensor:
        return maximum(convert_to_tensor(w), 0.0)


class UnitNorm(Constraint):
    """Rescales ``w`` to unit norm along ``axis``.

    >>> import finegrad as fg
    >>> fg.keras.constraints.UnitNorm()(fg.constant([[3.], [4.]])).numpy().round(4)
    array([[0.6],
           [0.8]], dtype=float32)
    """

    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Tensor:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        return cast(w, norms.dtype) / (_EPSILON + norms)

    def get_config(self) -> Any:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Rescales ``w`` toward a norm in ``[min_value, max_value]`` along ``axis``: the new norm
    is ``rate * clip(norm) + (1 - rate) * norm``.

    >>> import finegrad as fg
    >>> c = fg.keras.constraints.MinMaxNorm(min_value=10., max_value=20.)
    >>> c(fg.constant([[3.], [4.]])).numpy().round(4)
    array([[6.],
           [8.]], dtype=float32)
    """

    def __init__(self, min_value: Any = 0.0, max_value: Any = 1.0, rate: Any = 1.0,
                 axis: Any = 0) -> None:
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w: Any) -> Tensor:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = minimum(maximum(norms, float(self.min_value)), float(self.max_value))
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (_EPSILON + norms))

    def get_config(self) -> Any:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
_BY_NAME = {"Constraint": Constraint, "MaxNorm": MaxNorm, "NonNeg": NonNeg,
            "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm, "constraint": Constraint,
            "max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm,
            "min_max_norm": MinMaxNorm}


def serialize(constraint: Any) -> dict | None:
    """Keras's config dict (None for None) of a constraint.

    >>> import finegrad as fg
    >>> fg.keras.constraints.serialize(fg.keras.constraints.UnitNorm())["config"]
    {'axis': 0}
    """
    return serialize_object(constraint, "keras.constraints")


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The constraint a `serialize` dict or a name describes.

    >>> import finegrad as fg
    >>> type(fg.keras.constraints.deserialize("non_neg")).__name__
    'NonNeg'

    Raises:
        ValueError: for an unknown class name.
    """
    if isinstance(config, str):
        return get(config)
    return deserialize_object(config, _BY_NAME, "constraint", custom_objects)


def get(identifier: Any) -> Any:
    """A constraint from None, a name (``"max_norm"``), a config dict, a class or a callable.

    >>> import finegrad as fg
    >>> type(fg.keras.constraints.get("unit_norm")).__name__
    'UnitNorm'

    Raises:
        ValueError: for an identifier that names no constraint.
    """
    return get_object(identifier, _BY_NAME, "constraint", deserialize)
