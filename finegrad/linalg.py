"""TensorFlow's ``tf.linalg`` namespace."""
from finegrad._src.ops.linalg.products import matmul, matvec, tensordot, einsum, norm  # noqa: F401
from finegrad._src.ops.array.structural import transpose  # noqa: F401
from finegrad._src.ops.array.constants import eye  # noqa: F401
from finegrad._src.statistics import l2_normalize  # noqa: F401
from finegrad._src.ops.linalg.diag_inv_det import (band_part, diag, diag_part, trace,  # noqa: F401
                                                   inv, det, slogdet)
from finegrad._src.ops.linalg.solvers import (solve, triangular_solve,  # noqa: F401
                                              cholesky_solve, adjoint, matrix_transpose)
from finegrad._src.ops.linalg.cholesky_eigh import cholesky, eigh, eigvalsh  # noqa: F401
from finegrad._src.ops.linalg.least_squares import lstsq, pinv  # noqa: F401
from finegrad._src.ops.linalg.svd_qr import svd, qr  # noqa: F401
from finegrad._src.ops.nn.clipping import global_norm  # noqa: F401
from finegrad._src.ops.linalg.matrix_functions import expm, logdet  # noqa: F401
from finegrad._src.ops.linalg.lu import (lu, lu_reconstruct, lu_solve,  # noqa: F401
                                         lu_matrix_inverse)
from finegrad._src.ops.linalg.eig import eig, eigvals  # noqa: F401
from finegrad._src.ops.linalg.diag_cross_rank import (normalize, cross, set_diag,  # noqa: F401
                                                      tensor_diag, tensor_diag_part, matrix_rank,
                                                      tridiagonal_matmul)
from finegrad._src.ops.linalg.linear_operator.base import (  # noqa: F401
    LinearOperator, LinearOperatorAdjoint, LinearOperatorComposition, LinearOperatorFullMatrix,
    LinearOperatorInversion, LinearOperatorLowerTriangular)
from finegrad._src.ops.linalg.linear_operator.diagonal import (  # noqa: F401
    LinearOperatorDiag, LinearOperatorIdentity, LinearOperatorScaledIdentity)
from finegrad._src.ops.linalg.linear_operator.structured import (  # noqa: F401
    LinearOperatorBlockDiag, LinearOperatorKronecker, LinearOperatorLowRankUpdate,
    LinearOperatorToeplitz)
