"""Counting and tabulating: unique, bincount and confusion_matrix, and polyval.

Their results' shapes depend on the values of integer inputs, so those inputs are static
(constants inside a ``finegrad.function``). ``unique`` and ``bincount`` carry no gradient
(TensorFlow has none); ``confusion_matrix`` sums its weights with ``unsorted_segment_sum``,
so it is differentiable in the weights as TensorFlow's scatter is; ``polyval`` is Horner's
rule with the arithmetic ops.
"""

from __future__ import annotations

import collections

import numpy as np

from finegrad._src import dtypes
from finegrad._src.dtypes import as_dtype
from finegrad._src.ops.assertion import run_check
from finegrad._src.ops.math.arithmetic import clip_by_value
from finegrad._src.ops.math.elementwise import floor
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reshape
from finegrad._src.ops.zeros_and_axes import _static
from finegrad._src.ops.math.segments import unsorted_segment_sum
from finegrad._src.errors import InvalidArgumentError, ResourceExhaustedError
from finegrad._src.shapes import as_int
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike

Unique = collections.namedtuple("Unique", ["y", "idx"])


def _integer_values(fn, x, arg):
    """The NumPy value of integer tensor ``x`` (static), or a TypeError naming ``arg``."""
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        raise TypeError(f"finegrad.{fn}: {arg} must be an integer tensor, got {t.dtype.name}")
    return np.asarray(_static(t, f"{fn}'s {arg}"))


def unique(x: TensorLike, out_idx: DTypeLike = "int32", name: str | None = None) -> Any:
    """The distinct values of the vector ``x`` in the order they first appear (not sorted,
    as TensorFlow), and for each entry of ``x`` the index of its value in ``y``: a named
    tuple ``(y, idx)`` with ``x == gather(y, idx)``. Each NaN counts as distinct. Not
    differentiable.

    Args:
        x: a vector (rank 1).
        out_idx: the dtype of ``idx``, int32 (default) or int64.

    >>> import finegrad as fg
    >>> y, idx = fg.unique(fg.constant([3, 1, 3, 2, 1]))
    >>> y.numpy(), idx.numpy()
    (array([3, 1, 2], dtype=int32), array([0, 1, 0, 2, 1], dtype=int32))
    """
    t = convert_to_tensor(x)
    v = np.asarray(_static(t, "unique's x"))
    if v.ndim != 1:
        raise ValueError(f"finegrad.unique: x must be a vector (rank 1), got shape {v.shape}")
    dt = as_dtype(out_idx)
    if dt.name not in ("int32", "int64"):
        raise TypeError(f"finegrad.unique: out_idx must be int32 or int64, got {dt.name}")
    values, first, inverse = np.unique(v, return_index=True, return_inverse=True,
                                       equal_nan=False)
    order = np.argsort(first, kind="stable")        # by first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return Unique(Tensor(values[order].astype(v.dtype)),
                  Tensor(rank[inverse.reshape(-1)].astype(dt.as_numpy_dtype)))


def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = "int32", name: str | None = None, axis: Any = None,
             binary_output: Any = False) -> Tensor:
    """How often each value 0, 1, ... occurs in the non-negative integer tensor ``arr`` (all
    of its entries), or the sum of ``weights`` per value. The length is max(arr) + 1, at
    least ``minlength`` and at most ``maxlength`` (larger values are dropped). Not
    differentiable (TensorFlow has no gradient for it).

    Args:
        arr: non-negative integers.
        weights: None, or a tensor shaped as ``arr``; the output then has its dtype.
        dtype: the output's dtype without weights (int32 default).
        binary_output: 1 where a value occurs instead of its count.
        axis: None (or 0): count over all of ``arr``; TensorFlow's per-row ``axis=-1`` is
            not supported (NotImplementedError).

    Raises:
        InvalidArgumentError: (a ValueError) for negative values, as TensorFlow.

    >>> import finegrad as fg
    >>> fg.math.bincount(fg.constant([1, 1, 3])).numpy()
    array([0, 2, 0, 1], dtype=int32)
    """
    if axis not in (None, 0):
        raise NotImplementedError(f"finegrad.bincount: only axis=None (count over all of arr) "
                                  f"is supported, got axis={axis!r}")
    a = _integer_values("bincount", arr, "arr")
    if a.size and a.min() < 0:
        raise InvalidArgumentError(f"finegrad.bincount: arr must be non-negative, got "
                                   f"{a.min()}")
    n = int(a.max()) + 1 if a.size else 0
    if minlength is not None:
        n = max(n, as_int(minlength, "finegrad.bincount", "minlength"))
    if maxlength is not None:
        n = min(n, as_int(maxlength, "finegrad.bincount", "maxlength"))
    try:   # (a huge max(arr): TensorFlow runs out of memory too; sizes are int32 there)
        if n > np.iinfo(np.int32).max:
            raise MemoryError
        np.empty(n, np.int64)
    except MemoryError:
        raise ResourceExhaustedError(f"finegrad.bincount: the counts would have {n} entries "
                                     f"(max(arr) + 1); give maxlength to bound them") from None
    flat = a.reshape(-1)
    keep = flat < n
    if weights is None or binary_output:
        out: Any = np.bincount(flat[keep], minlength=n)[:n]
        out = (out > 0) if binary_output else out
        return Tensor(out.astype(as_dtype(dtype).as_numpy_dtype))
    w = _values(weights)
    if w.shape != a.shape:
        raise ValueError(f"finegrad.bincount: weights must have arr's shape {a.shape}, got "
                         f"{w.shape}")
    out = np.zeros(n, w.dtype)
    np.add.at(out, flat[keep], w.reshape(-1)[keep])
    return Tensor(out)


def _values(x):
    return np.asarray(_static(convert_to_tensor(x), "bincount's weights"))


def confusion_matrix(labels: TensorLike, predictions: TensorLike, num_classes: Any = None,
                     weights: Any = None, dtype: DTypeLike = "int32",
                     name: str | None = None) -> Tensor:
    """The ``num_classes x num_classes`` matrix whose entry ``[i, j]`` counts (or sums the
    ``weights`` of) the examples with label i predicted as j. ``num_classes`` defaults to
    max(labels, predictions) + 1. Differentiable in ``weights`` (each example's weight goes
    to its cell).

    Raises:
        InvalidArgumentError: (a ValueError) for negative labels or predictions, or ones
            not below ``num_classes``, as TensorFlow.
        ValueError: when labels and predictions differ in shape.

    >>> import finegrad as fg
    >>> fg.math.confusion_matrix([1, 2, 0], [1, 1, 0]).numpy()
    array([[1, 0, 0],
           [0, 1, 0],
           [0, 1, 0]], dtype=int32)
    """
    lab = _integer_values("confusion_matrix", labels, "labels").reshape(-1)
    pred = _integer_values("confusion_matrix", predictions, "predictions").reshape(-1)
    if lab.shape != pred.shape:
        raise ValueError(f"finegrad.confusion_matrix: labels and predictions must have one "
                         f"size, got {lab.size} and {pred.size}")
    for arg, v in (("labels", lab), ("predictions", pred)):
        if v.size and v.min() < 0:
            raise InvalidArgumentError(f"finegrad.confusion_matrix: {arg} must be "
                                       f"non-negative, got {v.min()}")
    if num_classes is None:
        n = int(max(lab.max(initial=-1), pred.max(initial=-1))) + 1
    else:
        if isinstance(num_classes, Tensor):
            num_classes = _static(num_classes, "confusion_matrix's num_classes")
        n = as_int(num_classes, "finegrad.confusion_matrix", "num_classes")
        for arg, v in (("labels", lab), ("predictions", pred)):
            if v.size and v.max() >= n:
                raise InvalidArgumentError(f"finegrad.confusion_matrix: {arg} must be < "
                                           f"num_classes ({n}), got {v.max()}")
    dt = as_dtype(dtype)
    if weights is None:
        w = Tensor(np.ones(lab.size, dt.as_numpy_dtype))
    else:
        w = cast(reshape(convert_to_tensor(weights), (-1,)), dt)
    if not lab.size:
        return Tensor(np.zeros((n, n), dt.as_numpy_dtype))
    return reshape(unsorted_segment_sum(w, lab * n + pred, n * n), (n, n))


UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def unique_with_counts(x: TensorLike, out_idx: DTypeLike = "int32", name: str | None = None) -> Any:
    """`unique`'s ``(y, idx)`` and ``count``, how often each value of ``y`` occurs in ``x``
    (of dtype ``out_idx``). Not differentiable; ``x`` is static inside a traced function.

    >>> import finegrad as fg
    >>> y, idx, count = fg.unique_with_counts(fg.constant([1, 1, 2, 4, 4, 4]))
    >>> y.numpy(), count.numpy()
    (array([1, 2, 4], dtype=int32), array([2, 1, 3], dtype=int32))
    """
    y, idx = unique(x, out_idx)
    i = np.asarray(idx._value)
    count = np.bincount(i, minlength=np.shape(y._value)[0]).astype(i.dtype)
    return UniqueWithCounts(y, idx, Tensor(count))


def histogram_fixed_width_bins(values: Any, value_range: Any, nbins: Any = 100,
                               dtype: Any = "int32", name: str | None = None) -> Tensor:
    """The bin, of ``nbins`` equal bins over ``value_range`` ``[lo, hi)``, of each value
    (below ``lo``: bin 0; at or above ``hi``: the last), as TensorFlow's.

    >>> import finegrad as fg
    >>> fg.histogram_fixed_width_bins(fg.constant([-1., 1.5, 5., 15.]), [0., 5.], 5).numpy()
    array([0, 1, 4, 4], dtype=int32)

    Raises:
        finegrad.errors.InvalidArgumentError: for a NaN value, ``lo >= hi`` or ``nbins < 1``
            (eagerly; in a graph, when it runs).
    """
    n = int(_static(convert_to_tensor(nbins), "finegrad.histogram_fixed_width's nbins"))
    if n < 1:
        raise InvalidArgumentError(f"finegrad.histogram_fixed_width: nbins should be a "
                                   f"positive number, but got '{n}'")
    v = cast(convert_to_tensor(values), dtypes.float64)
    r = cast(convert_to_tensor(value_range), dtypes.float64)

    def check(vals: np.ndarray, rng: np.ndarray) -> None:
        if not rng[0] < rng[1]:
            raise InvalidArgumentError(f"finegrad.histogram_fixed_width: value_range should "
                                       f"satisfy value_range[0] < value_range[1], but got "
                                       f"'{rng.tolist()}'")
        if np.isnan(vals).any():
            raise InvalidArgumentError("finegrad.histogram_fixed_width: Histogram values must "
                                       "not contain NaN")
    run_check(check, v, r)
    scaled = floor((v - r[0]) / (r[1] - r[0]) * float(n))
    return cast(clip_by_value(scaled, 0., float(n - 1)), as_dtype(dtype))


def histogram_fixed_width(values: Any, value_range: Any, nbins: Any = 100,
                          dtype: Any = "int32", name: str | None = None) -> Tensor:
    """How many values fall in each of ``nbins`` equal bins over ``value_range`` (values
    outside count in the first or last bin), as TensorFlow's.

    >>> import finegrad as fg
    >>> fg.histogram_fixed_width(fg.constant([-1., 0., 1.5, 2., 5., 15.]), [0., 5.],
    ...                          nbins=5).numpy()
    array([2, 1, 1, 0, 2], dtype=int32)
    """
    bins = histogram_fixed_width_bins(values, value_range, nbins)
    n = int(_static(convert_to_tensor(nbins), "finegrad.histogram_fixed_width's nbins"))
    return bincount(reshape(bins, [-1]), minlength=n, maxlength=n, dtype=dtype)
