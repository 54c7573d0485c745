"""Keras 3's weight regularizers (``keras.regularizers``): callables ``reg(x)`` returning a
scalar penalty that a layer adds to its losses.
"""

from __future__ import annotations

import math

from typing import Any

import numpy as np

from finegrad._src.keras.registration import deserialize_object, get_object, serialize_object
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reduce_sum, transpose
from finegrad._src.ops.math.arithmetic import minimum
from finegrad._src.ops.array.constants import eye
from finegrad._src.ops.linalg.products import matmul

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

_EPSILON = 1e-7


def _factor(value, name, cls):
    if (isinstance(value, bool) or not isinstance(value, (float, int))
            or math.isinf(value) or math.isnan(value) or value < 0):
        raise ValueError(f"{cls}: {name} must be a non-negative float, got {value!r}")
    return float(value)


class Regularizer:
    """The base class: ``reg(x)`` returns a scalar penalty; ``get_config``/``from_config``.

    >>> import finegrad as fg
    >>> float(fg.keras.regularizers.L2(0.5)(fg.constant([1., 2.])))
    2.5
    """

    def __call__(self, x: TensorLike) -> Any:
        return 0.0

    def get_config(self) -> dict:
        """The constructor's arguments."""
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """A regularizer made from ``get_config()``'s dict."""
        return cls(**config)


class L1L2(Regularizer):
    """``l1 * sum(abs(x)) + l2 * sum(square(x))``.

    >>> import finegrad as fg
    >>> float(fg.keras.regularizers.L1L2(l1=1., l2=1.)(fg.constant([1., -2.])))
    8.0

    Raises:
        ValueError: for a negative, infinite or nan factor.
    """

    def __init__(self, l1: Any = 0.0, l2: Any = 0.0) -> None:
        self.l1 = _factor(0.0 if l1 is None else l1, "l1", "L1L2")
        self.l2 = _factor(0.0 if l2 is None else l2, "l2", "L1L2")

    def __call__(self, x: TensorLike) -> Tensor:
        x = convert_to_tensor(x)
        penalty = cast(convert_to_tensor(0.0), x.dtype)
        if self.l1:
            penalty = penalty + cast(convert_to_tensor(self.l1), x.dtype) * reduce_sum(ew.abs(x))
        if self.l2:
            penalty = penalty + cast(convert_to_tensor(self.l2), x.dtype) * reduce_sum(
                ew.square(x))
        return penalty

    def get_config(self) -> Any:
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """``l1 * sum(abs(x))``.

    >>> import finegrad as fg
    >>> float(fg.keras.regularizers.L1(0.5)(fg.constant([1., -2.])))
    1.5
    """

    def __init__(self, l1: Any = 0.01) -> None:
        self.l1 = _factor(l1, "l1", "L1")

    def __call__(self, x: TensorLike) -> Tensor:
        x = convert_to_tensor(x)
        return cast(convert_to_tensor(self.l1), x.dtype) * reduce_sum(ew.abs(x))

    def get_config(self) -> Any:
        return {"l1": float(np.float32(self.l1))}   # (Keras 3 keeps l1 as a float32 tensor)


class L2(Regularizer):
    """``l2 * sum(square(x))``.

    >>> import finegrad as fg
    >>> float(fg.keras.regularizers.L2(0.5)(fg.constant([1., -2.])))
    2.5
    """

    def __init__(self, l2: Any = 0.01) -> None:
        self.l2 = _factor(l2, "l2", "L2")

    def __call__(self, x: TensorLike) -> Tensor:
        x = convert_to_tensor(x)
        return cast(convert_to_tensor(self.l2), x.dtype) * reduce_sum(ew.square(x))

    def get_config(self) -> Any:
        return {"l2": self.l2}


def _l2_normalize(x, axis):
    inv = minimum(ew.rsqrt(reduce_sum(ew.square(x), axis=axis, keepdims=True)), 1.0 / _EPSILON)
    return x * inv


class OrthogonalRegularizer(Regularizer):
    """``factor`` times the mean absolute dot product between distinct L2-normalized rows
    (``mode="rows"``) or columns (``mode="columns"``) of a matrix.

    >>> import finegrad as fg
    >>> reg = fg.keras.regularizers.OrthogonalRegularizer(1.)
    >>> float(reg(fg.constant([[1., 0.], [1., 0.]])))
    1.0

    Raises:
        ValueError: for an unknown mode, or an input that is not 2-D.
    """

    def __init__(self, factor: Any = 0.01, mode: Any = "rows") -> None:
        self.factor = _factor(factor, "factor", "OrthogonalRegularizer")
        if mode not in ("rows", "columns"):
            raise ValueError(f"OrthogonalRegularizer: mode must be 'rows' or 'columns', got "
                             f"{mode!r}")
        self.mode = mode

    def __call__(self, inputs: TensorLike) -> Tensor:
        x = convert_to_tensor(inputs)
        if len(x.shape) != 2:
            raise ValueError(f"OrthogonalRegularizer: the input must have rank 2, got shape "
                             f"{x.shape}")
        if self.mode == "rows":
            x = _l2_normalize(x, 1)
            product, size = matmul(x, transpose(x)), x.shape[0]
        else:
            x = _l2_normalize(x, 0)
            product, size = matmul(transpose(x), x), x.shape[1]
        off_diagonal = product * (1.0 - eye(size, dtype=x.dtype))
        pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * reduce_sum(ew.abs(off_diagonal)) / pairs

    def get_config(self) -> Any:
        return {"factor": self.factor, "mode": self.mode}


l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer
_BY_NAME = {"Regularizer": Regularizer, "L1": L1, "L2": L2, "L1L2": L1L2,
            "OrthogonalRegularizer": OrthogonalRegularizer, "regularizer": Regularizer,
            "l1": L1, "l2": L2, "l1l2": L1L2, "l1_l2": L1L2,
            "orthogonal_regularizer": OrthogonalRegularizer}


def serialize(regularizer: Any) -> dict | None:
    """Keras's config dict (None for None) of a regularizer.

    >>> import finegrad as fg
    >>> fg.keras.regularizers.serialize(fg.keras.regularizers.L2(0.1))["config"]
    {'l2': 0.1}
    """
    return serialize_object(regularizer, "keras.regularizers")


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The regularizer a `serialize` dict or a name describes.

    >>> import finegrad as fg
    >>> fg.keras.regularizers.deserialize("l2").l2
    0.01

    Raises:
        ValueError: for an unknown class name.
    """
    if isinstance(config, str):
        return get(config)
    return deserialize_object(config, _BY_NAME, "regularizer", custom_objects)


def get(identifier: Any) -> Any:
    """A regularizer from None, a name (``"l2"``), a config dict, a class or a callable.

    >>> import finegrad as fg
    >>> type(fg.keras.regularizers.get("l1")).__name__
    'L1'

    Raises:
        ValueError: for an identifier that names no regularizer.
    """
    return get_object(identifier, _BY_NAME, "regularizer", deserialize)
