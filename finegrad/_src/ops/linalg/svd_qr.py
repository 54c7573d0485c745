"""``tf.linalg.svd`` and ``tf.linalg.qr``: primitives ``svd`` and ``qr`` with TensorFlow's
gradients (real and complex matrices), written with finegrad ops so that they differentiate again.

Singular vectors and ``Q`` are unique only up to sign: NumPy's (used here) and TensorFlow's
may differ column by column, and so does everything computed from one of them alone;
reconstructions, projectors ``u u^T`` and the gradients of losses that do not depend on the
signs agree. Where TensorFlow has no gradient (an SVD with ``full_matrices=True`` of a
non-square matrix, a QR with ``full_matrices=True`` of a tall one) the rules raise
NotImplementedError saying so.
"""

from __future__ import annotations

import numpy as np

from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import concat, expand_dims
from finegrad._src.ops.batching import leading_vmap
from finegrad._src.ops.math.complex_numbers import _as_complex, _is_complex, real, conj_if_complex
from finegrad._src.ops.array.indexing import getitem
from finegrad._src.ops.linalg.products import matmul
from finegrad._src.ops.linalg.diag_inv_det import diag, diag_part, _mask
from finegrad._src.ops.linalg.checks import matrix_arg
from finegrad._src.ops.linalg.solvers import _adj, triangular_solve_p
from finegrad._src.ops.linalg.cholesky_eigh import matrix_shapes, off_diag, safe_reciprocal

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


# ---- svd -------------------------------------------------------------------------------------

svd_p = Primitive("svd", multiple_results=True, batch_rule=True, fresh=True,
                  shape_rule=matrix_shapes(
                      lambda m, n, full_matrices: (min(m, n),),
                      lambda m, n, full_matrices: (m, m if full_matrices else min(m, n)),
                      lambda m, n, full_matrices: (n, n if full_matrices else min(m, n))))


def svd(tensor: TensorLike, full_matrices: bool = False, compute_uv: bool = True,
        name: str | None = None) -> Any:
    """Singular value decomposition of each matrix, in TensorFlow's order and form:
    ``(s, u, v)`` with ``tensor == u @ diag(s) @ adjoint(v)`` (``v`` is not transposed, unlike
    NumPy's ``vh``); ``s`` descending. ``compute_uv=False`` returns ``s`` only.

    Gradient: TensorFlow's (``F[i, j] = 1 / (s[j]^2 - s[i]^2)``, broadened as
    ``x / (x^2 + 1e-20)``: meaningless for the singular vectors of repeated singular values;
    ``1 / s`` likewise for non-square matrices). ``full_matrices=True`` with a non-square
    matrix has no gradient (NotImplementedError; TensorFlow too, for all but a difference of
    one). ``s`` is real for complex matrices, as in TensorFlow.

    >>> import finegrad as fg
    >>> s, u, v = fg.linalg.svd(fg.constant([[3., 0.], [0., -2.]]))
    >>> s.numpy()
    array([3., 2.], dtype=float32)
    >>> (u @ fg.linalg.diag(s) @ fg.linalg.adjoint(v)).numpy()
    array([[ 3.,  0.],
           [ 0., -2.]], dtype=float32)
    """
    x = matrix_arg(tensor, "linalg.svd", "tensor")
    if not compute_uv:
        return bind(svd_p, x, full_matrices=False)[0]
    return bind(svd_p, x, full_matrices=bool(full_matrices))


svd_p.def_vmap(leading_vmap(svd_p))   # leading axes are batch axes


@svd_p.def_impl
def _svd_impl(a, *, full_matrices):
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    v = np.conj(np.swapaxes(vh, -1, -2)) if np.iscomplexobj(vh) else np.swapaxes(vh, -1, -2)
    return s.astype(a.real.dtype, copy=False), u, np.ascontiguousarray(v)


@svd_p.def_lowering
def _svd_lower(a, *, full_matrices):
    # the signs (phases) of the singular vectors are the backend's: LAPACK's gesdd on CPU,
    # as NumPy's (impl's); other backends may flip a pair (u_k, v_k), which the docstring
    # leaves open (s, and u diag(s) v^H, are the same)
    import jax.numpy as jnp
    u, s, vh = jnp.linalg.svd(a, full_matrices=full_matrices)
    return s.astype(jnp.real(a).dtype), u, jnp.conj(jnp.swapaxes(vh, -1, -2))


def _no_full_gradient(a, full_matrices, mode):
    m, n = a._value.shape[-2:]
    if full_matrices and m != n:
        raise NotImplementedError(
            f"finegrad.linalg.svd: no {mode} gradient with full_matrices=True for a non-square "
            f"matrix (shape {tuple(a._value.shape)}), as in TensorFlow; use "
            f"full_matrices=False")


def _sq_gaps(s):
    """``F[i, j] = 1 / (s[j]^2 - s[i]^2)`` (broadened), 0 on the diagonal."""
    s2 = s * s
    return off_diag(safe_reciprocal(expand_dims(s2, -2) - expand_dims(s2, -1)))


@svd_p.def_jvp
def _svd_jvp(primals, tangents, *, out, full_matrices):
    (a,), (a_dot,) = primals, tangents
    _no_full_gradient(a, full_matrices, "forward-mode")
    s, u, v = out
    m, n = a._value.shape[-2:]
    ds_mat = matmul(matmul(_adj(u), a_dot), v)
    s = _as_complex(s, u)   # (a no-op for real matrices)
    f = _sq_gaps(s)
    row, col = expand_dims(s, -2), expand_dims(s, -1)   # scale columns / rows by s
    dss, sds = ds_mat * row, col * ds_mat
    inner_u = f * (dss + _adj(dss))
    if _is_complex(u):   # the phase term: i Im(dS_ii) / s_i on the diagonal
        inner_u = inner_u + diag(diag_part(ds_mat - _adj(ds_mat)) * safe_reciprocal(s) * 0.5)
    du = matmul(u, inner_u)
    dv = matmul(v, f * (sds + _adj(sds)))
    s_inv = expand_dims(safe_reciprocal(s), -2)
    if m > n:
        dav = matmul(a_dot, v)
        du = du + (dav - matmul(u, matmul(_adj(u), dav))) * s_inv
    elif n > m:
        dahu = matmul(_adj(a_dot), u)
        dv = dv + (dahu - matmul(v, matmul(_adj(v), dahu))) * s_inv
    ds = diag_part(ds_mat)
    return (real(ds) if _is_complex(ds) else ds), du, dv


@svd_p.def_vjp
def _svd_vjp(ct, a, *, out, needs, batch, full_matrices):
    _no_full_gradient(a, full_matrices, "reverse-mode")
    gs, gu, gv = ct
    s, u, v = out
    m, n = a._value.shape[-2:]
    if m > n:   # the gradient for A^H = V S U^H, conjugate-transposed at the end
        u, v, gu, gv = v, u, gv, gu
    s, gs = _as_complex(s, u), _as_complex(gs, u)
    f = _sq_gaps(s)
    v_gv = matmul(_adj(v), gv)
    fu = f * matmul(_adj(u), gu)
    fv = f * v_gv
    row, col = expand_dims(s, -2), expand_dims(s, -1)
    inner = diag(gs) + (fu + _adj(fu)) * row + col * (fv + _adj(fv))
    if _is_complex(u):   # the phase term of complex matrices: S^-1 (l^H - l) / 2
        d = diag_part(v_gv)
        inner = inner + diag(safe_reciprocal(s) * (conj_if_complex(d) - d) * 0.5)
    g = matmul(matmul(u, inner), _adj(v))
    if m != n:
        gvt = _adj(gv)
        rest = gvt - matmul(matmul(gvt, v), _adj(v))
        g = g + matmul(u * expand_dims(safe_reciprocal(s), -2), rest)
    return (_adj(g) if m > n else g,)


# ---- qr --------------------------------------------------------------------------------------

qr_p = Primitive("qr", multiple_results=True, batch_rule=True, fresh=True,
                 shape_rule=matrix_shapes(
                     lambda m, n, full_matrices: (m, m if full_matrices else min(m, n)),
                     lambda m, n, full_matrices: (m if full_matrices else min(m, n), n)))


def qr(input: TensorLike, full_matrices: bool = False,  # TensorFlow's keyword
       name: str | None = None) -> tuple[Tensor, ...]:
    """QR decomposition of each matrix: ``(q, r)`` with ``input == q @ r``, ``q`` with
    orthonormal columns and ``r`` upper triangular (``[..., M, K]`` and ``[..., K, N]``,
    ``K = min(M, N)``; ``full_matrices=True``: ``q`` is ``[..., M, M]``, ``r`` ``[..., M, N]``).

    Gradient: TensorFlow's (for ``M >= N`` and for wide matrices by splitting off the first
    ``M`` columns); a tall matrix with ``full_matrices=True`` has none (NotImplementedError,
    as in TensorFlow). The signs (phases) of ``q``'s columns (and ``r``'s rows) may differ
    from TensorFlow's.

    >>> import finegrad as fg
    >>> q, r = fg.linalg.qr(fg.constant([[3., 1.], [4., 2.]]))
    >>> (q @ r).numpy().round(4)
    array([[3., 1.],
           [4., 2.]], dtype=float32)
    """
    x = matrix_arg(input, "linalg.qr", "input")
    return bind(qr_p, x, full_matrices=bool(full_matrices))


qr_p.def_vmap(leading_vmap(qr_p))   # leading axes are batch axes


@qr_p.def_impl
def _qr_impl(a, *, full_matrices):
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return q, r


@qr_p.def_lowering
def _qr_lower(a, *, full_matrices):
    # Householder QR as LAPACK's; the signs (phases) of q's columns may differ by backend
    # (the docstring leaves them open)
    import jax.numpy as jnp
    return jnp.linalg.qr(a, mode="complete" if full_matrices else "reduced")


def _no_tall_full(a, full_matrices, mode):
    m, n = a._value.shape[-2:]
    if full_matrices and m > n:
        raise NotImplementedError(
            f"finegrad.linalg.qr: no {mode} gradient with full_matrices=True for a matrix with "
            f"more rows than columns (shape {tuple(a._value.shape)}), as in TensorFlow; use "
            f"full_matrices=False")


def _times_r_inv(x, r):
    """``x @ inv(r)`` for upper-triangular ``r`` (a triangular solve)."""
    return _adj(bind(triangular_solve_p, r, _adj(x), lower=False, adjoint=True))


def _times_r_inv_h(x, r):
    """``x @ adjoint(inv(r))`` for upper-triangular ``r``."""
    return _adj(bind(triangular_solve_p, r, _adj(x), lower=False, adjoint=False))


def _strict_lower(x):
    return x * _mask(x, lambda i, j: i > j)


def _qr_jvp_tall(q, r, a_dot):
    # dA R^-1 = X;  C = Q^T X;  Omega = tril(C, -1) - its transpose (skew)
    x = _times_r_inv(a_dot, r)
    c = matmul(_adj(q), x)
    low = _strict_lower(c)
    omega = low - _adj(low)
    if _is_complex(c):   # Omega's diagonal: i Im(C_ii)
        d = diag_part(c)
        omega = omega + diag(d - _as_complex(real(d), d))
    return matmul(q, omega - c) + x, matmul(c - omega, r)


@qr_p.def_jvp
def _qr_jvp(primals, tangents, *, out, full_matrices):
    (a,), (a_dot,) = primals, tangents
    _no_tall_full(a, full_matrices, "forward-mode")
    q, r = out
    m, n = a._value.shape[-2:]
    if m >= n:
        return _qr_jvp_tall(q, r, a_dot)
    # A = [X, Y] = Q [U, V]: the square QR of X, then V = Q^T Y
    left, right = (Ellipsis, slice(None), slice(0, m)), (Ellipsis, slice(None), slice(m, None))
    dq, du = _qr_jvp_tall(q, getitem(r, left), getitem(a_dot, left))
    dv = matmul(_adj(dq), getitem(a, right)) + matmul(_adj(q), getitem(a_dot, right))
    return dq, concat([du, dv], -1)


def _qr_vjp_tall(q, r, dq, dr):
    qdq = matmul(_adj(q), dq)
    rdr = matmul(r, _adj(dr))
    low = _strict_lower(qdq - _adj(qdq) + rdr - _adj(rdr))
    g = matmul(q, dr + _times_r_inv_h(low, r)) + _times_r_inv_h(dq - matmul(q, qdq), r)
    if _is_complex(q):   # the correction of complex matrices: i Im(diag(rdr - qdq^H))
        d = diag_part(rdr - _adj(qdq))
        g = g + _times_r_inv_h(matmul(q, _adj(diag(d - _as_complex(real(d), d)))), r)
    return g


@qr_p.def_vjp
def _qr_vjp(ct, a, *, out, needs, batch, full_matrices):
    _no_tall_full(a, full_matrices, "reverse-mode")
    dq, dr = ct
    q, r = out
    m, n = a._value.shape[-2:]
    if m >= n:
        return (_qr_vjp_tall(q, r, dq, dr),)
    left, right = (Ellipsis, slice(None), slice(0, m)), (Ellipsis, slice(None), slice(m, None))
    y, dv = getitem(a, right), getitem(dr, right)
    dx = _qr_vjp_tall(q, getitem(r, left), dq + matmul(y, _adj(dv)), getitem(dr, left))
    return (concat([dx, matmul(q, dv)], -1),)
