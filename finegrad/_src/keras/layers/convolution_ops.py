"""The window arithmetic behind Keras's convolution and pooling layers, as functions of
tensors (channels last), written with finegrad's differentiable ops.

Keras's arguments (``padding`` "valid", "same" or, for 1-D convolutions, "causal"; int-or-tuple
``strides`` and ``dilation_rate``; ``groups``; a transpose's ``output_padding``) are turned into
calls of `finegrad.nn.conv2d`, `conv2d_transpose` and `depthwise_conv2d`. A 1-D convolution is
a 2-D one over a height of 1; a 3-D one is `finegrad.nn.conv3d`'s sum, over the kernel's
depth offsets, of 2-D convolutions of strided depth slices (and the 3-D pools
`finegrad.nn.max_pool3d`'s and `avg_pool3d`'s), so every derivative comes from the 2-D
primitives' rules.
"""

from finegrad._src.core import bind
from finegrad._src.ops.nn import conv as _conv
from finegrad._src.ops.nn import pool as _pool
from finegrad._src.ops.nn import window_geometry as _cg
from finegrad._src.ops.nn import conv3d as _conv3d_ops
from finegrad._src.ops.nn import pool3d as _pool3d_ops
from finegrad._src.ops.array.structural import (concat, expand_dims, split, squeeze,
                                                transpose)
from finegrad._src.ops.array.manipulation import pad as _pad


def tuple_arg(value, n, name, layer):
    """Keras's int-or-tuple argument as a tuple of ``n`` ints."""
    if isinstance(value, int):
        return (value,) * n
    try:
        out = tuple(int(v) for v in value)
    except TypeError:
        raise ValueError(f"{layer}: {name} must be an int or a tuple of {n} ints, got "
                         f"{value!r}") from None
    if len(out) != n:
        raise ValueError(f"{layer}: {name} must be an int or a tuple of {n} ints, got "
                         f"{value!r}")
    return out


def padding_arg(padding, layer, allowed=("valid", "same")):
    p = str(padding).lower()
    if p not in allowed:
        raise ValueError(f"{layer}: padding must be one of {allowed}, got {padding!r}")
    return p


def conv_output_length(n, k, padding, stride, dilation=1):
    """The output size of a convolution or pool along one axis (None stays None)."""
    if n is None:
        return None
    eff = (k - 1) * dilation + 1
    if padding in ("same", "causal"):
        return -(-n // stride)
    return (n - eff) // stride + 1 if n >= eff else 0


def transpose_output_length(n, k, padding, stride, output_padding, dilation=1):
    """Keras's output size of a transposed convolution along one axis."""
    if n is None:
        return None
    eff = (k - 1) * dilation + 1
    if padding == "valid":
        extra = max(eff, stride) - eff if output_padding is None else output_padding
        return (n - 1) * stride + eff + extra
    if output_padding is None:
        return n * stride
    return (n - 1) * stride + eff % 2 + output_padding


def _conv2d(x, kernel, strides, padding, dilations):
    return _conv.conv2d(x, kernel, list(strides), padding.upper(), dilations=list(dilations))


def _grouped(fn, x, kernel, groups):
    """``fn`` over ``groups`` channel groups of ``x`` and the output channels of ``kernel``."""
    if groups == 1:
        return fn(x, kernel)
    xs = split(x, groups, axis=-1)
    ks = split(kernel, groups, axis=-1)
    return concat([fn(a, b) for a, b in zip(xs, ks, strict=True)], axis=-1)


def _causal(x, kernel_size, dilation):
    return _pad(x, [[0, 0], [(kernel_size - 1) * dilation, 0], [0, 0]])


def conv(x, kernel, strides, padding, dilation_rate, groups=1):
    """Keras's ``ops.conv`` (channels last) for 1, 2 or 3 spatial axes, with ``groups``."""
    rank = len(kernel.shape) - 2
    if rank == 1:
        if padding == "causal":
            x = _causal(x, int(kernel.shape[0]), dilation_rate[0])
            padding = "valid"
        y = conv(expand_dims(x, 1), expand_dims(kernel, 0), (1,) + tuple(strides), padding,
                 (1,) + tuple(dilation_rate), groups)
        return squeeze(y, [1])
    if rank == 2:
        return _grouped(lambda a, b: _conv2d(a, b, strides, padding, dilation_rate),
                        x, kernel, groups)
    if rank == 3:
        return _grouped(lambda a, b: _conv3d(a, b, strides, padding, dilation_rate),
                        x, kernel, groups)
    raise ValueError(f"conv: kernel must have rank 3, 4 or 5, got shape {kernel.shape}")


def _pads(in_sizes, kernel, strides, padding, dilations):
    """TensorFlow's (before, after) pads of a window op over spatial sizes ``in_sizes``."""
    k = tuple(int(n) for n in kernel)
    return _cg.geometry(tuple(int(n) for n in in_sizes), k, tuple(strides), tuple(dilations),
                        padding.upper(), "keras.ops.conv")[1]


def _conv3d(x, kernel, strides, padding, dilations):
    """A 3-D convolution (`finegrad.nn.conv3d`'s sum of 2-D ones over depth offsets)."""
    pads = _pads(x.shape[1:4], kernel.shape[:3], strides, padding, dilations)
    return _conv3d_ops.conv3d_valid(x, kernel, tuple(strides), tuple(dilations), pads)


def conv_transpose(x, kernel, strides, padding, output_padding, dilation_rate):
    """Keras's ``ops.conv_transpose`` (channels last) for 1, 2 or 3 spatial axes; ``kernel``
    is [*kernel_size, filters, in_channels]."""
    rank = len(kernel.shape) - 2
    if rank == 3:
        return _conv3d_transpose(x, kernel, strides, padding, output_padding, dilation_rate)
    if rank == 1:
        op = None if output_padding is None else (0,) + tuple(output_padding)
        y = conv_transpose(expand_dims(x, 1), expand_dims(kernel, 0), (1,) + tuple(strides),
                           padding, op, (1,) + tuple(dilation_rate))
        return squeeze(y, [1])
    if rank != 2:
        raise ValueError(f"conv_transpose: kernel must have rank 3, 4 or 5, got shape "
                         f"{kernel.shape}")
    sizes = tuple(transpose_output_length(int(x.shape[1 + i]), int(kernel.shape[i]), padding,
                                          strides[i], None if output_padding is None
                                          else output_padding[i], dilation_rate[i])
                  for i in range(2))
    return _conv2d_transpose(x, kernel, sizes, tuple(strides), padding, tuple(dilation_rate))


def _conv3d_transpose(x, kernel, strides, padding, output_padding, dilations):
    """The transpose of `_conv3d` (`finegrad.nn.conv3d_transpose`'s), to Keras's output
    sizes."""
    ops = output_padding or (None,) * 3
    sizes = tuple(transpose_output_length(int(x.shape[1 + i]), int(kernel.shape[i]), padding,
                                          strides[i], ops[i], dilations[i]) for i in range(3))
    k = tuple(int(n) for n in kernel.shape[:3])
    got, pads = _cg.geometry(sizes, k, tuple(strides), tuple(dilations), padding.upper(),
                             "keras.ops.conv_transpose")
    if got != tuple(int(n) for n in x.shape[1:4]):
        raise ValueError(f"conv_transpose: an output of spatial sizes {list(sizes)} does not "
                         f"give back the input's {list(x.shape[1:4])}")
    return _conv3d_ops.conv3d_adjoint(x, kernel, sizes, tuple(strides), tuple(dilations), pads)


def _conv2d_transpose(x, kernel, out_hw, strides, padding, dilations):
    """The transpose of a conv2d whose input has spatial sizes ``out_hw`` (the batch size may
    be unknown in a trace, so the primitive is bound directly, with TensorFlow's pads for
    that geometry)."""
    fn = "keras.ops.conv_transpose"
    k = tuple(int(n) for n in kernel.shape[:2])
    got, pads = _cg.geometry(out_hw, k, strides, dilations, padding.upper(), fn)
    if got != tuple(int(n) for n in x.shape[1:3]):
        raise ValueError(f"{fn}: an output of spatial sizes {list(out_hw)} does not give back "
                         f"the input's {list(x.shape[1:3])}")
    return bind(_conv.conv2d_input_grad_p, x, kernel, in_hw=tuple(out_hw), strides=strides,
                dilations=dilations, pads=pads)


def depthwise_conv(x, kernel, strides, padding, dilation_rate):
    """Keras's ``ops.depthwise_conv`` (channels last) for 1 or 2 spatial axes; ``kernel`` is
    [*kernel_size, in_channels, depth_multiplier]."""
    if len(kernel.shape) == 3:
        y = depthwise_conv(expand_dims(x, 1), expand_dims(kernel, 0), (1,) + tuple(strides),
                           padding, (1,) + tuple(dilation_rate))
        return squeeze(y, [1])
    return _conv.depthwise_conv2d(x, kernel, [1, *strides, 1], padding.upper(),
                                  dilations=list(dilation_rate))


def separable_conv(x, depthwise_kernel, pointwise_kernel, strides, padding, dilation_rate):
    """A depthwise convolution followed by a 1x1 convolution (Keras's separable_conv)."""
    y = depthwise_conv(x, depthwise_kernel, strides, padding, dilation_rate)
    ones = (1,) * (len(depthwise_kernel.shape) - 2)
    return conv(y, pointwise_kernel, ones, "valid", ones)


def pool(x, kind, pool_size, strides, padding):
    """Max or average pooling (``kind`` "max" or "average") over 1, 2 or 3 spatial axes; the
    average over a window cut by "same" padding counts only the values inside the input."""
    if len(pool_size) == 3:
        return _pool3d(x, kind, pool_size, strides, padding)
    fn = {("max", 1): _pool.max_pool1d, ("max", 2): _pool.max_pool2d,
          ("average", 1): _pool.avg_pool1d, ("average", 2): _pool.avg_pool2d}
    return fn[kind, len(pool_size)](x, list(pool_size), list(strides), padding.upper())


def _pool3d(x, kind, pool_size, strides, padding):
    """3-D pooling (`finegrad.nn.max_pool3d`'s and `avg_pool3d`'s)."""
    pads = _pads(x.shape[1:4], pool_size, strides, padding, (1, 1, 1))
    return _pool3d_ops.pool3d_valid(x, kind, tuple(pool_size), tuple(strides), pads)


def data_format_arg(data_format, layer):
    """Keras's ``data_format``: None is "channels_last" (finegrad's image data format)."""
    if data_format is None:
        return "channels_last"
    f = str(data_format).lower()
    if f not in ("channels_last", "channels_first"):
        raise ValueError(f"{layer}: data_format must be 'channels_last' or 'channels_first', "
                         f"got {data_format!r}")
    return f


def channels_last(x, data_format):
    """``x`` with its channel axis moved last (a no-op for "channels_last")."""
    if data_format == "channels_last":
        return x
    r = len(x.shape)
    return transpose(x, [0] + list(range(2, r)) + [1])


def channels_back(y, data_format):
    """The inverse of `channels_last`: the channel axis moved back to 1 for
    "channels_first"."""
    if data_format == "channels_last":
        return y
    r = len(y.shape)
    return transpose(y, [0, r - 1] + list(range(1, r - 1)))


def spatial_shape(input_shape, data_format):
    """(spatial sizes, channels) of a batched input shape."""
    shape = list(input_shape)
    if data_format == "channels_last":
        return shape[1:-1], shape[-1]
    return shape[2:], shape[1]


def batched_shape(batch, spatial, channels, data_format):
    if data_format == "channels_last":
        return (batch, *spatial, channels)
    return (batch, channels, *spatial)
