"""`keras.ops.numpy` functions written once with other ops, for every backend.

Each takes the backend ``b`` first and calls only ``b``'s own functions, so a backend that
has a native version of a name overrides it (`finegrad._src.backends.assemble`).
"""
import math as _math

import numpy as _np


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


def _ndim(b, x):
    return len(b.static_shape(x))


def _t(b, x):
    return x if b.is_tensor(x) else b.convert_to_tensor(x)


def _float(b, x):
    x = _t(b, x)
    return x if b.dtype_name(x).startswith(("float", "bfloat", "complex")) else \
        b.cast(x, "float32")


# --- elementwise --------------------------------------------------------------------------

def absolute(b, x):
    return b.abs(x)


def fabs(b, x):
    return b.abs(_float(b, x))


def conjugate(b, x):
    return b.conj(x)


def true_divide(b, x1, x2):
    return b.divide(x1, x2)


def bitwise_not(b, x):
    return b.bitwise_invert(x)


def left_shift(b, x, y):
    return b.bitwise_left_shift(x, y)


def right_shift(b, x, y):
    return b.bitwise_right_shift(x, y)


def deg2rad(b, x):
    x = _float(b, x)
    return b.multiply(x, b.convert_to_tensor(_math.pi / 180, b.dtype_name(x)))


def rad2deg(b, x):
    x = _float(b, x)
    return b.multiply(x, b.convert_to_tensor(180 / _math.pi, b.dtype_name(x)))


def exp2(b, x):
    x = _float(b, x)
    return b.power(b.convert_to_tensor(2.0, b.dtype_name(x)), x)


def log2(b, x):
    x = _float(b, x)
    return b.divide(b.log(x), b.convert_to_tensor(_math.log(2.0), b.dtype_name(x)))


def log10(b, x):
    x = _float(b, x)
    return b.divide(b.log(x), b.convert_to_tensor(_math.log(10.0), b.dtype_name(x)))


def cbrt(b, x):
    x = _float(b, x)
    return b.multiply(b.sign(x), b.power(b.abs(x), b.convert_to_tensor(1 / 3, b.dtype_name(x))))


def reciprocal(b, x):
    x = _float(b, x)
    return b.divide(b.ones_like(x), x)


def sinc(b, x):
    x = _float(b, x)
    pix = b.multiply(x, _math.pi)
    zero = b.equal(x, 0)
    safe = b.where(zero, b.ones_like(pix), pix)
    return b.where(zero, b.ones_like(pix), b.divide(b.sin(safe), safe))


def hypot(b, x1, x2):
    x1, x2 = _float(b, x1), _float(b, x2)
    return b.sqrt(b.add(b.square(x1), b.square(x2)))


def logaddexp(b, x1, x2):
    x1, x2 = _float(b, x1), _float(b, x2)
    m = b.maximum(x1, x2)
    m = b.where(b.isfinite(m), b.stop_gradient(m), b.zeros_like(m))
    return b.add(m, b.log(b.add(b.exp(b.subtract(x1, m)), b.exp(b.subtract(x2, m)))))


def logaddexp2(b, x1, x2):
    ln2 = _math.log(2.0)
    return b.divide(logaddexp(b, b.multiply(_float(b, x1), ln2), b.multiply(_float(b, x2), ln2)),
                    ln2)


def heaviside(b, x1, x2):
    x1, x2 = _t(b, x1), _t(b, x2)
    one, zero = b.ones_like(x1), b.zeros_like(x1)
    out = b.where(b.greater(x1, 0), one, b.where(b.less(x1, 0), zero, b.add(zero, x2)))
    return b.cast(out, b.result_type(b.dtype_name(x1), b.dtype_name(_t(b, x2))))


def signbit(b, x):
    x = _t(b, x)
    if not b.dtype_name(x).startswith(("float", "bfloat")):
        return b.less(x, 0)
    return b.logical_or(b.less(x, 0), b.logical_and(b.equal(x, 0),
                                                    b.less(b.divide(1.0, x), 0)))


def _promoted(b, x1, x2):
    x1, x2 = _t(b, x1), _t(b, x2)
    dtype = b.result_type(b.dtype_name(x1), b.dtype_name(x2))
    return b.cast(x1, dtype), b.cast(x2, dtype)


def fmax(b, x1, x2):
    x1, x2 = _promoted(b, x1, x2)
    return b.where(b.isnan(x1), x2, b.where(b.isnan(x2), x1, b.maximum(x1, x2)))


def fmin(b, x1, x2):
    x1, x2 = _promoted(b, x1, x2)
    return b.where(b.isnan(x1), x2, b.where(b.isnan(x2), x1, b.minimum(x1, x2)))


def isneginf(b, x):
    return b.logical_and(b.isinf(x), b.less(x, 0))


def isposinf(b, x):
    return b.logical_and(b.isinf(x), b.greater(x, 0))


def isreal(b, x):
    x = _t(b, x)
    if b.dtype_name(x).startswith("complex"):
        return b.equal(b.imag(x), 0)
    return b.ones_like(x, dtype="bool")


def isclose(b, x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    x1, x2 = _float(b, x1), _float(b, x2)
    close = b.less_equal(b.abs(b.subtract(x1, x2)), b.add(atol, b.multiply(rtol, b.abs(x2))))
    close = b.logical_or(close, b.equal(x1, x2))
    if equal_nan:
        close = b.logical_or(close, b.logical_and(b.isnan(x1), b.isnan(x2)))
    return close


def allclose(b, x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    return b.all(isclose(b, x1, x2, rtol, atol, equal_nan))


def divide_no_nan(b, x1, x2):
    x1, x2 = _t(b, x1), _t(b, x2)
    zero = b.equal(x2, 0)
    q = b.divide(x1, b.where(zero, b.ones_like(x2), x2))
    return b.where(zero, b.zeros_like(q), q)


def nan_to_num(b, x, nan=0.0, posinf=None, neginf=None):
    x = _t(b, x)
    name = b.dtype_name(x)
    if not name.startswith(("float", "bfloat")):
        return x
    info = _np.finfo(_np.float32 if name == "bfloat16" else name)
    big = b.full_like(x, float(info.max) if posinf is None else posinf)
    small = b.full_like(x, float(info.min) if neginf is None else neginf)
    x = b.where(b.isnan(x), b.full_like(x, nan), x)
    return b.where(isposinf(b, x), big, b.where(isneginf(b, x), small, x))


def square(b, x):
    x = _t(b, x)
    return b.multiply(x, x)


# --- creation -----------------------------------------------------------------------------

def zeros_like(b, x, dtype=None):
    return b.zeros(b.static_shape(_t(b, x)), dtype or b.dtype_name(_t(b, x)))


def ones_like(b, x, dtype=None):
    return b.ones(b.static_shape(_t(b, x)), dtype or b.dtype_name(_t(b, x)))


def full_like(b, x, fill_value, dtype=None):
    x = _t(b, x)
    return b.full(b.static_shape(x), fill_value, dtype or b.dtype_name(x))


def empty(b, shape, dtype=None):
    return b.zeros(shape, dtype)


def empty_like(b, x, dtype=None):
    return zeros_like(b, x, dtype)


def array(b, x, dtype=None):
    return b.convert_to_tensor(x, dtype=dtype)


def copy(b, x):
    return b.convert_to_tensor(b.add(_t(b, x), b.zeros((), b.dtype_name(_t(b, x)))))


def identity(b, n, dtype=None):
    return b.eye(n, None, 0, dtype)


def tri(b, N, M=None, k=0, dtype=None):  # (Keras's names)
    M = N if M is None else M
    rows = b.expand_dims(b.arange(N, dtype="int32"), -1)
    cols = b.expand_dims(b.arange(M, dtype="int32"), 0)
    return b.cast(b.greater_equal(b.add(rows, k), cols), dtype or "float32")


def tril(b, x, k=0):
    x = _t(b, x)
    n, m = b.static_shape(x)[-2:]
    return b.where(tri(b, n, m, k, "bool"), x, b.zeros_like(x))


def triu(b, x, k=0):
    x = _t(b, x)
    n, m = b.static_shape(x)[-2:]
    return b.where(tri(b, n, m, k - 1, "bool"), b.zeros_like(x), x)


def geomspace(b, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    ls = b.linspace(b.log(_float(b, start)), b.log(_float(b, stop)), num, endpoint, False, None,
                    axis)
    return b.cast(b.exp(ls), dtype or "float32")


def logspace(b, start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    ls = b.linspace(_float(b, start), _float(b, stop), num, endpoint, False, None, axis)
    return b.cast(b.power(b.cast(b.convert_to_tensor(base), b.dtype_name(ls)), ls),
                  dtype or "float32")


def _window(b, x, values):
    return b.convert_to_tensor(_np.asarray(values, dtype=_np.float32))


def bartlett(b, x):
    return _window(b, x, _np.bartlett(int(x)))


def blackman(b, x):
    return _window(b, x, _np.blackman(int(x)))


def hamming(b, x):
    return _window(b, x, _np.hamming(int(x)))


def hanning(b, x):
    return _window(b, x, _np.hanning(int(x)))


def kaiser(b, x, beta):
    return _window(b, x, _np.kaiser(int(x), float(beta)))


def ldexp(b, x1, x2):
    x1 = _float(b, x1)
    x2 = _t(b, x2)
    if b.dtype_name(x2).startswith(("float", "bfloat")):
        raise TypeError(f"finegrad.ops.ldexp: x2 must be an integer tensor, got "
                        f"{b.dtype_name(x2)}")
    return b.multiply(x1, b.power(b.convert_to_tensor(2.0, b.dtype_name(x1)),
                                  b.cast(x2, b.dtype_name(x1))))


def i0(b, x):
    """The modified Bessel function I0 by its power series (40 terms: float32-accurate for
    |x| < 30)."""
    x = _float(b, x)
    q = b.multiply(b.square(x), 0.25)
    term, total = b.ones_like(x), b.ones_like(x)
    for k in range(1, 40):
        term = b.divide(b.multiply(term, q), float(k * k))
        total = b.add(total, term)
    return total


def _integer_eager(b, name, fn, *xs):
    """An integer-only function computed by NumPy on eager values (no gradient exists)."""
    ts = [_t(b, x) for x in xs]
    dtype = b.result_type(*[b.dtype_name(t) for t in ts])
    try:
        values = [b.convert_to_numpy(t) for t in ts]
    except Exception as e:   # a traced value
        raise NotImplementedError(f"finegrad.ops.{name} on the {b.name!r} backend runs "
                                  f"eagerly only; use the jax or tensorflow backend inside "
                                  f"a compiled function") from e
    return b.convert_to_tensor(_np.asarray(fn(*values)).astype(dtype))


def gcd(b, x1, x2):
    return _integer_eager(b, "gcd", _np.gcd, x1, x2)


def lcm(b, x1, x2):
    return _integer_eager(b, "lcm", _np.lcm, x1, x2)


def bitwise_and(b, x, y):
    return _integer_eager(b, "bitwise_and", _np.bitwise_and, x, y)


def bitwise_or(b, x, y):
    return _integer_eager(b, "bitwise_or", _np.bitwise_or, x, y)


def bitwise_xor(b, x, y):
    return _integer_eager(b, "bitwise_xor", _np.bitwise_xor, x, y)


def bitwise_left_shift(b, x, y):
    return _integer_eager(b, "bitwise_left_shift", _np.left_shift, x, y)


def bitwise_right_shift(b, x, y):
    return _integer_eager(b, "bitwise_right_shift", _np.right_shift, x, y)


def bitwise_invert(b, x):
    return _integer_eager(b, "bitwise_invert", _np.invert, x)
