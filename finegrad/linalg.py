"""TensorFlow's ``tf.linalg`` namespace."""
from finegrad._src.ops.linalg.products import matmul, matvec, tensordot, einsum, norm
from finegrad._src.ops.array.structural import transpose
from finegrad._src.ops.array.constants import eye
from finegrad._src.ops.math.statistics import l2_normalize
from finegrad._src.ops.linalg.diag_inv_det import band_part, diag, diag_part, trace, inv
from finegrad._src.ops.linalg.determinants import det, slogdet
from finegrad._src.ops.linalg.solvers import (solve, triangular_solve,
                                              cholesky_solve, adjoint, matrix_transpose)
from finegrad._src.ops.linalg.cholesky_eigh import cholesky, eigh, eigvalsh
from finegrad._src.ops.linalg.least_squares import lstsq, pinv
from finegrad._src.ops.linalg.svd_qr import svd, qr
from finegrad._src.ops.nn.clipping import global_norm
from finegrad._src.ops.linalg.matrix_functions import expm, logdet
from finegrad._src.ops.linalg.lu import (lu, lu_reconstruct, lu_solve,
                                         lu_matrix_inverse)
from finegrad._src.ops.linalg.eig import eig, eigvals
from finegrad._src.ops.linalg.diag_cross_rank import (normalize, cross, set_diag,
                                                      tensor_diag, tensor_diag_part, matrix_rank,
                                                      tridiagonal_matmul)
from finegrad._src.ops.linalg.linear_operator.base import (
    LinearOperator, LinearOperatorAdjoint, LinearOperatorComposition, LinearOperatorFullMatrix,
    LinearOperatorInversion, LinearOperatorLowerTriangular)
from finegrad._src.ops.linalg.linear_operator.diagonal import (
    LinearOperatorDiag, LinearOperatorIdentity, LinearOperatorScaledIdentity)
from finegrad._src.ops.linalg.linear_operator.structured import (
    LinearOperatorBlockDiag, LinearOperatorKronecker, LinearOperatorLowRankUpdate,
    LinearOperatorToeplitz)

__all__ = ["matmul", "matvec", "tensordot", "einsum", "norm", "transpose", "eye", "l2_normalize",
           "band_part", "diag", "diag_part", "trace", "inv", "det", "slogdet", "solve",
           "triangular_solve", "cholesky_solve", "adjoint", "matrix_transpose", "cholesky", "eigh",
           "eigvalsh", "lstsq", "pinv", "svd", "qr", "global_norm", "expm", "logdet", "lu",
           "lu_reconstruct", "lu_solve", "lu_matrix_inverse", "eig", "eigvals", "normalize",
           "cross", "set_diag", "tensor_diag", "tensor_diag_part", "matrix_rank",
           "tridiagonal_matmul",
           "LinearOperator", "LinearOperatorAdjoint", "LinearOperatorComposition",
           "LinearOperatorFullMatrix", "LinearOperatorInversion", "LinearOperatorLowerTriangular",
           "LinearOperatorDiag", "LinearOperatorIdentity", "LinearOperatorScaledIdentity",
           "LinearOperatorBlockDiag", "LinearOperatorKronecker", "LinearOperatorLowRankUpdate",
           "LinearOperatorToeplitz"]
