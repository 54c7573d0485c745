"""Linear solves of ``tf.linalg``: solve, triangular_solve, cholesky_solve, and the matrix
adjoint and transpose they are written with.

``solve`` and ``triangular_solve`` are primitives (``matrix_solve``, ``triangular_solve``)
whose rules are TensorFlow's adjoint-solve formulas, written with finegrad ops so that they
differentiate again: for ``X = A^-1 B``, ``dB = A^-H ct`` and ``dA = -dB X^H`` (only the
used triangle for a triangular ``A``). ``cholesky_solve`` is two triangular solves.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import dims
from finegrad._src.core import Primitive, bind
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.array.structural import unbroadcast
from finegrad._src.ops.batching import leading_vmap
from finegrad._src.ops.math.complex_numbers import conj_if_complex
from finegrad._src.ops.linalg.products import matmul, _swap
from finegrad._src.ops.linalg.checks import matrix_arg, static_matrix
from finegrad._src.ops.linalg.diag_inv_det import band_part

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def _adj(x):
    """The conjugate transpose of each matrix (the transpose for real ones)."""
    return _swap(conj_if_complex(x))


def _tri(x, lower):
    return band_part(x, -1, 0) if lower else band_part(x, 0, -1)



def _solve_shape(a, b, **params):
    """Shape rule of a solve: the broadcast batch axes, then the rhs's matrix axes (the
    matrix axes are static: `matrix_arg` keeps them at their traced sizes)."""
    return tuple(dims.broadcast_shape(a[:-2], b[:-2])) + tuple(b[-2:])


def _check_rhs(a, b, fn, broadcast):
    sa, sb = tuple(a._value.shape), tuple(b._value.shape)
    if sb[-2] != sa[-1]:
        raise ValueError(f"finegrad.{fn}: rhs must have {sa[-1]} rows to match matrix of "
                         f"shape {sa}, got shape {sb}")
    if broadcast:
        try:
            np.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            raise ValueError(f"finegrad.{fn}: the batch shapes of matrix {sa} and rhs {sb} do "
                             f"not broadcast") from None
    elif sa[:-2] != sb[:-2]:
        raise ValueError(f"finegrad.{fn}: matrix and rhs must have the same batch shape (as "
                         f"in TensorFlow), got shapes {sa} and {sb}")
    if a._value.dtype != b._value.dtype:
        raise TypeError(f"finegrad.{fn}: matrix and rhs must have the same dtype, got "
                        f"{a._value.dtype.name} and {b._value.dtype.name}")


# ---- solve -----------------------------------------------------------------------------------

solve_p = Primitive("matrix_solve", batch_rule=True, fresh=True, shape_rule=_solve_shape)


def solve(matrix: TensorLike, rhs: TensorLike, adjoint: bool = False,
          name: str | None = None) -> Tensor:
    """Solve ``matrix @ X = rhs`` (``adjoint(matrix) @ X = rhs`` with ``adjoint=True``) for
    each square matrix; ``matrix`` is ``[..., M, M]``, ``rhs`` ``[..., M, K]`` with the same
    batch shape, as in TensorFlow.

    Gradient (TensorFlow's): ``d rhs = solve(matrix, ct, adjoint=not adjoint)`` and
    ``d matrix = -d rhs @ X^H`` (``-X @ d rhs^H`` with ``adjoint``).

    Raises:
        ValueError: rank < 2, a non-square matrix, or a mismatched rhs.
        finegrad.errors.InvalidArgumentError: a singular (not invertible) matrix.

    >>> import finegrad as fg
    >>> fg.linalg.solve(fg.constant([[2., 0.], [0., 4.]]), fg.constant([[2.], [2.]])).numpy()
    array([[1. ],
           [0.5]], dtype=float32)
    """
    a = matrix_arg(matrix, "linalg.solve", "matrix", square=True)
    b = matrix_arg(rhs, "linalg.solve", "rhs")
    _check_rhs(a, b, "linalg.solve", broadcast=False)
    return bind(solve_p, a, b, adjoint=bool(adjoint))


solve_p.def_vmap(leading_vmap(solve_p))   # leading axes are batch axes


@solve_p.def_impl
def _solve_impl(a, b, *, adjoint):
    if adjoint:
        a = np.conj(np.swapaxes(a, -1, -2))
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("finegrad.linalg.solve: Input matrix is not invertible "
                                   "(a singular matrix in matrix)") from None


@solve_p.def_lowering
def _solve_lower(a, b, *, adjoint):
    # a singular matrix gives inf/nan where impl raises InvalidArgumentError (XLA cannot
    # raise)
    import jax.numpy as jnp
    if adjoint:
        a = jnp.conj(jnp.swapaxes(a, -1, -2))
    return jnp.linalg.solve(a, b)


@solve_p.def_jvp
def _solve_jvp(primals, tangents, *, out, adjoint):
    # X = op(A)^-1 B:  dX = op(A)^-1 (dB - op(dA) X)
    (a, _), (a_dot, b_dot) = primals, tangents
    r = None if a_dot is None else -matmul(_adj(a_dot) if adjoint else a_dot, out)
    r = b_dot if r is None else (r if b_dot is None else r + b_dot)
    return bind(solve_p, a, r, adjoint=adjoint)


@solve_p.def_vjp
def _solve_vjp(ct, a, b, *, out, needs, batch, adjoint):
    gb = bind(solve_p, a, ct, adjoint=not adjoint)
    if not needs[0]:
        return None, gb
    ga = -matmul(out, _adj(gb)) if adjoint else -matmul(gb, _adj(out))
    return ga, gb


# ---- triangular_solve ------------------------------------------------------------------------

triangular_solve_p = Primitive("triangular_solve", batch_rule=True, fresh=True,
                               shape_rule=_solve_shape)


def triangular_solve(matrix: TensorLike, rhs: TensorLike, lower: bool = True, adjoint: bool = False,
                     name: str | None = None) -> Tensor:
    """Solve ``matrix @ X = rhs`` for triangular matrices: only the lower triangle of
    ``matrix`` is read with ``lower=True`` (the upper one otherwise); ``adjoint=True`` solves
    with its conjugate transpose. Batch shapes broadcast, as in TensorFlow.

    A zero on the diagonal gives inf/nan, as TensorFlow's does (no error). Gradient
    (TensorFlow's): ``d rhs = triangular_solve(matrix, ct, lower, not adjoint)`` and
    ``d matrix = -d rhs @ X^H`` (``-X @ d rhs^H`` with ``adjoint``) on the used triangle.

    >>> import finegrad as fg
    >>> a = fg.constant([[2., 0.], [1., 1.]])
    >>> fg.linalg.triangular_solve(a, fg.constant([[2.], [3.]])).numpy()
    array([[1.],
           [2.]], dtype=float32)
    """
    a = matrix_arg(matrix, "linalg.triangular_solve", "matrix", square=True)
    b = matrix_arg(rhs, "linalg.triangular_solve", "rhs")
    _check_rhs(a, b, "linalg.triangular_solve", broadcast=True)
    return bind(triangular_solve_p, a, b, lower=bool(lower), adjoint=bool(adjoint))


def _substitute(a, b, lower):
    """Forward (``lower``) or back substitution, row by row: inf/nan where a diagonal entry
    is 0, as TensorFlow's kernel gives."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), dtype=np.result_type(a, b))
    n = a.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (range(n) if lower else range(n - 1, -1, -1)):
            done = slice(0, i) if lower else slice(i + 1, n)
            s = np.einsum("...j,...jk->...k", a[..., i, done], x[..., done, :])
            x[..., i, :] = (x[..., i, :] - s) / a[..., i, i, None]
    return x


triangular_solve_p.def_vmap(leading_vmap(triangular_solve_p))   # leading axes are batch axes


@triangular_solve_p.def_impl
def _triangular_solve_impl(a, b, *, lower, adjoint):
    a = np.tril(a) if lower else np.triu(a)
    if adjoint:
        a, lower = np.conj(np.swapaxes(a, -1, -2)), not lower
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:   # a zero pivot: substitution gives TensorFlow's inf/nan
        return _substitute(a, b, lower)


@triangular_solve_p.def_lowering
def _triangular_solve_lower(a, b, *, lower, adjoint):
    # substitution, as impl's fallback: a zero diagonal entry gives inf/nan (TensorFlow's)
    import jax.numpy as jnp
    from jax import lax
    a = jnp.tril(a) if lower else jnp.triu(a)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    dtype = jnp.result_type(a, b)
    a = jnp.broadcast_to(a, batch + a.shape[-2:]).astype(dtype)
    b = jnp.broadcast_to(b, batch + b.shape[-2:]).astype(dtype)
    return lax.linalg.triangular_solve(a, b, left_side=True, lower=lower,
                                       transpose_a=adjoint, conjugate_a=adjoint)


@triangular_solve_p.def_jvp
def _triangular_solve_jvp(primals, tangents, *, out, lower, adjoint):
    # X = op(T)^-1 B with T the used triangle:  dX = op(T)^-1 (dB - op(dT) X)
    (a, _), (a_dot, b_dot) = primals, tangents
    r = None
    if a_dot is not None:
        t_dot = _tri(a_dot, lower)
        r = -matmul(_adj(t_dot) if adjoint else t_dot, out)
    r = b_dot if r is None else (r if b_dot is None else r + b_dot)
    return bind(triangular_solve_p, a, r, lower=lower, adjoint=adjoint)


@triangular_solve_p.def_vjp
def _triangular_solve_vjp(ct, a, b, *, out, needs, batch, lower, adjoint):
    gb = bind(triangular_solve_p, a, ct, lower=lower, adjoint=not adjoint)
    ga = None
    if needs[0]:
        ga = -matmul(out, _adj(gb)) if adjoint else -matmul(gb, _adj(out))
        ga = unbroadcast(_tri(ga, lower), a, batch)
    return ga, unbroadcast(gb, b, batch) if needs[1] else None


def cholesky_solve(chol: Any, rhs: TensorLike, name: str | None = None) -> Tensor:
    """Solve ``A @ X = rhs`` given ``chol``, the Cholesky factor of ``A``
    (``finegrad.linalg.cholesky(A)``): two triangular solves, differentiable through both.

    >>> import finegrad as fg
    >>> chol = fg.linalg.cholesky(fg.constant([[4., 2.], [2., 2.]]))
    >>> fg.linalg.cholesky_solve(chol, fg.constant([[6.], [4.]])).numpy()
    array([[1.],
           [1.]], dtype=float32)
    """
    factor = matrix_arg(chol, "linalg.cholesky_solve", "chol", square=True)
    b = matrix_arg(rhs, "linalg.cholesky_solve", "rhs")
    _check_rhs(factor, b, "linalg.cholesky_solve", broadcast=True)
    y = bind(triangular_solve_p, factor, b, lower=True, adjoint=False)
    return bind(triangular_solve_p, factor, y, lower=True, adjoint=True)


def adjoint(matrix: TensorLike, name: str | None = None) -> Tensor:
    """The conjugate transpose of each matrix (over the last two axes).

    >>> import finegrad as fg
    >>> fg.linalg.adjoint(fg.constant([[1., 2.], [3., 4.]])).numpy()
    array([[1., 3.],
           [2., 4.]], dtype=float32)
    """
    return _adj(static_matrix(matrix, "linalg.adjoint"))


def matrix_transpose(a: TensorLike, name: str = "matrix_transpose",
                     conjugate: bool = False) -> Tensor:
    """Transpose each matrix (the last two axes); ``conjugate=True`` also conjugates.

    >>> import finegrad as fg
    >>> fg.linalg.matrix_transpose(fg.ones((2, 3, 4))).shape
    TensorShape([2, 4, 3])
    """
    x = static_matrix(a, "linalg.matrix_transpose")
    return _swap(conj_if_complex(x) if conjugate else x)
