"""Keras 3's `keras.ops.linalg` namespace on the active backend (see `finegrad.ops`)."""
from finegrad._src.backends.dispatch.linalg import (  # noqa: F401
    cholesky, cholesky_inverse, det, eig, eigh, inv, jvp, lstsq, lu_factor, matrix_rank, norm,
    pinv, qr, solve, solve_triangular, svd)

__all__ = """
cholesky cholesky_inverse det eig eigh inv jvp lstsq lu_factor matrix_rank norm pinv qr
solve solve_triangular svd
""".split()
