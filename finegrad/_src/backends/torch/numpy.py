"""`keras.ops.numpy` on PyTorch: ``torch`` functions under Keras's names, promotion and
parameters (``axis`` for ``dim``, ``keepdims`` for ``keepdim``); NumPy inputs accepted."""
import builtins as _builtins

import numpy as _np
import torch

from finegrad._src.backends import elementwise as _elementwise
from finegrad._src.backends import promotion as _promotion
from finegrad._src.backends.torch import custom as _custom


def _dtype(d):
    return getattr(torch, d) if isinstance(d, str) else d


def _cast(x, d):
    return x.to(_dtype(d))


_C = _elementwise.Convention(_custom.is_tensor, _custom.convert_to_tensor, _cast,
                             _custom.dtype_name, is_float=torch.Tensor.is_floating_point,
                             scalar=lambda v, like: torch.as_tensor(v, dtype=like.dtype,
                                                                    device=like.device),
                             tensor_type=torch.Tensor)
_t = _C.tensor
_elementwise.fill(globals(), _C, torch, skip=("square", "equal", "real", "imag"))
equal = _C.binary(torch.eq)
mod = _C.binary(torch.remainder)
power = _C.binary(torch.pow)
bitwise_invert = bitwise_not = _C.unary(torch.bitwise_not)
left_shift = _C.binary(torch.bitwise_left_shift)
right_shift = _C.binary(torch.bitwise_right_shift)


def _fast_float(fn):
    """``fn`` of a float tensor directly (the common case, kept short), else as Keras: a
    NumPy array or list converted, integers cast to float32."""
    def op(x):
        if type(x) is torch.Tensor and x.is_floating_point():
            return fn(x)
        return fn(_C.floating(x))
    op.__wrapped__ = fn
    return op


exp, log, sqrt = _fast_float(torch.exp), _fast_float(torch.log), _fast_float(torch.sqrt)
sin, cos, tanh = _fast_float(torch.sin), _fast_float(torch.cos), _fast_float(torch.tanh)


def real(x):
    x = _t(x)
    return torch.real(x) if x.is_complex() else x


def imag(x):
    x = _t(x)
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


def _dims(x, axis):
    return tuple(range(x.ndim)) if axis is None else axis


def sum(x, axis=None, keepdims=False):  # (Keras's name)
    x = _t(x)
    if x.dtype == torch.bool:
        x = x.to(torch.int32)
    out = torch.sum(x, dim=_dims(x, axis), keepdim=keepdims)
    return out.to(torch.int32) if out.dtype == torch.int64 and x.dtype != torch.int64 else out


def mean(x, axis=None, keepdims=False):
    return torch.mean(_C.floating(x), dim=_dims(_t(x), axis), keepdim=keepdims)


def max(x, axis=None, keepdims=False, initial=None):
    x = _t(x)
    out = torch.amax(x, dim=_dims(x, axis), keepdim=keepdims)
    return out if initial is None else torch.clamp(out, min=initial)


def min(x, axis=None, keepdims=False, initial=None):
    x = _t(x)
    out = torch.amin(x, dim=_dims(x, axis), keepdim=keepdims)
    return out if initial is None else torch.clamp(out, max=initial)


def prod(x, axis=None, keepdims=False, dtype=None):
    x = _t(x)
    if dtype is not None:
        x = _cast(x, dtype)
    for d in sorted((axis,) if isinstance(axis, int) else _dims(x, axis), reverse=True):
        x = torch.prod(x, dim=d, keepdim=keepdims)
    return x


def all(x, axis=None, keepdims=False):
    x = _t(x).to(torch.bool)
    return torch.all(x, dim=_dims(x, axis), keepdim=keepdims) if x.ndim else x


def any(x, axis=None, keepdims=False):
    x = _t(x).to(torch.bool)
    return torch.any(x, dim=_dims(x, axis), keepdim=keepdims) if x.ndim else x


def _arg(fn, x, axis, keepdims):
    x = _t(x)
    if axis is None:
        out = fn(x.reshape(-1), 0).to(torch.int32)
        return out.reshape((1,) * x.ndim) if keepdims else out
    return fn(x, axis, keepdim=keepdims).to(torch.int32)


def argmax(x, axis=None, keepdims=False):
    return _arg(torch.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    return _arg(torch.argmin, x, axis, keepdims)


def argsort(x, axis=-1):
    x = _t(x)
    return torch.argsort(x.reshape(-1) if axis is None else x, dim=0 if axis is None else axis,
                         stable=True).to(torch.int32)


def sort(x, axis=-1):
    x = _t(x)
    return torch.sort(x.reshape(-1) if axis is None else x, dim=0 if axis is None else axis)[0]


def cumsum(x, axis=None, dtype=None):
    x = _t(x)
    out = torch.cumsum(x.reshape(-1) if axis is None else x, dim=0 if axis is None else axis,
                       dtype=None if dtype is None else _dtype(dtype))
    return out.to(x.dtype) if dtype is None and x.dtype in (torch.int32, torch.bool) and \
        x.dtype != torch.bool else out


def cumprod(x, axis=None, dtype=None):
    x = _t(x)
    return torch.cumprod(x.reshape(-1) if axis is None else x, dim=0 if axis is None else axis,
                         dtype=None if dtype is None else _dtype(dtype))


def reshape(x, newshape):
    return torch.reshape(_t(x), (newshape,) if isinstance(newshape, int) else tuple(newshape))


def transpose(x, axes=None):
    x = _t(x)
    return x.permute(*(reversed(range(x.ndim)) if axes is None else axes))


def expand_dims(x, axis):
    x = _t(x)
    for a in sorted((axis,) if isinstance(axis, int) else axis):
        x = torch.unsqueeze(x, a if a >= 0 else a + x.ndim + 1)
    return x


def squeeze(x, axis=None):
    x = _t(x)
    return torch.squeeze(x) if axis is None else torch.squeeze(x, axis)


def _joined(xs):
    ts = [_t(x) for x in xs]
    dtype = _promotion.result_type(*[_custom.dtype_name(t) for t in ts])
    return [t if _custom.dtype_name(t) == dtype else _cast(t, dtype) for t in ts]


def concatenate(xs, axis=0):
    return torch.cat(_joined(xs), dim=axis)


def stack(x, axis=0):
    return torch.stack(_joined(x), dim=axis)


def where(condition, x1=None, x2=None):
    c = _t(condition).to(torch.bool)
    if x1 is None and x2 is None:
        return tuple(i.to(torch.int32) for i in torch.nonzero(c, as_tuple=True))
    x1, x2 = _C.promote(x1, x2)
    return torch.where(c, x1, x2)


def clip(x, x_min, x_max):
    x = _t(x)
    if x.dtype == torch.bool:
        x = x.to(torch.int32)
    return torch.clamp(x, x_min, x_max)


def einsum(subscripts, *operands, **kwargs):
    return torch.einsum(subscripts, *_C.int8_as_int32(*_joined(operands)))


def matmul(x1, x2):
    return torch.matmul(*_C.int8_as_int32(*_C.promote(x1, x2)))


def tensordot(x1, x2, axes=2):
    x1, x2 = _C.promote(x1, x2)
    return torch.tensordot(x1, x2, dims=axes)


def arange(start, stop=None, step=None, dtype=None):
    if dtype is None:
        floats = _builtins.any(isinstance(v, float) for v in (start, stop, step))
        dtype = "float32" if floats else "int32"
    if stop is None:
        start, stop = 0, start
    return torch.arange(start, stop, 1 if step is None else step, dtype=_dtype(dtype))


def zeros(shape, dtype=None):
    return torch.zeros(shape, dtype=_dtype(dtype or "float32"))


def ones(shape, dtype=None):
    return torch.ones(shape, dtype=_dtype(dtype or "float32"))


def full(shape, fill_value, dtype=None):
    value = _t(fill_value)
    dtype = _dtype(dtype) if dtype else value.dtype
    return torch.broadcast_to(value, tuple(shape) if not isinstance(shape, int)
                              else (shape,)).to(dtype).clone()


def eye(N, M=None, k=0, dtype=None):  # (Keras's names)
    return torch.as_tensor(_np.eye(N, M, k), dtype=_dtype(dtype or "float32"))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    s, e = _C.floating(start), _C.floating(stop)
    steps = torch.arange(num, dtype=s.dtype) / (num - 1 if endpoint else num) if num > 1 else \
        torch.zeros(num, dtype=s.dtype)
    shape = (num,) + (1,) * s.ndim
    out = s + (e - s) * steps.reshape(shape)
    out = torch.movedim(out, 0, axis) if axis else out
    out = out if dtype is None else _cast(out, dtype)
    return (out, (e - s) / (num - 1 if endpoint else num)) if retstep else out


def take(x, indices, axis=None):
    x, idx = _t(x), _t(indices).to(torch.int64)
    if axis is None:
        return x.reshape(-1)[idx]
    idx = torch.where(idx < 0, idx + x.shape[axis], idx)
    out = torch.index_select(x, axis, idx.reshape(-1))
    return out.reshape(x.shape[:axis % x.ndim] + idx.shape + x.shape[axis % x.ndim + 1:])


def take_along_axis(x, indices, axis=None):
    x, idx = _t(x), _t(indices).to(torch.int64)
    if axis is None:
        return x.reshape(-1)[idx.reshape(-1)]
    shape = torch.broadcast_shapes(x.shape[:axis % x.ndim] + (1,) + x.shape[axis % x.ndim + 1:],
                                   idx.shape[:axis % x.ndim] + (1,) + idx.shape[axis % x.ndim + 1:])
    x = x.expand(shape[:axis % x.ndim] + (x.shape[axis],) + shape[axis % x.ndim + 1:])
    idx = idx.expand(shape[:axis % x.ndim] + (idx.shape[axis],) + shape[axis % x.ndim + 1:])
    return torch.gather(x, axis, idx)


def flip(x, axis=None):
    x = _t(x)
    return torch.flip(x, tuple(range(x.ndim)) if axis is None else
                      (axis,) if isinstance(axis, int) else tuple(axis))


def pad(x, pad_width, mode="constant", constant_values=None):
    x = _t(x)
    widths = _np.broadcast_to(_np.asarray(pad_width), (x.ndim, 2))
    flat = [int(v) for pair in widths[::-1] for v in pair]
    if mode == "constant":
        return torch.nn.functional.pad(x, flat, value=constant_values or 0)
    return torch.as_tensor(_np.pad(x.detach().numpy(), widths, mode=mode))


def tile(x, repeats):
    return torch.tile(_t(x), (repeats,) if isinstance(repeats, int) else tuple(repeats))


def repeat(x, repeats, axis=None):
    x = _t(x)
    return torch.repeat_interleave(x.reshape(-1) if axis is None else x, _t(repeats)
                                   if not isinstance(repeats, int) else repeats,
                                   dim=0 if axis is None else axis)


def roll(x, shift, axis=None):
    x = _t(x)
    return torch.roll(x, shift, axis) if axis is not None else \
        torch.roll(x.reshape(-1), shift).reshape(x.shape)


def split(x, indices_or_sections, axis=0):
    x = _t(x)
    if isinstance(indices_or_sections, int):
        return list(torch.chunk(x, indices_or_sections, axis))
    return list(torch.tensor_split(x, list(indices_or_sections), axis))


def diagonal(x, offset=0, axis1=0, axis2=1):
    return torch.diagonal(_t(x), offset, axis1, axis2)


def diag(x, k=0):
    return torch.diag(_t(x), k)


def rint(x):
    return torch.round(_t(x))


def conj(x):
    x = _t(x)
    return torch.conj(x).resolve_conj() if x.is_complex() else x


def square(x):
    x = _t(x)
    return x * x if x.dtype != torch.bool else x.to(torch.int32)


def result_type(*dtypes):
    return _promotion.result_type(*dtypes)


def slogdet(x):
    return tuple(torch.linalg.slogdet(_C.floating(x)))
