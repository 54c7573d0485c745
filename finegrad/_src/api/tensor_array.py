"""``tf.TensorArray``: a list of tensors of one dtype and one shape, written and read by index.

finegrad runs Python loops as Python (eagerly, and unrolled inside `finegrad.function`, where
a loop over a traced ``range`` keeps a guard on its length), so a TensorArray is the list of
the tensors written to it: `stack` is one `stack` op and every read is the tensor written,
so gradients flow through them as through any op. As in eager TensorFlow, `write`,
`scatter`, `unstack` and `split` change the array and return it (``ta = ta.write(i, x)``, the
form graph code needs, works the same). Indices may be traced tensors inside a function
(their values are guarded, as a range's bounds are).

Not supported: a TensorArray as a ``while_loop`` loop variable (finegrad's loops carry
tensors; write the loop in Python, or accumulate into a tensor), and `grad`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src import dtypes, tensor as tensor_module
from finegrad._src.errors import InvalidArgumentError, OutOfRangeError
from finegrad._src.ops.array.constants import zeros
from finegrad._src.ops.array.structural import concat, convert_to_tensor, stack, unstack
from finegrad._src.shapes import TensorShape
from finegrad._src.tensor import Tensor


def _index(i: Any, what: str) -> int:
    """A Python int of ``i`` (a traced scalar's value is guarded inside a function)."""
    if isinstance(i, Tensor):
        i = tensor_module._static_value(i, f"finegrad.TensorArray.{what}'s index")
    return int(np.asarray(i).item())


class TensorArray:
    """A list of tensors of one ``dtype`` (and one shape, where ``infer_shape``), written
    and read by index (see the module).

    >>> import finegrad as fg
    >>> ta = fg.TensorArray(fg.float32, size=0, dynamic_size=True)
    >>> for i in range(3):
    ...     ta = ta.write(i, fg.constant([1., 2.]) * i)
    >>> ta.stack().numpy()
    array([[0., 0.],
           [1., 2.],
           [2., 4.]], dtype=float32)
    """

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: Any = None,
                 clear_after_read: Any = None, tensor_array_name: Any = None,
                 handle: Any = None, flow: Any = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: str | None = None) -> None:
        self._dtype = dtypes.as_dtype(dtype)
        if size is None and not dynamic_size:
            raise ValueError("finegrad.TensorArray: size must be given unless dynamic_size "
                             "is True")
        self._size = 0 if size is None else _index(size, "size")
        if self._size < 0:
            raise InvalidArgumentError(f"finegrad.TensorArray: size must be >= 0, got "
                                       f"{self._size}")
        self._dynamic = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = TensorShape(element_shape)
        self._items: dict[int, Tensor] = {}

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    def size(self, name: str | None = None) -> Tensor:
        """The number of elements (an int32 scalar)."""
        return convert_to_tensor(np.int32(self._size))

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """Write ``value`` at ``index``; the array (grown if ``dynamic_size``)."""
        i = _index(index, "write")
        if i < 0 or (i >= self._size and not self._dynamic):
            raise OutOfRangeError(
                f"finegrad.TensorArray.write: Tried to write to index {i} but array is not "
                f"resizeable and size is: {self._size}")
        v = self._checked(value, "write")
        self._items[i] = v
        self._size = max(self._size, i + 1)
        return self

    def _checked(self, value: Any, what: str) -> Tensor:
        v = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=self._dtype)
        if v.dtype != self._dtype:
            raise InvalidArgumentError(
                f"finegrad.TensorArray.{what}: TensorArray dtype is {self._dtype.name} but "
                f"Op is trying to write dtype {v.dtype.name}")
        if self._infer_shape:
            if not self._element_shape.is_compatible_with(v.shape):
                raise ValueError(
                    f"finegrad.TensorArray.{what}: Incompatible shape for value "
                    f"({tuple(v.shape)}), expected ({tuple(self._element_shape)})")
            self._element_shape = self._element_shape.merge_with(v.shape)
        return v

    def read(self, index: Any, name: str | None = None) -> Tensor:
        """The tensor at ``index`` (zeros of the element shape where none was written and
        that shape is known)."""
        i = _index(index, "read")
        if i < 0 or i >= self._size:
            raise OutOfRangeError(
                f"finegrad.TensorArray.read: Tried to read from index {i} but array size "
                f"is: {self._size}")
        got = self._items.get(i)
        if got is not None:
            return got
        if not self._element_shape.is_fully_defined():
            raise ValueError(
                f"finegrad.TensorArray.read: Could not read from TensorArray index {i} "
                f"because it has not yet been written to, and its element shape "
                f"{self._element_shape} is not fully defined")
        return zeros(self._element_shape.as_list(), self._dtype)

    def stack(self, name: str | None = None) -> Tensor:
        """All elements stacked on a new first axis."""
        if self._size == 0:
            shape = self._element_shape.as_list() if self._element_shape.rank is not None \
                else []
            return zeros([0] + [0 if d is None else d for d in shape], self._dtype)
        return stack([self.read(i) for i in range(self._size)], 0)

    def gather(self, indices: Any, element_shape: Any = None,
               name: str | None = None) -> Tensor:
        """The elements at ``indices``, stacked."""
        idx = np.asarray(tensor_module._static_value(convert_to_tensor(indices),
                                                     "finegrad.TensorArray.gather's indices"))
        if idx.size == 0:
            return zeros([0] + (self._element_shape.as_list() if
                                self._element_shape.is_fully_defined() else []), self._dtype)
        return stack([self.read(int(i)) for i in idx.reshape(-1)], 0)

    def concat(self, name: str | None = None) -> Tensor:
        """All elements concatenated along their first axis."""
        return concat([self.read(i) for i in range(self._size)], 0)

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """Write the rows of ``value`` at 0, 1, ...; the array."""
        rows = unstack(self._as_value(value))
        return self.scatter(list(range(len(rows))), rows)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """Write the rows of ``value`` at ``indices``; the array."""
        idx = np.asarray(tensor_module._static_value(convert_to_tensor(indices),
                                                     "finegrad.TensorArray.scatter's indices"))
        rows = value if isinstance(value, list) else unstack(self._as_value(value))
        if len(rows) != idx.size:
            raise InvalidArgumentError(f"finegrad.TensorArray.scatter: {idx.size} indices "
                                       f"for {len(rows)} rows of value")
        for i, row in zip(idx.reshape(-1), rows, strict=True):
            self.write(int(i), row)
        return self

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """Write consecutive pieces of ``value`` (along its first axis) of ``lengths``."""
        v = self._as_value(value)
        sizes = np.asarray(tensor_module._static_value(
            convert_to_tensor(lengths), "finegrad.TensorArray.split's lengths")).reshape(-1)
        if int(sizes.sum()) != int(v.shape[0]):
            raise InvalidArgumentError(
                f"finegrad.TensorArray.split: lengths sum to {int(sizes.sum())}, value has "
                f"{v.shape[0]} rows")
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        saved, self._infer_shape = self._infer_shape, False   # (pieces differ in length)
        try:
            for k, (s, n) in enumerate(zip(starts, sizes, strict=True)):
                self.write(k, v[int(s):int(s + n)])
        finally:
            self._infer_shape = saved
        return self

    def _as_value(self, value: Any) -> Tensor:
        v = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=self._dtype)
        if v.dtype != self._dtype:
            raise InvalidArgumentError(f"finegrad.TensorArray: TensorArray dtype is "
                                       f"{self._dtype.name} but value has dtype "
                                       f"{v.dtype.name}")
        return v

    def identity(self) -> TensorArray:
        """The array itself (TensorFlow's: a new handle on the same elements)."""
        return self

    def close(self, name: str | None = None) -> None:
        """Drop the elements."""
        self._items.clear()
        self._size = 0

    def __repr__(self) -> str:
        return (f"<finegrad.TensorArray dtype={self._dtype.name} size={self._size} "
                f"element_shape={self._element_shape}>")
