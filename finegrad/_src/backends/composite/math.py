"""Keras's math and linalg groups, written once with other ops for every backend. Each takes
the backend ``b`` first."""
import numpy as _np

from finegrad._src.backends.composite.numpy import _float, _ndim, _t


def erfc(b, x):
    return b.subtract(1.0, b.erf(_float(b, x)))


def rsqrt(b, x):
    x = _float(b, x)
    return b.divide(b.ones_like(x), b.sqrt(x))


def logsumexp(b, x, axis=None, keepdims=False):
    x = _float(b, x)
    m = b.stop_gradient(b.max(x, axis, True))
    m = b.where(b.isfinite(m), m, b.zeros_like(m))
    out = b.add(b.log(b.sum(b.exp(b.subtract(x, m)), axis, True)), m)
    return out if keepdims else b.squeeze(out, axis) if axis is not None else b.reshape(out, ())


def logdet(b, x):
    sign, logabs = b.slogdet(x)
    return b.add(logabs, b.log(sign))


def cdist(b, x, y):
    x, y = _float(b, x), _float(b, y)
    d = b.subtract(b.expand_dims(x, -2), b.expand_dims(y, -3))
    return b.sqrt(b.sum(b.square(d), -1))


def in_top_k(b, targets, predictions, k):
    p = _float(b, predictions)
    t = b.cast(_t(b, targets), "int32")
    target_score = b.take_along_axis(p, b.expand_dims(t, -1), -1)
    better = b.sum(b.cast(b.greater(p, target_score), "int32"), -1)
    return b.less(better, k)


def _segment(b, data, segment_ids, num_segments, reduce, identity):
    data, ids = _t(b, data), b.cast(_t(b, segment_ids), "int32")
    n = num_segments if num_segments is not None else \
        int(_np.max(b.convert_to_numpy(ids), initial=-1)) + 1
    hit = b.equal(b.expand_dims(ids, -1), b.arange(n, dtype="int32"))     # (len, n)
    hit = b.reshape(hit, b.static_shape(hit) + (1,) * (_ndim(b, data) - 1))
    hit = b.transpose(hit, (1, 0, *range(2, _ndim(b, hit))))                # (n, len, ...)
    fill = b.full_like(data, identity)
    return reduce(b.where(hit, b.expand_dims(data, 0), b.expand_dims(fill, 0)), 1)


def segment_sum(b, data, segment_ids, num_segments=None, sorted=False):
    return _segment(b, data, segment_ids, num_segments, b.sum, 0)


def segment_prod(b, data, segment_ids, num_segments=None, sorted=False):
    return _segment(b, data, segment_ids, num_segments, b.prod, 1)


def _extreme(b, data, value):
    name = b.dtype_name(_t(b, data))
    info = _np.finfo(name) if name.startswith("float") else _np.iinfo(name)
    return info.max if value > 0 else info.min


def segment_max(b, data, segment_ids, num_segments=None, sorted=False):
    return _segment(b, data, segment_ids, num_segments, b.max, _extreme(b, data, -1))


def segment_min(b, data, segment_ids, num_segments=None, sorted=False):
    return _segment(b, data, segment_ids, num_segments, b.min, _extreme(b, data, 1))


def view_as_real(b, x):
    x = _t(b, x)
    return b.stack([b.real(x), b.imag(x)], -1)


def extract_sequences(b, x, sequence_length, sequence_stride):
    x = _t(b, x)
    n = b.static_shape(x)[-1]
    count = 1 + (n - sequence_length) // sequence_stride
    rows = b.add(b.expand_dims(b.multiply(b.arange(count, dtype="int32"), sequence_stride), 1),
                 b.expand_dims(b.arange(sequence_length, dtype="int32"), 0))
    return b.take(x, rows, -1)


def fft2(b, x):
    real, imag = x
    real, imag = b.fft((real, imag))
    real, imag = b.swapaxes(real, -1, -2), b.swapaxes(imag, -1, -2)
    real, imag = b.fft((real, imag))
    return b.swapaxes(real, -1, -2), b.swapaxes(imag, -1, -2)


def ifft2(b, x):
    real, imag = x
    n = b.static_shape(_t(b, real))[-1] * b.static_shape(_t(b, real))[-2]
    r, i = fft2(b, (real, b.negative(imag)))
    return b.divide(r, float(n)), b.divide(b.negative(i), float(n))


# --- linalg -------------------------------------------------------------------------------

def norm(b, x, ord=None, axis=None, keepdims=False):  # (Keras's name)
    x = _float(b, x)
    if axis is None and ord is None:
        return b.sqrt(b.sum(b.square(b.abs(x)), None, keepdims))
    axis = (axis,) if isinstance(axis, int) else tuple(axis) if axis is not None else \
        tuple(range(_ndim(b, x)))
    if len(axis) == 1:
        return _vector_norm(b, x, 2 if ord is None else ord, axis[0], keepdims)
    return _matrix_norm(b, x, "fro" if ord is None else ord, axis, keepdims)


def _vector_norm(b, x, ord, axis, keepdims):
    a = b.abs(x)
    if ord == _np.inf:
        return b.max(a, axis, keepdims)
    if ord == -_np.inf:
        return b.min(a, axis, keepdims)
    if ord == 0:
        return b.sum(b.cast(b.not_equal(x, 0), b.dtype_name(x)), axis, keepdims)
    if ord == 1:
        return b.sum(a, axis, keepdims)
    if ord == 2:
        return b.sqrt(b.sum(b.square(a), axis, keepdims))
    return b.power(b.sum(b.power(a, float(ord)), axis, keepdims), 1.0 / ord)


def _matrix_norm(b, x, ord, axis, keepdims):
    r, c = axis
    a = b.abs(x)
    if ord == "fro":
        out = b.sqrt(b.sum(b.square(a), axis, True))
    elif ord == "nuc":
        out = _keep(b, b.sum(b.svd(b.moveaxis(x, axis, (-2, -1)), False, False), -1), axis, x)
    elif ord in (1, -1):
        s = b.sum(a, r, True)
        out = b.max(s, c, True) if ord == 1 else b.min(s, c, True)
    elif ord in (_np.inf, -_np.inf):
        s = b.sum(a, c, True)
        out = b.max(s, r, True) if ord == _np.inf else b.min(s, r, True)
    elif ord in (2, -2):
        s = b.svd(b.moveaxis(x, axis, (-2, -1)), False, False)
        out = _keep(b, b.max(s, -1) if ord == 2 else b.min(s, -1), axis, x)
    else:
        raise ValueError(f"finegrad.ops.norm: invalid ord {ord!r} for a matrix norm")
    return out if keepdims else b.squeeze(out, axis)


def _keep(b, v, axis, x):
    shape = list(b.static_shape(x))
    for a in axis:
        shape[a] = 1
    return b.reshape(v, shape)


def cholesky_inverse(b, x, upper=False):
    x = _float(b, x)
    lt = b.swapaxes(x, -1, -2) if upper else x
    return b.inv(b.matmul(lt, b.swapaxes(lt, -1, -2)))


def pinv(b, x, rcond=None):
    x = _float(b, x)
    u, s, vh = b.svd(x, False, True)
    m, n = b.static_shape(x)[-2:]
    cut = (1e-15 * max(m, n) if rcond is None else rcond)
    tol = b.multiply(b.max(s, -1, True), cut)
    sinv = b.where(b.greater(s, tol), b.divide(1.0, b.where(b.greater(s, tol), s,
                                                              b.ones_like(s))), b.zeros_like(s))
    return b.matmul(b.multiply(b.swapaxes(vh, -1, -2), b.expand_dims(sinv, -2)),
                    b.swapaxes(b.conj(u), -1, -2))


def matrix_rank(b, x, tol=None):
    x = _float(b, x)
    s = b.svd(x, False, False)
    if tol is None:
        m, n = b.static_shape(x)[-2:]
        eps = float(_np.finfo(b.dtype_name(x)).eps)
        tol = b.multiply(b.max(s, -1, True), eps * max(m, n))
    return b.sum(b.cast(b.greater(s, tol), "int32"), -1)


def lstsq(b, a, c, rcond=None):
    a, c = _float(b, a), _float(b, c)
    vec = _ndim(b, c) == 1
    out = b.matmul(pinv(b, a, rcond), b.expand_dims(c, -1) if vec else c)
    return b.squeeze(out, -1) if vec else out


def _window(b, window, length, dtype):
    if window is None:
        return b.ones((length,), dtype)
    if isinstance(window, str):
        k = _np.arange(length)
        if window == "hann":
            w = 0.5 - 0.5 * _np.cos(2 * _np.pi * k / length)
        elif window == "hamming":
            w = 0.54 - 0.46 * _np.cos(2 * _np.pi * k / length)
        else:
            raise ValueError(f"finegrad.ops.stft: window must be 'hann', 'hamming', None or "
                             f"a tensor, got {window!r}")
        return b.convert_to_tensor(w, dtype)
    return b.cast(_t(b, window), dtype)


def stft(b, x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """Frames of ``x`` (reflect-padded by fft_length // 2 when ``center``), windowed by a
    periodic window centred in ``fft_length``, and their real FFTs as ``(real, imag)``."""
    x = _float(b, x)
    if center:
        pads = [(0, 0)] * (_ndim(b, x) - 1) + [(fft_length // 2, fft_length // 2)]
        x = b.pad(x, pads, "reflect")
    left = (fft_length - sequence_length) // 2
    win = b.pad(_window(b, window, sequence_length, b.dtype_name(x)),
                [(left, fft_length - sequence_length - left)])
    frames = b.multiply(extract_sequences(b, x, fft_length, sequence_stride), win)
    return b.rfft(frames, fft_length)
