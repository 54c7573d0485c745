"""``tf.linalg``: products (`products`: matmul, einsum, tensordot, matvec, norm), the matrix
argument checks (`checks`), masks, diagonals and the inverse (`diag_inv_det`), det, slogdet
and the adjugate (`determinants`),
solves (`solvers`), decompositions (`cholesky_eigh`, `svd_qr`, `eig`, `lu`), least squares
and the pseudo-inverse (`least_squares`), matrix functions (`matrix_functions`: expm,
logdet), the composites normalize, cross, set_diag, matrix_rank (`diag_cross_rank`) and
``tf.linalg.LinearOperator`` with its subclasses (`linear_operator/`).
"""
from finegrad._src.ops.linalg import (products, checks, diag_inv_det, solvers,  # noqa: F401
                                      cholesky_eigh, svd_qr, determinants, eig, lu, least_squares,
                                      matrix_functions, diag_cross_rank,
                                      linear_operator)
