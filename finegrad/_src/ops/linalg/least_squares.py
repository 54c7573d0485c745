"""``tf.linalg.pinv`` and ``tf.linalg.lstsq``.

``lstsq(fast=True)`` is a composite of cholesky and triangular solves (the normal equations,
which is what TensorFlow's ``fast=True`` path and its gradient are); ``lstsq(fast=False)`` is
``pinv(A) @ B``, the minimum-norm solution, robust to rank deficiency.

``pinv`` is a primitive (``pinv``) whose rules are the derivative of the Moore-Penrose
pseudo-inverse ``P = A^+`` at constant rank (Golub and Pereyra):
``dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P``, written with finegrad ops
so that they differentiate again. At full rank this is the gradient TensorFlow gets through
its SVD; at a rank-deficient matrix it is the derivative along perturbations that keep the
rank (TensorFlow's SVD-based gradient there depends on its broadened ``1 / (s_j^2 - s_i^2)``).
"""

from __future__ import annotations

import numpy as np

from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import _t, cast, stop_gradient
from finegrad._src.ops.batching import leading_vmap
from finegrad._src.ops.linalg.products import matmul
from finegrad._src.ops.linalg.checks import matrix_arg
from finegrad._src.ops.linalg.solvers import _adj, cholesky_solve
from finegrad._src.ops.linalg.cholesky_eigh import cholesky, eye_like
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike

pinv_p = Primitive("pinv", batch_rule=True, fresh=True,
                   shape_rule=lambda x, rcond: tuple(x[:-2]) + (x[-1], x[-2]))


def pinv(a: TensorLike, rcond: Any = None, validate_args: bool = False,
         name: str | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix of ``a`` (``[..., M, N]`` gives
    ``[..., N, M]``), by SVD: singular values at most ``rcond`` times the largest count as
    zero. ``rcond`` defaults to TensorFlow's ``10 * max(M, N) * eps`` of ``a``'s dtype.

    Gradient (both modes, any order): the pseudo-inverse's derivative at constant rank, which
    at full rank is TensorFlow's.

    >>> import finegrad as fg
    >>> fg.linalg.pinv(fg.constant([[1., 2.], [2., 4.]])).numpy()
    array([[0.04, 0.08],
           [0.08, 0.16]], dtype=float32)
    """
    x = matrix_arg(a, "linalg.pinv", "a")
    return bind(pinv_p, x, rcond=_rcond(x, rcond, 10.0, "linalg.pinv"))


def _rcond(x, rcond, factor, fn):
    if rcond is None:
        m, n = x._value.shape[-2:]
        return float(factor * max(m, n) * np.finfo(x._value.dtype).eps)
    if isinstance(rcond, (int, float, np.floating, np.integer)) and not isinstance(rcond, bool):
        return float(rcond)
    value = np.asarray(_t(rcond)._value)
    if value.ndim != 0 or value.dtype.kind not in "fi":
        raise TypeError(f"finegrad.{fn}: rcond must be a real scalar, got {value.dtype.name} "
                        f"of shape {value.shape}")
    return float(value)


pinv_p.def_vmap(leading_vmap(pinv_p))   # leading axes are batch axes


@pinv_p.def_impl
def _pinv_impl(a, *, rcond):
    # In double precision (more accurate than the input's), with the input dtype's cutoff.
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    return np.linalg.pinv(a.astype(wide), rcond=rcond).astype(a.dtype)


@pinv_p.def_lowering
def _pinv_lower(a, *, rcond):
    # in double precision where JAX has it (x64 mode), as impl; else in a's
    import jax.numpy as jnp
    wide = jnp.complex128 if jnp.iscomplexobj(a) else jnp.float64
    return jnp.linalg.pinv(a.astype(wide), rtol=rcond).astype(a.dtype)


def _projectors(a, p):
    """``I - A P`` and ``I - P A`` (the projectors onto the complements of A's range and of
    its row space), as ``x - A (P x)`` style products would repeat them."""
    m, n = a._value.shape[-2:]
    eye_m = np.eye(m, dtype=a._value.dtype)
    eye_n = np.eye(n, dtype=a._value.dtype)
    return eye_m - matmul(a, p), eye_n - matmul(p, a)


@pinv_p.def_jvp
def _pinv_jvp(primals, tangents, *, out, rcond):
    (a,), (a_dot,) = primals, tangents
    p = out
    left, right = _projectors(a, p)
    a_dot_h = _adj(a_dot)
    return (-matmul(matmul(p, a_dot), p)
            + matmul(matmul(matmul(p, _adj(p)), a_dot_h), left)
            + matmul(matmul(right, a_dot_h), matmul(_adj(p), p)))


@pinv_p.def_vjp
def _pinv_vjp(ct, a, *, out, needs, batch, rcond):
    p = out
    left, right = _projectors(a, p)
    ct_h = _adj(ct)
    p_h = _adj(p)
    return (-matmul(matmul(p_h, ct), p_h)
            + matmul(matmul(left, ct_h), matmul(p, p_h))
            + matmul(matmul(p_h, p), matmul(ct_h, right)),)


# ---- lstsq -----------------------------------------------------------------------------------

def lstsq(matrix: TensorLike, rhs: TensorLike, l2_regularizer: float = 0.0, fast: bool = True,
          name: str | None = None) -> Tensor:
    """Least-squares solutions ``X`` of ``matrix @ X = rhs`` (``[..., M, N]`` and
    ``[..., M, K]``), with ``l2_regularizer`` ``lambda >= 0``: ``(A^T A + lambda I)^-1 A^T B``
    when ``M >= N``, ``A^T (A A^T + lambda I)^-1 B`` otherwise (the minimum-norm solution).

    ``fast=True`` (the default) is TensorFlow's fast path, the normal equations by Cholesky:
    it needs ``A`` of full rank (or ``lambda > 0``); its gradients are those of that
    computation, which are TensorFlow's. ``l2_regularizer`` gets no gradient, as in
    TensorFlow.

    ``fast=False`` gives the minimum-norm least-squares solution ``pinv(A) @ B`` even when
    ``A`` is rank deficient (singular values below ``max(M, N) * eps`` of the largest count
    as zero), and ignores ``l2_regularizer``, as TensorFlow does. TensorFlow has no
    gradient there (ValueError); finegrad differentiates it through ``pinv``: exact at full
    rank, the constant-rank derivative otherwise.

    >>> import finegrad as fg
    >>> a = fg.constant([[1., 0.], [0., 1.], [1., 1.]])
    >>> fg.linalg.lstsq(a, fg.constant([[1.], [1.], [2.]])).numpy().round(4)
    array([[1.],
           [1.]], dtype=float32)
    """
    a = matrix_arg(matrix, "linalg.lstsq", "matrix")
    b = matrix_arg(rhs, "linalg.lstsq", "rhs")
    _check_rhs_rows(a, b)
    if not fast:
        return _lstsq_complete(a, b)
    m, n = a._value.shape[-2:]
    lam = cast(stop_gradient(l2_regularizer), a.dtype) if isinstance(l2_regularizer, Tensor) \
        else float(l2_regularizer)
    if m >= n:
        gram = matmul(_adj(a), a)
        chol = cholesky(gram + lam * eye_like(gram))
        return cholesky_solve(chol, matmul(_adj(a), b))
    gram = matmul(a, _adj(a))
    chol = cholesky(gram + lam * eye_like(gram))
    return matmul(_adj(a), cholesky_solve(chol, b))


def _check_rhs_rows(a, b):
    sa, sb = tuple(a._value.shape), tuple(b._value.shape)
    if sa[-2] != sb[-2]:
        raise ValueError(f"finegrad.linalg.lstsq: rhs must have {sa[-2]} rows to match matrix "
                         f"of shape {sa}, got shape {sb}")
    if a._value.dtype != b._value.dtype:
        raise TypeError(f"finegrad.linalg.lstsq: matrix and rhs must have the same dtype, got "
                        f"{a._value.dtype.name} and {b._value.dtype.name}")



def _lstsq_complete(a, b):
    """``lstsq(..., fast=False)``: ``A^+ B``, the minimum-norm least-squares solution, with
    the cutoff ``max(M, N) * eps`` of the dtype (robust to rank deficiency)."""
    return matmul(bind(pinv_p, a, rcond=_rcond(a, None, 1.0, "linalg.lstsq")), b)
