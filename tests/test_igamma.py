"""tf.math.igamma and igammac: values against SciPy, derivatives in ``a`` of orders 1 to 3
against mpmath, and values and first derivatives against
TensorFlow; edge inputs (x = 0, x = inf, a <= 0)."""
import numpy as np
import pytest

import finegrad as fg

special = pytest.importorskip("scipy.special")

A = np.array([0.1, 0.5, 1.0, 2.5, 10.0, 50.0, 300.0, 0.3, 5.0, 100.0, 3.0])
X = np.array([0.05, 2.0, 0.3, 7.0, 9.0, 60.0, 280.0, 20.0, 1e-4, 150.0, 3.0])


def test_values_match_scipy():
    a, x = fg.constant(A, fg.float64), fg.constant(X, fg.float64)
    np.testing.assert_allclose(fg.math.igamma(a, x).numpy(), special.gammainc(A, X),
                               rtol=1e-12)
    np.testing.assert_allclose(fg.math.igammac(a, x).numpy(), special.gammaincc(A, X),
                               rtol=1e-12)


def test_derivatives_in_a_to_third_order():
    mpmath = pytest.importorskip("mpmath")
    pick = [0, 1, 3, 5, 7, 10]
    a, x = fg.constant(A[pick], fg.float64), fg.constant(X[pick], fg.float64)
    with fg.GradientTape() as t3:
        t3.watch(a)
        with fg.GradientTape() as t2:
            t2.watch(a)
            with fg.GradientTape() as t1:
                t1.watch(a)
                p = fg.math.igamma(a, x)
            d1 = t1.gradient(p, a)
        d2 = t2.gradient(d1, a)
    d3 = t3.gradient(d2, a)
    with mpmath.workdps(30):
        for k, got in ((1, d1), (2, d2), (3, d3)):
            want = [float(mpmath.diff(lambda t, xi=xi: mpmath.gammainc(t, 0, xi, regularized=True),
                                      ai, k)) for ai, xi in zip(A[pick], X[pick], strict=True)]
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-8)


def test_edges():
    a = fg.constant([2.0, 0.5, 2.0, -1.0, 2.0, 2.0], fg.float64)
    x = fg.constant([0.0, 0.0, np.inf, 1.0, -1.0, 1e300], fg.float64)
    np.testing.assert_array_equal(fg.math.igamma(a, x).numpy(), [0, 0, 1, np.nan, np.nan, 1])
    np.testing.assert_array_equal(fg.math.igammac(a, x).numpy(), [1, 1, 0, np.nan, np.nan, 0])
    with pytest.raises(TypeError, match=r"finegrad\.igamma: inputs have different dtypes"):
        fg.math.igamma(fg.constant(1.0), fg.constant(1.0, fg.float64))


@pytest.mark.parametrize("fn", ["igamma", "igammac"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_gradients_match_tensorflow(fn, dtype):
    tf = pytest.importorskip("tensorflow")
    # TensorFlow's float32 kernel computes in float32 (finegrad in float64): compare where
    # float32 rounding in TensorFlow stays small (a <= 50)
    keep = A <= 50
    results = []
    for lib in (tf, fg):
        a, x = lib.constant(A[keep].astype(dtype)), lib.constant(X[keep].astype(dtype))
        with lib.GradientTape(persistent=True) as tape:
            tape.watch([a, x])
            y = getattr(lib.math, fn)(a, x)
        results.append([y.numpy()] + [g.numpy() for g in tape.gradient(y, [a, x])])
    tol = dict(rtol=2e-4, atol=1e-7) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-14)
    for got, want in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(got, want, **tol)
