"""Op-table rows for tf.linalg's solves and decompositions (imported by tests/op_specs.py).

Every row keeps its matrices well conditioned for any draw of its domain (the fuzz test
samples random points): solves get ``A + 3 I``, cholesky ``X X^T + 3 I``, and eigh/svd a
fixed diagonal with well separated entries plus a small multiple of the input, so that no
two eigenvalues (singular values) come close. Eigenvectors and singular vectors enter only
through their squares (``u * u``), which do not depend on their signs. Matrices carry a
batch axis (of size 1 or 2) that shape-polymorphic traces leave open.
"""
import numpy as np

import finegrad as fg

from op_table import (AWAY_FROM_ZERO, OpSpec, _add, _named)

from finegrad._src.ops.linalg.determinants import adjugate

_A = ((1, 3, 3), (2, 3, 3))


def _parts(z):
    return fg.concat([fg.math.real(z), fg.math.imag(z)], -1)
_AB = (((1, 3, 3), (1, 3, 2)), ((2, 3, 3), (2, 3, 1)))
_I3 = np.eye(3)


def _spread(m, n):
    """A diagonal matrix with singular values 2, 5, 8, ... (well apart and away from 0)."""
    k = min(m, n)
    out = np.zeros((m, n))
    out[range(k), range(k)] = np.arange(2.0, 2.0 + 3 * k, 3.0)
    return out


def _near(x):
    """Well separated eigen/singular values: a spread diagonal plus 0.1 x."""
    m, n = x.shape[-2:]
    return _spread(m, n) + 0.1 * x


def _spd(x):
    return fg.matmul(x, x, transpose_b=True) + 3 * _I3


def _eigh(x):
    e, v = fg.linalg.eigh(_near(x))
    return e, v * v


def _svd(x):
    s, u, v = fg.linalg.svd(_near(x))
    return s, u * u, v * v


def _qr(x):
    q, r = fg.linalg.qr(x + 3 * np.eye(*x.shape[-2:]))
    return q * q, r


def _lstsq(a, b, **kw):
    return fg.linalg.lstsq(a + 3 * np.eye(*a.shape[-2:]), b, **kw)


_add(
    OpSpec(_named("linalg.solve", lambda a, b: fg.linalg.solve(a + 3 * _I3, b)), nargs=2,
           shapes=_AB, prims=("matrix_solve",)),
    OpSpec(_named("linalg.solve(adjoint)",
                  lambda a, b: fg.linalg.solve(a + 3 * _I3, b, adjoint=True)), nargs=2,
           shapes=_AB, prims=("matrix_solve",)),
    OpSpec(_named("linalg.triangular_solve",
                  lambda a, b: fg.linalg.triangular_solve(a + 3 * _I3, b)), nargs=2,
           shapes=_AB + (((1, 3, 3), (2, 3, 2)),), prims=("triangular_solve",)),
    OpSpec(_named("linalg.triangular_solve(upper,adjoint)",
                  lambda a, b: fg.linalg.triangular_solve(a + 3 * _I3, b, lower=False,
                                                          adjoint=True)), nargs=2,
           shapes=_AB, prims=("triangular_solve",)),
    OpSpec(_named("linalg.cholesky", lambda x: fg.linalg.cholesky(_spd(x))), shapes=_A,
           prims=("cholesky",)),
    OpSpec(_named("linalg.cholesky_solve",
                  lambda a, b: fg.linalg.cholesky_solve(fg.linalg.cholesky(_spd(a)), b)),
           nargs=2, shapes=_AB, prims=("cholesky", "triangular_solve")),
    OpSpec(_named("linalg.eigh", _eigh), shapes=_A, prims=("eigh",)),
    OpSpec(_named("linalg.eigvalsh", lambda x: fg.linalg.eigvalsh(_near(x))), shapes=_A,
           prims=("eigh",)),
    OpSpec(_named("linalg.svd", _svd), shapes=_A + ((2, 4, 3), (2, 3, 4)), prims=("svd",)),
    OpSpec(_named("linalg.svd(compute_uv=False)",
                  lambda x: fg.linalg.svd(_near(x), compute_uv=False)),
           shapes=((2, 4, 3), (2, 3, 4)), prims=("svd",)),
    OpSpec(_named("linalg.qr", _qr), shapes=_A + ((2, 4, 3), (2, 3, 4)), prims=("qr",)),
    OpSpec(_named("linalg.lstsq", _lstsq), nargs=2,
           shapes=(((2, 4, 3), (2, 4, 2)), ((2, 3, 4), (2, 3, 1))),
           prims=("cholesky", "triangular_solve")),
    OpSpec(_named("linalg.lstsq(l2_regularizer)", lambda a, b: _lstsq(a, b, l2_regularizer=0.5)),
           nargs=2, shapes=(((2, 4, 3), (2, 4, 2)), ((2, 3, 4), (2, 3, 1))),
           prims=("cholesky", "triangular_solve")),
    OpSpec(_named("linalg.lstsq(fast=False)", lambda a, b: _lstsq(a, b, fast=False)), nargs=2,
           shapes=(((2, 4, 3), (2, 4, 2)), ((2, 3, 4), (2, 3, 1))), prims=("pinv",)),
    OpSpec(_named("linalg.pinv", lambda x: fg.linalg.pinv(_near(x))),
           shapes=_A + ((2, 4, 3), (2, 3, 4)), prims=("pinv",)),
    OpSpec(fg.linalg.adjoint, shapes=((2, 3, 4),), prims=("transpose",)),
    OpSpec(fg.linalg.matrix_transpose, shapes=((2, 3, 4),), prims=("transpose",)),
    OpSpec(fg.linalg.expm, shapes=_A + ((2, 2, 2),), prims=("expm",)),
    OpSpec(_named("linalg.logdet", lambda x: fg.linalg.logdet(
        fg.matmul(x, x, transpose_b=True) + 3 * np.eye(3))), shapes=_A,
           prims=("cholesky",)),
    OpSpec(_named("linalg.lu", lambda x: fg.linalg.lu(x)[0]), shapes=_A, prims=("lu",)),
    OpSpec(_named("linalg.lu_matrix_inverse", lambda x: fg.linalg.lu_matrix_inverse(
        *fg.linalg.lu(x))), shapes=_A, prims=("lu", "triangular_solve")),
    # complex outputs as their real and imaginary parts (the table's derivatives are real)
    OpSpec(_named("linalg.eigvals", lambda x: _parts(fg.linalg.eigvals(x))), shapes=_A,
           prims=("eig",)),
    OpSpec(_named("linalg.eig(|v|)", lambda x: fg.abs(fg.linalg.eig(x)[1])), shapes=_A,
           prims=("eig",)),
)


# ---- linear algebra --------------------------------------------------------------------------

_add(
    OpSpec(fg.matmul, nargs=2,
           shapes=(((2, 3), (3, 2)),
                   ((2, 2, 3), (3, 2)),         # batch on the left only
                   ((1, 2, 3), (2, 3, 2)),      # batch axes broadcast
                   ((2, 1, 2, 3), (3, 3, 1))),  # more batch axes, both broadcast
           ),
    OpSpec(fg.matmul, nargs=2, name="matmul(1-D operands)",
           shapes=(((3,), (3, 2)), ((2, 3), (3,)), ((3,), (3,)), ((3,), (2, 3, 2))),
           prims=("matmul", "reshape")),
    OpSpec(fg.matmul, nargs=2, kwargs=dict(transpose_a=True),
           shapes=(((3, 2), (3, 2)), ((2, 3, 2), (3, 2))), prims=("matmul", "transpose")),
    OpSpec(fg.matmul, nargs=2, kwargs=dict(transpose_b=True),
           shapes=(((2, 3), (2, 3)), ((2, 3), (2, 2, 3))), prims=("matmul", "transpose")),
    OpSpec(fg.matmul, nargs=2, kwargs=dict(transpose_a=True, transpose_b=True),
           shapes=(((3, 2), (2, 3)),), prims=("matmul", "transpose")),
    OpSpec(fg.matmul, nargs=2, kwargs=dict(adjoint_a=True, adjoint_b=True),
           shapes=(((3, 2), (2, 3)),), prims=("matmul", "transpose")),
    OpSpec(_named("x @ y", lambda x, y: x @ y), nargs=2, shapes=(((2, 3), (3, 2)),),
           prims=("matmul",)),
    OpSpec(fg.linalg.matvec, nargs=2,
           shapes=(((2, 3), (3,)), ((2, 2, 3), (2, 3)), ((2, 2, 3), (3,))),
           prims=("matmul",)),
    OpSpec(fg.linalg.matvec, nargs=2, kwargs=dict(transpose_a=True),
           shapes=(((3, 2), (3,)),), prims=("matmul", "transpose")),
    OpSpec(fg.tensordot, nargs=2, kwargs=dict(axes=1),
           shapes=(((2, 3), (3, 2)), ((2, 2, 3), (3,))), prims=("matmul",)),
    OpSpec(fg.tensordot, nargs=2, kwargs=dict(axes=[[0], [1]]),
           shapes=(((3, 2), (2, 3)),), prims=("matmul", "transpose")),
    OpSpec(fg.tensordot, nargs=2, kwargs=dict(axes=2),
           shapes=(((2, 3), (2, 3)),), prims=("matmul",)),
    OpSpec(fg.tensordot, nargs=2, kwargs=dict(axes=0),
           shapes=(((2,), (3,)),), prims=("matmul",)),
)

_EINSUMS = (
    ("ij,jk->ik", ((2, 3), (3, 2))),
    ("ij,jk", ((2, 3), (3, 2))),  # implicit output
    ("ij->ji", ((2, 3),)),
    ("ij->", ((2, 3),)),
    ("ij->j", ((2, 3),)),
    ("i,i->", ((3,), (3,))),
    ("i,j->ij", ((2,), (3,))),
    ("ij,ij->i", ((2, 3), (2, 3))),
    ("bij,bjk->bik", ((2, 2, 3), (2, 3, 2))),
    ("...ij,...jk->...ik", ((2, 2, 3), (2, 3, 2))),
    ("...ij,...jk->...ik", ((1, 2, 3), (2, 3, 2))),  # ellipsis axes broadcast
    ("...i,i->...", ((2, 3), (3,))),
    ("i...->...", ((2, 3),)),
    ("ij,jk,kl->il", ((2, 3), (3, 2), (2, 2))),
    ("ij,k->ijk", ((2, 2), (3,))),  # an axis only one operand has
    ("...ij,...jk,...k->...i", ((1, 2, 3), (2, 3, 2), (2,))),
)
for _eq, _shapes in _EINSUMS:
    _add(OpSpec(_named(f"einsum({_eq!r})", lambda *xs, _eq=_eq: fg.einsum(_eq, *xs)),
                nargs=len(_shapes), shapes=(_shapes if len(_shapes) == 1 else (_shapes,)),
                prims=("einsum",)))

_add(
    OpSpec(fg.norm, shapes=((3,), (2, 3)), prims=("multiply", "reduce_sum", "sqrt")),
    OpSpec(fg.norm, shapes=((2, 3),), kwargs=dict(axis=-1),
           prims=("multiply", "reduce_sum", "sqrt")),
    OpSpec(fg.norm, shapes=((2, 3),), kwargs=dict(ord="fro", axis=(0, 1), keepdims=True),
           prims=("multiply", "reduce_sum", "sqrt")),
    OpSpec(fg.norm, shapes=((3,), (2, 3)), kwargs=dict(ord=2, axis=0),
           prims=("multiply", "reduce_sum", "sqrt")),
    OpSpec(fg.norm, domain=AWAY_FROM_ZERO, shapes=((3,), (2, 3)), kwargs=dict(ord=1),
           prims=("abs", "reduce_sum")),
    OpSpec(fg.norm, domain=AWAY_FROM_ZERO, shapes=((3,), (2, 3)), kwargs=dict(ord=np.inf),
           prims=("abs", "reduce_max")),
    OpSpec(fg.norm, domain=AWAY_FROM_ZERO, shapes=((3,), (2, 3)),
           kwargs=dict(ord=3, axis=-1), prims=("abs", "pow_scalar", "reduce_sum")),
)

# ---- tf.linalg band_part/diag/diag_part/trace (masks); batch axis 0 stays open
_M, _MUL, _SUM = ((1, 3, 3), (2, 2, 3), (2, 3, 2), (2, 3, 3)), ("multiply",), ("reduce_sum",)
_add(OpSpec(fg.linalg.band_part, kwargs=dict(num_lower=1, num_upper=0), shapes=_M, prims=_MUL),
     OpSpec(fg.linalg.band_part, kwargs=dict(num_lower=-1, num_upper=1), shapes=_M, prims=_MUL),
     OpSpec(fg.linalg.diag_part, shapes=_M, prims=_MUL + _SUM),
     OpSpec(fg.linalg.trace, shapes=_M, prims=_MUL + _SUM),
     OpSpec(fg.linalg.diag, shapes=((1, 3), (2, 3)), prims=_MUL))
_SQ = ((1, 3, 3), (2, 3, 3))   # A + 3 I: well conditioned, det > 0
_add(*(OpSpec(_named(f"linalg.{n}", lambda x, f=f: f(x + 3 * np.eye(3))), shapes=_SQ, prims=p)
       for n, f, p in (("inv", fg.linalg.inv, ("inv",)), ("det", fg.linalg.det, ("det",)),
                       ("slogdet", lambda x: fg.linalg.slogdet(x)[1], ("log_abs_det",)))))


def _rank2(x):
    """A singular 3 x 3 matrix of rank 2 (for any draw): rows x0, 2 x0, x1 of x (..., 2, 3)."""
    return fg.stack([x[..., 0, :], 2 * x[..., 0, :], x[..., 1, :]], -2)


def _rank1(x):
    """A 3 x 3 matrix of rank 1: rows x0, 2 x0, -x0 of x (..., 1, 3)."""
    return fg.stack([x[..., 0, :], 2 * x[..., 0, :], -x[..., 0, :]], -2)


# det's gradient is the adjugate (ops/linalg/determinants.py), finite at singular matrices:
# the adjugate on and off them, and det through singular matrices (its value stays 0 there,
# the rules must give 0 too, where TensorFlow's det * inv raises)
_add(OpSpec(_named("adjugate", lambda x: adjugate(x + 3 * np.eye(3))), shapes=_SQ,
            prims=("adjugate",)),
     OpSpec(_named("adjugate(rank 2)", lambda x: adjugate(_rank2(x))),
            shapes=((2, 3), (2, 2, 3)), prims=("adjugate",)),
     OpSpec(_named("adjugate(rank 1)", lambda x: adjugate(_rank1(x))),
            shapes=((1, 3), (2, 1, 3)), prims=("adjugate",)),
     OpSpec(_named("linalg.det(rank 2)", lambda x: fg.linalg.det(_rank2(x))),
            shapes=((2, 3), (2, 2, 3)), prims=("det",)),
     OpSpec(_named("linalg.det(rank 2) + det", lambda x: fg.linalg.det(_rank2(x)) * 3
                   + fg.linalg.det(x[..., 0, :, None] * x[..., 1, None, :] + 3 * np.eye(3))),
            shapes=((2, 3), (2, 2, 3)), prims=("det",)))


# ---- ops/linalg/diag_cross_rank.py (the norms are away from 0, where the euclidean one has a kink)
_add(
    OpSpec(_named("linalg.normalize", lambda x: fg.linalg.normalize(x)[0]),
           domain=AWAY_FROM_ZERO, shapes=((3,), (2, 3)), prims=("divide", "sqrt")),
    OpSpec(_named("linalg.normalize(ord=1, axis=1) norm",
                  lambda x: fg.linalg.normalize(x, ord=1, axis=1)[1]),
           domain=AWAY_FROM_ZERO, shapes=((2, 3),), prims=("abs", "reduce_sum")),
    OpSpec(_named("linalg.normalize(axis=1) * norm",
                  lambda x: fg.multiply(*fg.linalg.normalize(x, axis=1))),
           domain=AWAY_FROM_ZERO, shapes=((2, 3),), prims=("divide", "sqrt")),
    OpSpec(fg.linalg.cross, nargs=2, shapes=(((3,), (3,)), ((2, 3), (2, 3))),
           prims=("multiply", "subtract")),
    # the masks follow the matrix sizes (a trace keeps them): only a batch axis is left open
    OpSpec(fg.linalg.set_diag, nargs=2, shapes=(((1, 3, 3), (1, 3)), ((1, 2, 3), (1, 2)),
                                                ((2, 3, 2), (2, 2))), prims=("select",)),
    OpSpec(_named("linalg.set_diag(k=1)", lambda x, d: fg.linalg.set_diag(x, d, k=1)), nargs=2,
           shapes=(((1, 3, 4), (1, 3)), ((2, 4, 3), (2, 2))), prims=("select", "concat")),
    OpSpec(_named("linalg.set_diag(k=-1)", lambda x, d: fg.linalg.set_diag(x, d, k=-1)),
           nargs=2, shapes=(((1, 3, 3), (1, 2)),), prims=("select", "concat")),
    OpSpec(fg.linalg.tridiagonal_matmul, nargs=2, shapes=(((1, 3, 4), (1, 4, 2)),
                                                           ((2, 3, 3), (2, 3, 1))),
           prims=("multiply", "concat")),
    OpSpec(_named("tridiagonal_matmul(M=1)",
                  lambda d, r: fg.linalg.tridiagonal_matmul(d, r)), nargs=2,
           shapes=(((3, 1), (1, 2)),), prims=("multiply",)),
    OpSpec(fg.linalg.tensor_diag, shapes=((3,), (2, 2)), prims=("multiply", "reshape")),
    OpSpec(fg.linalg.tensor_diag_part, shapes=((3, 3), (2, 2, 2, 2)),
           prims=("multiply", "reduce_sum")),
)


NONDIFF = ("det_sign",   # the sign of slogdet, which carries no gradient
           "lu_perm")   # the row permutation of linalg.lu
