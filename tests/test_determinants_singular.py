"""det's gradient is the adjugate, finite at singular matrices (TensorFlow 2.21 raises
InvalidArgumentError there: its gradient is det * inv); slogdet's is inf/nan there, as the
math has it. Values are checked against closed forms and central differences (det is a
polynomial, so float64 differences are accurate), and against JAX where installed."""
import numpy as np
import pytest

import finegrad as fg

RANK1 = np.array([[1., 2., 3.], [2., 4., 6.], [3., 6., 9.]])
RANK2 = np.array([[1., 2., 3.], [2., 4., 6.], [1., 1., 1.]])
SINGULAR = {"2x2": np.array([[1., 2.], [2., 4.]]), "rank2": RANK2, "rank1": RANK1,
            "zero": np.zeros((3, 3)), "batch": np.stack([RANK2, np.eye(3) * 2])}


def _cofactor_t(a):
    """adj(A)^T by cofactors (the closed form)."""
    n = a.shape[-1]
    out = np.zeros_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            out[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return out


def _det_grad(a, fn=lambda x: fg.reduce_sum(fg.linalg.det(x))):
    x = fg.constant(a)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x).numpy()


def _fd(f, a, eps=1e-4):
    g = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[idx] = eps
        g[idx] = (f(a + e) - f(a - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("name", sorted(SINGULAR))
def test_det_gradient_at_singular_is_the_adjugate(name):
    a = SINGULAR[name]
    g = _det_grad(a)
    np.testing.assert_allclose(g, _fd(lambda b: np.linalg.det(b).sum(), a), atol=1e-7)
    if a.ndim == 2:
        np.testing.assert_allclose(g, _cofactor_t(a), atol=1e-12)


def test_det_gradient_inside_function_and_forward_mode():
    a = fg.constant(RANK2)
    f = fg.function(lambda x: _det_grad_traced(x))
    np.testing.assert_allclose(f(a).numpy(), _cofactor_t(RANK2), atol=1e-12)
    v = np.arange(9.).reshape(3, 3)
    with fg.autodiff.ForwardAccumulator(a, fg.constant(v)) as acc:
        y = fg.linalg.det(a)
    np.testing.assert_allclose(acc.jvp(y).numpy(), np.sum(_cofactor_t(RANK2) * v), atol=1e-12)


def _det_grad_traced(x):
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.linalg.det(x)
    return tape.gradient(y, x)


@pytest.mark.parametrize("a", [RANK2, RANK1, np.zeros((3, 3))], ids=["rank2", "rank1", "zero"])
def test_det_second_order_at_singular_is_finite(a):
    w = np.arange(9.).reshape(3, 3)
    x = fg.constant(a)
    with fg.GradientTape() as outer:
        outer.watch(x)
        with fg.GradientTape() as inner:
            inner.watch(x)
            y = fg.linalg.det(x)
        s = fg.reduce_sum(inner.gradient(y, x) * w)
    h = outer.gradient(s, x).numpy()
    np.testing.assert_allclose(h, _fd(lambda b: np.sum(_cofactor_t(b) * w), a), atol=1e-6)


def test_det_gradient_of_float32_and_complex():
    g = _det_grad(SINGULAR["2x2"].astype(np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [[4., -2.], [-2., 1.]], atol=1e-5)
    z = np.array([[1 + 1j, 2.], [2 - 1j, 1 - 3j]])
    # complex: TensorFlow's convention, conj(d det / dA) = conj(adj(A)^T)
    np.testing.assert_allclose(_det_grad(z, lambda x: fg.math.real(fg.linalg.det(x))),
                               np.conj(_cofactor_t(z)), atol=1e-12)


def test_det_gradient_matches_jax(jax64):
    jax = jax64
    for a in (RANK2, RANK1, SINGULAR["2x2"]):
        np.testing.assert_allclose(_det_grad(a), jax.grad(jax.numpy.linalg.det)(a), atol=1e-12)


def test_slogdet_gradient_at_singular_is_infinite():
    g = _det_grad(SINGULAR["2x2"], lambda x: fg.linalg.slogdet(x)[1])
    assert np.isinf(g).all()
    np.testing.assert_array_equal(np.sign(g), [[1., -1.], [-1., 1.]])
    g = _det_grad(np.zeros((3, 3)), lambda x: fg.linalg.slogdet(x)[1])
    assert not np.isfinite(g).any()
    # regular matrices keep inv(A)^T
    a = np.array([[2., 1.], [0., 3.]])
    np.testing.assert_allclose(_det_grad(a, lambda x: fg.linalg.slogdet(x)[1]),
                               np.linalg.inv(a).T)


def test_inv_of_a_singular_matrix_still_raises():
    with pytest.raises(fg.errors.InvalidArgumentError, match="inv: the input is not invertible"):
        fg.linalg.inv(fg.constant(RANK2))
