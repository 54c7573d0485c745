"""erf, erfc, erfinv, lgamma, digamma, polygamma, xlogy, xlog1py and truncatediv: values
against SciPy over wide ranges (tails, 0, negatives, +-inf, nan), against closed forms and
mpmath where SciPy itself is inexact, against TensorFlow when installed; gradients against
their closed forms."""
import math

import numpy as np
import pytest

import finegrad as fg

sp = pytest.importorskip("scipy.special")
RNG = np.random.default_rng(0)
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan]


def _wide(lo, hi, n=4000, logs=(-300, 2)):
    """Uniform points, log-spaced ones of both signs, and the special values."""
    mags = 10 ** RNG.uniform(*logs, n // 4)
    return np.concatenate([RNG.uniform(lo, hi, n), mags, -mags, SPECIAL])


def _close(got, want, rtol, atol=0.0):
    """Relative agreement where finite and nonzero, and the same nan/inf/zero pattern."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    fin = np.isfinite(want)
    np.testing.assert_array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)])
    np.testing.assert_allclose(got[fin], want[fin], rtol=rtol, atol=atol)


def test_erf_erfc_match_scipy_including_the_tails():
    x = _wide(-30, 30)
    _close(fg.math.erf(fg.constant(x)).numpy(), sp.erf(x), rtol=2e-15)
    # SciPy's erfc loses digits beyond 5 (5e-14 at 25): compared with mpmath below
    x = x[np.isnan(x) | (x <= 5)]
    _close(fg.math.erfc(fg.constant(x)).numpy(), sp.erfc(x), rtol=2e-15)


def test_erfc_keeps_its_far_tail():
    """erfc(26) = 5.6e-296 (1 - erf(26) is 0), exact to float64 rounding."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    x = np.concatenate([RNG.uniform(5, 26.5, 200), [10.0, 20.0, 26.0]])
    got = fg.math.erfc(fg.constant(x)).numpy()
    want = [float(mpmath.erfc(mpmath.mpf(float(v)))) for v in x]
    np.testing.assert_allclose(got, want, rtol=2e-15)
    assert fg.math.erfc(fg.constant(30.0, fg.float64)).numpy() == 0.0


def test_erfinv_matches_scipy_and_its_ends():
    u = np.concatenate([RNG.uniform(-1, 1, 4000), 1 - 10 ** RNG.uniform(-16, -1, 500),
                        -1 + 10 ** RNG.uniform(-16, -1, 500), 10 ** RNG.uniform(-300, -1, 500)])
    _close(fg.math.erfinv(fg.constant(u)).numpy(), sp.erfinv(u), rtol=2e-15)
    ends = fg.math.erfinv(fg.constant([1.0, -1.0, 1.5, -2.0, np.nan, 0.0])).numpy()
    np.testing.assert_array_equal(ends, [np.inf, -np.inf, np.nan, np.nan, np.nan, 0.0])
    np.testing.assert_allclose(fg.math.erf(fg.math.erfinv(fg.constant(u[:4000]))).numpy(),
                               u[:4000], rtol=1e-15, atol=1e-16)


def test_lgamma_matches_scipy_on_the_positive_line():
    x = np.concatenate([RNG.uniform(0, 30, 4000), 10 ** RNG.uniform(-300, 300, 2000),
                        [1.0, 2.0, 3.0, np.inf, np.nan]])
    # SciPy (Cephes) loses digits around the zeros at 1 and 2: compared with mpmath below
    away = np.isnan(x) | (x < 0.5) | (x > 3)
    _close(fg.math.lgamma(fg.constant(x[away])).numpy(), sp.gammaln(x[away]), rtol=2e-15)


def test_lgamma_near_its_zeros_is_relatively_accurate():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    x = np.concatenate([[1 + 1e-9, 1 - 1e-9, 2 + 1e-12, 2 - 1e-6, 0.99875117, 1.99942839],
                        RNG.uniform(0.5, 3, 300)])
    want = [float(mpmath.loggamma(mpmath.mpf(float(v)))) for v in x]
    np.testing.assert_allclose(fg.math.lgamma(fg.constant(x)).numpy(), want, rtol=1e-15)


def test_lgamma_negative_poles_and_infinities_as_tensorflow():
    x = RNG.uniform(-20, 0, 4000)
    got = fg.math.lgamma(fg.constant(x)).numpy()
    np.testing.assert_allclose(got, sp.gammaln(x), rtol=1e-13, atol=1e-13)
    special = fg.math.lgamma(fg.constant([0.0, -1.0, -7.0, np.inf, -np.inf, np.nan])).numpy()
    np.testing.assert_array_equal(special, [np.inf] * 5 + [np.nan])


def test_digamma_matches_scipy():
    x = np.concatenate([RNG.uniform(0, 30, 4000), 10 ** RNG.uniform(-300, 300, 2000)])
    _close(fg.math.digamma(fg.constant(x)).numpy(), sp.psi(x), rtol=5e-15)
    neg = RNG.uniform(-20, 0, 4000)
    np.testing.assert_allclose(fg.math.digamma(fg.constant(neg)).numpy(), sp.psi(neg),
                               rtol=1e-12, atol=1e-12)
    # TensorFlow's values at the poles and infinities (SciPy gives -inf at 0)
    special = fg.math.digamma(fg.constant([0.0, -1.0, -3.0, -np.inf, np.inf])).numpy()
    np.testing.assert_array_equal(special, [np.nan] * 4 + [np.inf])
    root = fg.math.digamma(fg.constant(1.4616321449683622, fg.float64)).numpy()
    assert abs(root) < 1e-16


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_polygamma_matches_scipy(n):
    x = np.concatenate([RNG.uniform(0, 30, 2000), 10 ** RNG.uniform(-100, 100, 500)])
    _close(fg.math.polygamma(float(n), fg.constant(x)).numpy(), sp.polygamma(n, x),
           rtol=5e-15)
    neg = RNG.uniform(-10, 0, 2000)
    want = sp.polygamma(n, neg)
    np.testing.assert_allclose(fg.math.polygamma(float(n), fg.constant(neg)).numpy(), want,
                               rtol=1e-11, atol=1e-11 * np.abs(want).max())


def test_polygamma_orders_and_poles_as_tensorflow():
    got = fg.math.polygamma(fg.constant([0.0, 1.5, -1.0, 1.0, 2.0], fg.float64),
                            fg.constant([2.0, 2.0, 2.0, 0.0, -1.0], fg.float64)).numpy()
    np.testing.assert_allclose(got[0], sp.psi(2.0), rtol=1e-15)
    np.testing.assert_array_equal(got[1:], [np.nan, np.nan, np.inf, np.nan])
    # an order whose n! overflows: no reflection polynomial of degree 10^6 is built
    huge = fg.math.polygamma(fg.constant(1e6, fg.float64), fg.constant(-0.5, fg.float64))
    assert np.isnan(huge.numpy())


@pytest.mark.parametrize("dtype", [fg.float16, fg.float32])
def test_narrow_floats_are_rounded_float64_values(dtype):
    x = np.linspace(0.1, 5, 50).astype(dtype.as_numpy_dtype)
    for name, ref in (("erf", sp.erf), ("lgamma", sp.gammaln), ("digamma", sp.psi)):
        got = getattr(fg.math, name)(fg.constant(x)).numpy()
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, ref(x.astype(np.float64)).astype(x.dtype))


def test_integer_inputs_are_type_errors_naming_the_function():
    with pytest.raises(TypeError, match="finegrad.erf"):
        fg.math.erf(fg.constant([1, 2]))
    with pytest.raises(TypeError, match="finegrad.lgamma"):
        fg.math.lgamma(fg.constant(1))
    with pytest.raises(TypeError, match="finegrad.xlogy"):
        fg.math.xlogy(fg.constant(1), fg.constant(2))


def grad64(f, x):
    """The gradient of ``f`` at ``x`` (a float64 constant), as a NumPy array."""
    x = fg.constant(x, fg.float64)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


def test_gradients_are_the_closed_forms():
    x = np.array([-1.5, -0.3, 0.4, 2.5])
    np.testing.assert_allclose(grad64(fg.math.erf, x), 2 / np.sqrt(np.pi) * np.exp(-x * x))
    np.testing.assert_allclose(grad64(fg.math.erfc, x), -2 / np.sqrt(np.pi) * np.exp(-x * x))
    u = x / 3
    np.testing.assert_allclose(grad64(fg.math.erfinv, u),
                               np.sqrt(np.pi) / 2 * np.exp(sp.erfinv(u) ** 2))
    np.testing.assert_allclose(grad64(fg.math.lgamma, x), sp.psi(x), rtol=1e-13)
    np.testing.assert_allclose(grad64(fg.math.digamma, x), sp.polygamma(1, x), rtol=1e-13)
    second = grad64(lambda t: _grad_tensor(fg.math.lgamma, t), x)
    np.testing.assert_allclose(second, sp.polygamma(1, x), rtol=1e-13)


def _grad_tensor(f, x):
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def test_xlogy_and_xlog1py_values_and_tensorflows_gradients():
    x = fg.constant([0.0, 0.0, 2.0, 0.0, 3.0], fg.float64)
    y = fg.constant([0.0, np.nan, 3.0, -1.0, 0.0], fg.float64)
    np.testing.assert_array_equal(fg.math.xlogy(x, y).numpy(),
                                  [0.0, 0.0, 2 * math.log(3), 0.0, -np.inf])
    np.testing.assert_array_equal(fg.math.xlog1py(x, y - 1).numpy(),
                                  [0.0, 0.0, 2 * math.log(3), 0.0, -np.inf])
    for f, shift in ((fg.math.xlogy, 0.0), (fg.math.xlog1py, -1.0)):
        with fg.GradientTape(persistent=True) as tape:
            tape.watch([x, y])
            z = f(x, y + shift)
        gx, gy = tape.gradient(z, [x, y])
        np.testing.assert_allclose(gx.numpy(), [0, 0, math.log(3), 0, -np.inf])
        np.testing.assert_allclose(gy.numpy(), [0, 0, 2 / 3, 0, np.inf])


def test_truncatediv_rounds_toward_zero():
    a = np.array([7, -7, 7, -7, 6, 0])
    b = np.array([2, 2, -2, -2, 3, 5])
    got = fg.truncatediv(fg.constant(a), fg.constant(b)).numpy()
    np.testing.assert_array_equal(got, np.trunc(a / b).astype(a.dtype))
    np.testing.assert_array_equal(fg.truncatediv(fg.constant([7.5, -7.5]), 2.).numpy(),
                                  [3.0, -3.0])
    with pytest.raises(fg.errors.InvalidArgumentError, match="finegrad.truncatediv"):
        fg.truncatediv(fg.constant([1]), fg.constant([0]))


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = np.concatenate([RNG.uniform(-8, 8, 500), [0.0, -1.0, -2.5, np.inf, -np.inf, np.nan]])
    for name in ("erf", "erfc", "lgamma", "digamma"):
        # TensorFlow's float64 erf gives nan at +-inf; finegrad keeps the limits +-1 (SciPy's)
        x = x[np.isfinite(x) | (name != "erf")]
        _close(getattr(fg.math, name)(fg.constant(x)).numpy(),
               getattr(tf.math, name)(x).numpy(), rtol=1e-12, atol=1e-12)
    u = np.concatenate([RNG.uniform(-1, 1, 500), [1.0, -1.0, 2.0]])
    _close(fg.math.erfinv(fg.constant(u)).numpy(), tf.math.erfinv(u).numpy(), rtol=1e-12)
    for n in (1.0, 2.0):
        _close(fg.math.polygamma(n, fg.constant(x)).numpy(),
               tf.math.polygamma(np.full_like(x, n), x).numpy(), rtol=1e-10, atol=1e-10)
    a, b = np.array([7, -7, 9, -9]), np.array([2, 2, -4, -4])
    np.testing.assert_array_equal(fg.truncatediv(fg.constant(a), fg.constant(b)).numpy(),
                                  tf.truncatediv(a, b).numpy())
    xs = np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.5, 3.0])
    np.testing.assert_allclose(fg.math.xlogy(*map(fg.constant, xs)).numpy(),
                               tf.math.xlogy(*xs).numpy())


def test_exact_gelu_is_the_erf_form_and_matches_tensorflow():
    x = RNG.uniform(-5, 5, 50)
    np.testing.assert_allclose(fg.nn.gelu(fg.constant(x)).numpy(),
                               0.5 * x * sp.erfc(-x / np.sqrt(2)), rtol=1e-14, atol=1e-300)
    tf = pytest.importorskip("tensorflow")
    xt, tx = fg.constant(x), tf.constant(x)
    with fg.GradientTape() as tape, tf.GradientTape() as ttape:
        tape.watch(xt)
        ttape.watch(tx)
        y, ty = fg.nn.gelu(xt), tf.nn.gelu(tx)
    # TensorFlow 2.21's float64 gelu is 4e-9 off the erf form (its erf itself is exact)
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(tape.gradient(y, xt).numpy(), ttape.gradient(ty, tx).numpy(),
                               rtol=1e-7, atol=1e-8)


def test_subnormal_inputs_keep_their_values():
    # TensorFlow's CPU kernels flush subnormal float32 inputs to zero (erf(1e-40) is 0 there,
    # lgamma(1e-40) is 103.97 and its gradient nan); finegrad follows the math.
    tiny = fg.constant([1e-40], fg.float32)
    np.testing.assert_allclose(fg.math.erf(tiny).numpy(), [2 / math.sqrt(math.pi) * 1e-40],
                               rtol=1e-3)
    np.testing.assert_allclose(fg.math.lgamma(tiny).numpy(), [-math.log(1e-40)], rtol=1e-6)
    with fg.GradientTape() as tape:
        tape.watch(tiny)
        y = fg.math.lgamma(tiny)
    assert tape.gradient(y, tiny).numpy()[0] == -np.inf   # digamma(1e-40) = -1e40 overflows
    # trigamma(1e30) = 1e-30 (TensorFlow's float32 gives 0)
    big = fg.constant([1e30], fg.float32)
    with fg.GradientTape() as tape:
        tape.watch(big)
        y = fg.math.digamma(big)
    np.testing.assert_allclose(tape.gradient(y, big).numpy(), [1e-30], rtol=1e-5)
