"""`keras.ops.numpy` on TensorFlow: ``tf.experimental.numpy`` and ``tf`` functions under
Keras's names, with Keras's promotion (``int32 + float32`` is float32, never TensorFlow's
error or a silent int32)."""
import builtins as _builtins

import numpy as _np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

from finegrad._src.backends import elementwise as _elementwise
from finegrad._src.backends import promotion as _promotion
from finegrad._src.backends.tensorflow import custom as _custom


def _convert(x, dtype=None):
    if dtype is None and isinstance(x, (list, tuple)):
        return _custom.convert_to_tensor(tnp.asarray(x)) if not _builtins.any(
            isinstance(v, float) for v in tf.nest.flatten(x)) else \
            tf.convert_to_tensor(x, dtype="float32")
    return _custom.convert_to_tensor(x, dtype)


_C = _elementwise.Convention(_custom.is_tensor, _convert, tf.cast, _custom.dtype_name,
                             is_float=lambda x: x.dtype.is_floating,
                             scalar=lambda v, like: tf.constant(v, like.dtype),
                             tensor_type=type(tf.zeros(())))
_t = _C.tensor
_elementwise.fill(globals(), _C, tnp, skip=("fmax", "fmin"))
exp, log, sqrt, sin, cos, tanh = (_C.unary_float(f) for f in (tf.exp, tf.math.log, tf.sqrt,
                                                               tf.sin, tf.cos, tf.tanh))
add, subtract, multiply = _C.binary(tf.add), _C.binary(tf.subtract), _C.binary(tf.multiply)
equal, not_equal = _C.binary(tf.equal), _C.binary(tf.not_equal)
less, greater = _C.binary(tf.less), _C.binary(tf.greater)
fmod = _C.binary(tf.truncatemod)
bitwise_invert = bitwise_not = _C.unary(tf.bitwise.invert)
bitwise_left_shift = left_shift = _C.binary(tf.bitwise.left_shift)
bitwise_right_shift = right_shift = _C.binary(tf.bitwise.right_shift)
trunc = _C.unary_float(lambda x: tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x)))

_elementwise.fill_by_keyword(globals(), _C, tnp, one="""average broadcast_to cumprod cumsum
diag diagflat diagonal diff flip full_like moveaxis ptp ravel repeat roll rot90 sort
swapaxes trace tril triu vander zeros_like ones_like empty_like hsplit vsplit dsplit split
ndim""".split(), two="isclose allclose kron tensordot cross inner outer vdot dot append"
                             .split(), indexed="take take_along_axis".split())
tile = _C.by_keyword(tnp.tile, "tile", rename={"repeats": "reps"})
i0 = _C.unary_float(tf.math.bessel_i0)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    out = tnp.linspace(_C.floating(start), _C.floating(stop), num, endpoint, retstep,
                       dtype or "float32", axis)
    return out


def _reduction(fn, bool_as=None, floating=False):
    def reduce(x, axis=None, keepdims=False):
        x = _C.floating(x) if floating else _t(x)
        if bool_as and x.dtype == tf.bool:
            x = tf.cast(x, bool_as)
        return fn(x, axis=axis, keepdims=keepdims)
    return reduce


sum = _reduction(tf.reduce_sum, "int32")  # (Keras's name)
mean = _reduction(tf.reduce_mean, floating=True)
std = _reduction(tf.math.reduce_std, floating=True)
var = _reduction(tf.math.reduce_variance, floating=True)
all = _reduction(lambda x, axis, keepdims: tf.reduce_all(tf.cast(x, "bool"), axis, keepdims))
any = _reduction(lambda x, axis, keepdims: tf.reduce_any(tf.cast(x, "bool"), axis, keepdims))


def prod(x, axis=None, keepdims=False, dtype=None):
    x = _t(x)
    return tf.reduce_prod(x if dtype is None else tf.cast(x, dtype), axis, keepdims)


def _arg(fn, x, axis, keepdims):
    x = _t(x)
    out = fn(tf.reshape(x, (-1,)) if axis is None else x, 0 if axis is None else axis,
             output_type="int32")
    if keepdims:
        out = tf.reshape(out, (1,) * x.shape.rank) if axis is None else \
            tf.expand_dims(out, axis)
    return out


def argmax(x, axis=None, keepdims=False):
    return _arg(tf.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    return _arg(tf.argmin, x, axis, keepdims)


def argsort(x, axis=-1):
    x = _t(x)
    return tf.argsort(tf.reshape(x, (-1,)) if axis is None else x,
                      -1 if axis is None else axis, stable=True)


def max(x, axis=None, keepdims=False, initial=None):  # (Keras's name)
    out = tf.reduce_max(_t(x), axis=axis, keepdims=keepdims)
    return out if initial is None else tf.maximum(out, tf.cast(initial, out.dtype))


def min(x, axis=None, keepdims=False, initial=None):
    out = tf.reduce_min(_t(x), axis=axis, keepdims=keepdims)
    return out if initial is None else tf.minimum(out, tf.cast(initial, out.dtype))


def matmul(x1, x2):
    return tnp.matmul(*_C.int8_as_int32(*_C.promote(x1, x2)))


def reshape(x, newshape):
    return tf.reshape(x, newshape)


def transpose(x, axes=None):
    return tf.transpose(x, perm=axes)


def expand_dims(x, axis):
    return tnp.expand_dims(x, axis)


def squeeze(x, axis=None):
    return tf.squeeze(x, axis=axis)


def _joined(xs):
    ts = [_t(x) for x in xs]
    dtype = _promotion.result_type(*[_custom.dtype_name(t) for t in ts])
    return [t if _custom.dtype_name(t) == dtype else tf.cast(t, dtype) for t in ts]


def concatenate(xs, axis=0):
    return tf.concat(_joined(xs), axis=axis)


def stack(x, axis=0):
    return tf.stack(_joined(x), axis=axis)


def where(condition, x1=None, x2=None):
    c = tf.cast(_t(condition), "bool")
    if x1 is None and x2 is None:
        return tuple(tf.cast(i, "int32") for i in tnp.nonzero(c))
    x1, x2 = _C.promote(x1, x2)
    return tf.where(c, x1, x2)


def clip(x, x_min, x_max):
    x = _t(x)
    if x.dtype == tf.bool:
        x = tf.cast(x, "int32")
    return tf.clip_by_value(x, tf.cast(x_min, x.dtype), tf.cast(x_max, x.dtype))


def einsum(subscripts, *operands, **kwargs):
    return tf.einsum(subscripts, *_C.int8_as_int32(*_joined(operands)))


def arange(start, stop=None, step=None, dtype=None):
    if dtype is None:
        floats = _builtins.any(isinstance(v, float) for v in (start, stop, step))
        dtype = "float32" if floats else "int32"
    if stop is None:
        start, stop = 0, start
    return tf.range(start, stop, 1 if step is None else step, dtype=dtype)


def zeros(shape, dtype=None):
    return tf.zeros(shape, dtype=dtype or "float32")


def ones(shape, dtype=None):
    return tf.ones(shape, dtype=dtype or "float32")


def full(shape, fill_value, dtype=None):
    value = _t(fill_value)
    return tf.broadcast_to(tf.cast(value, dtype or value.dtype), shape)


def eye(N, M=None, k=0, dtype=None):  # (Keras's names)
    return tnp.eye(N, M, k, dtype=dtype or "float32")


def tri(N, M=None, k=0, dtype=None):
    return tnp.tri(N, M, k, dtype=dtype or "float32")


def identity(n, dtype=None):
    return tnp.identity(n, dtype=dtype or "float32")


def pad(x, pad_width, mode="constant", constant_values=None):
    x = _t(x)
    pad_width = _np.broadcast_to(_np.asarray(pad_width), (x.shape.rank, 2)).tolist()
    if constant_values is None:
        return tnp.pad(x, pad_width, mode=mode)
    return tnp.pad(x, pad_width, mode=mode, constant_values=constant_values)


def searchsorted(sorted_sequence, values, side="left"):
    return tf.cast(tf.searchsorted(sorted_sequence, values, side=side), "int32")


def rint(x):
    return tf.math.round(_t(x))


def result_type(*dtypes):
    return _promotion.result_type(*dtypes)


def slogdet(x):
    return tuple(tf.linalg.slogdet(_C.floating(x)))


def divide(x1, x2):
    x1, x2 = _C.promote(x1, x2, float)
    return tf.divide(x1, x2)
