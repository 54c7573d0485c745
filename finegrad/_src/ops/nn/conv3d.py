"""3-D convolutions, channels last (``tf.nn.conv3d``, ``conv3d_transpose``).

No primitive of their own: a 3-D convolution is a sum, over the filter's depth offsets i, of
2-D convolutions (`conv.conv2d_p`) of the strided depth slices ``x[:, i * dd :: sd]`` (the
depth axis folded into the batch) with ``filters[i]``; its transpose sums the 2-D transposes
(`conv.conv2d_input_grad_p`) of the folded input, each spread back to depths
``o * sd + i * dd`` (zeros interleaved for the stride) and cropped of the depth padding. Both
are compositions of differentiable ops, so every derivative, in either mode and of any
order, is the 2-D primitives' rules plus slicing, padding and reshaping.
"""

from __future__ import annotations

from finegrad._src import dims
from finegrad._src.core import bind
from finegrad._src.ops.array.manipulation import pad
from finegrad._src.ops.array.structural import reshape, stack, zeros_like
from finegrad._src.ops.nn import conv as _conv
from finegrad._src.ops.nn import window_geometry as cg
from finegrad._src.shapes import as_int
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike

_FIXED = "a 3-D convolution's spatial or channel axes"


def _tail(x):
    """``x``'s sizes after the batch axis, as ints (only the batch may be open in a trace)."""
    return tuple(int(n) for n in dims.pin(tuple(x._value.shape[1:]), _FIXED))


def depth_pad(x, pads, value=0.0):
    """``x`` [N, D, ...] padded along its depth axis (1) by ``pads`` (before, after)."""
    if not any(pads):
        return x
    return pad(x, [[0, 0], list(pads)] + [[0, 0]] * (len(x.shape) - 2), constant_values=value)


def depth_taps(x, k, stride, dilation, d_out):
    """For each window offset i < ``k``: the depth slices ``x[:, i * dilation ::
    stride]`` of length ``d_out`` (the values offset i sees at every output depth)."""
    return [x[:, i * dilation:i * dilation + (d_out - 1) * stride + 1:stride]
            for i in range(k)]


def conv3d_valid(x, w, strides, dilations, pads):
    """The 3-D convolution of ``x`` [N, D, H, W, C] with ``w`` [kd, kh, kw, C, O], ``pads``
    three (before, after) pairs: a sum over depth offsets of 2-D convolutions."""
    x = depth_pad(x, pads[0])
    d, h, wd, c = _tail(x)
    kd = int(w.shape[0])
    d_out = (d - (kd - 1) * dilations[0] - 1) // strides[0] + 1
    total = None
    for i, sl in enumerate(depth_taps(x, kd, strides[0], dilations[0], d_out)):
        y = bind(_conv.conv2d_p, reshape(sl, (-1, h, wd, c)), w[i], strides=strides[1:],
                 dilations=dilations[1:], pads=pads[1:])
        total = y if total is None else total + y
    return reshape(total, (-1, d_out) + _tail(total))


def conv3d_adjoint(ct, w, in_dhw, strides, dilations, pads):
    """The transpose of `conv3d_valid` in its input, whose spatial sizes are ``in_dhw``:
    ``ct`` [N, Do, Ho, Wo, O] and ``w`` [kd, kh, kw, C, O] give [N, D, H, W, C]."""
    d_out, ho, wo, o = _tail(ct)
    kd, s, dil = int(w.shape[0]), strides[0], dilations[0]
    span = (d_out - 1) * s + 1
    padded = in_dhw[0] + sum(pads[0])
    folded = reshape(ct, (-1, ho, wo, o))
    total = None
    for i in range(kd):
        t = bind(_conv.conv2d_input_grad_p, folded, w[i], in_hw=tuple(in_dhw[1:]),
                 strides=strides[1:], dilations=dilations[1:], pads=pads[1:])
        t = reshape(t, (-1, d_out) + _tail(t))
        if s > 1:   # t's depth o goes to o * s: s - 1 zero slices after each
            t = stack([t] + [zeros_like(t)] * (s - 1), axis=2)
            t = reshape(t, (-1, d_out * s) + _tail(t)[2:])[:, :span]
        t = depth_pad(t, (i * dil, padded - i * dil - span))
        total = t if total is None else total + t
    return total[:, pads[0][0]:pads[0][0] + in_dhw[0]]


def _params(in_dhw, k, strides, padding, dilations, fn):
    strides = cg.spatial(strides, 3, fn, "strides")
    dilations = cg.spatial(dilations, 3, fn, "dilations")
    out, pads = cg.geometry(tuple(in_dhw), tuple(k), strides, dilations,
                            cg.padding_arg(padding, 3, fn), fn)
    return out, dict(strides=strides, dilations=dilations, pads=pads)


def _inputs(input, filters, fn, filter_arg="filters"):
    x = _conv._float_input(input, 5, fn, "input")
    w = _conv._float_input(filters, 5, fn, filter_arg)
    if x.dtype != w.dtype:
        raise TypeError(f"{fn}: input ({x.dtype.name}) and {filter_arg} ({w.dtype.name}) must "
                        f"have the same dtype")
    return x, w


def conv3d(input: TensorLike, filters: TensorLike, strides: Any, padding: Any,
           data_format: str = "NDHWC", dilations: Any = None, name: str | None = None) -> Tensor:
    """3-D convolution (cross-correlation, as TensorFlow's) of ``input`` [batch, depth,
    height, width, in_channels] with ``filters`` [kd, kh, kw, in_channels, out_channels].

    ``strides`` and ``dilations``: an int or a list of length 1, 3 or 5; ``padding``:
    "SAME", "VALID" or explicit pairs. A sum over the filter's depth offsets of 2-D
    convolutions, differentiable to any order in both arguments.

    >>> import finegrad as fg
    >>> y = fg.nn.conv3d(fg.ones([1, 3, 3, 3, 1]), fg.ones([2, 2, 2, 1, 1]), 1, "VALID")
    >>> y.shape, float(y[0, 0, 0, 0, 0])
    (TensorShape([1, 2, 2, 2, 1]), 8.0)

    Raises:
        ValueError: for mismatched channels, bad strides/dilations/padding, an empty output.
        NotImplementedError: for a data_format other than "NDHWC".
    """
    fn = "finegrad.nn.conv3d"
    cg.check_format(data_format, "NDHWC", fn)
    x, w = _inputs(input, filters, fn)
    if x._value.shape[-1] != w._value.shape[-2]:
        raise ValueError(f"{fn}: input has {x._value.shape[-1]} channels but filters expect "
                         f"{w._value.shape[-2]} (filters of shape {w.shape})")
    _, params = _params(_tail(x)[:3], w._value.shape[:3], strides, padding, dilations, fn)
    return conv3d_valid(x, w, **params)


def _output_shape(output_shape, ct, w, fn):
    if isinstance(output_shape, Tensor):
        output_shape = output_shape._value.tolist()
    shape = tuple(as_int(v, fn, "output_shape") for v in list(output_shape))
    batch = ct._value.shape[0]
    if len(shape) != 5 or shape[4] != w._value.shape[3] or \
            (isinstance(batch, int) and shape[0] != batch):
        raise ValueError(f"{fn}: output_shape must be [batch, depth, height, width, "
                         f"in_channels] = [{batch}, ?, ?, ?, {w._value.shape[3]}], got "
                         f"{list(output_shape)}")
    return shape


def conv3d_transpose(input: TensorLike, filters: TensorLike, output_shape: Any, strides: Any,
                     padding: str = "SAME", data_format: str = "NDHWC", dilations: Any = None,
                     name: str | None = None) -> Tensor:
    """The transpose (gradient) of `conv3d` in its input: ``input`` [batch, d, h, w,
    out_channels], ``filters`` [kd, kh, kw, in_channels, out_channels] (as conv3d's), and the
    result has ``output_shape`` [batch, D, H, W, in_channels], a shape whose conv3d with the
    same arguments has ``input``'s shape.

    >>> import finegrad as fg
    >>> y = fg.nn.conv3d_transpose(fg.ones([1, 1, 1, 1, 1]), fg.ones([2, 2, 2, 1, 1]),
    ...                            [1, 2, 2, 2, 1], 2, "VALID")
    >>> y.numpy().ravel()
    array([1., 1., 1., 1., 1., 1., 1., 1.], dtype=float32)

    Raises:
        ValueError: for mismatched channels, an ``output_shape`` whose conv3d does not give
            ``input``'s shape, bad strides/dilations/padding.
        NotImplementedError: for a data_format other than "NDHWC".
    """
    fn = "finegrad.nn.conv3d_transpose"
    cg.check_format(data_format, "NDHWC", fn)
    ct, w = _inputs(input, filters, fn)
    shape = _output_shape(output_shape, ct, w, fn)
    if ct._value.shape[-1] != w._value.shape[-1]:
        raise ValueError(f"{fn}: input has {ct._value.shape[-1]} channels but filters of "
                         f"shape {w.shape} produce {w._value.shape[-1]}")
    out, params = _params(shape[1:4], w._value.shape[:3], strides, padding, dilations, fn)
    if out != _tail(ct)[:3]:
        raise ValueError(f"{fn}: a conv3d of output_shape {list(shape)} gives spatial sizes "
                         f"{list(out)}, but input has {list(_tail(ct)[:3])}")
    return conv3d_adjoint(ct, w, shape[1:4], **params)
