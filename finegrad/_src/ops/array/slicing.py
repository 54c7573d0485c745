"""TensorFlow's explicit slicing ops, ``slice`` and ``strided_slice`` (with its five masks),
as indices for the ``strided_slice`` primitive (`indexing.getitem`): their values, VJPs
(a scatter into zeros), JVPs, traces and batching rules are those of ``x[...]``.

Their bounds fix the graph's structure, so inside a `finegrad.function` they must be static:
Python ints, lists, NumPy arrays, or tensors that do not depend on the function's inputs.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims
from finegrad._src import tensor as tensor_module
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.zeros_and_axes import _static, as_tensor
from finegrad._src.ops.array.indexing import getitem
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _ints(v, fn, arg):
    """The 1-D integer vector ``v`` (list, array or static tensor) as a list of ints."""
    a = np.asarray(_static(v, f"{fn}'s {arg}") if isinstance(v, Tensor) else v)
    if a.dtype.kind not in "iu" and not (a.size == 0 and a.dtype.kind == "f"):
        raise TypeError(f"{fn}: {arg} must be integers, got {a.dtype.name} values {v!r:.60}")
    if a.ndim != 1:
        raise ValueError(f"{fn}: {arg} must be a 1-D vector, got shape {a.shape}")
    return [int(i) for i in a]


def _bounds(v, fn, arg):
    """Like `_ints`, with the entries a shape-polymorphic trace knows as symbolic sizes
    (``[shape(x)[0] - 1, -1]``, ``stack([b, 2])``) kept as Dims: the graph follows them."""
    if isinstance(v, Tensor):
        sym = tensor_module._static_size(v)
        return list(sym) if isinstance(sym, tuple) else _ints(v, fn, arg)
    if isinstance(v, (list, tuple)) and any(isinstance(e, Tensor) for e in v):
        out = []
        for e in v:
            sym = tensor_module._static_size(e) if isinstance(e, Tensor) else None
            out.append(sym if type(sym) is dims.Dim else _ints([e], fn, arg)[0])
        return out
    return _ints(v, fn, arg)


def _stop(lo, n, dim):
    """The stop of ``tf.slice``'s block of size ``n`` from ``lo`` on an axis of size ``dim``:
    -1 is the rest of the axis (for a symbolic ``n`` that may be -1: a term that is
    ``dim - lo + 1`` exactly then, 0 otherwise)."""
    if type(n) is not dims.Dim:
        return None if n == -1 else lo + n
    if dims.never_negative(n):
        return lo + n
    return lo + n + dims.at_least_zero(-n) * (dim - lo + 1)


def slice_(input_: TensorLike, begin: Any, size: Any, name: str | None = None) -> Tensor:
    """The block of ``input_`` that starts at ``begin`` and has ``size`` (one entry per axis;
    a size of -1 takes the rest of that axis), as TensorFlow's ``tf.slice``. Differentiable:
    the gradient scatters into the block.

    >>> import finegrad as fg
    >>> x = fg.reshape(fg.range(12), [3, 4])
    >>> fg.slice(x, [1, 1], [2, -1]).numpy()
    array([[ 5,  6,  7],
           [ 9, 10, 11]], dtype=int32)

    Raises:
        ValueError: when ``begin`` or ``size`` is not one integer per axis of ``input_``.
        InvalidArgumentError: when the block does not fit in ``input_`` (a ValueError).
    """
    fn = "finegrad.slice"
    x = as_tensor(input_)
    shape = tuple(core.shape_of(x))   # open sizes stay symbolic (Dims) in a polymorphic trace
    b, s = _bounds(begin, fn, "begin"), _bounds(size, fn, "size")
    if len(b) != len(shape) or len(s) != len(shape):
        raise ValueError(f"{fn}: begin and size must have one entry per axis of input_ (rank "
                         f"{len(shape)}), got {len(b)} and {len(s)}")
    index = []
    for axis, (lo, n, dim) in enumerate(zip(b, s, shape, strict=True)):
        hi = _stop(lo, n, dim)   # -1: the rest, whatever the size of the axis
        if not (0 <= lo and n >= -1 and lo <= dim and (hi is None or hi <= dim)):
            raise InvalidArgumentError(f"{fn}: expected 0 <= begin <= begin + size <= the size "
                                       f"of axis {axis} ({dim}) (size -1 for the rest), got "
                                       f"begin {lo} and size {n}")
        index.append(slice(lo, hi))
    return getitem(x, tuple(index))


def _bit(mask, i):
    return (mask >> i) & 1


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: Any = 0,
                  end_mask: Any = 0, ellipsis_mask: Any = 0, new_axis_mask: Any = 0,
                  shrink_axis_mask: Any = 0, var: Any = None, name: str | None = None) -> Tensor:
    """``input_[begin:end:strides]`` for every axis of the spec, with TensorFlow's masks
    (bit ``i`` of a mask is about entry ``i`` of the spec): ``begin_mask``/``end_mask``
    ignore that begin/end (the whole range in the stride's direction), ``ellipsis_mask``
    makes the entry ``...``, ``new_axis_mask`` a new axis of length 1, ``shrink_axis_mask``
    takes the single index ``begin[i]`` and drops the axis. Values, clamping and negative
    strides are TensorFlow's (and NumPy's); differentiable like ``x[...]``.

    >>> import finegrad as fg
    >>> x = fg.reshape(fg.range(12), [3, 4])
    >>> fg.strided_slice(x, [0, 3], [3, 0], [2, -1], end_mask=2).numpy()
    array([[ 3,  2,  1,  0],
           [11, 10,  9,  8]], dtype=int32)

    Raises:
        ValueError: when begin, end and strides differ in length, a stride is 0, or
            ``ellipsis_mask`` has more than one bit.
        InvalidArgumentError: when a shrunk axis's index is out of range (a ValueError).
        TypeError: for bounds that are not integers.
    """
    fn = "finegrad.strided_slice"
    x = as_tensor(input_)
    b, e = _bounds(begin, fn, "begin"), _bounds(end, fn, "end")
    st = [1] * len(b) if strides is None else _ints(strides, fn, "strides")
    if not len(b) == len(e) == len(st):
        raise ValueError(f"{fn}: begin, end and strides must have the same length, got "
                         f"{len(b)}, {len(e)} and {len(st)}")
    if 0 in st:
        raise ValueError(f"{fn}: strides must be non-zero, got {st}")
    if bin(ellipsis_mask).count("1") > 1:
        raise ValueError(f"{fn}: ellipsis_mask must have at most one bit set, got "
                         f"{ellipsis_mask:#b}")
    index: list = []
    for i, (lo, hi, step) in enumerate(zip(b, e, st, strict=True)):
        if _bit(ellipsis_mask, i):
            index.append(Ellipsis)
        elif _bit(new_axis_mask, i):
            index.append(None)
        elif _bit(shrink_axis_mask, i):
            index.append(int(lo))   # a symbolic index is kept at its traced value (a guard)
        else:
            index.append(slice(None if _bit(begin_mask, i) else lo,
                               None if _bit(end_mask, i) else hi, step))
    try:
        return getitem(x, tuple(index))
    except IndexError as err:
        raise InvalidArgumentError(str(err)) from None
