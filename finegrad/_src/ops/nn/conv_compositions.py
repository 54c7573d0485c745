"""Convolutions TensorFlow builds from others: `separable_conv2d` (a depthwise convolution,
then a 1x1 one), `atrous_conv2d` (a dilated conv2d) and `conv1d_transpose` (conv2d_transpose
over a height of 1). Their gradients are those of the ops they are made of."""
from __future__ import annotations

from typing import Any

from finegrad._src.ops.array.structural import convert_to_tensor, expand_dims, squeeze
from finegrad._src.ops.nn.conv import conv2d, conv2d_transpose, depthwise_conv2d
from finegrad._src.tensor import Tensor


def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any,
                     padding: Any, data_format: Any = None, dilations: Any = None,
                     name: str | None = None) -> Tensor:
    """A depthwise 2-D convolution (``depthwise_filter`` [kh, kw, in_channels, multiplier])
    followed by a 1x1 convolution (``pointwise_filter`` [1, 1, in_channels * multiplier,
    out_channels]), as TensorFlow's.

    >>> import finegrad as fg
    >>> y = fg.nn.separable_conv2d(fg.ones([1, 3, 3, 2]), fg.ones([2, 2, 2, 1]),
    ...                            fg.ones([1, 1, 2, 1]), [1, 1, 1, 1], "VALID")
    >>> y.numpy().ravel()
    array([8., 8., 8., 8.], dtype=float32)
    """
    pw = convert_to_tensor(pointwise_filter)
    if len(pw.shape) != 4 or tuple(pw.shape[:2]) != (1, 1):
        raise ValueError(f"finegrad.nn.separable_conv2d: pointwise_filter must be [1, 1, "
                         f"in_channels * multiplier, out_channels], got shape {tuple(pw.shape)}")
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding,
                                 data_format=data_format, dilations=dilations)
    return conv2d(depthwise, pw, [1, 1, 1, 1], "VALID", data_format=data_format or "NHWC")


def atrous_conv2d(value: Any, filters: Any, rate: int, padding: Any,
                  name: str | None = None) -> Tensor:
    """`conv2d` with stride 1 and the filters dilated by ``rate`` (TensorFlow's atrous
    convolution).

    >>> import finegrad as fg
    >>> fg.nn.atrous_conv2d(fg.ones([1, 5, 5, 1]), fg.ones([2, 2, 1, 1]), 2, "VALID").shape
    TensorShape([1, 3, 3, 1])
    """
    if int(rate) < 1:
        raise ValueError(f"finegrad.nn.atrous_conv2d: rate must be >= 1, got {rate}")
    return conv2d(value, filters, [1, 1, 1, 1], padding, dilations=[1, int(rate), int(rate), 1])


def conv1d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,
                     padding: str = "SAME", data_format: str = "NWC", dilations: Any = None,
                     name: str | None = None) -> Tensor:
    """The transpose of `conv1d` in its input: ``input`` [batch, w, out_channels],
    ``filters`` [k, in_channels, out_channels], the result of ``output_shape`` [batch, W,
    in_channels].

    >>> import finegrad as fg
    >>> fg.nn.conv1d_transpose(fg.ones([1, 2, 1]), fg.ones([2, 1, 1]), [1, 4, 1], 2).shape
    TensorShape([1, 4, 1])
    """
    if data_format not in ("NWC", None):
        raise ValueError(f"finegrad.nn.conv1d_transpose: data_format must be 'NWC', got "
                         f"{data_format!r}")
    shape = output_shape.numpy().tolist() if isinstance(output_shape, Tensor) else \
        list(output_shape)
    if len(shape) != 3:
        raise ValueError(f"finegrad.nn.conv1d_transpose: output_shape must be [batch, width, "
                         f"in_channels], got {shape}")
    stride = strides[0] if isinstance(strides, (list, tuple)) and len(strides) == 1 else \
        strides[1] if isinstance(strides, (list, tuple)) else strides
    rate = 1 if dilations is None else (dilations if isinstance(dilations, int)
                                        else list(dilations)[-2 if len(dilations) == 3 else 0])
    out = conv2d_transpose(expand_dims(input, 1), expand_dims(filters, 0),
                           [shape[0], 1, shape[1], shape[2]], [1, 1, int(stride), 1], padding,
                           dilations=[1, 1, int(rate), 1])
    return squeeze(out, [1])
