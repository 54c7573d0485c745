"""Matrix functions of ``tf.linalg``: ``expm`` (a primitive) and ``logdet`` (a composite).

``expm`` computes TensorFlow's algorithm (Higham's scaling and squaring with a Pade
approximant of degree 3 to 7 in single precision, 3 to 13 in double, chosen per matrix from
its 1-norm with TensorFlow's thresholds), so its values are TensorFlow's. Its derivative is
the exact Frechet derivative, read off the upper right block of the exponential of a block
matrix (Najfeld and Havel): ``d expm(A)[E] = expm([[A, E], [0, A]])[:n, n:]``, and the VJP
is the same with ``A^H`` and the cotangent. Both rules call ``expm`` again, so they
differentiate to any order. (TensorFlow differentiates its Pade approximant instead; both
agree to the approximant's accuracy.)
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import concat, zeros_like, reduce_sum
from finegrad._src.ops.batching import leading_vmap
from finegrad._src.ops.math.complex_numbers import real
from finegrad._src.ops.linalg.cholesky_eigh import cholesky
from finegrad._src.ops.linalg.diag_inv_det import diag_part
from finegrad._src.ops.linalg.checks import matrix_arg
from finegrad._src.ops.linalg.solvers import _adj
from finegrad._src.ops.math import elementwise as ew

from typing import TYPE_CHECKING


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

# Pade coefficients b_0.. of degree 3, 5, 7, 9, 13 (Higham 2005, Table 2.3)
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0, 1.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0, 1.0),
}
# TensorFlow's 1-norm thresholds for each degree; the last degree is used on A / 2^s
_SINGLE = ((4.258730016922831e-001, 3), (1.880152677804762e+000, 5), (3.925724783138660, 7))
_DOUBLE = ((1.495585217958292e-002, 3), (2.539398330063230e-001, 5),
           (9.504178996162932e-001, 7), (2.097847961257068e+000, 9), (5.371920351148152, 13))


def _pade(a, degree):
    """``(U, V)``, the odd and even parts of the degree-``degree`` Pade numerator of exp(a)
    (so that ``exp(a) ~ (V - U)^-1 (V + U)``), for a stack of matrices."""
    b = _PADE[degree]
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    a2 = a @ a
    if degree == 13:
        a4 = a2 @ a2
        a6 = a4 @ a2
        u = a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
        v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2
        return a @ (u + b[1] * eye), v + b[0] * eye
    powers, p = [eye], eye
    for _ in range(degree // 2):
        p = p @ a2 if p is not eye else a2
        powers.append(p)
    u = sum(b[2 * k + 1] * powers[k] for k in range(len(powers)))
    v = sum(b[2 * k] * powers[k] for k in range(len(powers)))
    return a @ u, v


def _expm_impl(a):
    if a.shape[-1] == 0:
        return a.copy()
    flat = a.reshape((-1,) + a.shape[-2:])
    norm = np.abs(flat).sum(axis=-2).max(axis=-1).real
    if not np.all(np.isfinite(norm)):   # TensorFlow fills the whole result with nan
        return np.full(a.shape, np.nan, a.dtype)
    table = _SINGLE if a.dtype in (np.float32, np.complex64) else _DOUBLE
    top_norm, top = table[-1]
    with np.errstate(divide="ignore"):
        squarings = np.maximum(np.floor(np.log2(norm / top_norm)), 0).astype(int)
    u, v = np.empty_like(flat), np.empty_like(flat)
    rest = np.ones(len(flat), bool)
    for bound, degree in table[:-1]:
        pick = rest & (norm < bound)
        if pick.any():
            u[pick], v[pick] = _pade(flat[pick], degree)
        rest &= ~pick
    if rest.any():
        scale = (2.0 ** squarings[rest]).astype(a.dtype)[:, None, None]
        u[rest], v[rest] = _pade(flat[rest] / scale, top)
    out = np.linalg.solve(v - u, v + u)
    for i in range(int(squarings.max(initial=0))):
        more = squarings > i
        out[more] = out[more] @ out[more]
    return out.reshape(a.shape).astype(a.dtype, copy=False)


expm_p = Primitive("expm", batch_rule=True, fresh=True, shape_rule=core.same_shape_rule)


def expm(input: TensorLike, name: str | None = None) -> Tensor:  # TensorFlow's keyword
    """The matrix exponential ``sum_k A^k / k!`` of each square matrix, by TensorFlow's
    scaling and squaring with Pade approximants (same values as ``tf.linalg.expm``).

    Gradient: the exact Frechet derivative through the block-matrix identity
    ``expm([[A^H, G], [0, A^H]])[:n, n:]``, differentiable again.

    >>> import finegrad as fg
    >>> fg.linalg.expm(fg.constant([[0., 1.], [0., 0.]])).numpy()
    array([[1., 1.],
           [0., 1.]], dtype=float32)
    """
    return bind(expm_p, matrix_arg(input, "linalg.expm", "input", square=True))


expm_p.def_impl(_expm_impl)


@expm_p.def_lowering
def _expm_lower(a):
    # JAX's scaling and squaring with the same Pade degrees as TensorFlow's (impl's table); a
    # matrix with a non-finite entry gives all NaN, as impl
    import jax.numpy as jnp
    from jax.scipy.linalg import expm as jax_expm
    finite = jnp.all(jnp.isfinite(a), axis=(-2, -1), keepdims=True)
    out = jax_expm(jnp.where(finite, a, jnp.zeros((), a.dtype)))
    return jnp.where(finite, out, jnp.asarray(np.nan, a.dtype))


expm_p.def_vmap(leading_vmap(expm_p))   # leading axes are batch axes


def _frechet(a, e):
    """The Frechet derivative of expm at ``a`` in the direction ``e``."""
    n = a._value.shape[-1]
    block = concat([concat([a, e], -1), concat([zeros_like(a), a], -1)], -2)
    return expm(block)[..., :n, n:]


@expm_p.def_jvp
def _expm_jvp(primals, tangents, *, out):
    return _frechet(primals[0], tangents[0])


@expm_p.def_vjp
def _expm_vjp(ct, a, *, out, needs, batch):
    return (_frechet(_adj(a), ct),)


def logdet(matrix: TensorLike, name: str | None = None) -> Tensor:
    """``log(det(A))`` of each Hermitian positive definite matrix, through its Cholesky
    factor: ``2 * sum(log(real(diag(cholesky(A)))))`` (TensorFlow's formula; only the lower
    triangle is read).

    >>> import finegrad as fg
    >>> round(float(fg.linalg.logdet(fg.constant([[4., 2.], [2., 2.]]))), 4)
    1.3863
    """
    chol = cholesky(matrix_arg(matrix, "linalg.logdet", "matrix", square=True))
    return 2.0 * reduce_sum(ew.log(real(diag_part(chol))), -1)
