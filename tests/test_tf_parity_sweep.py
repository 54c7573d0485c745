"""Behaviours found missing or different in a sweep of TensorFlow's tape, forward-mode and
custom-gradient behaviours: ``get_static_value`` and ``math.atan2`` (values and gradients
against closed forms and, when installed, TensorFlow)."""
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
