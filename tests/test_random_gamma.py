"""tf.random.gamma, stateless_gamma and stateless_poisson: the distributions (Kolmogorov-Smirnov
tests and moments with fixed seeds), the implicit-reparameterization gradients in alpha and
beta (against the derivative of the inverse CDF, SciPy's gammaincinv, and against
TensorFlow's RandomGammaGrad on the same samples), seeding, tracing and bad input."""
import numpy as np
import pytest

import finegrad as fg
from finegrad._src.ops.special.igamma import gamma_sample_grad

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")


@pytest.mark.parametrize("alpha", [0.3, 1.0, 4.5])
def test_gamma_follows_the_gamma_distribution(alpha):
    x = fg.random.gamma([4000], alpha, beta=2.0, seed=11).numpy()
    assert stats.kstest(x, stats.gamma(alpha, scale=0.5).cdf).pvalue > 1e-3
    xs = fg.random.stateless_gamma([4000], seed=[3, 4], alpha=alpha, beta=2.0).numpy()
    assert stats.kstest(xs, stats.gamma(alpha, scale=0.5).cdf).pvalue > 1e-3


def test_shapes_follow_tensorflow():
    alpha = fg.constant([[1.], [3.], [5.]])
    beta = fg.constant([[3., 4.]])
    assert fg.random.gamma([30], alpha, beta, seed=1).shape == (30, 3, 2)
    assert fg.random.stateless_gamma([7, 3, 2], [1, 1], alpha, beta).shape == (7, 3, 2)
    assert fg.random.gamma([2], 1.0, dtype=fg.float64, seed=1).dtype == fg.float64
    assert fg.random.stateless_poisson([4, 2], [1, 1], [1., 2.]).dtype == fg.int32


def _inverse_cdf_derivative(alpha, x, order=1, h=1e-4):
    """d^order/dalpha^order of gammaincinv(alpha, u) at u = P(alpha, x), by central
    differences (the derivative implicit reparameterization defines)."""
    u = special.gammainc(alpha, x)
    f = [special.gammaincinv(alpha + k * h, u) for k in (-1, 0, 1)]
    if order == 1:
        return (f[2] - f[0]) / (2 * h)
    return (f[2] - 2 * f[1] + f[0]) / h ** 2


def test_sample_gradient_is_the_inverse_cdf_derivative():
    alpha = np.array([0.2, 0.7, 1.0, 2.5, 9.0, 40.0])
    x = np.array([0.01, 1.3, 0.4, 4.0, 6.5, 45.0])
    got = gamma_sample_grad(fg.constant(alpha, fg.float64), fg.constant(x, fg.float64))
    np.testing.assert_allclose(got.numpy(), _inverse_cdf_derivative(alpha, x), rtol=1e-6)


def test_second_derivative_in_alpha_of_a_held_quantile():
    # The total second derivative of the sample in alpha, at its quantile held fixed.
    alpha = fg.Variable(np.array([0.7, 2.5, 9.0]))
    u = special.gammainc(alpha.numpy(), np.array([1.3, 4.0, 6.5]))
    x_of_alpha = fg.constant(special.gammaincinv(alpha.numpy(), u))
    with fg.GradientTape() as tape:
        # x(alpha) to first order around alpha: x0 + (alpha - alpha0) dx/dalpha
        x = x_of_alpha + (alpha - fg.stop_gradient(alpha)) * fg.stop_gradient(
            gamma_sample_grad(alpha, x_of_alpha))
        g = gamma_sample_grad(alpha, x)
    # d/dalpha [g(alpha, x(alpha))] is the second derivative of the quantile function
    second = tape.gradient(g, alpha).numpy()
    np.testing.assert_allclose(second, _inverse_cdf_derivative(
        alpha.numpy(), x_of_alpha.numpy(), order=2), rtol=1e-4)


def test_tape_gradients_in_alpha_and_beta():
    alpha, beta = fg.constant([0.5, 3.0], fg.float64), fg.constant(2.0, fg.float64)
    with fg.GradientTape(persistent=True) as tape:
        tape.watch([alpha, beta])
        x = fg.random.gamma([500], alpha, beta, dtype=fg.float64, seed=5)
        loss = fg.reduce_sum(x * x)
    raw = x.numpy() * 2.0      # the standard gamma samples
    want_alpha = (2 * x.numpy() * gamma_sample_grad(alpha, fg.constant(raw)).numpy() / 2.0)
    np.testing.assert_allclose(tape.gradient(loss, alpha).numpy(), want_alpha.sum(0),
                               rtol=1e-10)
    np.testing.assert_allclose(tape.gradient(loss, beta).numpy(),
                               np.sum(2 * x.numpy() * -x.numpy() / 2.0), rtol=1e-10)
    # E[x] = alpha / beta: the mean of the reparameterized gradients is close to 1 / beta
    with fg.GradientTape() as tape:
        tape.watch(alpha)
        m = fg.reduce_mean(fg.random.gamma([20000], alpha, beta, dtype=fg.float64, seed=6), 0)
    np.testing.assert_allclose(np.diag(tape.jacobian(m, alpha).numpy()), 0.5, rtol=0.03)


def test_gradients_inside_function_and_forward_mode():
    alpha = fg.constant([1.5, 2.0])

    @fg.function
    def grad_of_sum(a):
        with fg.GradientTape() as tape:
            tape.watch(a)
            x = fg.random.stateless_gamma([4, 2], seed=[1, 2], alpha=a)
            loss = fg.reduce_sum(x)
        return x, tape.gradient(loss, a)

    x, g = grad_of_sum(alpha)
    want = gamma_sample_grad(alpha, x).numpy().sum(0)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5)
    with fg.autodiff.ForwardAccumulator(alpha, fg.constant([1., 0.])) as acc:
        y = fg.random.stateless_gamma([4, 2], seed=[1, 2], alpha=alpha)
    np.testing.assert_allclose(acc.jvp(y).numpy()[:, 0],
                               gamma_sample_grad(alpha, y).numpy()[:, 0], rtol=1e-6)
    np.testing.assert_array_equal(acc.jvp(y).numpy()[:, 1], 0)


def test_sample_gradient_far_out_in_float32():
    # Large alpha (TensorFlow's kernel stops its series early there: 0.866 for the first
    # point) and tiny samples (where the density underflows in float32): the ratio is
    # computed in float64 without forming the density.
    alpha = np.array([1e4, 1e3, 3.0], np.float32)
    x = np.array([1e4, 900.0, 1e-30], np.float32)
    got = gamma_sample_grad(fg.constant(alpha), fg.constant(x)).numpy()
    want = _inverse_cdf_derivative(alpha[:2].astype(np.float64), x[:2].astype(np.float64),
                                   h=1e-2)
    np.testing.assert_allclose(got[:2], want, rtol=1e-5)
    # the limit for small x: -x (log x - digamma(a + 1)) / a
    np.testing.assert_allclose(got[2], -1e-30 * (np.log(1e-30) - special.digamma(4.0)) / 3,
                               rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_gradient_matches_tensorflow(dtype):
    tf = pytest.importorskip("tensorflow")
    alpha = np.array([0.2, 0.7, 1.0, 2.5, 9.0, 40.0], dtype)
    x = np.array([0.01, 1.3, 0.4, 4.0, 6.5, 45.0], dtype)
    want = tf.raw_ops.RandomGammaGrad(alpha=alpha, sample=x).numpy()
    got = gamma_sample_grad(fg.constant(alpha), fg.constant(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-5 if dtype == np.float32 else 1e-10)


def test_seeding_and_statelessness():
    fg.random.set_seed(3)
    a = fg.random.gamma([5], 2.0).numpy()
    fg.random.set_seed(3)
    np.testing.assert_array_equal(fg.random.gamma([5], 2.0).numpy(), a)
    s = fg.random.stateless_gamma([5], [7, 8], 2.0).numpy()
    np.testing.assert_array_equal(fg.random.stateless_gamma([5], [7, 8], 2.0).numpy(), s)
    assert np.all(s > 0)
    p = fg.random.stateless_poisson([3000], [1, 2], 4.0, dtype=fg.float32).numpy()
    assert abs(p.mean() - 4.0) < 0.2 and abs(p.var() - 4.0) < 0.4
    np.testing.assert_array_equal(fg.random.stateless_poisson([3000], [1, 2], 4.0,
                                                              dtype=fg.float32).numpy(), p)


def test_tiny_alpha_samples_stay_positive():
    x = fg.random.gamma([1000], 1e-3, seed=2).numpy()
    assert np.all(x >= np.finfo(np.float32).tiny)


def test_bad_input():
    with pytest.raises(TypeError, match=r"finegrad\.random\.gamma: dtype"):
        fg.random.gamma([2], 1.0, dtype=fg.int32)
    with pytest.raises(ValueError, match=r"finegrad\.random\.gamma: alpha and beta must "
                                         r"broadcast"):
        fg.random.gamma([2], [1., 2.], [1., 2., 3.])
    with pytest.raises(ValueError, match=r"finegrad\.random\.stateless_gamma: alpha and beta"):
        fg.random.stateless_gamma([2, 3], [1, 2], [1., 2.])
    with pytest.raises(ValueError, match=r"finegrad\.random\.stateless_gamma: seed"):
        fg.random.stateless_gamma([2], [1, 2, 3], 1.0)
    with pytest.raises(TypeError, match=r"finegrad\.random\.stateless_poisson: lam"):
        fg.random.stateless_poisson([2], [1, 2], fg.constant([1, 2]))
