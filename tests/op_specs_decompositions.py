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

from op_table import OpSpec, _add, _named

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
