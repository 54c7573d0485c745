"""finegrad.stable, each function checked by check_custom_gradient over
extreme inputs, and compared with the plain composite where that overflows.

Functions built per call (logsumexp, safe_norm, clip_gradient, ...) create their
custom_gradient function inside; the `inner` fixture captures it so check_custom_gradient can
check the rule itself.
"""
import numpy as np
import pytest

import finegrad as tf
import finegrad._src.ad.stable as stable_impl
from finegrad.testing import check_custom_gradient

S = tf.stable

# extreme and ordinary points, built from float64 NumPy arrays (exact)
EXTREME = np.array([-1e4, -30., -1., -1e-310, -5e-324, 0., 5e-324, 1e-310, 0.5, 3., 30., 1e4])
NONNEG = EXTREME[EXTREME >= 0]


def _c64(a):
    return tf.constant(np.asarray(a, np.float64))


def _grad(fn, x, *args, **kw):
    with np.errstate(all="ignore"):
        with tf.GradientTape() as t:
            t.watch(x)
            y = fn(x, *args, **kw)
            y = tf.reduce_sum(y) if y.shape.rank else y
        return t.gradient(y, x)


def _np(t):
    return np.asarray(t.numpy())


@pytest.fixture
def inner(monkeypatch):
    """inner(fn, *args, **kw): call fn and return the custom_gradient function it built."""
    real = stable_impl.custom_gradient
    box = []

    def spy(f=None, **k):
        h = real(f, **k)
        box.append(h)
        return h
    monkeypatch.setattr(stable_impl, "custom_gradient", spy)

    def get(fn, *args, **kw):
        box.clear()
        fn(*args, **kw)
        assert len(box) == 1
        return box[0]
    return get


# --- exact rules: check_custom_gradient is ok over extreme inputs ----------------------------

@pytest.mark.parametrize("fn", [S.log1pexp, S.softplus, S.log_sigmoid])
def test_elementwise_exact_rules_ok_over_extremes(fn):
    r = check_custom_gradient(fn, [_c64(EXTREME)])
    assert r.ok, str(r)
    assert r.inputs["x"].custom_nonfinite == []


def test_softplus_is_log1pexp():
    assert S.softplus is S.log1pexp


def test_log1pexp_extremes_float32_plain_nan_stable_one():
    x = tf.constant(1e4)
    plain = _grad(lambda v: tf.math.log(1 + tf.exp(v)), x)
    assert np.isnan(plain.numpy())
    g = _grad(S.log1pexp, x)
    assert g.dtype == tf.float32 and g.numpy() == np.float32(1.0)
    assert S.log1pexp(x).numpy() == np.float32(1e4)
    # and at -1e4: value 0, gradient 0; at 0: log 2 and 1/2
    xs = tf.constant([-1e4, 0.])
    np.testing.assert_array_equal(_np(S.log1pexp(xs)), np.array([0., np.log(2.)], np.float32))
    np.testing.assert_array_equal(_np(_grad(S.log1pexp, xs)), [0., 0.5])


def test_log_sigmoid_extremes_float32():
    x = tf.constant([-1e4, 1e4, 0.])
    plain = _grad(lambda v: tf.math.log(tf.sigmoid(v)), x)
    assert not np.isfinite(_np(plain)[0])
    g = _np(_grad(S.log_sigmoid, x))
    np.testing.assert_array_equal(g, [1., 0., 0.5])
    np.testing.assert_array_equal(_np(S.log_sigmoid(x)),
                                  np.array([-1e4, 0., -np.log(2.)], np.float32))


def test_log1pexp_second_derivative_float64():
    x = _c64([-1e4, 0., 2., 1e4])
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.reduce_sum(S.log1pexp(x))
        g = t1.gradient(y, x)
    h = _np(t2.gradient(g, x))
    s = 1 / (1 + np.exp(-2.))
    np.testing.assert_allclose(h, [0., 0.25, s * (1 - s), 0.], atol=1e-300, rtol=1e-12)


LSE_X = np.array([[1e4, -1e4, 0., 5e-324], [1e-310, 0.5, -3., 30.], [-1e4, -1e4, 1e4, 1e4]])


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp_ok_over_extremes(inner, axis, keepdims):
    x = _c64(LSE_X)
    h = inner(S.logsumexp, x, axis=axis, keepdims=keepdims)
    r = check_custom_gradient(h, [x])
    assert r.ok, str(r)
    # value and shape agree with a direct float64 computation
    y = S.logsumexp(x, axis=axis, keepdims=keepdims)
    m = np.max(LSE_X, axis=axis, keepdims=True)
    want = np.log(np.sum(np.exp(LSE_X - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        want = np.squeeze(want, axis=axis) if axis is not None else want.reshape(())
    np.testing.assert_allclose(_np(y), want, rtol=1e-14)


def test_logsumexp_gradient_finite_where_plain_is_nan():
    x = tf.constant([1e4, 1e4])
    plain = _grad(lambda v: tf.math.log(tf.reduce_sum(tf.exp(v))), x)
    assert np.isnan(_np(plain)).all()
    g = _np(_grad(S.logsumexp, x))
    assert np.isfinite(g).all()
    np.testing.assert_allclose(g, [0.5, 0.5], rtol=1e-3)
    assert float(S.logsumexp(_c64([1e4, 1e4]))) == 1e4 + np.log(2.)
    np.testing.assert_allclose(_np(_grad(S.logsumexp, _c64([1e4, 1e4]))), [.5, .5], rtol=1e-12)
    xs = tf.constant([[1e4, -1e4], [0., 0.]])
    np.testing.assert_array_equal(_np(_grad(S.logsumexp, xs, axis=1)), [[1., 0.], [.5, .5]])
    np.testing.assert_array_equal(_np(_grad(S.logsumexp, xs, axis=0)), [[1., 0.], [0., 1.]])


@pytest.mark.parametrize("v", [1e4, 1e7])
def test_logsumexp_gradient_is_exact_softmax_in_float32(v):
    x = tf.constant([v, v])
    np.testing.assert_allclose(_np(_grad(S.logsumexp, x)), [0.5, 0.5], rtol=1e-6)


def test_safe_sqrt_ok_over_extremes():
    r = check_custom_gradient(S.safe_sqrt, [_c64(NONNEG)], order=1)
    assert r.ok, str(r)
    # the plain sqrt's gradient is inf at 0 only (0.5 / sqrt(5e-324) is 2.2e161)
    assert r.inputs["x"].custom_nonfinite == []
    assert r.inputs["x"].plain_nonfinite == [(0,)]
    # second order away from the kink at 0
    r2 = check_custom_gradient(S.safe_sqrt, [_c64([0.5, 3., 30., 1e4])])
    assert r2.ok, str(r2)


def test_safe_sqrt_gradient_at_zero_and_tiny():
    x = tf.constant([0., 4.])
    plain = _np(_grad(tf.sqrt, x))
    assert np.isinf(plain[0])
    np.testing.assert_array_equal(_np(_grad(S.safe_sqrt, x)), [0., 0.25])
    g = _np(_grad(S.safe_sqrt, _c64([1e-300, 1e-310])))
    np.testing.assert_allclose(g, 0.5 / np.sqrt([1e-300, 1e-310]), rtol=1e-14)


NORM_X = np.array([[0., 0., 0.], [1e-310, 5e-324, 0.], [3., -4., 0.], [1e4, -1e4, 1.]])


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_safe_norm_ok_over_extremes(inner, axis):
    x = _c64(NORM_X)
    h = inner(S.safe_norm, x, axis=axis)
    # order 1: an all-zero row is a kink of the norm (finite differences of its gradient
    # there are meaningless)
    r = check_custom_gradient(h, [x], order=1)
    assert r.ok, str(r)
    x2 = _c64(NORM_X[2:])
    r2 = check_custom_gradient(inner(S.safe_norm, x2, axis=axis), [x2])
    assert r2.ok, str(r2)


def test_safe_norm_gradient_zero_at_zero():
    x = tf.zeros(3)
    plain = _np(_grad(lambda v: tf.sqrt(tf.reduce_sum(v * v)), x))
    assert not np.isfinite(plain).any()
    np.testing.assert_array_equal(_np(_grad(S.safe_norm, x)), [0., 0., 0.])
    xs = tf.constant([[0., 0.], [3., 4.]])
    np.testing.assert_array_equal(_np(S.safe_norm(xs, axis=1)), [0., 5.])
    np.testing.assert_allclose(_np(_grad(S.safe_norm, xs, axis=1)), [[0., 0.], [.6, .8]])
    kd = S.safe_norm(xs, axis=1, keepdims=True)
    assert tuple(kd.shape) == (2, 1)


def test_safe_divide_ok_away_from_division_by_zero():
    x = np.array([1., -2., 1e4, 5e-324, 3., -1e-310, 0.])
    y = np.array([2., -1e4, -1e4, 1., 0.5, 3., 1e4])
    r = check_custom_gradient(S.safe_divide, [_c64(x), _c64(y)])
    assert r.ok, str(r)
    assert list(r.inputs) == ["x", "y"]
    # 0 / 0 (with first order only: y = 0 is a kink of the rule itself)
    r1 = check_custom_gradient(S.safe_divide, [_c64(np.r_[0., x]), _c64(np.r_[0., y])],
                               order=1)
    assert r1.ok, str(r1)


def test_safe_divide_zero_gradient_at_y_zero():
    x = tf.constant([1., 1., -2.])
    y = tf.constant([0., 2., 0.])
    with np.errstate(all="ignore"):
        with tf.GradientTape() as t:
            t.watch([x, y])
            out = tf.reduce_sum(x / y)
        px, py = t.gradient(out, [x, y])
    assert not np.isfinite(_np(px)[0]) and not np.isfinite(_np(py)[0])
    with tf.GradientTape() as t:
        t.watch([x, y])
        out = S.safe_divide(x, y)
        total = tf.reduce_sum(out)
    gx, gy = t.gradient(total, [x, y])
    np.testing.assert_array_equal(_np(out), [0., 0.5, 0.])
    np.testing.assert_array_equal(_np(gx), [0., 0.5, 0.])
    np.testing.assert_array_equal(_np(gy), [0., -0.25, 0.])
    # the forward jumps at y = 0 (x != 0): finite differences disagree there, and the
    # report says where
    r = check_custom_gradient(S.safe_divide, [_c64([1., 1., -2.]), _c64([0., 2., 0.])],
                              order=1)
    assert not r.ok
    assert r.inputs["x"].ok
    assert not r.inputs["y"].ok and r.inputs["y"].where_fd in [(0,), (2,)]


def test_safe_divide_broadcasting():
    x = tf.constant([[1., 2.], [3., 4.]])
    y = tf.constant([2., 0.])
    with tf.GradientTape() as t:
        t.watch([x, y])
        out = tf.reduce_sum(S.safe_divide(x, y))
    gx, gy = t.gradient(out, [x, y])
    assert tuple(gy.shape) == (2,)
    np.testing.assert_array_equal(_np(gx), [[.5, 0.], [.5, 0.]])
    np.testing.assert_array_equal(_np(gy), [-(1. + 3.) / 4., 0.])


# --- gradient transformers: defined gradients, deliberately not the true ones ------------------

X4 = np.array([0.5, -2., 1e4, 5e-324])


def test_clip_gradient_exact():
    x = tf.constant([1., 2., 3.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = S.clip_gradient(x, -0.5, 1.)
        loss = tf.reduce_sum(y * tf.constant([5., -5., 0.25]))
    np.testing.assert_array_equal(_np(y), [1., 2., 3.])
    np.testing.assert_array_equal(_np(t.gradient(loss, x)), [1., -0.5, 0.25])


def test_clip_gradient_check(inner):
    x = _c64(X4)
    tight = check_custom_gradient(inner(S.clip_gradient, x, -0.01, 0.01), [x])
    assert not tight.ok and not tight.inputs["x"].ok
    u = np.random.default_rng(0).standard_normal(4)
    assert tight.inputs["x"].max_error_fd == pytest.approx(np.max(np.abs(u)) - 0.01, rel=1e-6)
    # wide bounds: the forward is the identity and the rule agrees
    wide = check_custom_gradient(inner(S.clip_gradient, x, -100., 100.), [x])
    assert wide.ok, str(wide)


def test_scale_gradient_exact_and_check(inner):
    x = tf.constant([1., -3.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = S.scale_gradient(x, 0.25)
        loss = tf.reduce_sum(y * tf.constant([2., 8.]))
    np.testing.assert_array_equal(_np(y), [1., -3.])
    np.testing.assert_array_equal(_np(t.gradient(loss, x)), [0.5, 2.])
    x = _c64(X4)
    r = check_custom_gradient(inner(S.scale_gradient, x, 0.1), [x])
    assert not r.ok and not r.inputs["x"].ok
    u = np.random.default_rng(0).standard_normal(4)
    assert r.inputs["x"].max_error_fd == pytest.approx(np.max(np.abs(0.9 * u)), rel=1e-6)
    assert check_custom_gradient(inner(S.scale_gradient, x, 1.), [x]).ok


def test_gradient_reversal_exact_and_check(inner):
    x = tf.constant([1., -3.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = S.gradient_reversal(x, 2.)
        loss = tf.reduce_sum(y * tf.constant([3., 1.]))
    np.testing.assert_array_equal(_np(y), [1., -3.])
    np.testing.assert_array_equal(_np(t.gradient(loss, x)), [-6., -2.])
    with tf.GradientTape() as t:
        t.watch(x)
        loss = tf.reduce_sum(S.gradient_reversal(x))
    np.testing.assert_array_equal(_np(t.gradient(loss, x)), [-1., -1.])
    x = _c64(X4)
    r = check_custom_gradient(inner(S.gradient_reversal, x), [x])
    assert not r.ok and not r.forward_ok
    # scale -1 makes the rule the identity's true gradient
    assert check_custom_gradient(inner(S.gradient_reversal, x, -1.), [x]).ok


def test_straight_through_round_exact_and_check():
    x = tf.constant([0.3, 1.7, -2.2])
    with tf.GradientTape() as t:
        t.watch(x)
        y = S.straight_through_round(x)
        loss = tf.reduce_sum(y * tf.constant([1., 2., 3.]))
    np.testing.assert_array_equal(_np(y), [0., 2., -2.])
    np.testing.assert_array_equal(_np(t.gradient(loss, x)), [1., 2., 3.])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1., 1., 1.])) as acc:
        y = S.straight_through_round(x)
    np.testing.assert_array_equal(_np(acc.jvp(y)), [1., 1., 1.])
    r = check_custom_gradient(S.straight_through_round, [_c64([0.3, 1.7, -2.2])])
    assert not r.ok and not r.inputs["x"].ok
    # round is locally constant: finite differences are 0, the rule gives u
    u = np.random.default_rng(0).standard_normal(3)
    assert r.inputs["x"].max_error_fd == pytest.approx(np.max(np.abs(u)), rel=1e-9)


def test_forward_mode_through_stable_functions():
    x = _c64([-1e4, 0., 2., 1e4])
    v = _c64([1., 1., 1., 1.])
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y1 = S.log1pexp(x)
        y2 = S.log_sigmoid(x)
        y3 = S.logsumexp(x)
    s = 1 / (1 + np.exp(-np.array([-1e4, 0., 2., 1e4])))
    np.testing.assert_allclose(_np(acc.jvp(y1)), s, rtol=1e-15)
    np.testing.assert_allclose(_np(acc.jvp(y2)), 1 - s, rtol=1e-14)
    np.testing.assert_allclose(float(acc.jvp(y3)), 1.0, rtol=1e-14)


# --- a conversion bug found while building extreme inputs --------------------------------------

def test_constant_list_with_float64_dtype_is_exact():
    a = tf.constant([1e-300, 0.1, 1e300, 5e-324], tf.float64).numpy()
    assert a.dtype == np.float64
    np.testing.assert_array_equal(a, np.array([1e-300, 0.1, 1e300, 5e-324]))
