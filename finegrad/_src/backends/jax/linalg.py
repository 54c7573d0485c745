"""Keras's linalg and math groups on ``jax.numpy.linalg``, ``jax.scipy`` and
``jax.numpy.fft``."""
import jax
import jax.numpy as jnp
import jax.scipy as jsp


def _f(x):
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype("float32")


def cholesky(x, upper=False):
    lower = jnp.linalg.cholesky(_f(x))
    return jnp.swapaxes(lower, -1, -2).conj() if upper else lower


def det(x):
    return jnp.linalg.det(_f(x))


def eig(x):
    return tuple(jnp.linalg.eig(_f(x)))


def eigh(x):
    return tuple(jnp.linalg.eigh(_f(x)))


def inv(x):
    return jnp.linalg.inv(_f(x))


def lu_factor(x):
    return jsp.linalg.lu_factor(_f(x))


def qr(x, mode="reduced"):
    return tuple(jnp.linalg.qr(_f(x), mode=mode))


def solve(a, b):
    return jnp.linalg.solve(_f(a), _f(b))


def solve_triangular(a, b, lower=False):
    return jsp.linalg.solve_triangular(_f(a), _f(b), lower=lower)


def svd(x, full_matrices=True, compute_uv=True):
    out = jnp.linalg.svd(_f(x), full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def jvp(fun, primals, tangents, has_aux=False):
    return jax.jvp(fun, primals, tangents, has_aux=has_aux)


def erf(x):
    return jsp.special.erf(_f(x))


def erfinv(x):
    return jsp.special.erfinv(_f(x))


def logsumexp(x, axis=None, keepdims=False):
    return jsp.special.logsumexp(_f(x), axis=axis, keepdims=keepdims)


def top_k(x, k, sorted=True):  # (Keras's name)
    return tuple(jax.lax.top_k(x, k))


def fft(x):
    real, imag = x
    out = jnp.fft.fft(jax.lax.complex(_f(real), _f(imag)))
    return jnp.real(out), jnp.imag(out)


def rfft(x, fft_length=None):
    out = jnp.fft.rfft(_f(x), n=fft_length)
    return jnp.real(out), jnp.imag(out)


def irfft(x, fft_length=None):
    real, imag = x
    return jnp.fft.irfft(jax.lax.complex(_f(real), _f(imag)), n=fft_length)


def view_as_complex(x):
    x = _f(x)
    return jax.lax.complex(x[..., 0], x[..., 1])


def segment_sum(data, segment_ids, num_segments=None, sorted=False):
    return jax.ops.segment_sum(data, segment_ids, num_segments, indices_are_sorted=sorted)


def segment_max(data, segment_ids, num_segments=None, sorted=False):
    return jax.ops.segment_max(data, segment_ids, num_segments, indices_are_sorted=sorted)


def segment_min(data, segment_ids, num_segments=None, sorted=False):
    return jax.ops.segment_min(data, segment_ids, num_segments, indices_are_sorted=sorted)


def segment_prod(data, segment_ids, num_segments=None, sorted=False):
    return jax.ops.segment_prod(data, segment_ids, num_segments, indices_are_sorted=sorted)
