"""The derivatives of cumulative_logsumexp where inputs are -inf (issue 22, cause 13).

Where an output is finite, ``d out_i / d x_j = exp(x_j - out_i)`` (0 for x_j = -inf). Where
an output is -inf (all of its prefix is -inf), each input of the prefix has partial
derivative 1 (the others at -inf, ``out_i`` is ``x_j``): a finite difference in that input
alone, at any finite value, gives exactly that. TensorFlow gives nan there; finegrad gave 0.
"""
import numpy as np
import pytest

import finegrad as fg
from finegrad.testing import check_gradients

NEG = -np.inf


def _grad(x, w, **options):
    x = fg.constant(np.asarray(x, np.float64))
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(fg.math.cumulative_logsumexp(x, **options) * np.asarray(w))
    return tape.gradient(y, x).numpy()


def _jvp(x, v, **options):
    x = fg.constant(np.asarray(x, np.float64))
    with fg.autodiff.ForwardAccumulator(x, fg.constant(np.asarray(v, np.float64))) as acc:
        y = fg.math.cumulative_logsumexp(x, **options)
    return acc.jvp(y).numpy()


def _one_sided_fd(x, j, w, options, at=-30., h=1e-4):
    """d/dx_j of sum(w * scan(x)), with x_j moved from -inf to the finite ``at`` (the others
    kept), by a central difference there: the partial derivative's limit."""
    def f(v):
        z = np.array(x, np.float64)
        z[j] = v
        out = fg.math.cumulative_logsumexp(fg.constant(z), **options).numpy()
        # outputs still -inf do not depend on x_j (their prefix does not hold it)
        return float(np.sum(np.where(np.isfinite(out), np.asarray(w) * out, 0.)))
    return (f(at + h) - f(at - h)) / (2 * h)


CASES = [
    ([NEG, 0.], {}), ([NEG, NEG, 1.], {}), ([NEG], {}), ([0., NEG], {"reverse": True}),
    ([NEG, 0.], {"exclusive": True}), ([NEG, NEG, NEG], {"exclusive": True, "reverse": True}),
    ([1., NEG, 2.], {}),
]


@pytest.mark.parametrize("x, options", CASES, ids=str)
def test_gradient_at_minus_inf_is_the_partial_derivative(x, options):
    w = np.arange(1., len(x) + 1)
    g = _grad(x, w, **options)
    assert np.isfinite(g).all()
    for j, xj in enumerate(x):
        if xj == NEG:
            np.testing.assert_allclose(g[j], _one_sided_fd(x, j, w, options), atol=1e-5)


@pytest.mark.parametrize("x, options", CASES, ids=str)
def test_forward_mode_agrees_with_reverse(x, options):
    rng = np.random.default_rng(13)
    v, w = rng.standard_normal(len(x)), rng.standard_normal(len(x))
    np.testing.assert_allclose(np.dot(w, _jvp(x, v, **options)),
                               np.dot(_grad(x, w, **options), v), rtol=1e-10, atol=1e-12)


def test_known_values():
    # out = [x0, lse(x0, x1)]: at [-inf, 0] d out0/d x0 = 1, d out1/d x0 = 0
    np.testing.assert_array_equal(_grad([NEG, 0.], [1., 2.]), [1., 2.])
    # all -inf: out_i = x_j along each input alone
    np.testing.assert_array_equal(_grad([NEG, NEG], [1., 2.]), [3., 2.])


def test_traced_and_2d_and_batched_jacobian():
    x = np.array([[NEG, NEG, 0.], [NEG, 1., 2.]])
    f = fg.function(lambda t: fg.math.cumulative_logsumexp(t, axis=1))
    t = fg.constant(x)
    with fg.GradientTape() as tape:
        tape.watch(t)
        y = f(t)
    jac = tape.jacobian(y, t).numpy()
    assert np.isfinite(jac).all()
    assert jac[0, 1, 0, 0] == 1. and jac[0, 1, 0, 1] == 1. and jac[0, 2, 0, 0] == 0.
    np.testing.assert_allclose(jac[1, 2, 1, 1:], np.exp(x[1, 1:] - np.logaddexp(1., 2.)))


def test_finite_inputs_still_check_at_second_order():
    check_gradients(lambda x: fg.exp(fg.math.cumulative_logsumexp(x, exclusive=True)),
                    [np.array([0.3, -1., 2.])], order=2)
    check_gradients(fg.math.cumulative_logsumexp, [np.array([0.3, -1., 2.])], order=2)


def test_tensorflow_gives_nan_where_finegrad_is_exact():
    tf = pytest.importorskip("tensorflow")
    x = tf.constant([NEG, 0.], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.math.cumulative_logsumexp(x) * [1., 2.])
    g = tape.gradient(y, x).numpy()
    assert np.isnan(g[0]) and g[1] == 2.   # finegrad: [1., 2.]; the finite entry agrees
