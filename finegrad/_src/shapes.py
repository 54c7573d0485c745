"""TensorShape and Dimension: the static shape of a tensor, with TensorFlow's behaviours.

A `TensorShape` is a tuple whose entries are ints, or None for a size a traced graph leaves
open; being a tuple, it works wherever NumPy or Python code expects a shape. On top it has
TensorFlow's methods (`as_list`, `rank`, `merge_with`, `concatenate`, ...), indexing that gives
an int (or None) and slicing that gives a TensorShape, and equality with lists and tuples.
`Dimension` is TensorFlow 1's wrapper of one size (``tf.compat.v1.Dimension``), kept for code
that still builds or reads one.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

import numpy as np

from typing import Any


class Dimension:
    """One size of a shape: an int, or unknown (None).

    >>> from finegrad._src.shapes import Dimension
    >>> d = Dimension(3)
    >>> d.value, d == 3, int(d + 1), Dimension(None).value
    (3, True, 4, None)
    """

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            if isinstance(value, (bool, float)) or int(value) != value:
                raise TypeError(f"finegrad.Dimension: expected an int or None, got {value!r}")
            value = int(value)
            if value < 0:
                raise ValueError(f"finegrad.Dimension: a size must be >= 0, got {value}")
        self._value = value

    @property
    def value(self) -> int:
        return self._value

    def __int__(self):
        return self._value

    __index__ = __int__

    def __eq__(self, other):
        try:
            other = _value_of(other)
        except (TypeError, ValueError):   # not a size at all (TensorFlow: False)
            return False
        if self._value is None or other is None:
            return None
        return self._value == other

    def __reduce__(self):
        return Dimension, (self._value,)

    def _compare(self, other, op):
        """An order between sizes; None (unknown) when either is."""
        other = _value_of(other)
        if self._value is None or other is None:
            return None
        return op(self._value, other)

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return None if eq is None else not eq

    def __hash__(self):
        return hash(self._value)

    def _combine(self, other, op):
        other = _value_of(other)
        if self._value is None or other is None:
            return Dimension(None)
        return Dimension(op(self._value, other))

    def __add__(self, other):
        return self._combine(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other):
        return self._combine(other, lambda a, b: a - b)

    def __rsub__(self, other):
        return Dimension(other)._combine(self, lambda a, b: a - b)

    def __mul__(self, other):
        return self._combine(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return self._combine(other, lambda a, b: a // b)

    def __rfloordiv__(self, other):
        return Dimension(other)._combine(self, lambda a, b: a // b)

    def __mod__(self, other):
        return self._combine(other, lambda a, b: a % b)

    def __rmod__(self, other):
        return Dimension(other)._combine(self, lambda a, b: a % b)

    def __truediv__(self, other):
        raise TypeError(f"unsupported operand type(s) for /: 'Dimension' and "
                        f"'{type(other).__name__}', please use // instead")

    def assert_is_compatible_with(self, other: Any) -> None:
        """ValueError unless the sizes agree where both are known."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {Dimension(other)} are not compatible")

    def is_compatible_with(self, other: Any) -> bool:
        """Whether the sizes agree where both are known."""
        other = _value_of(other)
        return self._value is None or other is None or self._value == other

    def merge_with(self, other: Any) -> Any:
        """The known one of two compatible sizes; ValueError when they differ."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {Dimension(other)} are not compatible")
        return Dimension(self._value if self._value is not None else _value_of(other))

    def __repr__(self):
        return f"Dimension({self._value})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)


def _value_of(d):
    return d.value if isinstance(d, Dimension) else (None if d is None else int(d))


def dimension_at_index(shape: Any, index: Any) -> Any:
    """Axis ``index`` of ``shape`` as a `Dimension` (``tf.compat.dimension_at_index``);
    ``Dimension(None)`` for a shape of unknown rank.

    >>> import finegrad as fg
    >>> fg.compat.dimension_at_index(fg.TensorShape([2, None]), 1)
    Dimension(None)
    """
    shape = as_shape(shape)
    if shape.rank is None:
        return Dimension(None)
    return Dimension(shape[index])


def dimension_value(dimension: Any) -> int:
    """The int (or None) of a Dimension, an int or None (``tf.compat.dimension_value``).

    >>> import finegrad as fg
    >>> fg.compat.dimension_value(fg.zeros((2, 5)).shape[1])
    5
    """
    return _value_of(dimension)


#: whether ``TensorShape[i]`` is a `Dimension` (TensorFlow 1's shapes, turned on by
#: ``compat.v1.disable_v2_tensorshape`` or ``disable_v2_behavior``) rather than an int or None
V1_DIMENSIONS = [False]


def disable_v2_tensorshape() -> None:
    """``shape[i]`` is a `Dimension` (with ``.value``), as in TensorFlow 1.

    >>> import finegrad as fg
    >>> fg.compat.v1.disable_v2_tensorshape()
    >>> fg.zeros((2, 3)).shape[1].value
    3
    >>> fg.compat.v1.enable_v2_tensorshape()
    >>> fg.zeros((2, 3)).shape[1]
    3
    """
    V1_DIMENSIONS[0] = True


def enable_v2_tensorshape() -> None:
    """``shape[i]`` is an int or None again (TensorFlow 2's shapes)."""
    V1_DIMENSIONS[0] = False


class TensorShape(tuple):
    """The shape of a tensor: a tuple of ints (None for an open size) with TensorFlow's API.

    >>> import finegrad as fg
    >>> s = fg.zeros((2, 3)).shape
    >>> s == (2, 3), s == [2, 3], s.as_list(), s.rank, s[1:], s[0]
    (True, True, [2, 3], 2, TensorShape([3]), 2)
    >>> fg.TensorShape([None, 3]).merge_with([4, None])
    TensorShape([4, 3])
    """

    __slots__ = ()

    def __new__(cls, dims=()):
        if type(dims) is tuple:  # NumPy's shapes: the fast path of every Tensor.shape
            for d in dims:
                if type(d) is not int and d is not None:
                    return tuple.__new__(cls, map(_value_of, dims))
            return tuple.__new__(cls, dims)
        if dims is None:
            return tuple.__new__(_UnknownRankShape)
        if isinstance(dims, (int, np.integer, Dimension)):
            dims = (dims,)
        return tuple.__new__(cls, (_value_of(d) for d in dims))

    def __getitem__(self, key):
        if isinstance(key, slice):
            return TensorShape(tuple.__getitem__(self, key))
        if V1_DIMENSIONS[0]:   # TensorFlow 1's shapes (disable_v2_tensorshape): a Dimension
            return Dimension(tuple.__getitem__(self, key))
        return tuple.__getitem__(self, key)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def as_list(self) -> Any:
        """The sizes as a list of ints (None for an open size)."""
        return list(self)

    @property
    def rank(self) -> int:
        return len(self)

    @property
    def ndims(self) -> int:
        return len(self)

    @property
    def dims(self) -> Any:
        """The sizes as `Dimension` objects (TensorFlow 1's view)."""
        return [Dimension(d) for d in self]

    def num_elements(self) -> Any:
        """The number of elements, or None when a size is unknown (inside a trace)."""
        if any(s is None for s in self):
            return None
        return int(np.prod(self, dtype=np.int64))

    def is_fully_defined(self) -> bool:
        return all(s is not None for s in self)

    def concatenate(self, other: Any) -> Any:
        """This shape followed by ``other``'s sizes."""
        if isinstance(as_shape(other), _UnknownRankShape):
            return as_shape(other)
        return TensorShape(tuple(self) + tuple(as_shape(other)))

    def is_compatible_with(self, other: Any) -> bool:
        """Whether both have the same rank and agree on every size both know."""
        other = as_shape(other)
        if isinstance(other, _UnknownRankShape):
            return True
        return len(self) == len(other) and all(
            a is None or b is None or a == b for a, b in zip(self, other, strict=True))

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raise ValueError unless `is_compatible_with(other)`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other: Any) -> Any:
        """The shape with every size either shape knows; ValueError when they disagree."""
        other = as_shape(other)
        self.assert_is_compatible_with(other)
        if isinstance(other, _UnknownRankShape):
            return self
        return TensorShape(tuple(a if a is not None else b
                                 for a, b in zip(self, other, strict=True)))

    def most_specific_compatible_shape(self, other: Any) -> Any:
        """The sizes both shapes share, None where they differ."""
        other = as_shape(other)
        if len(self) != len(other):
            raise ValueError(f"Shapes {self} and {other} have different ranks")
        return TensorShape(tuple(a if a == b else None for a, b in zip(self, other, strict=True)))

    def assert_has_rank(self, rank: Any) -> None:
        """Raise ValueError unless the shape has ``rank`` dimensions."""
        if len(self) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other: Any) -> None:
        """Raise ValueError unless ``other`` has the same rank."""
        if len(self) != len(as_shape(other)):
            raise ValueError(f"Shapes {self} and {as_shape(other)} must have the same rank")

    def with_rank(self, rank: Any) -> Any:
        """This shape, checked to have ``rank`` dimensions."""
        self.assert_has_rank(rank)
        return self

    def with_rank_at_least(self, rank: Any) -> Any:
        """This shape, checked to have at least ``rank`` dimensions."""
        if len(self) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        """As TensorFlow prints a shape: ``(2, 3)``, ``(None, 3)``, ``(2,)``."""
        return str(tuple(self))


class _UnknownRankShape(TensorShape):
    """``TensorShape(None)``: a shape whose rank is not known either; compatible with every
    shape, and an error where a rank or a size list is needed (as in TensorFlow)."""

    __slots__ = ()

    def _no_rank(self, *args):
        raise ValueError("finegrad.TensorShape: the shape has unknown rank (TensorShape(None))")

    __len__ = __iter__ = as_list = _no_rank
    __getitem__ = _no_rank

    @property
    def rank(self):
        return None

    def __str__(self):
        return "<unknown>"

    ndims = dims = rank

    def num_elements(self):
        return None

    def is_fully_defined(self):
        return False

    def __eq__(self, other):
        return isinstance(other, _UnknownRankShape)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def concatenate(self, other):
        return self

    def is_compatible_with(self, other):
        return True

    def merge_with(self, other):
        return as_shape(other)

    def with_rank(self, rank):
        return TensorShape([None] * rank)

    def with_rank_at_least(self, rank):
        return self

    def __repr__(self):
        return "TensorShape(None)"


def as_shape(shape):
    """``shape`` as a TensorShape (from a TensorShape, list, tuple, int or Dimension)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


# --- integer arguments (shapes, axes, perm, sizes) ---------------------------------------------

def as_int(value, fn, arg, whole=None):
    """``value`` as a Python int, for the argument ``arg`` of the public function ``fn``.

    Ints, NumPy integers, `Dimension` and integer scalar tensors are accepted; a float, a
    bool or a string is a TypeError naming ``fn`` and ``arg`` (TensorFlow refuses them too;
    truncating ``2.5`` to 2 would be a silent wrong shape)."""
    if not isinstance(value, (bool, np.bool_, str, bytes)):
        static = getattr(value, "_static_int", None)   # a Tensor: a traced one is guarded
        if static is not None and value.dtype.is_integer and len(value.shape) == 0:
            return static(f"{fn}'s {arg}")   # a trace's refusal says why: let it through
        try:
            return operator.index(value)
        except TypeError:
            pass
    shown = "" if whole is None else f" in {whole!r:.60}"
    raise TypeError(f"{fn}: {arg} must be an int or a sequence of ints, got "
                    f"{type(value).__name__} {value!r:.40}{shown}")


def as_ints(value, fn, arg):
    """``value`` (one int or a sequence of them) as a tuple of Python ints; see `as_int`.

    >>> from finegrad._src.shapes import as_ints
    >>> as_ints([2, 3], "finegrad.zeros", "shape")
    (2, 3)
    >>> as_ints("32", "finegrad.ones", "shape")
    Traceback (most recent call last):
    TypeError: finegrad.ones: shape must be an int or a sequence of ints, got the string '32'
    """
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{fn}: {arg} must be an int or a sequence of ints, got the string "
                        f"{value!r:.40}")
    if not isinstance(value, Iterable) or getattr(value, "ndim", 1) == 0:
        return (as_int(value, fn, arg),)
    return tuple(as_int(v, fn, arg, value) for v in value)



def reshape_target(in_shape, shape):
    """``shape`` (a reshape target holding -1) with the -1 resolved as TensorFlow's kernel
    does, also for empty tensors: when the target has a 0, the input's zero sizes do not
    count, so ``(0, 3)`` to ``(0, -1)`` is ``(0, 3)`` (NumPy refuses it). Unresolvable
    targets are left to NumPy's error."""
    shape = tuple(shape)
    if shape.count(-1) != 1:
        return shape
    has_zero = 0 in shape
    known = int(np.prod([d for d in shape if d not in (-1, 0)], dtype=np.int64))
    total = int(np.prod([d for d in in_shape if d or not has_zero], dtype=np.int64))
    if known == 0 or total % known and not (has_zero and 0 in in_shape):
        return shape
    return tuple(total // known if d == -1 else d for d in shape)
