"""Tensors of the active backend: conversion, shape, dtype, and Keras's promotion rule."""

from typing import Any

from finegrad._src.types import TensorLike

from finegrad._src.backends import promotion as _promotion
from finegrad._src.backends.dispatch.selection import on as _on


def convert_to_tensor(
    x: TensorLike,
    dtype: Any = None,
    sparse: Any = None,
    ragged: Any = None,
) -> Any:
    """``x`` (a number, nested list, NumPy array or tensor) as the backend's tensor; Python
    floats become float32 (Keras's floatx), Python ints int32.

    >>> from finegrad import ops
    >>> ops.convert_to_tensor([1, 2]).dtype.name
    'int32'
    """
    return _on(x).convert_to_tensor(x, dtype=dtype)


def convert_to_numpy(x: TensorLike) -> Any:
    """The value of tensor ``x`` as a NumPy array.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.ones((2,)))
    array([1., 1.], dtype=float32)
    """
    return _on(x).convert_to_numpy(x)


def is_tensor(x: TensorLike) -> Any:
    """Whether ``x`` is a tensor of the active backend.

    >>> from finegrad import ops
    >>> ops.is_tensor(ops.ones(()))
    True
    """
    return bool(_on(x).is_tensor(x))


def shape(x: TensorLike) -> Any:
    """The shape of ``x`` as a tuple (None for sizes unknown while tracing).

    >>> from finegrad import ops
    >>> ops.shape(ops.zeros((2, 3)))
    (2, 3)
    """
    backend = _on(x)
    return backend.static_shape(x if backend.is_tensor(x) else backend.convert_to_tensor(x))


def dtype(x: TensorLike) -> Any:
    """The dtype name of ``x`` (``"float32"``), as Keras's ``standardize_dtype`` gives it.

    >>> from finegrad import ops
    >>> ops.dtype(ops.ones((1,), dtype="int8"))
    'int8'
    """
    backend = _on(x)
    return backend.dtype_name(x if backend.is_tensor(x) else backend.convert_to_tensor(x))


def result_type(*dtypes: Any) -> Any:
    """Keras 3's dtype promotion (``keras.backend.result_type``), which every backend of
    `finegrad.ops` applies: mixed dtypes are promoted (int32 + float32 is float32, float32 +
    float64 is float64), a Python number takes the tensor's kind and size when it can.

    >>> from finegrad import ops
    >>> ops.result_type("int32", "float32"), ops.result_type("float16", float)
    ('float32', 'float16')
    """
    return _promotion.result_type(*dtypes)
