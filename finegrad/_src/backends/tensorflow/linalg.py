"""Keras's linalg and math groups on ``tf.linalg``, ``tf.math`` and ``tf.signal``."""
import tensorflow as tf

from finegrad._src.backends.tensorflow import custom as _custom


def _f(x):
    x = _custom.convert_to_tensor(x)
    return x if x.dtype.is_floating or x.dtype.is_complex else tf.cast(x, "float32")


def cholesky(x, upper=False):
    lower = tf.linalg.cholesky(_f(x))
    return tf.linalg.adjoint(lower) if upper else lower


def det(x):
    return tf.linalg.det(_f(x))


def eig(x):
    return tuple(tf.linalg.eig(_f(x)))


def eigh(x):
    return tuple(tf.linalg.eigh(_f(x)))


def inv(x):
    return tf.linalg.inv(_f(x))


def lu_factor(x):
    lu, perm = tf.linalg.lu(_f(x))
    return lu, perm


def qr(x, mode="reduced"):
    return tuple(tf.linalg.qr(_f(x), full_matrices=mode == "complete"))


def solve(a, b):
    a, b = _f(a), _f(b)
    vec = b.shape.rank == 1
    out = tf.linalg.solve(a, b[:, None] if vec else b)
    return out[:, 0] if vec else out


def solve_triangular(a, b, lower=False):
    a, b = _f(a), _f(b)
    vec = b.shape.rank == 1
    out = tf.linalg.triangular_solve(a, b[:, None] if vec else b, lower=lower)
    return out[:, 0] if vec else out


def svd(x, full_matrices=True, compute_uv=True):
    if not compute_uv:
        return tf.linalg.svd(_f(x), compute_uv=False)
    s, u, v = tf.linalg.svd(_f(x), full_matrices=full_matrices)
    return u, s, tf.linalg.adjoint(v)


def erf(x):
    return tf.math.erf(_f(x))


def erfinv(x):
    return tf.math.erfinv(_f(x))


def logsumexp(x, axis=None, keepdims=False):
    return tf.reduce_logsumexp(_f(x), axis=axis, keepdims=keepdims)


def top_k(x, k, sorted=True):  # (Keras's name)
    return tuple(tf.math.top_k(x, k, sorted=sorted))


def fft(x):
    real, imag = x
    out = tf.signal.fft(tf.complex(_f(real), _f(imag)))
    return tf.math.real(out), tf.math.imag(out)


def rfft(x, fft_length=None):
    x = _f(x)
    out = tf.signal.rfft(x, None if fft_length is None else [fft_length])
    return tf.math.real(out), tf.math.imag(out)


def irfft(x, fft_length=None):
    real, imag = x
    return tf.signal.irfft(tf.complex(_f(real), _f(imag)),
                           None if fft_length is None else [fft_length])


def view_as_complex(x):
    x = _f(x)
    return tf.complex(x[..., 0], x[..., 1])


def segment_sum(data, segment_ids, num_segments=None, sorted=False):
    n = num_segments if num_segments is not None else tf.reduce_max(segment_ids) + 1
    return tf.math.unsorted_segment_sum(data, segment_ids, n)


def segment_max(data, segment_ids, num_segments=None, sorted=False):
    n = num_segments if num_segments is not None else tf.reduce_max(segment_ids) + 1
    return tf.math.unsorted_segment_max(data, segment_ids, n)


def jvp(fun, primals, tangents, has_aux=False):
    primals = [tf.convert_to_tensor(p) for p in primals]
    tangents = [tf.convert_to_tensor(t) for t in tangents]
    with tf.autodiff.ForwardAccumulator(primals, tangents) as acc:
        result = fun(*primals)
    out, aux = result if has_aux else (result, None)
    tangent_out = tf.nest.map_structure(
        lambda o: acc.jvp(o, unconnected_gradients=tf.UnconnectedGradients.ZERO), out)
    return (out, tangent_out, aux) if has_aux else (out, tangent_out)
