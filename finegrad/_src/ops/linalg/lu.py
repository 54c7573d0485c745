"""The LU decomposition of ``tf.linalg`` with partial pivoting: ``lu`` and the helpers that
use its packed output (``lu_reconstruct``, ``lu_solve``, ``lu_matrix_inverse``).

``lu(A)`` is two primitives over one factorization, as ``slogdet`` is: ``lu`` (the packed
factor ``L + U - I``, differentiable) and ``lu_perm`` (the row permutation ``p``, int32, no
gradient), with ``A[p] = L @ U``. The factor's rules are TensorFlow's for square matrices,
written with finegrad ops so they differentiate again: for ``X = L^-1 P dA U^-1``,
``dL = L tril(X, -1)`` and ``dU = triu(X) U``; the VJP is
``P^T L^-H (tril(L^H ct, -1) + triu(ct U^H)) U^-H``. The helpers are composites of
matmul and triangular solves, so their gradients follow.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import cast, expand_dims, _t
from finegrad._src.ops.batching import leading_vmap
from finegrad._src.ops.array.constants import range_
from finegrad._src.ops.linalg.products import matmul
from finegrad._src.ops.linalg.diag_inv_det import band_part, _mask
from finegrad._src.ops.linalg.checks import matrix_arg
from finegrad._src.ops.linalg.solvers import triangular_solve, _adj
from finegrad._src.ops.math import elementwise as ew

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def _factor(a):
    """``(packed, perm)`` of each matrix of ``a`` by Gaussian elimination with partial
    pivoting (the first largest |entry| is the pivot, as TensorFlow's kernel)."""
    lu = np.array(a, copy=True)
    n = lu.shape[-1]
    perm = np.broadcast_to(np.arange(n), lu.shape[:-1]).copy()
    idx = np.indices(lu.shape[:-2])
    for k in range(n):
        piv = k + np.argmax(np.abs(lu[..., k:, k]), axis=-1)
        at = (*idx, piv)
        rows = lu[at].copy()
        lu[at] = lu[..., k, :]
        lu[..., k, :] = rows
        pk = perm[at].copy()
        perm[at] = perm[..., k]
        perm[..., k] = pk
        with np.errstate(divide="ignore", invalid="ignore"):
            lu[..., k + 1:, k] /= lu[..., k:k + 1, k]
        lu[..., k + 1:, k + 1:] -= lu[..., k + 1:, k:k + 1] * lu[..., k:k + 1, k + 1:]
    return lu, perm.astype(np.int32)


lu_p = Primitive("lu", batch_rule=True, fresh=True, shape_rule=core.same_shape_rule)
lu_perm_p = core.def_nondiff(Primitive("lu_perm", fresh=True,
                                       shape_rule=lambda x: tuple(x[:-1])))


def lu(input: TensorLike, output_idx_type: str = "int32",  # TensorFlow's keyword
       name: str | None = None) -> tuple[Tensor, ...]:
    """``(lu, p)``: the LU decomposition with partial pivoting of each square matrix, packed
    as TensorFlow's (``L`` unit lower below the diagonal, ``U`` on and above it) with the row
    permutation ``p`` (``input[p] = L @ U``). Only ``output_idx_type="int32"``.

    >>> import finegrad as fg
    >>> packed, p = fg.linalg.lu(fg.constant([[1., 2.], [4., 4.]]))
    >>> packed.numpy(), p.numpy()
    (array([[4.  , 4.  ],
           [0.25, 1.  ]], dtype=float32), array([1, 0], dtype=int32))
    """
    if output_idx_type not in ("int32", np.int32):
        raise ValueError(f"finegrad.linalg.lu: only output_idx_type='int32' is supported, "
                         f"got {output_idx_type!r}")
    x = matrix_arg(input, "linalg.lu", "input", square=True)
    return bind(lu_p, x), bind(lu_perm_p, x)


lu_p.def_impl(lambda a: _factor(a)[0])
lu_perm_p.def_impl(lambda a: _factor(a)[1])


# XLA's LU (LAPACK's getrf on CPU) pivots on the first largest |entry|, as impl; at an exactly
# singular matrix the entries below a zero pivot may differ (impl divides by it: inf/nan)
@lu_p.def_lowering
def _lu_lower(a):
    from jax import lax
    return lax.linalg.lu(a)[0]


@lu_perm_p.def_lowering
def _lu_perm_lower(a):
    import jax.numpy as jnp
    from jax import lax
    return lax.linalg.lu(a)[2].astype(jnp.int32)


lu_p.def_vmap(leading_vmap(lu_p))   # leading axes are batch axes
lu_perm_p.def_vmap(leading_vmap(lu_perm_p))


def _split(packed):
    eye = _mask(packed, lambda i, j: i == j)
    return band_part(packed, -1, 0) * (1 - eye) + eye, band_part(packed, 0, -1)


def _perm_matrix(perm, dtype):
    """``P`` with ``P[i, j] = (j == perm[i])``, so that ``P @ A = A[perm]``."""
    n = perm.shape[-1]
    return cast(ew.equal(expand_dims(perm, -1), range_(n)), dtype)


@lu_p.def_jvp
def _lu_jvp(primals, tangents, *, out):
    (a,), (da,) = primals, tangents
    low, up = _split(out)
    p = _perm_matrix(bind(lu_perm_p, a), a.dtype)
    x = triangular_solve(low, matmul(p, da), lower=True)
    x = _adj(triangular_solve(up, _adj(x), lower=False, adjoint=True))   # x U^-1
    return matmul(low, band_part(x, -1, 0) - band_part(x, 0, 0)) + matmul(band_part(x, 0, -1),
                                                                           up)


@lu_p.def_vjp
def _lu_vjp(ct, a, *, out, needs, batch):
    low, up = _split(out)
    middle = (band_part(matmul(_adj(low), ct), -1, 0) - band_part(matmul(_adj(low), ct), 0, 0)
              + band_part(matmul(ct, _adj(up)), 0, -1))
    g = triangular_solve(low, middle, lower=True, adjoint=True)          # L^-H middle
    g = _adj(triangular_solve(up, _adj(g), lower=False))                  # ... U^-H
    p = _perm_matrix(bind(lu_perm_p, a), a.dtype)
    return (matmul(p, g, adjoint_a=True),)


def lu_reconstruct(lower_upper: Any, perm: Any, validate_args: bool = False,
                   name: str | None = None) -> Tensor:
    """The matrix ``A`` whose ``lu`` is ``(lower_upper, perm)``: ``P^T L U``.

    >>> import finegrad as fg
    >>> fg.linalg.lu_reconstruct(*fg.linalg.lu(fg.constant([[1., 2.], [4., 4.]]))).numpy()
    array([[1., 2.],
           [4., 4.]], dtype=float32)
    """
    packed = matrix_arg(lower_upper, "linalg.lu_reconstruct", "lower_upper", square=True)
    low, up = _split(packed)
    return matmul(_perm_matrix(_t(perm), packed.dtype), matmul(low, up), adjoint_a=True)


def lu_solve(lower_upper: Any, perm: Any, rhs: TensorLike, validate_args: bool = False,
             name: str | None = None) -> Tensor:
    """``X`` with ``A @ X = rhs`` for the ``A`` whose ``lu`` is ``(lower_upper, perm)``.

    >>> import finegrad as fg
    >>> lu, p = fg.linalg.lu(fg.constant([[1., 2.], [4., 4.]]))
    >>> fg.linalg.lu_solve(lu, p, fg.constant([[3.], [8.]])).numpy()
    array([[1.],
           [1.]], dtype=float32)
    """
    packed = matrix_arg(lower_upper, "linalg.lu_solve", "lower_upper", square=True)
    low, up = _split(packed)
    b = matmul(_perm_matrix(_t(perm), packed.dtype), matrix_arg(rhs, "linalg.lu_solve", "rhs"))
    return triangular_solve(up, triangular_solve(low, b, lower=True), lower=False)


def lu_matrix_inverse(lower_upper: Any, perm: Any, validate_args: bool = False,
                      name: str | None = None) -> Tensor:
    """The inverse of the ``A`` whose ``lu`` is ``(lower_upper, perm)``.

    >>> import finegrad as fg
    >>> lu, p = fg.linalg.lu(fg.constant([[2., 0.], [0., 4.]]))
    >>> fg.linalg.lu_matrix_inverse(lu, p).numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    packed = matrix_arg(lower_upper, "linalg.lu_matrix_inverse", "lower_upper", square=True)
    n = packed.shape[-1]
    eye = cast(ew.equal(expand_dims(range_(n), -1), range_(n)), packed.dtype)
    return lu_solve(packed, perm, eye + 0 * packed)
