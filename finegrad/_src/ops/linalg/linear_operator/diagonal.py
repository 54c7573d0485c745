"""Diagonal operators: ``LinearOperatorDiag``, ``LinearOperatorIdentity`` and
``LinearOperatorScaledIdentity``. Products scale rows, solves divide, determinants multiply
the diagonal: O(N) per matrix instead of the dense O(N^3)."""
from __future__ import annotations

from typing import Any

from finegrad._src import dtypes
from finegrad._src.ops.array.constants import eye, ones, zeros
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reduce_sum
from finegrad._src.ops.linalg import diag_inv_det, solvers
from finegrad._src.ops.linalg.linear_operator.base import LinearOperator, forced_hint
from finegrad._src.ops.math import complex_numbers, elementwise
from finegrad._src.ops.math.reductions import reduce_prod
from finegrad._src.shapes import TensorShape


def _is_complex(dtype) -> bool:
    return dtypes.as_dtype(dtype).is_complex


class LinearOperatorDiag(LinearOperator):
    """The square matrix with ``diag`` (``[..., N]``) on its diagonal.

    >>> import finegrad as tf
    >>> op = tf.linalg.LinearOperatorDiag([1., 2.])
    >>> op.solvevec([3., 4.]).numpy()
    array([3., 2.], dtype=float32)
    >>> op.is_self_adjoint
    True
    """

    def __init__(self, diag: Any, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = True, name: str = "LinearOperatorDiag") -> None:
        self._diag = convert_to_tensor(diag)
        if self._diag.shape.rank is not None and self._diag.shape.rank < 1:
            raise ValueError(f"{name}: argument `diag` must have at least 1 dimension, got "
                             f"shape {tuple(self._diag.shape.as_list())}.")
        if not _is_complex(self._diag.dtype):
            is_self_adjoint = forced_hint(is_self_adjoint, True,
                                    "A real diagonal operator is always self adjoint.")
        is_square = forced_hint(is_square, True,
                                "Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"diag": diag})

    @property
    def diag(self) -> Any:
        return self._diag

    def _shape(self):
        d = self._diag.shape.as_list()
        return TensorShape(d + d[-1:])

    def _to_dense(self):
        return diag_inv_det.diag(self._diag)

    def _scale(self, x, adjoint, adjoint_arg, invert):
        if adjoint_arg:
            x = solvers.adjoint(x)
        d = complex_numbers.conj_if_complex(self._diag) if adjoint else self._diag
        return x / d[..., :, None] if invert else d[..., :, None] * x

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._scale(x, adjoint, adjoint_arg, invert=False)

    def _solve(self, rhs, adjoint=False):
        return self._scale(rhs, adjoint, False, invert=True)

    def _determinant(self):
        return reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        return reduce_sum(elementwise.log(elementwise.abs(self._diag)), axis=-1)

    def _diag_part(self):
        return self._diag

    def _adjoint(self):
        return LinearOperatorDiag(complex_numbers.conj_if_complex(self._diag),
                                  self.is_non_singular, self.is_self_adjoint,
                                  self.is_positive_definite)

    def _inverse(self):
        return LinearOperatorDiag(1. / self._diag, self.is_non_singular, self.is_self_adjoint,
                                  self.is_positive_definite)

    def _cholesky(self):
        return LinearOperatorDiag(elementwise.sqrt(self._diag), True, True, True)


class LinearOperatorScaledIdentity(LinearOperator):
    """``multiplier * I`` (``multiplier`` a scalar or a batch of them; ``num_rows`` rows).

    >>> import finegrad as tf
    >>> tf.linalg.LinearOperatorScaledIdentity(2, 3.).determinant().numpy()
    np.float32(9.0)
    """

    def __init__(self, num_rows: int, multiplier: Any, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = True, assert_proper_shapes: bool = False,
                 name: str = "LinearOperatorScaledIdentity") -> None:
        self._num_rows = _num_rows(num_rows, name)
        self._multiplier = convert_to_tensor(multiplier)
        if not _is_complex(self._multiplier.dtype):
            is_self_adjoint = forced_hint(is_self_adjoint, True,
                                    "A real scaled identity operator is always self adjoint.")
        is_square = forced_hint(is_square, True, "A ScaledIdentity operator is always square.")
        super().__init__(self._multiplier.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name,
                         {"num_rows": num_rows, "multiplier": multiplier})

    @property
    def multiplier(self) -> Any:
        return self._multiplier

    def _shape(self):
        return TensorShape(self._multiplier.shape.as_list() + [self._num_rows] * 2)

    def _to_dense(self):
        return self._multiplier[..., None, None] * eye(self._num_rows, dtype=self.dtype)

    def _factor(self, adjoint):
        m = complex_numbers.conj_if_complex(self._multiplier) if adjoint else self._multiplier
        return m[..., None, None]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = solvers.adjoint(x) if adjoint_arg else x
        return self._factor(adjoint) * x

    def _solve(self, rhs, adjoint=False):
        return rhs / self._factor(adjoint)

    def _determinant(self):
        return self._multiplier ** self._num_rows

    def _log_abs_determinant(self):
        return self._num_rows * elementwise.log(elementwise.abs(self._multiplier))

    def _diag_part(self):
        return self._multiplier[..., None] * ones([self._num_rows], self.dtype)

    def _inverse(self):
        return LinearOperatorScaledIdentity(self._num_rows, 1. / self._multiplier,
                                            self.is_non_singular, self.is_self_adjoint,
                                            self.is_positive_definite)

    def _cholesky(self):
        return LinearOperatorScaledIdentity(self._num_rows, elementwise.sqrt(self._multiplier),
                                            True, True, True)


class LinearOperatorIdentity(LinearOperator):
    """The identity matrix (``num_rows`` rows, an optional ``batch_shape``).

    >>> import finegrad as tf
    >>> tf.linalg.LinearOperatorIdentity(2).matvec([3., 4.]).numpy()
    array([3., 4.], dtype=float32)
    """

    def __init__(self, num_rows: int, batch_shape: Any = None, dtype: Any = None,
                 is_non_singular: bool = True, is_self_adjoint: bool = True,
                 is_positive_definite: bool = True, is_square: bool = True,
                 assert_proper_shapes: bool = False, name: str = "LinearOperatorIdentity") -> None:
        for value, what in ((is_non_singular, "non singular"), (is_self_adjoint, "self adjoint"),
                            (is_positive_definite, "positive definite"), (is_square, "square")):
            forced_hint(value, True, f"An identity operator is always {what}.")
        self._num_rows = _num_rows(num_rows, name)
        self._batch = [] if batch_shape is None else [int(b) for b in batch_shape]
        super().__init__(dtypes.as_dtype(dtype or dtypes.float32), True, True, True, True, name,
                         {"num_rows": num_rows, "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self):
        return TensorShape(self._batch + [self._num_rows] * 2)

    def _to_dense(self):
        return eye(self._num_rows, batch_shape=self._batch or None, dtype=self.dtype)

    def _broadcast(self, x):
        x = cast(x, self.dtype)
        return x * ones(self._batch + [1, 1], self.dtype) if self._batch else x

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._broadcast(solvers.adjoint(x) if adjoint_arg else x)

    def _solve(self, rhs, adjoint=False):
        return self._broadcast(rhs)

    def _determinant(self):
        return ones(self._batch, self.dtype)

    def _log_abs_determinant(self):
        return zeros(self._batch, self.dtype)

    def _diag_part(self):
        return ones(self._batch + [self._num_rows], self.dtype)

    def _adjoint(self):
        return self

    def _inverse(self):
        return self

    def _cholesky(self):
        return self


def _num_rows(num_rows: Any, name: str) -> int:
    n = int(num_rows)
    if n < 0:
        raise ValueError(f"{name}: argument `num_rows` must be non-negative, got {num_rows}.")
    return n
