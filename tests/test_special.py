"""Values of the ops in ops/math/inverse_trig.py against NumPy, their gradients, and their
bad input."""
import numpy as np
import pytest

import finegrad as fg


def _grad(f, x):
    x = fg.constant(x)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return y.numpy(), tape.gradient(y, x).numpy()


def test_acosh_values_and_gradient():
    x = np.array([1.0, 1.5, 3.0, 10.0])
    y, g = _grad(fg.math.acosh, x)
    np.testing.assert_allclose(y, np.arccosh(x))
    np.testing.assert_allclose(g[1:], 1 / np.sqrt(x[1:] ** 2 - 1))
    assert g[0] == np.inf
    assert np.isnan(fg.math.acosh(fg.constant(0.5)).numpy())


def test_atanh_values_and_gradient():
    x = np.array([-0.9, 0.0, 0.5])
    y, g = _grad(fg.math.atanh, x)
    np.testing.assert_allclose(y, np.arctanh(x))
    np.testing.assert_allclose(g, 1 / (1 - x ** 2))


def test_rint_half_to_even_and_no_gradient():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.7])
    np.testing.assert_array_equal(fg.math.rint(fg.constant(x)).numpy(), np.rint(x))
    v = fg.constant(x)
    with fg.GradientTape() as tape:
        tape.watch(v)
        y = fg.math.rint(v)
    assert tape.gradient(y, v) is None


def test_log_sigmoid_values_and_gradient():
    x = np.array([-1000.0, -5.0, 0.0, 3.0, 1000.0])
    y, g = _grad(fg.math.log_sigmoid, x)
    np.testing.assert_allclose(y, -np.logaddexp(0, -x))
    np.testing.assert_allclose(g, 1 / (1 + np.exp(x)))
    assert np.isfinite(y[0])


@pytest.mark.parametrize("fn", [fg.math.acosh, fg.math.atanh, fg.math.log_sigmoid])
def test_integer_input_is_a_type_error(fn):
    with pytest.raises(TypeError, match=f"finegrad.{fn.__name__}"):
        fn(fg.constant([1, 2]))


def test_top_level_aliases():
    # TensorFlow has tf.cumsum at the top level, and cumprod only as tf.math.cumprod
    assert fg.cumsum is fg.math.cumsum and not hasattr(fg, "cumprod")
    np.testing.assert_array_equal(fg.cumsum(fg.constant([1., 2., 3.])).numpy(), [1., 3., 6.])


def test_squared_difference_values_gradients_and_integers():
    x, y = fg.constant([[1.0, 4.0], [-2.0, 0.5]]), fg.constant([2.0, -1.0])
    with fg.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = fg.math.squared_difference(x, y)
    d = x.numpy() - y.numpy()
    np.testing.assert_allclose(z.numpy(), d ** 2)
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), 2 * d)
    np.testing.assert_allclose(tape.gradient(z, y).numpy(), (-2 * d).sum(axis=0))
    out = fg.math.squared_difference(fg.constant([1, 5]), fg.constant([3, 2]))
    np.testing.assert_array_equal(out.numpy(), [4, 9])
    assert out.dtype == fg.int32
