"""The derivatives of cumulative_logsumexp where inputs are -inf (issue 22, cause 13).

Where an output is finite, ``d out_i / d x_j = exp(x_j - out_i)`` (0 for x_j = -inf). Where
an output is -inf (all of its prefix is -inf): the first output is the identity of the first
input (derivative 1, as JAX gives); for a prefix of two or more -inf inputs the derivative
is undefined (a softmax's limit that depends on the path) and is nan, as in JAX, TensorFlow
and reduce_logsumexp, but only where a nonzero cotangent (tangent) asks for it. TensorFlow
gives nan at every -inf input; finegrad once gave 0, then 1 for each input of the prefix
(which sums to k along the diagonal direction, where the true slope is 1).
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


DEFINED = [
    ([NEG, 0.], {}), ([NEG], {}), ([0., NEG], {"reverse": True}),
    ([NEG, 0.], {"exclusive": True}), ([NEG, 3.], {"exclusive": True, "reverse": True}),
    ([1., NEG, 2.], {}), ([NEG, 1., NEG], {}),
]
UNDEFINED = [([NEG, NEG, 1.], {}), ([NEG, NEG, NEG], {"exclusive": True, "reverse": True}),
             ([NEG, NEG], {})]
CASES = DEFINED + UNDEFINED


@pytest.mark.parametrize("x, options", DEFINED, ids=str)
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
    # all -inf: out0 = x0 (1), out1 = lse(-inf, -inf) (undefined: nan where asked for)
    np.testing.assert_array_equal(_grad([NEG, NEG], [1., 0.]), [1., 0.])
    assert np.isnan(_grad([NEG, NEG], [1., 2.])).all()
    # a -inf mask whose outputs are not used keeps finite gradients
    np.testing.assert_allclose(_grad([NEG, NEG, 0., 1.], [0., 0., 0., 1.]),
                               [0., 0., 1 / (1 + np.e), np.e / (1 + np.e)])
    np.testing.assert_array_equal(_jvp([NEG, NEG, 0.], [0., 0., 2.]), [0., 0., 2.])
    assert np.isnan(_jvp([NEG, NEG, 0.], [0., 1., 0.])[1])


@pytest.mark.parametrize("x, options", UNDEFINED, ids=str)
def test_undefined_partials_are_nan(x, options):
    g = _grad(x, np.ones(len(x)), **options)
    assert np.isnan(g).any()


def test_matches_jax_where_jax_is_defined(jax64):
    jax = jax64
    for x in ([NEG, 0., 1.], [0., NEG, 1.], [NEG, NEG, 0.]):
        t = fg.constant(np.array(x))
        with fg.GradientTape() as tape:
            tape.watch(t)
            y = fg.math.cumulative_logsumexp(t)
        ours = tape.jacobian(y, t).numpy()
        theirs = np.asarray(jax.jacfwd(jax.lax.cumlogsumexp)(np.array(x)))
        known = np.isfinite(theirs)   # JAX's forward mode leaks nan past an undefined row
        np.testing.assert_allclose(ours[known], theirs[known], rtol=1e-14)
        assert np.isnan(ours).sum() <= np.isnan(theirs).sum()


def test_traced_and_2d_and_batched_jacobian():
    x = np.array([[NEG, NEG, 0.], [NEG, 1., 2.]])
    f = fg.function(lambda t: fg.math.cumulative_logsumexp(t, axis=1))
    t = fg.constant(x)
    with fg.GradientTape() as tape:
        tape.watch(t)
        y = f(t)
    jac = tape.jacobian(y, t).numpy()
    assert jac[0, 0, 0, 0] == 1. and np.isnan(jac[0, 1, 0, :2]).all()
    assert jac[0, 2, 0, 0] == 0. and jac[0, 2, 0, 2] == 1.
    assert np.isfinite(jac[1]).all()
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
