"""ndtri, erfcinv, the modified Bessel functions, Hurwitz zeta and betainc: values against SciPy
and TensorFlow (when installed), TensorFlow's conventions at the edges, gradients against the
closed forms TensorFlow uses, and the errors."""
import numpy as np
import pytest

import finegrad as fg

from test_special_functions import grad64

rng = np.random.default_rng(7)


def _rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))


def test_ndtri_and_erfcinv_match_scipy_into_the_far_tail():
    sp = pytest.importorskip("scipy.special")
    p = np.concatenate([rng.uniform(0, 1, 500), [1e-300, 1e-100, 1e-20, 1e-16, 0.5,
                                                 1 - 1e-12]])
    assert _rel(fg.math.ndtri(fg.constant(p, fg.float64)).numpy(), sp.ndtri(p)) < 1e-14
    c = np.concatenate([2 * p, [1.5, 2 - 1e-12]])
    assert _rel(fg.math.erfcinv(fg.constant(c, fg.float64)).numpy(), sp.erfcinv(c)) < 1e-14


def test_ndtri_edges():
    out = fg.math.ndtri(fg.constant([0., 1., -0.5, 1.5], fg.float64)).numpy()
    np.testing.assert_array_equal(out[:2], [-np.inf, np.inf])
    assert np.isnan(out[2:]).all()
    # signed zeros as TensorFlow's: ndtri(1/2) = +0, erfcinv(1) = -ndtri(1/2) / sqrt(2) = -0
    assert not np.signbit(fg.math.ndtri(fg.constant(0.5, fg.float64)).numpy())
    assert np.signbit(fg.math.erfcinv(fg.constant(1., fg.float64)).numpy())
    out = fg.math.erfcinv(fg.constant([0., 2., 2.5])).numpy()
    np.testing.assert_array_equal(out[:2], [np.inf, -np.inf])
    assert out.dtype == np.float32 and np.isnan(out[2])


@pytest.mark.parametrize("name", ["i0e", "i1e", "i0", "i1"])
def test_bessel_match_scipy(name):
    sp = pytest.importorskip("scipy.special")
    x = np.concatenate([rng.uniform(-60, 60, 1000), [0, 1e-12, -19.999, 20.001, 500, -700]])
    out = getattr(fg.math, "bessel_" + name)(fg.constant(x, fg.float64)).numpy()
    want = getattr(sp, name)(x)
    nz = want != 0
    assert _rel(out[nz], want[nz]) < 5e-15 and (out[~nz] == 0).all()


def test_bessel_infinities():
    x = fg.constant([np.inf, -np.inf], fg.float64)
    np.testing.assert_array_equal(fg.math.bessel_i0e(x).numpy(), [0, 0])
    np.testing.assert_array_equal(fg.math.bessel_i0(x).numpy(), [np.inf, np.inf])
    np.testing.assert_array_equal(fg.math.bessel_i1(x).numpy(), [np.inf, -np.inf])


def test_bessel_gradients_closed_forms():
    sp = pytest.importorskip("scipy.special")
    x = np.array([-3., -0.5, 0.7, 4.])
    np.testing.assert_allclose(grad64(fg.math.bessel_i0e, x),
                               sp.i1e(x) - np.sign(x) * sp.i0e(x), rtol=1e-13)
    np.testing.assert_allclose(grad64(fg.math.bessel_i1e, x),
                               sp.i0e(x) - sp.i1e(x) * (np.sign(x) + 1 / x), rtol=1e-13)
    np.testing.assert_allclose(grad64(fg.math.bessel_i0, x), sp.i1(x), rtol=1e-13)
    np.testing.assert_allclose(grad64(fg.math.bessel_i1, x), sp.i0(x) - sp.i1(x) / x,
                               rtol=1e-13)
    # I1'(0) = 1/2, and likewise for the scaled form
    assert grad64(fg.math.bessel_i1, [0.]) == 0.5 and grad64(fg.math.bessel_i1e, [0.]) == 0.5


def test_zeta_matches_scipy_and_conventions():
    sp = pytest.importorskip("scipy.special")
    s, q = rng.uniform(1.05, 12, 300), rng.uniform(0.05, 20, 300)
    assert _rel(fg.math.zeta(fg.constant(s, fg.float64), q).numpy(), sp.zeta(s, q)) < 1e-13
    # negative q: summed up to q + n > 0 for an integer x
    out = fg.math.zeta(fg.constant([2., 3.], fg.float64), [-1.5, -0.5]).numpy()
    assert _rel(out, [1 / 1.5 ** 2 + 1 / 0.5 ** 2 + sp.zeta(2, 0.5),
                      -1 / 0.5 ** 3 + sp.zeta(3, 0.5)]) < 1e-14
    x = fg.constant([1., 0.5, 2., 3., 2.5], fg.float64)
    out = fg.math.zeta(x, [1., 1., -2., -2., -0.5]).numpy()
    assert out[0] == np.inf and out[2] == np.inf
    assert np.isnan(out[[1, 3, 4]]).all()


def test_zeta_gradient_in_q_only():
    x, q = fg.constant(3., fg.float64), fg.constant(1.5, fg.float64)
    with fg.GradientTape() as tape:
        tape.watch([x, q])
        y = fg.math.zeta(x, q)
    gx, gq = tape.gradient(y, [x, q])
    assert gx is None
    assert abs(float(gq) + 3 * float(fg.math.zeta(4., q))) < 1e-14


def test_betainc_matches_scipy_and_edges():
    sp = pytest.importorskip("scipy.special")
    a, b, x = rng.uniform(0.1, 30, 500), rng.uniform(0.1, 30, 500), rng.uniform(0, 1, 500)
    out = fg.math.betainc(fg.constant(a, fg.float64), b, x).numpy()
    np.testing.assert_allclose(out, sp.betainc(a, b, x), rtol=1e-11, atol=1e-300)
    out = fg.math.betainc(fg.constant([1., 1., -1., 1.], fg.float64), [1., 1., 1., 0.],
                          [0., 1., 0.5, 0.5]).numpy()
    np.testing.assert_array_equal(out[:2], [0, 1])
    assert np.isnan(out[2:]).all()


def test_betainc_gradient_is_the_density_in_x_only():
    a, b, x = (fg.constant(v, fg.float64) for v in (2., 3., 0.25))
    with fg.GradientTape() as tape:
        tape.watch([a, b, x])
        y = fg.math.betainc(a, b, x)
    ga, gb, gx = tape.gradient(y, [a, b, x])
    assert ga is None and gb is None
    assert abs(float(gx) - 12 * 0.25 * 0.75 ** 2) < 1e-14   # x (1-x)^2 / B(2, 3)


def test_errors_name_the_function():
    with pytest.raises(TypeError, match="finegrad.zeta: inputs have different dtypes"):
        fg.math.zeta(fg.constant(2., fg.float64), fg.constant(1.))
    with pytest.raises(TypeError, match="finegrad.math.betainc"):
        fg.math.betainc(fg.constant(2), 3, fg.constant(1))
    with pytest.raises(TypeError, match="finegrad.ndtri"):
        fg.math.ndtri(fg.constant(1))


_TF_CASES = [
    ("ndtri", (lambda: [rng.uniform(0.001, 0.999, 200)])),
    ("erfcinv", (lambda: [rng.uniform(0.002, 1.998, 200)])),
    ("bessel_i0e", (lambda: [rng.uniform(-30, 30, 200)])),
    ("bessel_i1e", (lambda: [rng.uniform(-30, 30, 200)])),
    ("bessel_i0", (lambda: [rng.uniform(-30, 30, 200)])),
    ("bessel_i1", (lambda: [rng.uniform(-30, 30, 200)])),
    ("zeta", (lambda: [rng.uniform(1.1, 8, 200), rng.uniform(0.2, 8, 200)])),
    ("betainc", (lambda: [rng.uniform(0.2, 8, 200), rng.uniform(0.2, 8, 200),
                          rng.uniform(0, 1, 200)])),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,make", _TF_CASES)
def test_values_and_gradients_match_tensorflow(name, make, dtype):
    tf = pytest.importorskip("tensorflow")
    args = [np.asarray(v, dtype) for v in make()]
    targs, fargs = [tf.constant(v) for v in args], [fg.constant(v) for v in args]
    with tf.GradientTape() as tape:
        tape.watch(targs)
        want = getattr(tf.math, name)(*targs)
    wgrads = tape.gradient(want, targs)
    with fg.GradientTape() as tape:
        tape.watch(fargs)
        got = getattr(fg.math, name)(*fargs)
    grads = tape.gradient(got, fargs)
    assert got.numpy().dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol)
    for g, w in zip(grads, wgrads, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            # float32: i0e' and i1e' cancel (i1e - i0e ~ i0e / 2x), in TensorFlow as here
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=tol * 100, atol=tol)


@pytest.mark.parametrize("name", ["ndtri", "bessel_i0e", "bessel_i1e", "bessel_i1"])
def test_second_derivatives_match_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    x = np.array([0.2, 0.45, 0.8]) if name == "ndtri" else np.array([-2.5, 0.3, 1.7])

    def second_derivative(lib):   # the same nested tapes in TensorFlow and in finegrad
        t = lib.constant(x)
        with lib.GradientTape() as outer:
            outer.watch(t)
            with lib.GradientTape() as inner:
                inner.watch(t)
                y = getattr(lib.math, name)(t)
            g = inner.gradient(y, t)
        return outer.gradient(g, t).numpy()
    np.testing.assert_allclose(second_derivative(fg), second_derivative(tf), rtol=1e-12)
