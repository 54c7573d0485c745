"""The rank-generic entry points ``tf.nn.convolution``, ``max_pool`` and ``avg_pool``: the
1-D, 2-D or 3-D form (`conv`, `pool`, `conv3d`, `pool3d`) by the rank of the input (3, 4 or
5), channels last."""

from __future__ import annotations

from finegrad._src.ops.array.structural import _t
from finegrad._src.ops.nn import window_geometry as cg
from finegrad._src.ops.nn.conv import conv1d, conv2d
from finegrad._src.ops.nn.conv3d import conv3d
from finegrad._src.ops.nn.pool import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from finegrad._src.ops.nn.pool3d import avg_pool3d, max_pool3d

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

_FORMATS = {3: "NWC", 4: "NHWC", 5: "NDHWC"}


def _rank(input, fn, what):
    r = _t(input)._value.ndim
    if r not in _FORMATS:
        raise ValueError(f"{fn}: input must have rank 3, 4 or 5 (1-D, 2-D or 3-D {what}), got "
                         f"rank {r}")
    return r


def convolution(input: TensorLike, filters: TensorLike, strides: Any = None,
                padding: str = "VALID", data_format: Any = None, dilations: Any = None,
                name: str | None = None) -> Tensor:
    """`conv1d`, `conv2d` or `conv3d`, by the rank of ``input`` (3, 4 or 5), channels last.

    >>> import finegrad as fg
    >>> fg.nn.convolution(fg.ones([1, 3, 3, 1]), fg.ones([3, 3, 1, 1])).numpy().ravel()
    array([9.], dtype=float32)
    >>> fg.nn.convolution(fg.ones([1, 2, 3, 3, 1]), fg.ones([2, 3, 3, 1, 1])).numpy().ravel()
    array([18.], dtype=float32)
    """
    fn = "finegrad.nn.convolution"
    r = _rank(input, fn, "convolution")
    cg.check_format(data_format, _FORMATS[r], fn)
    conv = {3: conv1d, 4: conv2d, 5: conv3d}[r]
    return conv(input, filters, strides, padding, dilations=dilations)


def _pool(fn, pools, input, ksize, strides, padding, data_format):
    r = _rank(input, fn, "pooling")
    return pools[r - 3](input, ksize, strides, padding, data_format or _FORMATS[r])


def max_pool(input: TensorLike, ksize: Any, strides: Any, padding: Any,
             data_format: Any = None, name: str | None = None) -> Tensor:
    """`max_pool1d`, `max_pool2d` or `max_pool3d`, by the rank of ``input`` (3, 4 or 5).

    >>> import finegrad as fg
    >>> fg.nn.max_pool(fg.ones([1, 2, 2, 1]), 2, 2, "VALID").shape
    TensorShape([1, 1, 1, 1])
    """
    return _pool("finegrad.nn.max_pool", (max_pool1d, max_pool2d, max_pool3d), input, ksize,
                 strides, padding, data_format)


def avg_pool(input: TensorLike, ksize: Any, strides: Any, padding: Any,
             data_format: Any = None, name: str | None = None) -> Tensor:
    """`avg_pool1d`, `avg_pool2d` or `avg_pool3d`, by the rank of ``input`` (3, 4 or 5).

    >>> import finegrad as fg
    >>> fg.nn.avg_pool(fg.ones([1, 4, 1]), 2, 2, "VALID").shape
    TensorShape([1, 2, 1])
    """
    return _pool("finegrad.nn.avg_pool", (avg_pool1d, avg_pool2d, avg_pool3d), input, ksize,
                 strides, padding, data_format)
