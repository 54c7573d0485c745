"""Behaviours found missing or different in a sweep of TensorFlow's tape, forward-mode and
custom-gradient behaviours: ``get_static_value``, ``math.atan2``, ``numpy_function`` and
``py_function`` (values and gradients against closed forms and, when installed,
TensorFlow)."""
import numpy as np
import pytest

import finegrad as fg


def test_get_static_value_eager_traced_and_others():
    assert fg.get_static_value(fg.constant([1, 2])).tolist() == [1, 2]
    assert fg.get_static_value([1, 2]) == [1, 2]          # non-tensors come back unchanged
    assert fg.get_static_value(fg.Variable(1.0)) is None  # a variable's value may change
    seen = {}

    @fg.function
    def f(x):
        c = fg.constant(2.0)
        seen.update(arg=fg.get_static_value(x), const=fg.get_static_value(c),
                    derived=fg.get_static_value(x * c))
        return x

    f(fg.constant(1.0))
    assert seen["arg"] is None and seen["derived"] is None
    assert float(seen["const"]) == 2.0


def test_get_static_value_lets_a_custom_gradient_use_numpy():
    # The forward pass of a custom gradient may leave the graph through the static value;
    # the gradient then comes only from grad_fn.
    @fg.custom_gradient
    def f(x):
        def grad(dy):
            return dy * 2.1
        return fg.constant(2.0 * fg.get_static_value(x)), grad

    c = fg.constant(1.0)
    with fg.GradientTape() as tape:
        tape.watch(c)
        y = f(c)
    assert float(y) == 2.0
    np.testing.assert_allclose(tape.gradient(y, c).numpy(), 2.1)


def test_atan2_values_and_gradients():
    y = np.array([1.0, -1.0, 0.5, -2.0])
    x = np.array([1.0, 2.0, -3.0, -0.5])
    ty, tx = fg.constant(y, fg.float64), fg.constant(x, fg.float64)
    with fg.GradientTape(persistent=True) as tape:
        tape.watch([ty, tx])
        out = fg.math.atan2(ty, tx)
    np.testing.assert_allclose(out.numpy(), np.arctan2(y, x))
    r2 = x * x + y * y
    np.testing.assert_allclose(tape.gradient(out, ty).numpy(), x / r2)
    np.testing.assert_allclose(tape.gradient(out, tx).numpy(), -y / r2)
    assert fg.atan2 is fg.math.atan2
    with pytest.raises(TypeError, match=r"finegrad\.atan2"):
        fg.math.atan2(fg.constant([1]), fg.constant([2]))


def test_atan2_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    y = np.array([[1.0, -1.0, 0.0], [0.5, -2.0, 3.0]], np.float32)
    x = np.array([0.7, -3.0, 0.0], np.float32)
    results = []
    for lib in (tf, fg):
        a, b = lib.constant(y), lib.constant(x)
        with lib.GradientTape(persistent=True) as tape:
            tape.watch([a, b])
            out = lib.math.atan2(a, b)
        results.append([out.numpy()] + [g.numpy() for g in tape.gradient(out, [a, b])])
    for got, want in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)


def _blackbox_loss():
    """A NumPy simulator with a hand-written adjoint, wrapped by custom_gradient."""
    def forward(theta):
        return np.cumsum(np.sin(theta)).astype(theta.dtype)

    def adjoint(theta, dy):
        return (np.cos(theta) * np.cumsum(dy[::-1])[::-1]).astype(theta.dtype)

    @fg.custom_gradient
    def simulate(theta):
        y = fg.numpy_function(forward, [theta], theta.dtype)

        def grad(dy):
            return fg.numpy_function(adjoint, [theta, dy], theta.dtype)
        return y, grad

    return lambda x: fg.reduce_sum(simulate(x) ** 2)


def test_numpy_function_eager_and_traced_with_custom_gradient():
    x = fg.constant([0.3, 1.0, 2.0], fg.float64)
    loss = _blackbox_loss()

    def value_and_grad(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        return y, tape.gradient(y, x)

    s = np.cumsum(np.sin(x.numpy()))
    want = np.cos(x.numpy()) * np.cumsum((2 * s)[::-1])[::-1]
    for fn in (value_and_grad, fg.function(value_and_grad)):
        y, g = fn(x)
        np.testing.assert_allclose(y.numpy(), np.sum(s ** 2))
        np.testing.assert_allclose(g.numpy(), want)
    # numpy_function itself has no gradient, as in TensorFlow
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.numpy_function(lambda a: a * 2, [x], fg.float64)
    assert tape.gradient(y, x) is None
    a, b = fg.numpy_function(lambda a: (a, a.sum()), [x], [fg.float32, fg.int64])
    assert a.dtype == fg.float32 and b.dtype == fg.int64 and int(b) == 3
    with pytest.raises(ValueError, match=r"finegrad\.numpy_function: func returned 1 values"):
        fg.numpy_function(lambda a: a, [x], [fg.float64, fg.float64])


def test_py_function_gradients_eager_and_traced():
    x = fg.constant([1.0, 2.0], fg.float64)

    def value_and_grad(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = fg.py_function(lambda a: a * a + fg.sin(a), [x], fg.float64)
        return y, tape.gradient(y, x)

    for fn in (value_and_grad, fg.function(value_and_grad)):
        y, g = fn(x)
        np.testing.assert_allclose(y.numpy(), x.numpy() ** 2 + np.sin(x.numpy()))
        np.testing.assert_allclose(g.numpy(), 2 * x.numpy() + np.cos(x.numpy()))
    r = fg.py_function(lambda a, b: (a + b, a * b), [x, x], [fg.float64, fg.float64])
    np.testing.assert_allclose(r[1].numpy(), [1.0, 4.0])


def test_py_function_second_order_inside_function_is_refused():
    @fg.function
    def hess(x):
        with fg.GradientTape() as outer:
            outer.watch(x)
            with fg.GradientTape() as inner:
                inner.watch(x)
                y = fg.py_function(lambda a: a ** 3, [x], fg.float64)
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    with pytest.raises(NotImplementedError, match=r"finegrad\.py_function: no second"):
        hess(fg.constant(2.0, fg.float64))


def test_forward_accumulator_refuses_a_primal_twice_and_reentry():
    x = fg.constant(-2.0)
    with pytest.raises(ValueError, match=r"ForwardAccumulator: a primal is watched multiple"):
        fg.autodiff.ForwardAccumulator([x, x], [1.0, 2.0])
    with fg.autodiff.ForwardAccumulator(x, 1.5) as acc:
        y = 4.0 * x
        with pytest.raises(ValueError, match=r"ForwardAccumulator: this accumulator is "
                                             r"already recording"):
            with acc:
                pass
        assert float(acc.jvp(y)) == 6.0     # still recording after the refused re-entry
        yy = y * y
    assert float(acc.jvp(yy)) == 6.0 * -8.0 * 2.0
    assert acc.jvp(4.0 * x) is None          # ops after the block are not recorded
    with acc:                                # a finished accumulator may record again
        z = y * 3.0
    assert float(acc.jvp(z)) == 18.0
