"""Convolutions, channels last (``tf.nn.conv2d``, ``conv1d``, ``conv2d_transpose``,
``depthwise_conv2d``; the 3-D forms, written with these primitives, are in `conv3d`, and
``convolution``, which picks one by rank, in `by_rank`).

Three primitives, closed under differentiation (a convolution is bilinear):

- ``conv2d(x, w)``: y[n, p, q, o] = sum_{i, j, c} xpad[n, p*sh + i*dh, q*sw + j*dw, c]
  * w[i, j, c, o];
- ``conv2d_input_grad(ct, w)``: its transpose in x (TensorFlow's Conv2DBackpropInput, i.e.
  ``conv2d_transpose``);
- ``conv2d_filter_grad(x, ct)``: its transpose in w (Conv2DBackpropFilter).

Each one's VJP and JVP are written with the three, so derivatives of any order stay
convolutions. The kernels loop over the kh * kw window offsets (`conv_geometry.tap`), one
matrix product each. conv1d is conv2d over a height of 1; depthwise_conv2d is conv2d with a
block-diagonal filter (a composite, differentiable like any other).
"""

from __future__ import annotations

import numpy as np

from finegrad._src import dims
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.nn import window_geometry as cg
from finegrad._src.ops.zeros_and_axes import multilinear_jvp
from finegrad._src.ops.array.structural import _t, expand_dims, reshape, squeeze
from finegrad._src.ops.batching import merged_vmap
from finegrad._src.shapes import as_int
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


_FIXED = "a convolution's spatial or channel axes"


def _fixed_tail(*shapes):
    """The sizes after the batch axis (0) of each shape, kept at their traced values: only the
    batch axis of a convolution may stay open in a shape-polymorphic trace."""
    return [dims.pin(s[1:], _FIXED) for s in shapes]


def _conv2d_shape(x, w, *, strides, dilations, pads):
    (h, wd, _), = _fixed_tail(x)
    kh, kw, _, o = dims.pin(w, _FIXED)
    padded = (h + sum(pads[0]), wd + sum(pads[1]))
    return (x[0],) + cg.out_sizes(padded, (kh, kw), strides, dilations) + (o,)


def _input_grad_shape(ct, w, *, in_hw, **params):
    _fixed_tail(ct)
    return (ct[0],) + tuple(in_hw) + (dims.pin(w, _FIXED)[2],)


def _filter_grad_shape(x, ct, *, k_hw, **params):
    (*_, c), (*_, o) = _fixed_tail(x, ct)
    return tuple(k_hw) + (c, o)


def _flat(a):
    return np.ascontiguousarray(a).reshape(-1, a.shape[-1])


def _geom(params):
    return params["strides"], params["dilations"], params["pads"]


# --- conv2d -----------------------------------------------------------------------------------

conv2d_p = Primitive("conv2d", fresh=True, shape_rule=_conv2d_shape)


conv2d_p.def_vmap(merged_vmap(conv2d_p, (0,)))   # batch merged with axis 0


@conv2d_p.def_impl
def _conv2d_impl(x, w, *, strides, dilations, pads):
    xp = cg.pad(x, pads)
    kh, kw, c, o = w.shape
    out_hw = cg.out_sizes(xp.shape[1:3], w.shape[:2], strides, dilations)
    out = np.zeros((x.shape[0] * out_hw[0] * out_hw[1], o), np.result_type(x, w))
    for i in range(kh):
        for j in range(kw):
            out += _flat(cg.tap(xp, i, j, strides, dilations, out_hw)) @ w[i, j]
    return out.reshape((x.shape[0],) + out_hw + (o,))


conv2d_p.def_jvp(multilinear_jvp(conv2d_p))   # bilinear in its two inputs


@conv2d_p.def_vjp
def _conv2d_vjp(ct, x, w, *, out, needs, batch, **params):
    """VJP of conv2d: (conv2d_input_grad(ct, w), conv2d_filter_grad(x, ct))."""
    dx = bind(conv2d_input_grad_p, ct, w, in_hw=tuple(x._value.shape[1:3]), **params) \
        if needs[0] else None
    dw = bind(conv2d_filter_grad_p, x, ct, k_hw=tuple(w._value.shape[:2]), **params) \
        if needs[1] else None
    return dx, dw


def _conv2d_jax(x, w, strides, dilations, pads):
    """conv2d in JAX: XLA's convolution, at full float32 precision (GPUs would otherwise
    round float32 operands to TF32)."""
    from jax import lax
    return lax.conv_general_dilated(x, w, window_strides=tuple(strides),
                                    padding=tuple(map(tuple, pads)),
                                    rhs_dilation=tuple(dilations),
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                    precision=lax.Precision.HIGHEST)


@conv2d_p.def_lowering
def _conv2d_lower(x, w, *, strides, dilations, pads):
    return _conv2d_jax(x, w, strides, dilations, pads)


def _transposed(fn, shape, dtype, ct):
    """The transpose of the linear ``fn`` (of an input of ``shape``) applied to ``ct``."""
    import jax
    return jax.linear_transpose(fn, jax.ShapeDtypeStruct(tuple(shape), dtype))(ct)[0]


# --- conv2d_input_grad: the transpose in x (conv2d_transpose) ----------------------------------

conv2d_input_grad_p = Primitive("conv2d_input_grad", fresh=True,
                                shape_rule=_input_grad_shape)


conv2d_input_grad_p.def_vmap(merged_vmap(conv2d_input_grad_p, (0,)))   # batch merged with axis 0


@conv2d_input_grad_p.def_impl
def _conv2d_input_grad_impl(ct, w, *, in_hw, strides, dilations, pads):
    kh, kw, c, o = w.shape
    n, out_hw = ct.shape[0], ct.shape[1:3]
    padded = (in_hw[0] + sum(pads[0]), in_hw[1] + sum(pads[1]))
    dxp = np.zeros((n,) + padded + (c,), np.result_type(ct, w))
    g = _flat(ct)
    # a contiguous transposed filter: NumPy's matmul with a transposed slice of a 4-D array
    # can take a path hundreds of times slower
    wt = np.ascontiguousarray(np.swapaxes(w, 2, 3))
    for i in range(kh):
        for j in range(kw):
            cg.tap(dxp, i, j, strides, dilations, out_hw)[...] += \
                (g @ wt[i, j]).reshape((n,) + tuple(out_hw) + (c,))
    return np.ascontiguousarray(cg.crop(dxp, pads, in_hw))


@conv2d_input_grad_p.def_lowering
def _conv2d_input_grad_lower(ct, w, *, in_hw, strides, dilations, pads):
    shape = (ct.shape[0],) + tuple(in_hw) + (w.shape[2],)
    return _transposed(lambda x: _conv2d_jax(x, w, strides, dilations, pads), shape,
                       ct.dtype, ct)


conv2d_input_grad_p.def_jvp(multilinear_jvp(conv2d_input_grad_p))   # bilinear in its two inputs


@conv2d_input_grad_p.def_vjp
def _conv2d_input_grad_vjp(g, ct, w, *, out, needs, batch, in_hw, **params):
    """VJP of conv2d_input_grad: (conv2d(g, w), conv2d_filter_grad(g, ct))."""
    dct = bind(conv2d_p, g, w, **params) if needs[0] else None
    dw = bind(conv2d_filter_grad_p, g, ct, k_hw=tuple(w._value.shape[:2]), **params) \
        if needs[1] else None
    return dct, dw


# --- conv2d_filter_grad: the transpose in w ----------------------------------------------------

conv2d_filter_grad_p = Primitive("conv2d_filter_grad", fresh=True,
                                 shape_rule=_filter_grad_shape)


@conv2d_filter_grad_p.def_impl
def _conv2d_filter_grad_impl(x, ct, *, k_hw, strides, dilations, pads):
    xp = cg.pad(x, pads)
    out_hw = ct.shape[1:3]
    g = _flat(ct)
    dw = np.empty(tuple(k_hw) + (x.shape[-1], ct.shape[-1]), np.result_type(x, ct))
    for i in range(k_hw[0]):
        for j in range(k_hw[1]):
            dw[i, j] = _flat(cg.tap(xp, i, j, strides, dilations, out_hw)).T @ g
    return dw


@conv2d_filter_grad_p.def_lowering
def _conv2d_filter_grad_lower(x, ct, *, k_hw, strides, dilations, pads):
    shape = tuple(k_hw) + (x.shape[-1], ct.shape[-1])
    return _transposed(lambda w: _conv2d_jax(x, w, strides, dilations, pads), shape,
                       ct.dtype, ct)


conv2d_filter_grad_p.def_jvp(multilinear_jvp(conv2d_filter_grad_p))   # bilinear in its two inputs


@conv2d_filter_grad_p.def_vjp
def _conv2d_filter_grad_vjp(g, x, ct, *, out, needs, batch, k_hw, **params):
    """VJP of conv2d_filter_grad: (conv2d_input_grad(ct, g), conv2d(x, g))."""
    dx = bind(conv2d_input_grad_p, ct, g, in_hw=tuple(x._value.shape[1:3]), **params) \
        if needs[0] else None
    dct = bind(conv2d_p, x, g, **params) if needs[1] else None
    return dx, dct


# --- the public functions ----------------------------------------------------------------------

def _float_input(x, rank, fn, arg):
    x = _t(x)
    if x._value.ndim != rank:
        raise ValueError(f"{fn}: {arg} must have rank {rank}, got shape {x.shape}")
    if not x.dtype.is_floating:
        raise TypeError(f"{fn}: {arg} must be floating, got {x.dtype.name}")
    return x


def _conv_params(x, w, strides, padding, dilations, fn, n=2):
    """Checked inputs and the conv2d primitive's parameters."""
    if x._value.shape[-1] != w._value.shape[-2]:
        raise ValueError(f"{fn}: input has {x._value.shape[-1]} channels but filters expect "
                         f"{w._value.shape[-2]} (filters of shape {w.shape})")
    if x.dtype != w.dtype:
        raise TypeError(f"{fn}: input ({x.dtype.name}) and filters ({w.dtype.name}) must "
                        f"have the same dtype")
    strides = cg.spatial(strides, n, fn, "strides")
    dilations = cg.spatial(dilations, n, fn, "dilations")
    padding = cg.padding_arg(padding, n, fn)
    k = tuple(w._value.shape[:n])
    _, pads = cg.geometry(tuple(x._value.shape[1:1 + n]), k, strides, dilations, padding, fn)
    return dict(strides=strides, dilations=dilations, pads=pads)


def conv2d(input: TensorLike, filters: TensorLike, strides: Any, padding: Any,
           data_format: str = "NHWC", dilations: Any = None, name: str | None = None) -> Tensor:
    """2-D convolution (cross-correlation, as TensorFlow's) of ``input`` [batch, height,
    width, in_channels] with ``filters`` [kh, kw, in_channels, out_channels].

    ``strides`` and ``dilations``: an int or a list of length 1, 2 or 4; ``padding``:
    "SAME", "VALID" or explicit pairs. Differentiable to any order in both arguments.

    >>> import finegrad as fg
    >>> x = fg.ones([1, 3, 3, 1]); w = fg.ones([2, 2, 1, 1])
    >>> fg.nn.conv2d(x, w, 1, "SAME")[0, :, :, 0].numpy()
    array([[4., 4., 2.],
           [4., 4., 2.],
           [2., 2., 1.]], dtype=float32)

    Raises:
        ValueError: for mismatched channels, bad strides/dilations/padding, an empty output.
        NotImplementedError: for a data_format other than "NHWC".
    """
    fn = "finegrad.nn.conv2d"
    cg.check_format(data_format, "NHWC", fn)
    x = _float_input(input, 4, fn, "input")
    w = _float_input(filters, 4, fn, "filters")
    return bind(conv2d_p, x, w, **_conv_params(x, w, strides, padding, dilations, fn))


def conv1d(input: TensorLike, filters: TensorLike, stride: Any, padding: Any,
           data_format: str = "NWC", dilations: Any = None, name: str | None = None) -> Tensor:
    """1-D convolution of ``input`` [batch, width, in_channels] with ``filters`` [k,
    in_channels, out_channels] (conv2d over a height of 1).

    >>> import finegrad as fg
    >>> fg.nn.conv1d(fg.ones([1, 4, 1]), fg.ones([3, 1, 1]), 1, "VALID")[0, :, 0].numpy()
    array([3., 3.], dtype=float32)
    """
    fn = "finegrad.nn.conv1d"
    cg.check_format(data_format, "NWC", fn)
    x = _float_input(input, 3, fn, "input")
    w = _float_input(filters, 3, fn, "filters")
    params = _conv_params(x, w, stride, padding, dilations, fn, n=1)
    params = dict(strides=(1,) + params["strides"], dilations=(1,) + params["dilations"],
                  pads=((0, 0),) + params["pads"])
    y = bind(conv2d_p, expand_dims(x, 1), expand_dims(w, 0), **params)
    return squeeze(y, [1])


def conv2d_transpose(input: TensorLike, filters: TensorLike, output_shape: Any,
                     strides: Any, padding: str = "SAME", data_format: str = "NHWC",
                     dilations: Any = None, name: str | None = None) -> Tensor:
    """The transpose (gradient) of `conv2d` in its input: ``input`` [batch, h, w,
    out_channels], ``filters`` [kh, kw, in_channels, out_channels] (as conv2d's), and the
    result has ``output_shape`` [batch, H, W, in_channels], a shape whose conv2d with the
    same arguments has ``input``'s shape.

    >>> import finegrad as fg
    >>> y = fg.nn.conv2d_transpose(fg.ones([1, 2, 2, 1]), fg.ones([2, 2, 1, 1]),
    ...                            [1, 4, 4, 1], 2, "SAME")
    >>> y[0, :, :, 0].numpy()
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.],
           [1., 1., 1., 1.],
           [1., 1., 1., 1.]], dtype=float32)
    """
    fn = "finegrad.nn.conv2d_transpose"
    cg.check_format(data_format, "NHWC", fn)
    ct = _float_input(input, 4, fn, "input")
    w = _float_input(filters, 4, fn, "filters")
    if isinstance(output_shape, Tensor):
        output_shape = output_shape._value.tolist()
    output_shape = list(output_shape)
    shape = tuple(as_int(v, fn, "output_shape") for v in output_shape)
    if len(shape) != 4 or shape[0] != ct._value.shape[0] or shape[3] != w._value.shape[2]:
        raise ValueError(f"{fn}: output_shape must be [batch, height, width, in_channels] = "
                         f"[{ct._value.shape[0]}, ?, ?, {w._value.shape[2]}], got "
                         f"{list(output_shape)}")
    if ct._value.shape[-1] != w._value.shape[-1]:
        raise ValueError(f"{fn}: input has {ct._value.shape[-1]} channels but filters of "
                         f"shape {w.shape} produce {w._value.shape[-1]}")
    shape = shape[1:3]
    probe = Tensor(np.zeros((1,) + shape + (w._value.shape[2],), w._value.dtype))
    params = _conv_params(probe, w, strides, padding, dilations, fn)
    out_hw, _ = cg.geometry(shape, tuple(w._value.shape[:2]), params["strides"],
                            params["dilations"], cg.padding_arg(padding, 2, fn), fn)
    if out_hw != tuple(ct._value.shape[1:3]):
        raise ValueError(f"{fn}: a conv2d of output_shape {list(output_shape)} gives spatial "
                         f"sizes {list(out_hw)}, but input has {list(ct._value.shape[1:3])}")
    return bind(conv2d_input_grad_p, ct, w, in_hw=shape, **params)


def depthwise_conv2d(input: TensorLike, filter: Any, strides: Any, padding: Any,
                     data_format: Any = None, dilations: Any = None,
                     name: str | None = None) -> Tensor:
    """Depthwise 2-D convolution: each input channel c convolved with its own
    ``filter[:, :, c, :]`` ([kh, kw, in_channels, multiplier]); output channel c *
    multiplier + m. A conv2d with a block-diagonal filter.

    >>> import finegrad as fg
    >>> x = fg.ones([1, 2, 2, 2]); w = fg.ones([2, 2, 2, 1]) * [[[1.], [2.]]]
    >>> fg.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID").numpy().ravel()
    array([4., 8.], dtype=float32)
    """
    fn = "finegrad.nn.depthwise_conv2d"
    cg.check_format(data_format, "NHWC", fn)
    x = _float_input(input, 4, fn, "input")
    w = _float_input(filter, 4, fn, "filter")
    kh, kw, c, m = w._value.shape
    if x._value.shape[-1] != c:
        raise ValueError(f"{fn}: input has {x._value.shape[-1]} channels but filter of shape "
                         f"{w.shape} expects {c}")
    mask = Tensor(np.eye(c, dtype=w._value.dtype)[:, :, None])   # [c, c, 1]
    full = reshape(expand_dims(w, 3) * mask, (kh, kw, c, c * m))   # [kh, kw, c, c*m]
    return bind(conv2d_p, x, full, **_conv_params(x, full, strides, padding, dilations, fn))
