"""Type aliases for annotations: what a parameter accepts, for type checkers and readers.

``TensorLike`` is what `convert_to_tensor` and every op take (TensorFlow's
``tf.types.experimental.TensorLike``, public as ``finegrad.types.experimental.TensorLike``):
a `Tensor` or `Variable`, a NumPy array or scalar, a Python number, string or (nested)
sequence of them, or any object that NumPy converts to an array (``__array__``: pandas,
JAX, PyTorch, TensorFlow, ...). ``DTypeLike`` is what `as_dtype` takes, ``ShapeLike`` a
shape, ``AxisLike`` an axis argument. These are annotations only: nothing checks them at
run time, and no function's body evaluates them.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeAlias

import numpy as np

from finegrad._src.dtypes import DType
from finegrad._src.shapes import TensorShape
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable


class SupportsArray(Protocol):
    """An object NumPy turns into an array through ``__array__`` (pandas, JAX, PyTorch...)."""

    def __array__(self) -> np.ndarray: ...


TensorLike: TypeAlias = (Tensor | Variable | np.ndarray | np.generic | SupportsArray | bool | int
                         | float | complex | str | bytes | memoryview | Sequence[Any])
DTypeLike: TypeAlias = DType | np.dtype | type | str
ShapeLike: TypeAlias = TensorShape | Sequence[Any] | Tensor | int
AxisLike: TypeAlias = int | Sequence[int] | Tensor | None

__all__ = ["AxisLike", "DTypeLike", "ShapeLike", "SupportsArray", "TensorLike"]
