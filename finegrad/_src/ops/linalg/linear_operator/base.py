"""``tf.linalg.LinearOperator``: a matrix (or a batch of them) known by its structure.

An operator answers ``matmul``, ``solve``, ``determinant`` and the rest with the algorithm its
structure allows (a diagonal divides, a triangular operator substitutes, a Kronecker product
works factor by factor) and builds the dense matrix only when asked (``to_dense``) or when no
structure helps. Every method is made of finegrad ops, so all of it is differentiable, to any
order, eagerly and in traced functions.

A subclass defines ``_shape`` (a ``TensorShape``), ``_to_dense`` and ``_matmul``; the base class
derives the rest from the dense matrix, and subclasses override what their structure does
better. Hints (``is_self_adjoint``, ``is_non_singular``, ``is_positive_definite``, ``is_square``)
are True, False or None (unknown), as in TensorFlow; ``cholesky`` needs both the self-adjoint
and the positive-definite hint.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.ops.linalg import determinants, diag_inv_det, products, solvers
from finegrad._src.ops.linalg.cholesky_eigh import cholesky, eigvalsh
from finegrad._src.ops.linalg.svd_qr import svd
from finegrad._src.ops.array.structural import reduce_sum
from finegrad._src.ops.math import complex_numbers, elementwise
from finegrad._src.ops.math.reductions import reduce_prod
from finegrad._src.shapes import TensorShape


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.dtypes import DType
    from finegrad._src.tensor import Tensor


def forced_hint(value: bool | None, forced: bool | None, message: str) -> bool | None:
    """``forced`` where the structure decides a hint; a user's contrary hint is a ValueError."""
    if forced is None:
        return value
    if value is not None and bool(value) != forced:
        raise ValueError(message)
    return forced


class LinearOperator:
    """The base class of structured matrices; see the module docstring.

    >>> import finegrad as tf
    >>> op = tf.linalg.LinearOperatorDiag([1., 2.])
    >>> op.matvec([3., 4.]).numpy()
    array([3., 8.], dtype=float32)
    >>> op.log_abs_determinant().numpy()
    np.float32(0.6931472)
    """

    def __init__(self, dtype: Any, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str | None = None,
                 parameters: dict | None = None) -> None:
        if is_positive_definite and is_non_singular is False:
            raise ValueError("A positive definite matrix is always non-singular.")
        self._dtype = dtype
        self._is_non_singular = True if is_positive_definite else is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square = is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # -- what TensorFlow calls the operator's properties -------------------------------------
    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def parameters(self) -> dict:
        return dict(self._parameters)

    @property
    def is_non_singular(self) -> bool | None:
        return self._is_non_singular

    @property
    def is_self_adjoint(self) -> bool | None:
        return self._is_self_adjoint

    @property
    def is_positive_definite(self) -> bool | None:
        return self._is_positive_definite

    @property
    def is_square(self) -> bool | None:
        if self._is_square is not None:
            return self._is_square
        rows, cols = self.shape[-2], self.shape[-1]
        return None if rows is None or cols is None else rows == cols

    if TYPE_CHECKING:   # what every concrete operator defines
        def _shape(self) -> TensorShape: ...

        def _to_dense(self) -> Any: ...

    @property
    def shape(self) -> TensorShape:
        return self._shape()

    def shape_tensor(self) -> Any:
        return convert_to_tensor(list(self.shape.as_list()), dtype="int32")

    @property
    def batch_shape(self) -> TensorShape:
        return TensorShape(self.shape.as_list()[:-2])

    @property
    def tensor_rank(self) -> int:
        return self.shape.rank

    @property
    def domain_dimension(self) -> int | None:
        return self.shape[-1]

    @property
    def range_dimension(self) -> int | None:
        return self.shape[-2]

    # -- the operations ----------------------------------------------------------------------
    def to_dense(self, name: str = "to_dense") -> Tensor:
        """The dense matrix (``[..., M, N]``)."""
        return self._to_dense()

    def matmul(self, x: Any, adjoint: bool = False, adjoint_arg: bool = False,
               name: str = "matmul") -> Any:
        """``op @ x`` (``op^H @ x`` with ``adjoint``; ``x^H`` with ``adjoint_arg``); ``x`` may
        be a tensor or another LinearOperator (then a composition)."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return _compose(left, right)
        x = self._operand(x, adjoint, adjoint_arg, "matmul")
        return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x: Any, adjoint: bool = False, name: str = "matvec") -> Tensor:
        """``op @ x`` for a vector (or a batch of vectors) ``x``."""
        x = convert_to_tensor(x, dtype_hint=self.dtype)
        return self.matmul(x[..., None], adjoint=adjoint)[..., 0]

    def solve(self, rhs: Any, adjoint: bool = False, adjoint_arg: bool = False,
              name: str = "solve") -> Tensor:
        """``X`` with ``op @ X = rhs`` (``op^H @ X`` with ``adjoint``)."""
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to not be square.")
        rhs = self._operand(rhs, not adjoint, adjoint_arg, "solve")
        if adjoint_arg:
            rhs = solvers.matrix_transpose(rhs, conjugate=True)
        return self._solve(rhs, adjoint=adjoint)

    def solvevec(self, rhs: Any, adjoint: bool = False, name: str = "solve") -> Tensor:
        """``x`` with ``op @ x = rhs`` for a vector (or a batch of vectors) ``rhs``."""
        rhs = convert_to_tensor(rhs, dtype_hint=self.dtype)
        return self.solve(rhs[..., None], adjoint=adjoint)[..., 0]

    def determinant(self, name: str = "det") -> Tensor:
        """The determinant of each matrix of the batch."""
        self._require_square("determinant")
        return self._determinant()

    def log_abs_determinant(self, name: str = "log_abs_det") -> Tensor:
        """``log |det(op)|`` of each matrix of the batch."""
        self._require_square("log_abs_determinant")
        return self._log_abs_determinant()

    def diag_part(self, name: str = "diag_part") -> Tensor:
        return self._diag_part()

    def trace(self, name: str = "trace") -> Tensor:
        return reduce_sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x: Any, name: str = "add_to_tensor") -> Tensor:
        """``op + x`` as a dense tensor."""
        return self.to_dense() + convert_to_tensor(x, dtype_hint=self.dtype)

    def eigvals(self, name: str = "eigvals") -> Any:
        """The eigenvalues (real, ascending) of a self-adjoint operator."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        return eigvalsh(self.to_dense())

    def cond(self, name: str = "cond") -> Tensor:
        """The condition number: the ratio of the largest and smallest singular values."""
        s = svd(self.to_dense(), compute_uv=False)
        return elementwise.abs(s[..., 0] / s[..., -1])

    def adjoint(self, name: str = "adjoint") -> LinearOperator:
        """The conjugate transpose, as an operator (``op.H`` for short)."""
        if self.is_self_adjoint:
            return self
        return self._adjoint()

    H = property(adjoint)

    def inverse(self, name: str = "inverse") -> LinearOperator:
        """The inverse, as an operator (its ``matmul`` solves with this one)."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square "
                             "matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        return self._inverse()

    def cholesky(self, name: str = "cholesky") -> LinearOperator:
        """The lower-triangular Cholesky factor, as an operator."""
        if not (self.is_self_adjoint and self.is_positive_definite):
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite "
                             "self adjoint matrix.")
        return self._cholesky()

    # -- what subclasses inherit unless their structure does better --------------------------
    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return products.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint=False):
        return solvers.solve(self.to_dense(), rhs, adjoint=adjoint)

    def _determinant(self):
        return determinants.det(self.to_dense())

    def _log_abs_determinant(self):
        return determinants.slogdet(self.to_dense())[1]

    def _diag_part(self):
        return diag_inv_det.diag_part(self.to_dense())

    def _adjoint(self):
        return LinearOperatorAdjoint(self)

    def _inverse(self):
        return LinearOperatorInversion(self)

    def _cholesky(self):
        return LinearOperatorLowerTriangular(cholesky(self.to_dense()), is_non_singular=True)

    # -- checks ------------------------------------------------------------------------------
    def _require_square(self, method: str) -> None:
        if self.is_square is False:
            raise NotImplementedError(f"Determinant not implemented for an operator that is "
                                      f"expected to not be square ({self.name}.{method}).")

    def _operand(self, x, adjoint, adjoint_arg, method):
        """``x`` as a tensor of the operator's dtype whose rows match the operator's side."""
        x = convert_to_tensor(x, dtype_hint=self.dtype)
        if x.shape.rank is not None and x.shape.rank < 2:
            vec = "solvevec" if method == "solve" else "matvec"
            raise ValueError(f"{self.name}.{method}: the argument must be a matrix (or a batch "
                             f"of them), got shape {tuple(x.shape.as_list())}; use {vec} for "
                             f"vectors")
        want = self.shape[-1] if not adjoint else self.shape[-2]
        got = x.shape[-1] if adjoint_arg else x.shape[-2]
        if want is not None and got is not None and want != got:
            raise ValueError(f"Operators are incompatible. Expected `x` to have dimension "
                             f"{want} but got {got}.")
        return x


def _compose(left: LinearOperator, right: LinearOperator) -> LinearOperator:
    if left.shape[-1] is not None and right.shape[-2] is not None \
            and left.shape[-1] != right.shape[-2]:
        raise ValueError(f"Operators are incompatible. Expected `x` to have dimension "
                         f"{left.shape[-1]} but got {right.shape[-2]}.")
    return LinearOperatorComposition([left, right])


def _matrix(value: Any, dtype: Any, argument: str, cls: str):
    m = convert_to_tensor(value, dtype=dtype)
    if m.shape.rank is not None and m.shape.rank < 2:
        raise ValueError(f"{cls}: argument `{argument}` must have at least 2 dimensions, got "
                         f"shape {tuple(m.shape.as_list())}.")
    return m


class LinearOperatorFullMatrix(LinearOperator):
    """A dense matrix ``[..., M, N]`` as an operator (no structure to exploit).

    >>> import finegrad as tf
    >>> tf.linalg.LinearOperatorFullMatrix([[1., 2.], [3., 4.]]).solvevec([5., 6.]).numpy()
    array([-4. ,  4.5], dtype=float32)
    """

    def __init__(self, matrix: Any, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str = "LinearOperatorFullMatrix") -> None:
        self._matrix = _matrix(matrix, None, "matrix", name)
        super().__init__(self._matrix.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"matrix": matrix})

    def _shape(self):
        return self._matrix.shape

    def _to_dense(self):
        return self._matrix

    def _solve(self, rhs, adjoint=False):
        if self.is_self_adjoint and self.is_positive_definite:
            return solvers.cholesky_solve(cholesky(self._matrix), rhs)
        return solvers.solve(self._matrix, rhs, adjoint=adjoint)


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (its upper part is ignored) as an operator: solves by
    substitution, the determinant is the diagonal's product.

    >>> import finegrad as tf
    >>> op = tf.linalg.LinearOperatorLowerTriangular([[2., 9.], [1., 4.]])
    >>> op.to_dense().numpy()
    array([[2., 0.],
           [1., 4.]], dtype=float32)
    >>> op.determinant().numpy()
    np.float32(8.0)
    """

    def __init__(self, tril: Any, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None,
                 name: str = "LinearOperatorLowerTriangular") -> None:
        is_square = forced_hint(is_square, True,
                                "Only square lower triangular operators supported at this time.")
        self._tril = diag_inv_det.band_part(_matrix(tril, None, "tril", name), -1, 0)
        super().__init__(self._tril.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"tril": tril})

    def _shape(self):
        return self._tril.shape

    def _to_dense(self):
        return self._tril

    def _solve(self, rhs, adjoint=False):
        return solvers.triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def _diag_part(self):
        return diag_inv_det.diag_part(self._tril)

    def _determinant(self):
        return reduce_prod(self._diag_part(), axis=-1)

    def _log_abs_determinant(self):
        return reduce_sum(elementwise.log(elementwise.abs(self._diag_part())), axis=-1)


class LinearOperatorAdjoint(LinearOperator):
    """``A^H`` of an operator ``A``, answering through ``A``'s own methods."""

    def __init__(self, operator: LinearOperator, name: str | None = None) -> None:
        self.operator = operator
        sa = operator.is_self_adjoint
        super().__init__(operator.dtype, operator.is_non_singular, sa,
                         operator.is_positive_definite, operator.is_square,
                         name or operator.name + "_adjoint", {"operator": operator})

    def _shape(self):
        s = self.operator.shape.as_list()
        return TensorShape(s[:-2] + [s[-1], s[-2]])

    def _to_dense(self):
        return solvers.adjoint(self.operator.to_dense())

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False):
        return self.operator.solve(rhs, adjoint=not adjoint)

    def _determinant(self):
        return complex_numbers.conj_if_complex(self.operator.determinant())

    def _log_abs_determinant(self):
        return self.operator.log_abs_determinant()

    def _adjoint(self):
        return self.operator


class LinearOperatorInversion(LinearOperator):
    """``A^-1`` of an operator ``A``: its ``matmul`` is ``A``'s ``solve`` and back."""

    def __init__(self, operator: LinearOperator, name: str | None = None) -> None:
        self.operator = operator
        super().__init__(operator.dtype, operator.is_non_singular, operator.is_self_adjoint,
                         operator.is_positive_definite, operator.is_square,
                         name or operator.name + "_inv", {"operator": operator})

    def _shape(self):
        return self.operator.shape

    def _to_dense(self):
        return diag_inv_det.inv(self.operator.to_dense())

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        if adjoint_arg:
            x = solvers.adjoint(x)
        return self.operator.solve(x, adjoint=adjoint)

    def _solve(self, rhs, adjoint=False):
        return self.operator.matmul(rhs, adjoint=adjoint)

    def _determinant(self):
        return 1. / self.operator.determinant()

    def _log_abs_determinant(self):
        return -self.operator.log_abs_determinant()

    def _inverse(self):
        return self.operator


class LinearOperatorComposition(LinearOperator):
    """``A1 A2 ... An``: products apply the factors right to left, solves left to right.

    >>> import finegrad as tf
    >>> a = tf.linalg.LinearOperatorFullMatrix([[1., 2.], [3., 4.]])
    >>> b = tf.linalg.LinearOperatorDiag([1., 2.])
    >>> tf.linalg.LinearOperatorComposition([a, b]).to_dense().numpy()
    array([[1., 4.],
           [3., 8.]], dtype=float32)
    """

    def __init__(self, operators: list, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str | None = None) -> None:
        self.operators = list(operators)
        if not self.operators:
            raise ValueError("Expected a non-empty list of operators. Found: []")
        if is_non_singular is None and all(o.is_non_singular for o in self.operators):
            is_non_singular = True
        name = name or "_o_".join(o.name for o in self.operators)
        super().__init__(self.operators[0].dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"operators": operators})

    def _shape(self):
        first, last = self.operators[0].shape.as_list(), self.operators[-1].shape.as_list()
        return TensorShape(first[:-1] + [last[-1]])

    def _to_dense(self):
        out = self.operators[-1].to_dense()
        for op in reversed(self.operators[:-1]):
            out = op.matmul(out)
        return out

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        ops = self.operators if adjoint else self.operators[::-1]
        out = ops[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in ops[1:]:
            out = op.matmul(out, adjoint=adjoint)
        return out

    def _solve(self, rhs, adjoint=False):
        ops = self.operators[::-1] if adjoint else self.operators
        for op in ops:
            rhs = op.solve(rhs, adjoint=adjoint)
        return rhs

    def _determinant(self):
        out = self.operators[0].determinant()
        for op in self.operators[1:]:
            out = out * op.determinant()
        return out

    def _log_abs_determinant(self):
        return sum((op.log_abs_determinant() for op in self.operators[1:]),
                   self.operators[0].log_abs_determinant())
