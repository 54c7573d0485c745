"""TensorFlow's ``tf.linalg`` namespace."""
from finegrad._src.ops.linalg import matmul, matvec, tensordot, einsum, norm  # noqa: F401
from finegrad._src.ops.array import transpose  # noqa: F401
from finegrad._src.ops.constants import eye  # noqa: F401
from finegrad._src.statistics import l2_normalize  # noqa: F401
from finegrad._src.ops.linalg_extra import band_part, diag, diag_part, trace, inv, det, slogdet  # noqa: F401
from finegrad._src.ops.solvers import (solve, triangular_solve, cholesky_solve, adjoint,  # noqa: F401
                                       matrix_transpose)
from finegrad._src.ops.decompositions import cholesky, eigh, eigvalsh  # noqa: F401
from finegrad._src.ops.least_squares import lstsq, pinv  # noqa: F401
from finegrad._src.ops.svd_qr import svd, qr  # noqa: F401
from finegrad._src.ops.tf_extras import global_norm  # noqa: F401
from finegrad._src.ops.matrix_functions import expm, logdet  # noqa: F401
from finegrad._src.ops.lu import lu, lu_reconstruct, lu_solve, lu_matrix_inverse  # noqa: F401
from finegrad._src.ops.eig import eig, eigvals  # noqa: F401
from finegrad._src.ops.linalg_more import (normalize, cross, set_diag, tensor_diag,  # noqa: F401
                                          tensor_diag_part, matrix_rank,
                                          tridiagonal_matmul)
