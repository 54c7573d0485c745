"""3-D max and average pooling, channels last (``tf.nn.max_pool3d``, ``avg_pool3d``).

No primitive of their own: each depth slice is pooled in 2-D (`pool.max_pool_p`,
`pool.avg_pool_p`, the depth axis folded into the batch), then the window's depth slices are
combined: by `maximum` in window order (ties go to the earlier depth, as the 2-D pool's go
to the first position in row-major order), or summed and divided by how many of the
window's depths lie inside the input (so "SAME" padding does not count in the mean, as
TensorFlow's; the 2-D pool's own count already excludes the height and width padding).
"""

from __future__ import annotations

import numpy as np

from finegrad._src.core import bind
from finegrad._src.ops.array.structural import reshape
from finegrad._src.ops.math.arithmetic import maximum
from finegrad._src.ops.nn import pool as _pool
from finegrad._src.ops.nn import window_geometry as cg
from finegrad._src.ops.nn.conv import _float_input
from finegrad._src.ops.nn.conv3d import _tail, depth_pad, depth_taps
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def pool3d_valid(x, kind, ksize, strides, pads):
    """Max (``kind`` "max") or average ("average") pooling of ``x`` [N, D, H, W, C] over
    ``ksize`` windows, with explicit ``pads`` (three (before, after) pairs)."""
    d, h, w, c = _tail(x)
    prim = _pool.max_pool_p if kind == "max" else _pool.avg_pool_p
    y = bind(prim, reshape(x, (-1, h, w, c)), ksize=tuple(ksize[1:]),
             strides=tuple(strides[1:]), pads=tuple(pads[1:]))
    y = reshape(y, (-1, d) + _tail(y))
    y = depth_pad(y, pads[0], float("-inf") if kind == "max" else 0.0)
    d_out = (d + sum(pads[0]) - ksize[0]) // strides[0] + 1
    total = None
    for sl in depth_taps(y, ksize[0], strides[0], 1, d_out):
        total = sl if total is None else (maximum(total, sl) if kind == "max" else total + sl)
    if kind == "max":
        return total
    starts = np.arange(d_out) * strides[0] - pads[0][0]
    counts = np.minimum(starts + ksize[0], d) - np.maximum(starts, 0)
    return total / Tensor(counts.reshape(1, -1, 1, 1, 1).astype(x.dtype.as_numpy_dtype))


def _pool3d(kind, fn, input, ksize, strides, padding, data_format):
    cg.check_format(data_format, "NDHWC", fn)
    x = _float_input(input, 5, fn, "input")
    ksize = cg.spatial(ksize, 3, fn, "ksize")
    strides = cg.spatial(strides, 3, fn, "strides")
    padding = cg.padding_arg(padding, 3, fn)
    if kind == "average" and not isinstance(padding, str):
        raise ValueError(f"{fn}: padding must be 'SAME' or 'VALID', got {padding!r}")
    _, pads = cg.geometry(_tail(x)[:3], ksize, strides, (1, 1, 1), padding, fn)
    return pool3d_valid(x, kind, ksize, strides, pads)


def max_pool3d(input: TensorLike, ksize: Any, strides: Any, padding: Any,
               data_format: str = "NDHWC", name: str | None = None) -> Tensor:
    """The maximum of each ``ksize`` window of ``input`` [batch, depth, height, width,
    channels].

    ``ksize`` and ``strides``: an int or a list of length 1, 3 or 5; ``padding``: "SAME",
    "VALID" or explicit pairs. The gradient goes to the first maximum of each window (depth,
    then rows, then columns).

    >>> import finegrad as fg
    >>> x = fg.reshape(fg.range(8.), [1, 2, 2, 2, 1])
    >>> fg.nn.max_pool3d(x, 2, 2, "VALID").numpy().ravel()
    array([7.], dtype=float32)

    Raises:
        ValueError: for bad ksize/strides/padding or an empty output.
        NotImplementedError: for a data_format other than "NDHWC".
    """
    return _pool3d("max", "finegrad.nn.max_pool3d", input, ksize, strides, padding,
                   data_format)


def avg_pool3d(input: TensorLike, ksize: Any, strides: Any, padding: Any,
               data_format: str = "NDHWC", name: str | None = None) -> Tensor:
    """The mean of each ``ksize`` window of ``input`` [batch, depth, height, width,
    channels]; with "SAME" padding, padded positions do not count (TensorFlow's).

    >>> import finegrad as fg
    >>> x = fg.reshape(fg.range(8.), [1, 2, 2, 2, 1])
    >>> fg.nn.avg_pool3d(x, 2, 1, "SAME")[0, :, :, :, 0].numpy()[1]
    array([[5.5, 6. ],
           [6.5, 7. ]], dtype=float32)

    Raises:
        ValueError: for bad ksize/strides, explicit padding or an empty output.
        NotImplementedError: for a data_format other than "NDHWC".
    """
    return _pool3d("average", "finegrad.nn.avg_pool3d", input, ksize, strides, padding,
                   data_format)
