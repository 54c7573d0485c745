"""`keras.ops.numpy` on finegrad's own TensorFlow-named ops, with Keras's promotion
(finegrad itself, like TensorFlow, refuses mixed dtypes; `finegrad.ops` promotes as Keras)."""
import builtins as _builtins

import numpy as _np

from finegrad._src.backends.native import fg_names as fg
from finegrad._src.backends import elementwise as _elementwise
from finegrad._src.backends import promotion as _promotion
from finegrad._src.backends.native import custom as _custom
from finegrad._src.ops.array.structural import ones_like as _ones_like
from finegrad._src.ops.array.structural import zeros_like as _zeros_like

_C = _elementwise.Convention(_custom.is_tensor, _custom.convert_to_tensor, fg.cast,
                             _custom.dtype_name, is_float=_custom.is_float,
                             tensor_type=fg.Tensor, same_dtype=_custom.same_dtype)
_t = _C.tensor
_uf, _u, _b = _C.unary_float, _C.unary, _C.binary
arccos, arccosh, arcsin, arcsinh = _uf(fg.acos), _uf(fg.acosh), _uf(fg.asin), _uf(fg.asinh)
arctan, arctanh, cos, cosh = _uf(fg.atan), _uf(fg.atanh), _uf(fg.cos), _uf(fg.cosh)
exp, expm1, log, log1p = _uf(fg.exp), _uf(fg.math.expm1), _uf(fg.math.log), _uf(fg.math.log1p)
sin, sinh, sqrt, tan, tanh = _uf(fg.sin), _uf(fg.sinh), _uf(fg.sqrt), _uf(fg.tan), _uf(fg.tanh)
ceil, floor = _uf(fg.math.ceil), _uf(fg.floor)
i0 = _uf(fg.math.bessel_i0)

abs, negative, sign = _u(fg.abs), _u(fg.negative), _u(fg.sign)
real, imag, conj, angle = _u(fg.math.real), _u(fg.math.imag), _u(fg.math.conj), \
    _u(fg.math.angle)
isnan, isinf, isfinite = _u(fg.math.is_nan), _u(fg.math.is_inf), _u(fg.math.is_finite)
logical_not = _u(lambda x: fg.logical_not(fg.cast(x, "bool")))
add, subtract, multiply = _b(fg.add), _b(fg.subtract), _b(fg.multiply)
maximum, minimum, power = _b(fg.maximum), _b(fg.minimum), _b(fg.pow)
mod, floor_divide = _b(fg.math.floormod), _b(fg.math.floordiv)
fmod = _b(fg.truncatemod)
equal, not_equal, less = _b(fg.equal), _b(fg.not_equal), _b(fg.less)
less_equal, greater, greater_equal = _b(fg.less_equal), _b(fg.greater), _b(fg.greater_equal)
divide = true_divide = _C.binary(fg.divide, float)
arctan2 = _C.binary(fg.atan2, float)
nextafter = _C.binary(fg.math.nextafter, float)
logical_and, logical_or = _C.logical(fg.logical_and), _C.logical(fg.logical_or)
logical_xor = _C.logical(fg.math.logical_xor)
rint = _u(fg.math.rint)


def matmul(x1, x2):
    return fg.matmul(*_C.int8_as_int32(*_C.promote(x1, x2)))



def trunc(x):
    x = _C.floating(x)
    return fg.where(x < 0, fg.math.ceil(x), fg.floor(x))


def _reduce(fn, cast_bool=None):
    def reduce(x, axis=None, keepdims=False):
        x = _t(x)
        if cast_bool and x.dtype.name == "bool":
            x = fg.cast(x, cast_bool)
        return fn(x, axis=axis, keepdims=keepdims)
    return reduce


sum = _reduce(fg.reduce_sum, "int32")
mean = _reduce(lambda x, axis, keepdims: fg.reduce_mean(_C.floating(x), axis, keepdims))
all = _reduce(lambda x, axis, keepdims: fg.reduce_all(fg.cast(x, "bool"), axis, keepdims))
any = _reduce(lambda x, axis, keepdims: fg.reduce_any(fg.cast(x, "bool"), axis, keepdims))


def max(x, axis=None, keepdims=False, initial=None):
    out = fg.reduce_max(_t(x), axis=axis, keepdims=keepdims)
    return out if initial is None else fg.maximum(out, fg.cast(initial, out.dtype))


def min(x, axis=None, keepdims=False, initial=None):
    out = fg.reduce_min(_t(x), axis=axis, keepdims=keepdims)
    return out if initial is None else fg.minimum(out, fg.cast(initial, out.dtype))


def prod(x, axis=None, keepdims=False, dtype=None):
    x = _t(x)
    return fg.reduce_prod(x if dtype is None else fg.cast(x, dtype), axis=axis,
                          keepdims=keepdims)


def argmax(x, axis=None, keepdims=False):
    x = _t(x)
    out = fg.argmax(fg.reshape(x, (-1,)) if axis is None else x, 0 if axis is None else axis,
                    output_type="int32")
    return _keep(out, x, axis) if keepdims else out


def argmin(x, axis=None, keepdims=False):
    x = _t(x)
    out = fg.argmin(fg.reshape(x, (-1,)) if axis is None else x, 0 if axis is None else axis,
                    output_type="int32")
    return _keep(out, x, axis) if keepdims else out


def _keep(out, x, axis):
    if axis is None:
        return fg.reshape(out, (1,) * x.shape.rank)
    return fg.expand_dims(out, axis)


def argsort(x, axis=-1):
    x = _t(x)
    return fg.cast(fg.argsort(fg.reshape(x, (-1,)) if axis is None else x,
                              -1 if axis is None else axis, stable=True), "int32")


def sort(x, axis=-1):
    x = _t(x)
    return fg.sort(fg.reshape(x, (-1,)) if axis is None else x, -1 if axis is None else axis)


def cumsum(x, axis=None, dtype=None):
    x = _t(x)
    x = x if dtype is None else fg.cast(x, dtype)
    return fg.cumsum(fg.reshape(x, (-1,)) if axis is None else x, 0 if axis is None else axis)


def cumprod(x, axis=None, dtype=None):
    x = _t(x)
    x = x if dtype is None else fg.cast(x, dtype)
    return fg.math.cumprod(fg.reshape(x, (-1,)) if axis is None else x,
                           0 if axis is None else axis)


def reshape(x, newshape):
    return fg.reshape(x, newshape)


def transpose(x, axes=None):
    return fg.transpose(x, perm=axes)


def expand_dims(x, axis):
    x = _t(x)
    for a in sorted((axis,) if isinstance(axis, int) else axis):
        x = fg.expand_dims(x, a)
    return x


def squeeze(x, axis=None):
    return fg.squeeze(x, axis)


def _joined(xs):
    ts = [_t(x) for x in xs]
    dtype = _promotion.result_type(*[t.dtype.name for t in ts])
    return [t if t.dtype.name == dtype else fg.cast(t, dtype) for t in ts]


def concatenate(xs, axis=0):
    return fg.concat(_joined(xs), axis)


def stack(x, axis=0):
    return fg.stack(_joined(x), axis)


def where(condition, x1=None, x2=None):
    c = fg.cast(_t(condition), "bool")
    if x1 is None and x2 is None:
        idx = fg.cast(fg.where(c), "int32")
        return tuple(idx[:, i] for i in range(c.shape.rank))
    x1, x2 = _C.promote(x1, x2)
    return fg.where(c, x1, x2)


def clip(x, x_min, x_max):
    x = _t(x)
    if x.dtype.name == "bool":
        x = fg.cast(x, "int32")
    return fg.clip_by_value(x, fg.cast(x_min, x.dtype), fg.cast(x_max, x.dtype))


def einsum(subscripts, *operands, **kwargs):
    return fg.einsum(subscripts, *_C.int8_as_int32(*_joined(operands)))


def arange(start, stop=None, step=None, dtype=None):
    if dtype is None:
        floats = _builtins.any(isinstance(v, float) for v in (start, stop, step))
        dtype = "float32" if floats else "int32"
    if stop is None:
        start, stop = 0, start
    return fg.range(start, stop, 1 if step is None else step, dtype=dtype)


def zeros(shape, dtype=None):
    return fg.zeros(shape, dtype=dtype or "float32")


def ones(shape, dtype=None):
    return fg.ones(shape, dtype=dtype or "float32")


# the *_like creators follow the tensor's own shape, so that sizes open in a trace (a
# functional model's batch size, an input_signature's None) stay open
def zeros_like(x, dtype=None):
    return _zeros_like(_t(x), dtype=dtype)


def ones_like(x, dtype=None):
    return _ones_like(_t(x), dtype=dtype)


def full_like(x, fill_value, dtype=None):
    x = _t(x)
    dtype = dtype or x.dtype
    return _zeros_like(x, dtype=dtype) + fg.cast(_t(fill_value), dtype)


def empty_like(x, dtype=None):
    return zeros_like(x, dtype)


def full(shape, fill_value, dtype=None):
    value = _t(fill_value)
    return fg.broadcast_to(fg.cast(value, dtype or value.dtype), shape)


def eye(N, M=None, k=0, dtype=None):  # (Keras's names)
    if k:
        return fg.convert_to_tensor(_np.eye(N, M, k), dtype=dtype or "float32")
    return fg.eye(N, M, dtype=dtype or "float32")


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    s, e = _C.floating(start), _C.floating(stop)
    div = (num - 1) if endpoint else num
    steps = fg.cast(fg.range(num), s.dtype) / (div if div > 0 else 1)
    out = s + (e - s) * fg.reshape(steps, (num,) + (1,) * s.shape.rank)
    if axis:
        out = fg.transpose(out, _moved(out.shape.rank, axis))
    out = out if dtype is None else fg.cast(out, dtype)
    return (out, (e - s) / div) if retstep else out


def _moved(n, axis):
    perm = list(range(1, n))
    perm.insert(axis % n, 0)
    return perm


def take(x, indices, axis=None):
    x = _t(x)
    idx = fg.cast(_t(indices), "int32")
    if axis is None:
        return fg.gather(fg.reshape(x, (-1,)), idx)
    return fg.gather(x, idx, axis=axis)


def take_along_axis(x, indices, axis=None):
    x, idx = _t(x), fg.cast(_t(indices), "int32")
    if axis is None:
        return fg.gather(fg.reshape(x, (-1,)), fg.reshape(idx, (-1,)))
    axis %= x.shape.rank
    return fg.gather(x, idx, axis=axis, batch_dims=axis) if idx.shape.rank == x.shape.rank \
        else fg.gather(x, idx, axis=axis)


def flip(x, axis=None):
    x = _t(x)
    return fg.reverse(x, list(range(x.shape.rank)) if axis is None else
                      [axis] if isinstance(axis, int) else list(axis))


def pad(x, pad_width, mode="constant", constant_values=None):
    x = _t(x)
    widths = _np.broadcast_to(_np.asarray(pad_width),
                                              (x.shape.rank, 2))
    return fg.pad(x, widths.tolist(), mode=mode.upper(), constant_values=constant_values or 0)


def tile(x, repeats):
    return fg.tile(_t(x), [repeats] if isinstance(repeats, int) else list(repeats))


def repeat(x, repeats, axis=None):
    x = _t(x)
    return fg.repeat(fg.reshape(x, (-1,)) if axis is None else x, repeats,
                     axis=0 if axis is None else axis)


def roll(x, shift, axis=None):
    x = _t(x)
    if axis is None:
        return fg.reshape(fg.roll(fg.reshape(x, (-1,)), shift, 0), x.shape)
    return fg.roll(x, shift, axis)


def split(x, indices_or_sections, axis=0):
    x = _t(x)
    if isinstance(indices_or_sections, int):
        return fg.split(x, indices_or_sections, axis)
    n = x.shape[axis]
    cuts = [0, *indices_or_sections, n]
    return fg.split(x, [b - a for a, b in zip(cuts[:-1], cuts[1:], strict=True)], axis)


def diagonal(x, offset=0, axis1=0, axis2=1):
    x = _t(x)
    n = x.shape.rank
    perm = [a for a in range(n) if a not in (axis1 % n, axis2 % n)] + [axis1 % n, axis2 % n]
    x = fg.transpose(x, perm)
    if offset == 0:
        return fg.linalg.diag_part(x)
    rows, cols = x.shape[-2], x.shape[-1]
    r = _np.arange(_builtins.max(0, -offset), _builtins.min(rows, cols - offset))
    flat = fg.reshape(x, tuple(x.shape[:-2]) + (rows * cols,))
    return fg.gather(flat, (r * cols + r + offset).astype(_np.int32), axis=-1)


def diag(x, k=0):
    x = _t(x)
    if x.shape.rank == 1:
        return fg.linalg.diag(x, k=k)
    return fg.linalg.diag_part(x, k=k)


def tensordot(x1, x2, axes=2):
    x1, x2 = _C.promote(x1, x2)
    return fg.tensordot(x1, x2, axes)


def result_type(*dtypes):
    return _promotion.result_type(*dtypes)


def slogdet(x):
    return tuple(fg.linalg.slogdet(_C.floating(x)))
