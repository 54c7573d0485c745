"""``tf.linalg.det`` and ``tf.linalg.slogdet``, and the adjugate their gradients use.

The gradient of ``det(A)`` is ``adj(A)^T``, the transposed adjugate (cofactor matrix). It is
``det(A) inv(A)^T`` where ``A`` is invertible, which is how TensorFlow computes it (and why
TensorFlow raises at a singular matrix), but the adjugate is a polynomial in ``A``, finite
everywhere. Primitive ``adjugate`` computes it from the SVD ``A = U S V^H``:
``adj(A) = det(U) conj(det(V)) V adj(S) U^H``, where ``adj(S)`` is diagonal with the products
of the other singular values, so no division by a zero singular value ever happens: at rank
``n - 1`` the gradient is the rank-one ``adj(A)^T``, at lower rank it is zero, as the math
says. Its own derivative (second order of ``det``) follows from the same factorization:
perturbing ``S`` by ``E' = U^H E V`` changes ``adj(S)`` by ``-E'_ij prod_{k != i, j} s_k`` off the
diagonal and ``sum_{k != i} E'_kk prod_{l != i, k} s_l`` on it (a map that is its own adjoint).

``log|det A|`` has the gradient ``inv(A)^T``, which is infinite at a singular matrix: there the
rules use the SVD's inverse (``1/0 = inf`` for the zero singular values: ``inf`` or ``nan``
entries, as the math has them; JAX gives inf/nan too), where TensorFlow 2.21 raises
InvalidArgumentError.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import expand_dims, reduce_sum
from finegrad._src.ops.batching import leading_vmap
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.math.complex_numbers import _as_complex, conj_if_complex
from finegrad._src.ops.math.reductions import reduce_prod
from finegrad._src.ops.linalg.checks import square_matrix
from finegrad._src.ops.linalg.diag_inv_det import _batch_shape, diag, diag_part, inv_p
from finegrad._src.ops.linalg.products import matmul, _swap
from finegrad._src.ops.linalg.solvers import _adj
from finegrad._src.ops.linalg.svd_qr import svd
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


# ---- adjugate (private: the gradient of det) --------------------------------------------------

adjugate_p = Primitive("adjugate", batch_rule=True, fresh=True, shape_rule=lambda x: tuple(x))


def adjugate(a: Tensor) -> Tensor:
    """The adjugate ``adj(A)`` of each square matrix: ``adj(A) A = det(A) I``, finite at a
    singular ``A`` (see the module)."""
    return bind(adjugate_p, a)


adjugate_p.def_vmap(leading_vmap(adjugate_p))   # leading axes are batch axes


def _other_products(s, np_like=False):
    """``C[..., i, j]``: the product of the singular values other than ``s_i`` and ``s_j``
    (other than ``s_i`` alone on the diagonal), without dividing by any of them."""
    n = s.shape[-1]
    k = np.arange(n)
    skip = (k[:, None, None] == k[None, None, :]) | (k[None, :, None] == k[None, None, :])
    if np_like:
        return np.prod(np.where(skip, 1, s[..., None, None, :]), axis=-1)
    m = Tensor(skip.astype(np.asarray(s._value).dtype))
    s3 = expand_dims(expand_dims(s, -2), -2)
    return reduce_prod(s3 * (1 - m) + m, -1)


@adjugate_p.def_impl
def _adjugate_impl(a):
    u, s, vh = np.linalg.svd(a)
    phase = np.linalg.det(u) * np.linalg.det(vh)   # det(U) conj(det(V)), of modulus 1
    c = np.diagonal(_other_products(s, np_like=True), axis1=-2, axis2=-1)
    v_c = np.conj(np.swapaxes(vh, -1, -2)) * c[..., None, :]
    out = np.matmul(v_c, np.conj(np.swapaxes(u, -1, -2))) * phase[..., None, None]
    return out.astype(a.dtype, copy=False)


def _factors(a):
    """``(phase, U, C, V)`` of the SVD ``A = U S V^H`` (see the module), as finegrad values."""
    s, u, v = svd(a)
    phase = bind(det_p, u) * conj_if_complex(bind(det_p, v))
    return expand_dims(expand_dims(phase, -1), -1), u, _as_complex(_other_products(s), u), v


def _d_adj_s(e, c):
    """The change of ``adj(S)`` along ``E'`` (weights ``C`` from `_other_products`)."""
    off = c - diag(diag_part(c))
    on = reduce_sum(off * expand_dims(diag_part(e), -2), -1)
    return diag(on) - e * off


@adjugate_p.def_jvp
def _adjugate_jvp(primals, tangents, *, out):
    (a,), (a_dot,) = primals, tangents
    phase, u, c, v = _factors(a)
    e = matmul(matmul(_adj(u), a_dot), v)
    return phase * matmul(matmul(v, _d_adj_s(e, c)), _adj(u))


@adjugate_p.def_vjp
def _adjugate_vjp(ct, a, *, out, needs, batch):
    phase, u, c, v = _factors(a)
    e = matmul(matmul(_adj(v), ct), u)
    return (conj_if_complex(phase) * matmul(matmul(u, _d_adj_s(e, c)), _adj(v)),)


# ---- det ---------------------------------------------------------------------------------------

det_p = Primitive("det", batch_rule=True, fresh=True,
                  shape_rule=_batch_shape)


def det(input: TensorLike, name: str | None = None) -> Tensor:  # TensorFlow's keyword
    """The determinant of each square matrix (over the last two axes).

    Gradient: ``ct * adj(A)^H``, the conjugate-transposed adjugate: TensorFlow's
    ``ct * det(A) * inv(A)^H`` where ``A`` is invertible, and finite at a singular matrix,
    where TensorFlow raises InvalidArgumentError (JAX gives the adjugate too). Second order
    is finite there as well.

    >>> import finegrad as fg
    >>> fg.linalg.det(fg.constant([[1., 2.], [3., 4.]])).numpy()
    np.float32(-2.0)
    >>> x = fg.constant([[1., 2.], [2., 4.]])          # singular
    >>> with fg.GradientTape() as tape:
    ...     tape.watch(x)
    ...     d = fg.linalg.det(x)
    >>> tape.gradient(d, x).numpy().round(5) + 0.
    array([[ 4., -2.],
           [-2.,  1.]], dtype=float32)
    """
    return bind(det_p, square_matrix(input, "linalg.det"))


det_p.def_vmap(leading_vmap(det_p))   # leading axes are batch axes


@det_p.def_impl
def _det_impl(a):
    return np.asarray(np.linalg.det(a), a.dtype)


@det_p.def_lowering
def _det_lower(a):
    import jax.numpy as jnp
    return jnp.linalg.det(a).astype(a.dtype)


@det_p.def_jvp
def _det_jvp(primals, tangents, *, out):
    # d det(A) = trace(adj(A) @ dA)
    (a,), (da,) = primals, tangents
    return reduce_sum(_swap(adjugate(a)) * da, [-2, -1])


@det_p.def_vjp
def _det_vjp(ct, a, *, out, needs, batch):
    return (expand_dims(expand_dims(ct, -1), -1) * _adj(adjugate(a)),)


# ---- slogdet -----------------------------------------------------------------------------------

log_abs_det_p = Primitive("log_abs_det", batch_rule=True, fresh=True,
                          shape_rule=_batch_shape)
det_sign_p = core.def_nondiff(Primitive("det_sign", fresh=True,
                                        shape_rule=_batch_shape))


def slogdet(input: TensorLike,  # TensorFlow's keyword
            name: str | None = None) -> tuple[Tensor, ...]:
    """``(sign, log_abs_determinant)`` of each square matrix, without overflow.

    The sign carries no gradient; ``log|det A|``'s is ``ct * inv(A)^H``, TensorFlow's. At a
    singular matrix (sign 0, ``log|det A| = -inf``) the gradient is infinite: ``inf`` (or
    ``nan`` where the adjugate's entry is 0 too), as the math and JAX have it; TensorFlow
    2.21 raises InvalidArgumentError there.

    >>> import finegrad as fg
    >>> sign, logdet = fg.linalg.slogdet(fg.constant([[-2., 0.], [0., 3.]]))
    >>> float(sign), round(float(logdet), 4)
    (-1.0, 1.7918)
    """
    x = square_matrix(input, "linalg.slogdet")
    if np.iscomplexobj(x._value):
        raise TypeError("finegrad.linalg.slogdet: complex matrices are not supported")
    return bind(det_sign_p, x), bind(log_abs_det_p, x)


det_sign_p.def_vmap(leading_vmap(det_sign_p))   # leading axes are batch axes


@det_sign_p.def_impl
def _det_sign_impl(a):
    return np.asarray(np.linalg.slogdet(a)[0], a.dtype)


@det_sign_p.def_lowering
def _det_sign_lower(a):
    import jax.numpy as jnp
    return jnp.linalg.slogdet(a)[0].astype(a.dtype)


log_abs_det_p.def_vmap(leading_vmap(log_abs_det_p))   # leading axes are batch axes


@log_abs_det_p.def_impl
def _log_abs_det_impl(a):
    return np.asarray(np.linalg.slogdet(a)[1], a.dtype)


@log_abs_det_p.def_lowering
def _log_abs_det_lower(a):
    import jax.numpy as jnp
    return jnp.linalg.slogdet(a)[1].astype(a.dtype)


def _inverse_or_inf(a):
    """``inv(A)``; at a singular ``A``, the SVD's inverse with ``1/0 = inf`` (see the module)."""
    return bind(inv_p, a, at_singular="inf")


@log_abs_det_p.def_jvp
def _log_abs_det_jvp(primals, tangents, *, out):
    # d log|det A| = trace(inv(A) @ dA) (real matrices)
    (a,), (da,) = primals, tangents
    return reduce_sum(_swap(_inverse_or_inf(a)) * da, [-2, -1])


@log_abs_det_p.def_vjp
def _log_abs_det_vjp(ct, a, *, out, needs, batch):
    scale = expand_dims(expand_dims(ct, -1), -1)
    return (ar.multiply(scale, _swap(_inverse_or_inf(a))),)
