"""``tf.dynamic_partition`` and ``tf.dynamic_stitch``: splitting rows by a partition number
and merging them back by index, composed of `boolean_mask` and `gather` (so gradients flow,
and value-dependent sizes work inside functions as `boolean_mask`'s do).

One difference from TensorFlow: where two of ``dynamic_stitch``'s indices are the same, the
later value is the one merged (as in TensorFlow), and only it receives a gradient (the
derivative of the result); TensorFlow's gradient also gives the overwritten value one.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src import dtypes, tensor as tensor_module
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.array.manipulation import boolean_mask
from finegrad._src.ops.array.structural import concat, convert_to_tensor, reshape, zeros_like
from finegrad._src.ops.assertion import run_check
from finegrad._src.ops.math.elementwise import equal
from finegrad._src.tensor import Tensor


def dynamic_partition(data: Any, partitions: Any, num_partitions: int,
                      name: str | None = None) -> list[Tensor]:
    """``[data[partitions == i] for i in range(num_partitions)]`` (``partitions``' shape a
    prefix of ``data``'s).

    >>> import finegrad as fg
    >>> a, b = fg.dynamic_partition(fg.constant([10., 20., 30.]), fg.constant([1, 0, 1]), 2)
    >>> a.numpy(), b.numpy()
    (array([20.], dtype=float32), array([10., 30.], dtype=float32))

    Raises:
        finegrad.errors.InvalidArgumentError: for a partition outside ``[0,
            num_partitions)`` (eagerly; in a graph, when it runs).
    """
    x, p = convert_to_tensor(data), convert_to_tensor(partitions)
    n = int(num_partitions)
    if not p.dtype.is_integer:
        raise TypeError(f"finegrad.dynamic_partition: partitions must be int32, got "
                        f"{p.dtype.name}")
    if tuple(x.shape[:len(p.shape)]) != tuple(p.shape):
        raise ValueError(f"finegrad.dynamic_partition: partitions' shape {tuple(p.shape)} must "
                         f"be a prefix of data's {tuple(x.shape)}")

    def check(values: np.ndarray) -> None:
        bad = np.flatnonzero((values < 0) | (values >= n))
        if bad.size:
            where = ",".join(str(int(k)) for k in np.unravel_index(bad[0], values.shape))
            raise InvalidArgumentError(
                f"finegrad.dynamic_partition: partitions[{where}] = "
                f"{values.flat[bad[0]]} is not in [0, {n})")
    run_check(check, p)
    return [boolean_mask(x, equal(p, i)) for i in range(n)]


def dynamic_stitch(indices: Any, data: Any, name: str | None = None) -> Tensor:
    """``merged[indices[m][i]] = data[m][i]`` for every ``m`` and ``i``, in that order (a
    later index wins); rows never written are zeros. The result has ``max(indices) + 1``
    rows.

    >>> import finegrad as fg
    >>> fg.dynamic_stitch([[0, 2], [1]], [[1., 2.], [3.]]).numpy()
    array([1., 3., 2.], dtype=float32)
    """
    idx = [convert_to_tensor(i, dtype=dtypes.int32) if not isinstance(i, Tensor) else i
           for i in indices]
    vals = [convert_to_tensor(d) for d in data]
    if len(idx) != len(vals) or not idx:
        raise ValueError(f"finegrad.dynamic_stitch: indices and data must be lists of one "
                         f"length (at least 1), got {len(idx)} and {len(vals)}")
    inner = tuple(vals[0].shape[len(idx[0].shape):])
    flat_vals = concat([reshape(v, (-1,) + inner) for v in vals] +
                       [zeros_like(reshape(vals[0], (-1,) + inner)[:1])], 0)
    flat_idx = np.concatenate([np.asarray(tensor_module._static_value(
        i, "finegrad.dynamic_stitch's indices")).reshape(-1) for i in idx])
    size = int(flat_idx.max()) + 1 if flat_idx.size else 0
    if flat_idx.size and flat_idx.min() < 0:
        raise InvalidArgumentError(f"finegrad.dynamic_stitch: indices must be >= 0, got "
                                   f"{int(flat_idx.min())}")
    source = np.full(size, flat_idx.size, np.int64)   # (the zero row: never written)
    source[flat_idx] = np.arange(flat_idx.size)       # (NumPy: the last write wins)
    return gather(flat_vals, source)
