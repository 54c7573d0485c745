"""tf.linalg's solves and decompositions: values against NumPy (sign-free quantities for
eigenvectors, singular vectors and Q), bad input, singular and non-definite matrices, the
documented gradient limits, Jacobians in one pass, and traced functions.

Gradients against finite differences are in the op table (tests/op_specs_decompositions.py);
against TensorFlow in test_decompositions_tf.py.
"""
import warnings

import numpy as np
import pytest

import finegrad as fg
from finegrad.testing import check_gradients

RNG = np.random.default_rng(0)


def _rand(*shape):
    return RNG.standard_normal(shape)


def _recon_svd(s, u, v):
    return (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 1e-4)])
def test_solves_match_numpy(dtype, tol):
    a = (_rand(2, 3, 3) + 3 * np.eye(3)).astype(dtype)
    b = _rand(2, 3, 2).astype(dtype)
    np.testing.assert_allclose(fg.linalg.solve(a, b).numpy(), np.linalg.solve(a, b), rtol=tol)
    np.testing.assert_allclose(fg.linalg.solve(a, b, adjoint=True).numpy(),
                               np.linalg.solve(np.swapaxes(a, -1, -2), b), rtol=tol)
    lo, up = np.tril(a), np.triu(a)
    got = fg.linalg.triangular_solve(a, b)
    assert got.dtype == fg.as_dtype(dtype)
    np.testing.assert_allclose(got.numpy(), np.linalg.solve(lo, b), rtol=tol)
    np.testing.assert_allclose(fg.linalg.triangular_solve(a, b, lower=False).numpy(),
                               np.linalg.solve(up, b), rtol=tol)
    np.testing.assert_allclose(fg.linalg.triangular_solve(a, b, adjoint=True).numpy(),
                               np.linalg.solve(np.swapaxes(lo, -1, -2), b), rtol=tol)
    spd = a @ np.swapaxes(a, -1, -2)
    chol = fg.linalg.cholesky(spd)
    np.testing.assert_allclose(chol.numpy(), np.linalg.cholesky(spd), rtol=tol)
    np.testing.assert_allclose(fg.linalg.cholesky_solve(chol, b).numpy(),
                               np.linalg.solve(spd, b), rtol=10 * tol)


def test_triangular_solve_broadcasts_batch_axes():
    a = _rand(3, 3) + 3 * np.eye(3)
    b = _rand(2, 3, 1)
    np.testing.assert_allclose(fg.linalg.triangular_solve(a, b).numpy(),
                               np.linalg.solve(np.tril(a), b))
    check_gradients(lambda a, b: fg.linalg.triangular_solve(a, b), [a, b])


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_eigh_matches_numpy(shape):
    x = _rand(*shape)
    sym = x + np.swapaxes(x, -1, -2)
    e, v = fg.linalg.eigh(sym)
    np.testing.assert_allclose(e.numpy(), np.linalg.eigvalsh(sym), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sym @ v.numpy(), v.numpy() * e.numpy()[..., None, :],
                               atol=1e-10)
    np.testing.assert_allclose(fg.linalg.eigvalsh(sym).numpy(), e.numpy())
    # only the lower triangle is read, as in TensorFlow
    np.testing.assert_allclose(fg.linalg.eigvalsh(np.tril(sym)).numpy(), e.numpy())


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 2, 5), (2, 5, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_matches_numpy(shape, full):
    x = _rand(*shape)
    s, u, v = fg.linalg.svd(x, full_matrices=full)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(x, compute_uv=False), rtol=1e-10)
    k = min(shape[-2:])
    m, n = shape[-2:]
    assert u.shape[-2:] == ((m, m) if full else (m, k))
    assert v.shape[-2:] == ((n, n) if full else (n, k))
    np.testing.assert_allclose(_recon_svd(s.numpy(), u.numpy()[..., :k], v.numpy()[..., :k]),
                               x, atol=1e-10)
    np.testing.assert_allclose(fg.linalg.svd(x, compute_uv=False).numpy(), s.numpy())


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 2, 5), (2, 5, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_qr_matches_numpy(shape, full):
    x = _rand(*shape)
    q, r = (t.numpy() for t in fg.linalg.qr(x, full_matrices=full))
    np.testing.assert_allclose(q @ r, x, atol=1e-10)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.eye(q.shape[-1]) + 0 * q[..., :1, :1],
                               atol=1e-10)
    np.testing.assert_allclose(np.tril(r, -1), 0, atol=1e-12)
    m, n = shape[-2:]
    assert q.shape[-1] == (m if full else min(m, n))


@pytest.mark.parametrize("shape,l2", [((5, 3), 0.0), ((2, 5, 3), 0.5), ((3, 5), 0.0),
                                      ((2, 3, 5), 0.5)])
def test_lstsq_matches_normal_equations(shape, l2):
    a = _rand(*shape)
    b = _rand(*shape[:-1], 2)
    m, n = shape[-2:]
    at = np.swapaxes(a, -1, -2)
    if m >= n:
        want = np.linalg.solve(at @ a + l2 * np.eye(n), at @ b)
    else:
        want = at @ np.linalg.solve(a @ at + l2 * np.eye(m), b)
    got = fg.linalg.lstsq(a, b, l2_regularizer=l2).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    if l2 == 0 and len(shape) == 2:
        np.testing.assert_allclose(got, np.linalg.lstsq(a, b, rcond=None)[0], atol=1e-10)


def test_adjoint_and_matrix_transpose():
    z = _rand(2, 3, 4) + 1j * _rand(2, 3, 4)
    np.testing.assert_array_equal(fg.linalg.adjoint(z).numpy(), np.conj(np.swapaxes(z, 1, 2)))
    np.testing.assert_array_equal(fg.linalg.matrix_transpose(z).numpy(), np.swapaxes(z, 1, 2))
    np.testing.assert_array_equal(fg.linalg.matrix_transpose(z, conjugate=True).numpy(),
                                  np.conj(np.swapaxes(z, 1, 2)))


def test_complex_solves_and_cholesky():
    a = _rand(3, 3) + 1j * _rand(3, 3) + 3 * np.eye(3)
    b = _rand(3, 2) + 1j * _rand(3, 2)
    np.testing.assert_allclose(fg.linalg.solve(a, b).numpy(), np.linalg.solve(a, b))
    hpd = a @ np.conj(a.T)
    np.testing.assert_allclose(fg.linalg.cholesky(hpd).numpy(), np.linalg.cholesky(hpd))
    check_gradients(lambda a, b: fg.linalg.solve(a, b, adjoint=True), [a, b], order=1)
    check_gradients(lambda a, b: fg.linalg.triangular_solve(a, b, lower=False), [a, b],
                    order=1)
    check_gradients(lambda x: fg.linalg.cholesky(fg.matmul(x, x, adjoint_b=True)), [a],
                    order=1)


@pytest.mark.parametrize("m,n", [(3, 3), (4, 3), (3, 4)])
def test_complex_decompositions_against_differences(m, n):
    """Complex eigh, svd, qr and lstsq at orders 1 and 2, both modes, in TensorFlow's
    convention (check_gradients' complex mode), through phase-free quantities."""
    x = _rand(2, m, n) + 1j * _rand(2, m, n)
    k = min(m, n)
    spread = np.zeros((m, n))
    spread[range(k), range(k)] = np.arange(2.0, 2.0 + 3 * k, 3.0)
    w = np.arange(1.0, 1.0 + k)

    def svd(x):
        s, u, v = fg.linalg.svd(0.1 * x + spread)
        return s, fg.matmul(u * w, v, adjoint_b=True), fg.matmul(u * w, u, adjoint_b=True)

    def qr(x):
        q, r = fg.linalg.qr(x + 3 * np.eye(m, n))
        return fg.matmul(q, r * np.arange(1.0, 1.0 + k * n).reshape(k, n)), r * fg.math.conj(r)
    check_gradients(svd, [x])
    check_gradients(qr, [x])
    check_gradients(lambda a, b: fg.linalg.lstsq(a + 3 * np.eye(m, n), b), [x, x[..., :2]],
                    order=1)
    if m == n:
        def eigh(x):
            e, v = fg.linalg.eigh(0.2 * x + spread)
            return e, fg.matmul(v * w, v, adjoint_b=True)
        check_gradients(eigh, [x])


# ---- bad input -------------------------------------------------------------------------------

_BAD = [
    (lambda: fg.linalg.cholesky(fg.ones((2, 3))), ValueError, "cholesky: input must be square"),
    (lambda: fg.linalg.cholesky(fg.ones((3,))), ValueError, "cholesky: input must have rank"),
    (lambda: fg.linalg.cholesky(fg.constant([[1, 0], [0, 1]])), TypeError, "cholesky: input"),
    (lambda: fg.linalg.eigh(fg.ones((2, 3))), ValueError, "eigh: tensor must be square"),
    (lambda: fg.linalg.eigvalsh(fg.ones((3,))), ValueError, "eigvalsh: tensor must have"),
    (lambda: fg.linalg.solve(fg.ones((2, 3)), fg.ones((2, 1))), ValueError,
     "solve: matrix must be square"),
    (lambda: fg.linalg.solve(fg.eye(3), fg.ones((2, 1))), ValueError, "solve: rhs must have 3"),
    (lambda: fg.linalg.solve(fg.eye(3), fg.ones((3,))), ValueError, "solve: rhs must have rank"),
    (lambda: fg.linalg.solve(fg.eye(3, batch_shape=[2]), fg.ones((3, 1))), ValueError,
     "solve: matrix and rhs must have the same batch shape"),
    (lambda: fg.linalg.solve(fg.eye(2), fg.ones((2, 1), fg.float64)), TypeError,
     "solve: matrix and rhs must have the same dtype"),
    (lambda: fg.linalg.triangular_solve(fg.eye(3, batch_shape=[2]), fg.ones((3, 3, 1))),
     ValueError, "triangular_solve: the batch shapes"),
    (lambda: fg.linalg.svd(fg.ones((3,))), ValueError, "svd: tensor must have rank"),
    (lambda: fg.linalg.svd(fg.ones((2, 2), fg.float16)), TypeError, "svd: tensor must be float32"),
    (lambda: fg.linalg.qr(fg.ones((2, 2), fg.int32)), TypeError, "qr: input must be float32"),
    (lambda: fg.linalg.lstsq(fg.ones((3, 2)), fg.ones((2, 1))), ValueError,
     "lstsq: rhs must have 3 rows"),
    (lambda: fg.linalg.lstsq(fg.ones((3, 2)), fg.ones((3, 1), fg.float64), fast=False),
     TypeError, "lstsq: matrix and rhs must have the same dtype"),
    (lambda: fg.linalg.pinv(fg.ones((2, 2), fg.int32)), TypeError, "pinv: a must be float32"),
    (lambda: fg.linalg.adjoint(fg.ones((3,))), ValueError, "adjoint: input must have rank"),
]


@pytest.mark.parametrize("call,exc,match", _BAD, ids=[m for _, _, m in _BAD])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match="finegrad.linalg." + match.replace("(", r"\(")):
        call()


def test_singular_solve_raises_like_tensorflow():
    with pytest.raises(fg.errors.InvalidArgumentError, match="not invertible"):
        fg.linalg.solve(fg.constant([[1., 2.], [2., 4.]]), fg.ones((2, 1)))


def test_singular_triangular_solve_gives_inf_like_tensorflow():
    out = fg.linalg.triangular_solve(fg.constant([[0., 0.], [1., 1.]]), fg.ones((2, 1)))
    np.testing.assert_array_equal(out.numpy(), [[np.inf], [-np.inf]])


def test_cholesky_of_a_non_definite_matrix_is_nan_like_tensorflow():
    a = np.array([[[1., 2.], [2., 1.]], [[4., 0.], [0., 1.]]])
    with pytest.warns(UserWarning, match="finegrad.linalg.cholesky: .*not positive definite"):
        out = fg.linalg.cholesky(a).numpy()
    assert np.isnan(out[0][np.tril_indices(2)]).all() and out[0][0, 1] == 0
    np.testing.assert_array_equal(out[1], [[2., 0.], [0., 1.]])   # the other matrix is fine


# ---- documented gradient limits --------------------------------------------------------------

def test_svd_full_matrices_non_square_has_no_gradient():
    x = fg.constant(_rand(4, 2))
    with pytest.raises(NotImplementedError, match="finegrad.linalg.svd: .*full_matrices=True"):
        fg.grad(lambda x: fg.reduce_sum(fg.linalg.svd(x, full_matrices=True)[0]))(x)
    with pytest.raises(NotImplementedError, match="finegrad.linalg.svd: .*forward"):
        fg.jvp(lambda x: fg.linalg.svd(x, full_matrices=True)[0], [x], [x])
    # square: full and reduced are the same decomposition, and differentiable
    check_gradients(lambda x: fg.linalg.svd(x + 3 * np.eye(3), full_matrices=True)[0],
                    [_rand(3, 3)])


def test_qr_full_matrices_tall_has_no_gradient():
    x = fg.constant(_rand(4, 2))
    with pytest.raises(NotImplementedError, match="finegrad.linalg.qr: .*full_matrices=True"):
        fg.grad(lambda x: fg.reduce_sum(fg.linalg.qr(x, full_matrices=True)[1]))(x)
    check_gradients(lambda x: fg.linalg.qr(x + 3 * np.eye(2, 4), full_matrices=True)[1],
                    [_rand(2, 4)])


def test_eigh_degenerate_eigenvalues_follow_tensorflow():
    """Exactly equal eigenvalues: the broadened 1/(e_j - e_i) is 0 there (TensorFlow's), so
    the gradient stays finite; the eigenvalues' own gradient is exact."""
    a = fg.constant(np.diag([1., 1., 2.]))
    g = fg.grad(lambda a: fg.reduce_sum(fg.linalg.eigh(a)[0] * fg.constant([1., 2., 3.],
                                                                            fg.float64)))(a)
    assert np.isfinite(g.numpy()).all()
    g = fg.grad(lambda a: fg.reduce_sum(fg.linalg.eigvalsh(a)))(a)
    np.testing.assert_allclose(g.numpy(), np.eye(3), atol=1e-12)   # d trace(A) = I
    v_loss = fg.grad(lambda a: fg.reduce_sum(fg.linalg.eigh(a)[1] ** 2 * np.arange(9.)
                                             .reshape(3, 3)))(a)
    assert np.isfinite(v_loss.numpy()).all()


# ---- one-pass Jacobians and traced functions -------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda a, b: fg.linalg.solve(a, b),
    lambda a, b: fg.linalg.triangular_solve(a, b, lower=False, adjoint=True),
    lambda a, b: fg.linalg.cholesky(fg.matmul(a, a, transpose_b=True)) + b[..., :1],
    lambda a, b: fg.linalg.eigh(a)[0][..., None] * b,
    lambda a, b: fg.linalg.svd(a)[0][..., None] * b,
    lambda a, b: fg.linalg.qr(a)[1] + b[..., :1],
])
def test_jacobian_in_one_pass_matches_the_loop(fn):
    a = fg.constant(_rand(2, 3, 3) + 3 * np.eye(3))
    b = fg.constant(_rand(2, 3, 2))
    with fg.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = fn(a, b)
    for x in (a, b):
        fast = tape.jacobian(y, x)
        slow = tape.jacobian(y, x, experimental_use_pfor=False)
        np.testing.assert_allclose(fast.numpy(), slow.numpy(), rtol=1e-10, atol=1e-12)


def test_traced_values_and_gradients_match_eager():
    def loss(a, b):
        e, v = fg.linalg.eigh(a + fg.linalg.adjoint(a))
        s, u, w = fg.linalg.svd(a)
        q, r = fg.linalg.qr(a)
        x = fg.linalg.solve(a, b) + fg.linalg.lstsq(a, b) + \
            fg.linalg.cholesky_solve(fg.linalg.cholesky(fg.matmul(a, a, adjoint_b=True)), b)
        return (fg.reduce_sum(x) + fg.reduce_sum(e) + fg.reduce_sum(v * v) + fg.reduce_sum(s)
                + fg.reduce_sum(u * u) + fg.reduce_sum(q @ r))

    @fg.function
    def traced(a, b):
        y = loss(a, b)
        return y, fg.gradients(y, [a, b])

    a = fg.constant(_rand(2, 3, 3) + 3 * np.eye(3))
    b = fg.constant(_rand(2, 3, 2))
    with fg.GradientTape() as tape:
        tape.watch([a, b])
        y = loss(a, b)
    want = tape.gradient(y, [a, b])
    for _ in range(2):   # the trace, then the compiled graph
        y_t, g_t = traced(a, b)
        np.testing.assert_allclose(y_t.numpy(), y.numpy(), rtol=1e-12)
        for g, w in zip(g_t, want, strict=True):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


def test_no_numpy_warnings_on_good_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fg.linalg.cholesky(np.eye(3) * 2.)
        fg.linalg.triangular_solve(np.eye(3), np.ones((3, 1)))
