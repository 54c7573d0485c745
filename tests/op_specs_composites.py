"""Op-table rows for public APIs composed of primitives: `tf.linalg.LinearOperator`'s
structured algorithms and `tf.raw_ops` (imported by tests/op_specs.py).

Their gradients are those of the primitives they run, but each composition is a place where a
wrong axis, transpose or conjugate would give a wrong derivative, so every one is checked here
at orders 1 and 2 in both modes like any primitive. Matrices are kept well conditioned the way
tests/op_specs_linalg.py does it (``A + 3 I``; a lower triangle with ``3`` added on its
diagonal; diagonals drawn away from zero).
"""
import numpy as np

import finegrad as fg

from op_table import AWAY_FROM_ZERO, POSITIVE, OpSpec, _add, _named

LO = fg.linalg.LinearOperatorFullMatrix
_I3 = np.eye(3)
_AB = (((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)))


def _tril(a):
    return fg.linalg.band_part(a, -1, 0) + 3 * _I3


_add(
    OpSpec(_named("LinearOperatorFullMatrix.solve",
                  lambda a, b: LO(a + 3 * _I3).solve(b)), nargs=2, shapes=_AB,
           prims=("matrix_solve",)),
    OpSpec(_named("LinearOperatorLowerTriangular.solve(adjoint)",
                  lambda a, b: fg.linalg.LinearOperatorLowerTriangular(_tril(a)).solve(
                      b, adjoint=True)), nargs=2, shapes=_AB, prims=("triangular_solve",)),
    OpSpec(_named("LinearOperatorLowerTriangular.log_abs_determinant",
                  lambda a: fg.linalg.LinearOperatorLowerTriangular(
                      _tril(a)).log_abs_determinant()), shapes=((3, 3), (2, 3, 3)),
           prims=("log",)),
    OpSpec(_named("LinearOperatorDiag.solvevec",
                  lambda d, x: fg.linalg.LinearOperatorDiag(d).solvevec(x)), nargs=2,
           domains=(AWAY_FROM_ZERO, (-2., 2.)), shapes=(((3,), (3,)), ((2, 3), (2, 3))),
           prims=("divide",)),
    OpSpec(_named("LinearOperatorLowRankUpdate.solve",
                  lambda d, u, b: fg.linalg.LinearOperatorLowRankUpdate(
                      fg.linalg.LinearOperatorDiag(d), u).solve(b)), nargs=3,
           domains=(POSITIVE, (-.5, .5), (-2., 2.)), shapes=(((3,), (3, 2), (3, 2)),),
           prims=("matrix_solve",)),
    OpSpec(_named("LinearOperatorLowRankUpdate.log_abs_determinant",
                  lambda d, u: fg.linalg.LinearOperatorLowRankUpdate(
                      fg.linalg.LinearOperatorDiag(d), u).log_abs_determinant()), nargs=2,
           domains=(POSITIVE, (-.5, .5)), shapes=(((3,), (3, 2)),), prims=("log",)),
    OpSpec(_named("LinearOperatorKronecker.matmul",
                  lambda a, b, x: fg.linalg.LinearOperatorKronecker(
                      [LO(a), LO(b)]).matmul(x)), nargs=3,
           shapes=(((2, 2), (3, 3), (6, 2)),), prims=("matmul",)),
    OpSpec(_named("LinearOperatorComposition.matmul(adjoint)",
                  lambda a, b, x: fg.linalg.LinearOperatorComposition(
                      [LO(a), LO(b)]).matmul(x, adjoint=True)), nargs=3,
           shapes=(((3, 3), (3, 3), (3, 2)),), prims=("matmul",)),
)


# ---- tf.raw_ops: keyword-only names over the same primitives ---------------------------------

R = fg.raw_ops

_add(
    OpSpec(_named("raw_ops.MatMul(transpose_b)",
                  lambda a, b: R.MatMul(a=a, b=b, transpose_b=True)), nargs=2,
           shapes=(((2, 3), (4, 3)),), prims=("matmul",)),
    OpSpec(_named("raw_ops.BatchMatMulV2(adj_x)",
                  lambda x, y: R.BatchMatMulV2(x=x, y=y, adj_x=True)), nargs=2,
           shapes=(((2, 3, 2), (1, 3, 4)),), prims=("matmul",)),
    OpSpec(_named("raw_ops.Einsum", lambda a, b: R.Einsum(inputs=[a, b], equation="ij,jk->ik")),
           nargs=2, shapes=(((2, 3), (3, 4)),), prims=("einsum",)),
    OpSpec(_named("raw_ops.Softplus", lambda x: R.Softplus(features=x)), prims=("softplus",)),
    OpSpec(_named("raw_ops.Tanh", lambda x: R.Tanh(x=x)), prims=("tanh",)),
    OpSpec(_named("raw_ops.Sigmoid", lambda x: R.Sigmoid(x=x)), prims=("sigmoid",)),
    OpSpec(_named("raw_ops.Sum(axis=1,keep_dims)",
                  lambda x: R.Sum(input=x, axis=1, keep_dims=True)),
           shapes=((2, 3), (2, 3, 4)), prims=("reduce_sum",)),
    OpSpec(_named("raw_ops.BiasAdd", lambda x, b: R.BiasAdd(value=x, bias=b)), nargs=2,
           shapes=(((2, 3), (3,)), ((2, 4, 3), (3,))), prims=("add",)),
    OpSpec(_named("raw_ops.LogSoftmax", lambda x: R.LogSoftmax(logits=x)),
           shapes=((2, 3),), prims=("log_softmax",)),
    OpSpec(_named("raw_ops.Conv2D(SAME)",
                  lambda x, w: R.Conv2D(input=x, filter=w, strides=[1, 1, 1, 1],
                                        padding="SAME")), nargs=2,
           shapes=(((2, 4, 4, 2), (1, 3, 2, 3)),), prims=("conv2d",)),
    OpSpec(_named("raw_ops.Sqrt", lambda x: R.Sqrt(x=x)), domain=POSITIVE, prims=("sqrt",)),
)
