"""tf.linalg.LinearOperator and its subclasses: dense matrices, hints and messages recorded
from TensorFlow 2.21; every method against NumPy on the dense matrix; gradients (first and
second order, both modes) through the structured algorithms against finite differences."""
import numpy as np
import pytest

import finegrad as tf
from finegrad.testing import check_gradients

L = tf.linalg
rng = np.random.default_rng(0)


def _spd(n):
    a = rng.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def _operators():
    """(operator, its dense matrix in NumPy), float64, square and non-singular."""
    full = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    tril = np.tril(rng.normal(size=(3, 3))) + 3 * np.eye(3)
    d = rng.uniform(1, 2, size=3)
    u, du = rng.normal(size=(3, 2)), rng.uniform(1, 2, size=2)
    a2, b2 = rng.normal(size=(2, 2)) + 2 * np.eye(2), np.array([[2., 1.], [0., 3.]])
    col, row = np.array([4., 1., .5]), np.array([4., 2., .3])
    toeplitz = np.array([[4., 2., .3], [1., 4., 2.], [.5, 1., 4.]])
    return [
        (L.LinearOperatorFullMatrix(full), full),
        (L.LinearOperatorLowerTriangular(tril + np.triu(np.ones((3, 3)), 1)), tril),
        (L.LinearOperatorDiag(d), np.diag(d)),
        (L.LinearOperatorIdentity(3, dtype=tf.float64), np.eye(3)),
        (L.LinearOperatorScaledIdentity(3, np.float64(2.5)), 2.5 * np.eye(3)),
        (L.LinearOperatorComposition([L.LinearOperatorFullMatrix(full), L.LinearOperatorDiag(d)]),
         full @ np.diag(d)),
        (L.LinearOperatorLowRankUpdate(L.LinearOperatorDiag(d), u, diag_update=du),
         np.diag(d) + u @ np.diag(du) @ u.T),
        (L.LinearOperatorLowRankUpdate(L.LinearOperatorFullMatrix(full), u),
         full + u @ u.T),
        (L.LinearOperatorBlockDiag([L.LinearOperatorFullMatrix(a2), L.LinearOperatorDiag(d[:1])]),
         np.block([[a2, np.zeros((2, 1))], [np.zeros((1, 2)), np.diag(d[:1])]])),
        (L.LinearOperatorKronecker([L.LinearOperatorFullMatrix(a2),
                                    L.LinearOperatorFullMatrix(b2)]), np.kron(a2, b2)),
        (L.LinearOperatorToeplitz(col, row), toeplitz),
    ]


OPERATORS = _operators()
IDS = [type(op).__name__ + str(i) for i, (op, _) in enumerate(OPERATORS)]


@pytest.mark.parametrize("op,dense", OPERATORS, ids=IDS)
def test_every_method_agrees_with_the_dense_matrix(op, dense):
    n = dense.shape[-1]
    x, v = rng.normal(size=(n, 2)), rng.normal(size=n)
    close = lambda a, b: np.testing.assert_allclose(np.asarray(a), b, rtol=1e-9, atol=1e-9)  # noqa: E731
    close(op.to_dense(), dense)
    close(op.matmul(x), dense @ x)
    close(op.matmul(x, adjoint=True), dense.T @ x)
    close(op.matmul(x.T, adjoint_arg=True), dense @ x)
    close(op.matvec(v), dense @ v)
    close(op.matvec(v, adjoint=True), dense.T @ v)
    close(op.solve(x), np.linalg.solve(dense, x))
    close(op.solve(x, adjoint=True), np.linalg.solve(dense.T, x))
    close(op.solvevec(v), np.linalg.solve(dense, v))
    close(op.determinant(), np.linalg.det(dense))
    close(op.log_abs_determinant(), np.linalg.slogdet(dense)[1])
    close(op.diag_part(), np.diag(dense))
    close(op.trace(), np.trace(dense))
    close(op.adjoint().to_dense(), dense.T)
    close(op.inverse().to_dense(), np.linalg.inv(dense))
    close(op.inverse().matvec(v), np.linalg.solve(dense, v))
    close(op.add_to_tensor(x[:, :1] * np.ones((1, n))), dense + x[:, :1])
    assert op.shape == (n, n) and op.domain_dimension == n and op.range_dimension == n


def test_dense_matrices_and_names_recorded_from_tensorflow():
    f = L.LinearOperatorFullMatrix([[1., 2.], [3., 4.]])
    d = L.LinearOperatorDiag([1., 2.])
    assert L.LinearOperatorComposition([f, d]).to_dense().numpy().tolist() == [[1., 4.], [3., 8.]]
    assert L.LinearOperatorComposition([f, d]).name == \
        "LinearOperatorFullMatrix_o_LinearOperatorDiag"
    lr = L.LinearOperatorLowRankUpdate(L.LinearOperatorDiag([1., 2., 3.]), u=[[1.], [2.], [3.]],
                                       diag_update=[2.])
    assert lr.to_dense().numpy().tolist() == [[3., 4., 6.], [4., 10., 12.], [6., 12., 21.]]
    assert float(lr.determinant()) == pytest.approx(78.0)
    np.testing.assert_allclose(lr.solvevec([1., 1., 1.]).numpy(),
                               [0.5384615, 0.03846151, -0.12820515], rtol=1e-5)
    bd = L.LinearOperatorBlockDiag([d, f])
    assert bd.name == "LinearOperatorDiag_ds_LinearOperatorFullMatrix" and bd.shape == (4, 4)
    k = L.LinearOperatorKronecker([d, f])
    assert k.to_dense().numpy().tolist() == [[1., 2., 0., 0.], [3., 4., 0., 0.],
                                             [0., 0., 2., 4.], [0., 0., 6., 8.]]
    tp = L.LinearOperatorToeplitz(col=[1., 2., 3.], row=[1., 4., 5.])
    assert tp.to_dense().numpy().tolist() == [[1., 4., 5.], [2., 1., 4.], [3., 2., 1.]]
    assert float(f.log_abs_determinant()) == pytest.approx(0.6931472)
    assert float(L.LinearOperatorDiag([1., -2.]).determinant()) == -2.0
    np.testing.assert_allclose(f.cond().numpy(), 14.933036, rtol=1e-5)
    assert L.LinearOperatorIdentity(2, batch_shape=[3]).shape == (3, 2, 2)


def test_hints_and_the_operators_methods_return_as_tensorflow():
    d = L.LinearOperatorDiag([1., 2.])
    assert (d.is_self_adjoint, d.is_non_singular, d.is_positive_definite, d.is_square) == \
        (True, None, None, True)
    f = L.LinearOperatorFullMatrix([[1., 2.], [3., 4.]])
    assert (f.is_self_adjoint, f.is_non_singular, f.is_square) == (None, None, True)
    i = L.LinearOperatorIdentity(3)
    assert i.dtype == tf.float32 and i.is_positive_definite and i.is_self_adjoint
    assert L.LinearOperatorLowerTriangular([[1., 0.], [1., 1.]]).is_self_adjoint is None
    assert type(f.adjoint()).__name__ == "LinearOperatorAdjoint"
    assert type(f.inverse()).__name__ == "LinearOperatorInversion"
    assert type(d.inverse()).__name__ == "LinearOperatorDiag"
    assert type(L.LinearOperatorDiag([1., 2.], is_positive_definite=True).cholesky()) \
        is L.LinearOperatorDiag
    assert i.cholesky() is i and type(f @ d) is L.LinearOperatorComposition
    pd = L.LinearOperatorFullMatrix([[2., 1.], [1., 2.]], is_self_adjoint=True,
                                    is_positive_definite=True)
    chol = pd.cholesky()
    assert type(chol) is L.LinearOperatorLowerTriangular
    np.testing.assert_allclose(chol.to_dense().numpy(),
                               [[1.4142135, 0.], [0.70710677, 1.2247449]], rtol=1e-6)


def test_errors_are_tensorflows():
    with pytest.raises(ValueError, match="A real diagonal operator is always self adjoint"):
        L.LinearOperatorDiag([1., 2.], is_self_adjoint=False)
    with pytest.raises(ValueError, match="Cannot take the Cholesky decomposition"):
        L.LinearOperatorFullMatrix([[1., 2.], [3., 4.]]).cholesky()
    with pytest.raises(ValueError, match="Expected `x` to have dimension 2 but got 1"):
        L.LinearOperatorFullMatrix([[1., 2.], [3., 4.]]).matmul([[1., 2., 3.]])
    with pytest.raises(ValueError, match="Expected `x` to have dimension 2 but got 3"):
        L.LinearOperatorDiag([1., 2.]) @ L.LinearOperatorIdentity(3)
    with pytest.raises(ValueError, match="LinearOperatorFullMatrix: argument `matrix` must "
                                         "have at least 2 dimensions, got shape \\(2,\\)"):
        L.LinearOperatorFullMatrix([1., 2.])
    with pytest.raises(ValueError, match="An identity operator is always square"):
        L.LinearOperatorIdentity(2, is_square=False)
    with pytest.raises(ValueError, match="matvec for vectors"):
        L.LinearOperatorDiag([1., 2.]).matmul([1., 2.])


def test_lower_triangular_gradient_is_tensorflows_and_ignores_the_upper_part():
    x = tf.Variable([[2., 1.], [0., 3.]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(L.LinearOperatorLowerTriangular(x).solvevec([1., 2.]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               [[-0.25, 0.], [-0.16666667, -0.22222224]], rtol=1e-6)


@pytest.mark.parametrize("name,f,args", [
    ("triangular solve", lambda t, r: L.LinearOperatorLowerTriangular(t).solvevec(r),
     [np.tril(rng.normal(size=(3, 3))) + 3 * np.eye(3), rng.normal(size=3)]),
    ("triangular logdet", lambda t: L.LinearOperatorLowerTriangular(t).log_abs_determinant(),
     [np.tril(rng.normal(size=(3, 3))) + 3 * np.eye(3)]),
    ("diag solve", lambda d, r: L.LinearOperatorDiag(d).solvevec(r),
     [rng.uniform(1, 2, 3), rng.normal(size=3)]),
    ("woodbury solve", lambda d, u, r: L.LinearOperatorLowRankUpdate(
        L.LinearOperatorDiag(d), u).solvevec(r),
     [rng.uniform(1, 2, 3), rng.normal(size=(3, 2)), rng.normal(size=3)]),
    ("determinant lemma", lambda d, u, e: L.LinearOperatorLowRankUpdate(
        L.LinearOperatorDiag(d), u, diag_update=e).log_abs_determinant(),
     [rng.uniform(1, 2, 3), rng.normal(size=(3, 2)), rng.uniform(1, 2, 2)]),
    ("kronecker matvec and solve", lambda a, b, x: L.LinearOperatorKronecker(
        [L.LinearOperatorFullMatrix(a), L.LinearOperatorFullMatrix(b)]).solvevec(
        L.LinearOperatorKronecker([L.LinearOperatorFullMatrix(a),
                                   L.LinearOperatorFullMatrix(b)]).matvec(x) + x),
     [rng.normal(size=(2, 2)) + 2 * np.eye(2), _spd(2), rng.normal(size=4)]),
    ("block diag logdet", lambda a, d: L.LinearOperatorBlockDiag(
        [L.LinearOperatorFullMatrix(a), L.LinearOperatorDiag(d)]).log_abs_determinant(),
     [_spd(2), rng.uniform(1, 2, 2)]),
    ("toeplitz matvec", lambda c, r, x: L.LinearOperatorToeplitz(c, r).matvec(x),
     [rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)]),
])
def test_gradients_through_the_structured_algorithms(name, f, args):
    check_gradients(f, args, order=2)


def test_batches_broadcast_as_in_tensorflow():
    b = L.LinearOperatorFullMatrix(np.ones((3, 2, 2), np.float32))
    assert b.shape == (3, 2, 2) and b.batch_shape == (3,)
    d = L.LinearOperatorDiag(np.arange(1., 7.).reshape(3, 2))
    np.testing.assert_allclose(d.determinant().numpy(), [2., 12., 30.])
    np.testing.assert_allclose(L.LinearOperatorIdentity(2, batch_shape=[3]).matmul(
        tf.ones([2, 2])).numpy(), np.ones((3, 2, 2)))
