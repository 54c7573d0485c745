"""tf.linalg.pinv and lstsq(fast=False): minimum-norm solutions (rank-deficient matrices
included) against NumPy, values and gradients against TensorFlow where it has them, and the
constant-rank derivative at a rank-deficient matrix against finite differences."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.testing import check_gradients


def _rand(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 3)])
def test_lstsq_complete_matches_numpy(shape):
    a, b = _rand(*shape), _rand(*shape[:-1], 2, seed=1)
    got = fg.linalg.lstsq(a, b, fast=False).numpy()
    want = np.stack([np.linalg.lstsq(ai, bi, rcond=None)[0]
                     for ai, bi in zip(a.reshape(-1, *shape[-2:]), b.reshape(-1, shape[-2], 2),
                                       strict=True)]).reshape(got.shape)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lstsq_complete_rank_deficient_is_minimum_norm(dtype):
    # Rank 1: the columns are proportional; the minimum-norm solution is unique.
    a = np.array([[1., 2.], [2., 4.], [3., 6.]], dtype)
    b = np.array([[1.], [2.], [3.5]], dtype)
    got = fg.linalg.lstsq(a, b, fast=False)
    assert got.dtype == dtype
    want = np.linalg.lstsq(a.astype(np.float64), b.astype(np.float64), rcond=None)[0]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    # The fast path (normal equations) cannot handle it: its Cholesky fails.
    zero = fg.linalg.lstsq(np.zeros((3, 2), dtype), b, fast=False).numpy()
    np.testing.assert_array_equal(zero, np.zeros((2, 1), dtype))


def test_lstsq_complete_ignores_l2_regularizer():
    a, b = _rand(4, 3), _rand(4, 2, seed=1)
    np.testing.assert_array_equal(fg.linalg.lstsq(a, b, l2_regularizer=3.0, fast=False).numpy(),
                                  fg.linalg.lstsq(a, b, fast=False).numpy())


def test_pinv_rcond_cuts_small_singular_values():
    a = np.diag([1.0, 1e-3])
    np.testing.assert_allclose(fg.linalg.pinv(a).numpy(), np.diag([1.0, 1e3]))
    np.testing.assert_allclose(fg.linalg.pinv(a, rcond=1e-2).numpy(), np.diag([1.0, 0.0]))
    with pytest.raises(TypeError, match=r"finegrad\.linalg\.pinv: rcond"):
        fg.linalg.pinv(a, rcond=fg.constant([1e-2, 1.0], fg.float64))
    with pytest.raises(ValueError, match=r"finegrad\.linalg\.pinv: a must have rank >= 2"):
        fg.linalg.pinv([1.0, 2.0])


def test_pinv_gradient_at_rank_deficient_matrix_along_rank_preserving_directions():
    # A = u v^T (rank 1) moved along A(t) = (u + t du)(v + t dv)^T stays rank 1, where the
    # pseudo-inverse is smooth: the JVP must match finite differences along that path.
    u, v, du, dv = _rand(4, 1), _rand(3, 1, seed=1), _rand(4, 1, seed=2), _rand(3, 1, seed=3)
    a = u @ v.T
    a_dot = du @ v.T + u @ dv.T
    x = fg.constant(a)
    with fg.autodiff.ForwardAccumulator(x, fg.constant(a_dot)) as acc:
        tangent = acc.jvp(fg.linalg.pinv(x)).numpy()
    eps = 1e-6
    numeric = (np.linalg.pinv((u + eps * du) @ (v + eps * dv).T)
               - np.linalg.pinv((u - eps * du) @ (v - eps * dv).T)) / (2 * eps)
    np.testing.assert_allclose(tangent, numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4)])
def test_lstsq_complete_gradients_second_order(shape):
    a = _rand(*shape) + 3 * np.eye(*shape)
    b = _rand(shape[0], 2, seed=1)
    check_gradients(lambda a, b: fg.linalg.lstsq(a, b, fast=False), [a, b], order=2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 3)])
def test_pinv_and_lstsq_match_tensorflow(shape, dtype):
    tf = pytest.importorskip("tensorflow")
    a, b = _rand(*shape).astype(dtype), _rand(*shape[:-1], 2, seed=1).astype(dtype)
    w = _rand(*shape[:-2], shape[-1], shape[-2], seed=2).astype(dtype)
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    for lib in (tf, fg):
        x = lib.constant(a)
        with lib.GradientTape() as tape:
            tape.watch(x)
            loss = lib.reduce_sum(lib.linalg.pinv(x) * w) ** 2
        got = (lib.linalg.pinv(x).numpy(), tape.gradient(loss, x).numpy(),
               lib.linalg.lstsq(x, b, fast=False).numpy())
        if lib is tf:
            want = got
    for g, t in zip(got, want, strict=True):
        np.testing.assert_allclose(g, t, **tol)
