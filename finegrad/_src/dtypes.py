"""Dtypes: TensorFlow-style dtype objects over NumPy dtypes.

A finegrad `DType` wraps one NumPy dtype and carries TensorFlow's names and predicates
(`tf.float32.is_floating`, `.as_numpy_dtype`, `.name`). Internally tensors hold plain NumPy
values, and `from_numpy` maps a NumPy dtype back to its `DType` with one dict lookup.

Defaults follow TensorFlow: a Python float becomes float32, a Python int int32, a bool bool;
NumPy arrays keep their dtype.
"""

from __future__ import annotations

import numpy as np

from typing import Any

#: NumPy's float and complex scalar types. A tensor's value is an array or a NumPy scalar, and
#: a scalar's type tells its kind without reading its dtype (an attribute that costs more):
#: ``type(v) in INEXACT_SCALARS or v.dtype.kind in "fc"`` on a hot path
FLOAT_SCALARS = frozenset({np.float16, np.float32, np.float64, np.longdouble})
INEXACT_SCALARS = FLOAT_SCALARS | frozenset({np.complex64, np.complex128, np.clongdouble})


class DType:
    """A tensor element type, e.g. ``finegrad.float32``.

    >>> import finegrad as fg
    >>> fg.float32.name, fg.float32.is_floating, fg.int32.is_integer
    ('float32', True, True)
    """

    __slots__ = ("_np", "name")

    def __init__(self, np_dtype: Any) -> None:
        self._np = np.dtype(np_dtype)
        # strings are NumPy object arrays of bytes (TensorFlow's tf.string holds bytes)
        self.name = {"b": "bool", "O": "string"}.get(self._np.kind, self._np.name)

    @property
    def as_numpy_dtype(self) -> Any:
        return self._np.type

    @property
    def is_floating(self) -> bool:
        return self._np.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self._np.kind == "c"

    @property
    def is_integer(self) -> bool:
        return self._np.kind in "iu"

    @property
    def is_unsigned(self) -> Any:
        return self._np.kind in "ub"

    @property
    def is_bool(self) -> bool:
        return self._np.kind == "b"

    @property
    def is_differentiable(self) -> bool:
        """Whether gradients flow through values of this dtype (floating and complex)."""
        return self._np.kind in "fc"

    @property
    def size(self) -> Any:
        return self._np.itemsize

    @property
    def min(self) -> Any:
        return self._limits().min

    @property
    def max(self) -> Any:
        return self._limits().max

    def _limits(self):
        if self.is_floating:
            return np.finfo(self._np)
        if self.is_integer:
            return np.iinfo(self._np)
        if self.is_bool:   # TensorFlow: tf.bool.min is False, max True
            return _BoolLimits
        raise TypeError(f"finegrad.DType: {self.name} has no min or max")

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._np == other._np
        try:
            return self._np == as_dtype(other)._np
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self._np)

    def __repr__(self):
        return f"finegrad.{self.name}"


class _BoolLimits:
    min, max = False, True


float16 = DType(np.float16)
float32 = DType(np.float32)
float64 = DType(np.float64)
int8 = DType(np.int8)
int16 = DType(np.int16)
int32 = DType(np.int32)
int64 = DType(np.int64)
uint8 = DType(np.uint8)
uint16 = DType(np.uint16)
uint32 = DType(np.uint32)
uint64 = DType(np.uint64)
bool_ = DType(np.bool_)
string = DType(np.object_)
complex64 = DType(np.complex64)
complex128 = DType(np.complex128)
half, double = float16, float64

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
        bool_, complex64, complex128, string)
_BY_NUMPY = {d._np: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update(half=float16, double=float64, float=float32, int=int32)


def from_numpy(np_dtype):
    """The DType of a NumPy dtype (fast path used on every tensor's ``.dtype``)."""
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(f"finegrad: unsupported NumPy dtype {np_dtype!r}; supported: "
                        f"{', '.join(sorted(_BY_NAME))}") from None


def as_dtype(type_value: Any) -> Any:
    """Convert a DType, NumPy dtype, NumPy scalar type or dtype name to a DType.

    >>> import numpy as np, finegrad as fg
    >>> fg.as_dtype("float64"), fg.as_dtype(np.int32)
    (finegrad.float64, finegrad.int32)

    Raises:
        TypeError: when ``type_value`` names no supported dtype.
    """
    value = type_value
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    if isinstance(value, str) and value == "bfloat16" or \
            getattr(value, "__name__", None) == "bfloat16" or \
            str(getattr(value, "name", "")) == "bfloat16":
        raise unsupported_bfloat16("finegrad.as_dtype")
    if value in (bytes, str, np.bytes_, np.str_):
        return string
    try:
        return from_numpy(np.dtype(value))
    except TypeError:
        raise TypeError(f"finegrad.as_dtype: expected a dtype (finegrad.float32, 'float32', "
                        f"np.float32, ...), got {value!r} of type {type(value).__name__}") from None


class UnsupportedDtypeError(AttributeError, TypeError):
    """A dtype finegrad does not have: a TypeError, and an AttributeError where it is looked
    up as ``finegrad.bfloat16`` (so ``hasattr`` stays False)."""


def unsupported_bfloat16(fn):
    """TensorFlow's bfloat16: NumPy has no such type, so finegrad has none either."""
    return UnsupportedDtypeError(f"{fn}: bfloat16 is not supported: NumPy, which finegrad "
                                 f"computes with, has no bfloat16 type; use float32 (or float16 "
                                 f"to save memory)")
