"""Operators made of other operators or of a few vectors: ``LinearOperatorLowRankUpdate``
(Woodbury's identity and the matrix determinant lemma), ``LinearOperatorBlockDiag`` and
``LinearOperatorKronecker`` (factor by factor), ``LinearOperatorToeplitz`` (dense methods, from
its first column and row)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from finegrad._src.ops.array.constants import eye, zeros
from finegrad._src.ops.array.gather import take
from finegrad._src.ops.array.manipulation import reverse
from finegrad._src.ops.array.structural import (concat, convert_to_tensor, reshape, split,
                                                 transpose)
from finegrad._src.ops.linalg import determinants, diag_inv_det, products, solvers
from finegrad._src.ops.linalg.linear_operator.base import LinearOperator, forced_hint
from finegrad._src.ops.linalg.linear_operator.diagonal import LinearOperatorDiag
from finegrad._src.ops.math import complex_numbers
from finegrad._src.shapes import TensorShape


def _conj_t(m):
    return solvers.adjoint(m)


class LinearOperatorLowRankUpdate(LinearOperator):
    """``L + U diag(d) V^H``: a base operator ``L`` plus a rank-``K`` update (``V = U`` when
    ``v`` is not given). Solves use Woodbury's identity and determinants the matrix
    determinant lemma, so only ``K x K`` systems are solved beside ``L``'s own.

    >>> import finegrad as tf
    >>> op = tf.linalg.LinearOperatorLowRankUpdate(
    ...     tf.linalg.LinearOperatorDiag([1., 2., 3.]), u=[[1.], [2.], [3.]], diag_update=[2.])
    >>> op.determinant().numpy()
    np.float32(78.0)
    """

    def __init__(self, base_operator: LinearOperator, u: Any, diag_update: Any = None,
                 v: Any = None, is_diag_update_positive: bool | None = None,
                 is_non_singular: bool | None = None, is_self_adjoint: bool | None = None,
                 is_positive_definite: bool | None = None, is_square: bool | None = None,
                 name: str = "LinearOperatorLowRankUpdate") -> None:
        self.base_operator = base_operator
        self.u = convert_to_tensor(u, dtype=base_operator.dtype)
        self.v = self.u if v is None else convert_to_tensor(v, dtype=base_operator.dtype)
        self.diag_update = None if diag_update is None else convert_to_tensor(
            diag_update, dtype=base_operator.dtype)
        self.is_diag_update_positive = is_diag_update_positive
        if v is None and base_operator.is_self_adjoint and is_self_adjoint is None and (
                self.diag_update is None or not self.diag_update.dtype.is_complex):
            is_self_adjoint = True
        super().__init__(base_operator.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name,
                         {"base_operator": base_operator, "u": u, "diag_update": diag_update,
                          "v": v})

    def _shape(self):
        return self.base_operator.shape

    def _scaled(self, x, adjoint):
        if self.diag_update is None:
            return x
        d = complex_numbers.conj_if_complex(self.diag_update) if adjoint else self.diag_update
        return d[..., :, None] * x

    def _to_dense(self):
        return self.base_operator.to_dense() + products.matmul(
            self.u, self._scaled(_conj_t(self.v), False))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _conj_t(x) if adjoint_arg else x
        left, right = (self.v, self.u) if adjoint else (self.u, self.v)
        low_rank = products.matmul(left, self._scaled(products.matmul(right, x, adjoint_a=True),
                                                      adjoint))
        return self.base_operator.matmul(x, adjoint=adjoint) + low_rank

    def _capacitance(self, adjoint):
        """``D^-1 + V^H L^-1 U`` (the ``K x K`` matrix of Woodbury and the lemma)."""
        left, right = (self.v, self.u) if adjoint else (self.u, self.v)
        inner = products.matmul(right, self.base_operator.solve(left, adjoint=adjoint),
                                adjoint_a=True)
        if self.diag_update is None:
            return inner + eye(self.u.shape[-1], dtype=self.dtype)
        d = complex_numbers.conj_if_complex(self.diag_update) if adjoint else self.diag_update
        return inner + diag_inv_det.diag(1. / d)

    def _solve(self, rhs, adjoint=False):
        left, right = (self.v, self.u) if adjoint else (self.u, self.v)
        base = self.base_operator
        l_rhs = base.solve(rhs, adjoint=adjoint)
        small = solvers.solve(self._capacitance(adjoint),
                              products.matmul(right, l_rhs, adjoint_a=True))
        return l_rhs - base.solve(products.matmul(left, small), adjoint=adjoint)

    def _log_abs_determinant(self):
        _, cap = determinants.slogdet(self._capacitance(False))
        out = self.base_operator.log_abs_determinant() + cap
        if self.diag_update is not None:
            out = out + LinearOperatorDiag(self.diag_update).log_abs_determinant()
        return out

    def _determinant(self):
        out = self.base_operator.determinant() * determinants.det(self._capacitance(False))
        if self.diag_update is not None:
            out = out * LinearOperatorDiag(self.diag_update).determinant()
        return out


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal matrix of square ``operators``: each block acts on its own rows.

    >>> import finegrad as tf
    >>> op = tf.linalg.LinearOperatorBlockDiag([tf.linalg.LinearOperatorDiag([2.]),
    ...                                         tf.linalg.LinearOperatorIdentity(2)])
    >>> op.matvec([1., 1., 1.]).numpy()
    array([2., 1., 1.], dtype=float32)
    """

    def __init__(self, operators: list, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = True, name: str | None = None) -> None:
        self.operators = list(operators)
        if not self.operators:
            raise ValueError("Expected a non-empty list of operators. Found: []")
        is_non_singular = _all_hint(self.operators, "is_non_singular", is_non_singular)
        is_self_adjoint = _all_hint(self.operators, "is_self_adjoint", is_self_adjoint)
        is_positive_definite = _all_hint(self.operators, "is_positive_definite",
                                         is_positive_definite)
        name = name or "_ds_".join(o.name for o in self.operators)
        super().__init__(self.operators[0].dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"operators": operators})

    def _shape(self):
        shapes = [o.shape.as_list() for o in self.operators]
        return TensorShape(shapes[0][:-2] + [sum(s[-2] for s in shapes),
                                             sum(s[-1] for s in shapes)])

    def _to_dense(self):
        rows = []
        cols = [o.shape[-1] for o in self.operators]
        for i, op in enumerate(self.operators):
            dense = op.to_dense()
            rows.append(concat([_zeros_beside(dense, c) for c in cols[:i]] + [dense]
                               + [_zeros_beside(dense, c) for c in cols[i + 1:]], axis=-1))
        return concat(rows, axis=-2)

    def _blockwise(self, x, sizes, apply):
        parts = split(x, sizes, axis=-2)
        return concat([apply(op, p) for op, p in zip(self.operators, parts, strict=True)],
                      axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _conj_t(x) if adjoint_arg else x
        sizes = [o.shape[-2] if adjoint else o.shape[-1] for o in self.operators]
        return self._blockwise(x, sizes, lambda op, p: op.matmul(p, adjoint=adjoint))

    def _solve(self, rhs, adjoint=False):
        sizes = [o.shape[-1] if adjoint else o.shape[-2] for o in self.operators]
        return self._blockwise(rhs, sizes, lambda op, p: op.solve(p, adjoint=adjoint))

    def _determinant(self):
        out = self.operators[0].determinant()
        for op in self.operators[1:]:
            out = out * op.determinant()
        return out

    def _log_abs_determinant(self):
        return sum((op.log_abs_determinant() for op in self.operators[1:]),
                   self.operators[0].log_abs_determinant())

    def _diag_part(self):
        return concat([op.diag_part() for op in self.operators], axis=-1)


def _zeros_beside(dense, cols):
    return zeros(dense.shape.as_list()[:-1] + [cols], dense.dtype)


def _all_hint(operators, hint, given):
    """``given``, or True when every operator has the hint (a block structure keeps it)."""
    if given is not None:
        return given
    return True if all(getattr(o, hint) for o in operators) else None


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product ``A1 ⊗ A2 ⊗ ...`` of ``operators``; products, solves and
    determinants work factor by factor, never on the ``N x N`` matrix.

    >>> import finegrad as tf
    >>> op = tf.linalg.LinearOperatorKronecker([tf.linalg.LinearOperatorDiag([1., 2.]),
    ...                                         tf.linalg.LinearOperatorDiag([3., 4.])])
    >>> op.diag_part().numpy()
    array([3., 4., 6., 8.], dtype=float32)
    """

    def __init__(self, operators: list, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str | None = None) -> None:
        self.operators = list(operators)
        if len(self.operators) < 2:
            raise ValueError(f"Expected a list of >=2 operators. Found: {self.operators}")
        is_non_singular = _all_hint(self.operators, "is_non_singular", is_non_singular)
        is_self_adjoint = _all_hint(self.operators, "is_self_adjoint", is_self_adjoint)
        name = name or "_x_".join(o.name for o in self.operators)
        super().__init__(self.operators[0].dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"operators": operators})

    def _shape(self):
        shapes = [o.shape.as_list() for o in self.operators]
        return TensorShape(shapes[0][:-2] + [math.prod(s[-2] for s in shapes),
                                             math.prod(s[-1] for s in shapes)])

    def _to_dense(self):
        out = self.operators[0].to_dense()
        for op in self.operators[1:]:
            b = op.to_dense()
            (m, n), (p, q) = out.shape.as_list()[-2:], b.shape.as_list()[-2:]
            prod = out[..., :, None, :, None] * b[..., None, :, None, :]
            out = reshape(prod, out.shape.as_list()[:-2] + [m * p, n * q])
        return out

    def _factorwise(self, x, apply, sizes_in, sizes_out):
        """``apply(op_i, .)`` to axis i of ``x`` seen as ``[..., n_1, ..., n_k, K]``."""
        batch, cols = x.shape.as_list()[:-2], x.shape[-1]
        nb = len(batch)
        dims = list(sizes_in)
        for i, op in enumerate(self.operators):
            y = reshape(x, batch + dims + [cols])
            perm = list(range(nb)) + [nb + i] + [nb + j for j in range(len(dims)) if j != i] \
                + [nb + len(dims)]
            y = reshape(transpose(y, perm), batch + [dims[i], -1])
            y = apply(op, y)
            dims[i] = sizes_out[i]
            moved = [dims[i]] + [d for j, d in enumerate(dims) if j != i] + [cols]
            y = reshape(y, batch + moved)
            back = list(range(nb)) + [nb + 1 + j for j in range(i)] + [nb] \
                + [nb + 1 + j for j in range(i, len(dims) - 1)] + [nb + len(dims)]
            x = transpose(y, back)
        return reshape(x, batch + [math.prod(dims), cols])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _conj_t(x) if adjoint_arg else x
        rows = [o.shape[-2] for o in self.operators]
        cols = [o.shape[-1] for o in self.operators]
        sizes_in, sizes_out = (rows, cols) if adjoint else (cols, rows)
        return self._factorwise(x, lambda op, y: op.matmul(y, adjoint=adjoint),
                                sizes_in, sizes_out)

    def _solve(self, rhs, adjoint=False):
        sizes = [o.shape[-1] for o in self.operators]
        return self._factorwise(rhs, lambda op, y: op.solve(y, adjoint=adjoint), sizes, sizes)

    def _log_abs_determinant(self):
        n = self.shape[-1]
        return sum((op.log_abs_determinant() * (n // op.shape[-1])
                    for op in self.operators[1:]),
                   self.operators[0].log_abs_determinant() * (n // self.operators[0].shape[-1]))

    def _determinant(self):
        n = self.shape[-1]
        out = self.operators[0].determinant() ** (n // self.operators[0].shape[-1])
        for op in self.operators[1:]:
            out = out * op.determinant() ** (n // op.shape[-1])
        return out

    def _diag_part(self):
        out = self.operators[0].diag_part()
        for op in self.operators[1:]:
            d = op.diag_part()
            out = reshape(out[..., :, None] * d[..., None, :],
                          out.shape.as_list()[:-1] + [out.shape[-1] * d.shape[-1]])
        return out


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column ``col`` and first row ``row`` (``row[0]`` is
    ignored: the diagonal is ``col[0]``), as TensorFlow's.

    >>> import finegrad as tf
    >>> tf.linalg.LinearOperatorToeplitz(col=[1., 2.], row=[1., 3.]).to_dense().numpy()
    array([[1., 3.],
           [2., 1.]], dtype=float32)
    """

    def __init__(self, col: Any, row: Any, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str = "LinearOperatorToeplitz") -> None:
        self.col = convert_to_tensor(col)
        self.row = convert_to_tensor(row, dtype=self.col.dtype)
        is_square = forced_hint(is_square, True, "A Toeplitz operator is always square.")
        super().__init__(self.col.dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name, {"col": col, "row": row})

    def _shape(self):
        c = self.col.shape.as_list()
        return TensorShape(c + c[-1:])

    def _to_dense(self):
        n = self.col.shape[-1]
        values = concat([reverse(self.row[..., 1:], [-1]), self.col], axis=-1)
        i, j = np.indices((n, n))
        return take(values, (i - j + n - 1).astype(np.int32), axis=-1,
                      batch_dims=0)

    def _adjoint(self):
        return LinearOperatorToeplitz(complex_numbers.conj_if_complex(self.row),
                                      complex_numbers.conj_if_complex(self.col))


