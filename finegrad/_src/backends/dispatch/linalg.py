"""`keras.ops.linalg`: decompositions, solvers, norms.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from finegrad._src.backends.dispatch.selection import on as _on


def cholesky(x, upper=False):
    """Keras 3's `keras.ops.cholesky` on the active backend."""
    return _on(x).cholesky(x, upper)


def cholesky_inverse(x, upper=False):
    """Keras 3's `keras.ops.cholesky_inverse` on the active backend."""
    return _on(x).cholesky_inverse(x, upper)


def det(x):
    """Keras 3's `keras.ops.det` on the active backend."""
    return _on(x).det(x)


def eig(x):
    """Keras 3's `keras.ops.eig` on the active backend."""
    return _on(x).eig(x)


def eigh(x):
    """Keras 3's `keras.ops.eigh` on the active backend."""
    return _on(x).eigh(x)


def inv(x):
    """Keras 3's `keras.ops.inv` on the active backend."""
    return _on(x).inv(x)


def jvp(fun, primals, tangents, has_aux=False):
    """Keras 3's `keras.ops.jvp` on the active backend."""
    return _on(fun, primals, tangents).jvp(fun, primals, tangents, has_aux)


def lstsq(a, b, rcond=None):
    """Keras 3's `keras.ops.lstsq` on the active backend."""
    return _on(a, b, rcond).lstsq(a, b, rcond)


def lu_factor(x):
    """Keras 3's `keras.ops.lu_factor` on the active backend."""
    return _on(x).lu_factor(x)


def matrix_rank(x, tol=None):
    """Keras 3's `keras.ops.matrix_rank` on the active backend."""
    return _on(x, tol).matrix_rank(x, tol)


def norm(x, ord=None, axis=None, keepdims=False):
    """Keras 3's `keras.ops.norm` on the active backend."""
    return _on(x, ord).norm(x, ord, axis, keepdims)


def pinv(x, rcond=None):
    """Keras 3's `keras.ops.pinv` on the active backend."""
    return _on(x, rcond).pinv(x, rcond)


def qr(x, mode="reduced"):
    """Keras 3's `keras.ops.qr` on the active backend."""
    return _on(x).qr(x, mode)


def solve(a, b):
    """Keras 3's `keras.ops.solve` on the active backend."""
    return _on(a, b).solve(a, b)


def solve_triangular(a, b, lower=False):
    """Keras 3's `keras.ops.solve_triangular` on the active backend."""
    return _on(a, b).solve_triangular(a, b, lower)


def svd(x, full_matrices=True, compute_uv=True):
    """Keras 3's `keras.ops.svd` on the active backend."""
    return _on(x).svd(x, full_matrices, compute_uv)
