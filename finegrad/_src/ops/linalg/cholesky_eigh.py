"""Decompositions of ``tf.linalg``: cholesky and eigh (eigvalsh).

``cholesky`` and ``eigh`` are primitives (``cholesky``, ``eigh``) with TensorFlow's
gradients, written with finegrad ops so that they differentiate again. Both read only the
lower triangle of their input, as TensorFlow's kernels do; their gradients are the ones
TensorFlow gives (for cholesky the symmetrized one, for eigh the lower triangle of the
symmetrized one). ``lstsq`` (``ops/linalg/least_squares.py``) is built on cholesky.
"""

from __future__ import annotations

import warnings

import numpy as np

from finegrad._src.tracebacks import user_stacklevel
from finegrad._src import core
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import expand_dims
from finegrad._src.ops.batching import leading_vmap
from finegrad._src.ops.math.complex_numbers import _as_complex, _is_complex as is_complex, real
from finegrad._src.ops.linalg.products import matmul
from finegrad._src.ops.linalg.diag_inv_det import diag, diag_part, band_part, _mask
from finegrad._src.ops.linalg.checks import matrix_arg
from finegrad._src.ops.linalg.solvers import _adj, triangular_solve_p
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def matrix_shapes(*mats):
    """Shape rule of a decomposition: its batch axes (``x``'s leading ones, symbolic or not)
    followed by each output's matrix axes ``mats(m, n)``; the matrix axes are static
    (`matrix_arg` keeps them at their traced sizes)."""
    def rule(x, **params):
        batch, (m, n) = tuple(x[:-2]), x[-2:]
        return [batch + tuple(f(m, n, **params)) for f in mats]
    return rule


def half_diag(x):
    """``x`` with its diagonal halved (the lower-triangle bookkeeping of symmetric rules)."""
    return x * _mask(x, lambda i, j: np.where(i == j, 0.5, 1.0))


def off_diag(x):
    return x * _mask(x, lambda i, j: i != j)


def safe_reciprocal(x):
    """``x / (x^2 + 1e-20)``: TensorFlow's broadened ``1 / x`` in eigh's and svd's gradients
    (0 where two eigenvalues or singular values are exactly equal, huge where close)."""
    return x / (x * x + 1e-20)


def eye_like(x):
    n = x._value.shape[-1]
    return Tensor(np.eye(n, dtype=x._value.dtype))


# ---- cholesky --------------------------------------------------------------------------------

cholesky_p = Primitive("cholesky", batch_rule=True, fresh=True, shape_rule=core.same_shape_rule)


def cholesky(input: TensorLike,  # TensorFlow's keyword
             name: str | None = None) -> Tensor:
    """The lower-triangular Cholesky factor ``L`` of each Hermitian positive definite matrix
    (``input = L @ adjoint(L)``); only the lower triangle of ``input`` is read.

    A matrix that is not positive definite gives a factor filled with NaN in its lower
    triangle and a UserWarning, as TensorFlow does (it logs and fills with NaNs; it does
    not raise). Gradient: TensorFlow's (Murray's formula), symmetric:
    ``sym(L^-H Phi(L^H ct) L^-1)`` with ``Phi`` the lower triangle, diagonal halved.

    >>> import finegrad as fg
    >>> fg.linalg.cholesky(fg.constant([[4., 2.], [2., 2.]])).numpy()
    array([[2., 0.],
           [1., 1.]], dtype=float32)
    """
    return bind(cholesky_p, matrix_arg(input, "linalg.cholesky", "input", square=True))


cholesky_p.def_vmap(leading_vmap(cholesky_p))   # leading axes are batch axes


@cholesky_p.def_lowering
def _cholesky_lower(a):
    # the lower triangle only (as LAPACK's potrf, which impl calls); a matrix that is not
    # positive definite gets impl's NaN lower triangle, but without impl's warning (XLA has
    # no way to warn)
    import jax.numpy as jnp
    from jax import lax
    low = lax.linalg.cholesky(a, symmetrize_input=False)
    ok = jnp.all(jnp.isfinite(low), axis=(-2, -1), keepdims=True)
    nan_lower = jnp.tril(jnp.full(a.shape[-2:], np.nan, a.dtype))
    return jnp.where(ok, jnp.tril(low), nan_lower)


@cholesky_p.def_impl
def _cholesky_impl(a):
    try:
        return np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        pass
    out = np.zeros_like(a)
    nan_lower = np.tril(np.full(a.shape[-2:], np.nan, a.dtype))
    for idx in np.ndindex(a.shape[:-2]):
        try:
            out[idx] = np.linalg.cholesky(a[idx])
        except np.linalg.LinAlgError:
            out[idx] = nan_lower
    tracer = core.current_tracer()
    if tracer is None or not tracer.examples:   # (not for a graph's made-up zeros)
        warnings.warn("finegrad.linalg.cholesky: Cholesky decomposition was not successful "
                      "(the input is not positive definite); its lower triangle is filled "
                      "with NaNs, as TensorFlow does", UserWarning, stacklevel=user_stacklevel())
    return out


@cholesky_p.def_jvp
def _cholesky_jvp(primals, tangents, *, out):
    # dL = L Phi(L^-1 sym(dA) L^-H), Phi: the lower triangle with the diagonal halved
    (a_dot,) = tangents
    eye = eye_like(out)
    l_inv = bind(triangular_solve_p, out, eye, lower=True, adjoint=False)
    sym = (a_dot + _adj(a_dot)) * 0.5
    return matmul(out, half_diag(band_part(matmul(matmul(l_inv, sym), _adj(l_inv)), -1, 0)))


@cholesky_p.def_vjp
def _cholesky_vjp(ct, a, *, out, needs, batch):
    l_inv = bind(triangular_solve_p, out, eye_like(out), lower=True, adjoint=False)
    middle = half_diag(band_part(matmul(_adj(out), ct), -1, 0))
    g = matmul(matmul(_adj(l_inv), middle), l_inv)
    return ((g + _adj(g)) * 0.5,)


# ---- eigh ------------------------------------------------------------------------------------

eigh_p = Primitive("eigh", multiple_results=True, batch_rule=True, fresh=True,
                   shape_rule=matrix_shapes(lambda m, n: (n,), lambda m, n: (m, n)))


def eigh(tensor: TensorLike, name: str | None = None) -> tuple[Tensor, ...]:
    """Eigenvalues (ascending) and eigenvectors of each real symmetric (complex Hermitian)
    matrix: ``(e, v)`` with ``tensor @ v == v * e``; only the lower triangle is read (and the
    real part of the diagonal). ``e`` has the input's dtype, as in TensorFlow (complex with a
    zero imaginary part for complex input).

    Eigenvectors are unique up to sign (phase) (NumPy's and TensorFlow's may differ); losses
    that do not depend on it have the same gradients. Gradient: TensorFlow's,
    ``V (diag(ct_e) + F * (V^H ct_v)) V^H`` with ``F[i, j] = 1 / (e[j] - e[i])`` broadened as
    ``x / (x^2 + 1e-20)``, then symmetrized to the lower triangle. Degenerate eigenvalues make
    the eigenvector part of it meaningless: ``F`` is 0 for exactly equal ones (as in
    TensorFlow), huge for close ones.

    >>> import finegrad as fg
    >>> e, v = fg.linalg.eigh(fg.constant([[2., 1.], [1., 2.]]))
    >>> e.numpy()
    array([1., 3.], dtype=float32)
    """
    return bind(eigh_p, matrix_arg(tensor, "linalg.eigh", "tensor", square=True))


def eigvalsh(tensor: TensorLike, name: str | None = None) -> Tensor:
    """The eigenvalues (ascending) of each real symmetric (complex Hermitian) matrix;
    gradient ``V diag(ct) V^H`` on the lower triangle, as TensorFlow's.

    >>> import finegrad as fg
    >>> fg.linalg.eigvalsh(fg.constant([[2., 0.], [0., 1.]])).numpy()
    array([1., 2.], dtype=float32)
    """
    return bind(eigh_p, matrix_arg(tensor, "linalg.eigvalsh", "tensor", square=True))[0]


eigh_p.def_vmap(leading_vmap(eigh_p))   # leading axes are batch axes


@eigh_p.def_lowering
def _eigh_lower(a):
    # the lower triangle only, as impl; each eigenvector's sign (phase) is the backend's,
    # which may differ from NumPy's (impl's), as the docstring says of TensorFlow's
    import jax.numpy as jnp
    e, v = jnp.linalg.eigh(a, UPLO="L", symmetrize_input=False)
    return e.astype(a.dtype), v


@eigh_p.def_impl
def _eigh_impl(a):
    e, v = np.linalg.eigh(a)
    return e.astype(a.dtype, copy=False), v


def _gap_matrix(e):
    """``F[i, j] = 1 / (e[j] - e[i])`` (broadened), 0 on the diagonal."""
    return off_diag(safe_reciprocal(expand_dims(e, -2) - expand_dims(e, -1)))


@eigh_p.def_jvp
def _eigh_jvp(primals, tangents, *, out):
    # the Hermitian matrix eigh reads: the strict lower triangle of dA, mirrored, and the
    # real part of its diagonal
    (a_dot,) = tangents
    e, v = out
    low = off_diag(band_part(a_dot, -1, 0))
    d = diag_part(a_dot)
    if is_complex(d):
        d = _as_complex(real(d), d)
    m = matmul(matmul(_adj(v), low + _adj(low) + diag(d)), v)
    de = diag_part(m)
    if is_complex(de):   # exactly real: the diagonal of a Hermitian matrix
        de = _as_complex(real(de), de)
    return de, matmul(v, _gap_matrix(e) * m)


@eigh_p.def_vjp
def _eigh_vjp(ct, a, *, out, needs, batch):
    ge, gv = ct
    e, v = out
    inner = diag(ge) + _gap_matrix(e) * matmul(_adj(v), gv)
    g = matmul(matmul(v, inner), _adj(v))
    return (half_diag(band_part(g + _adj(g), -1, 0)),)
