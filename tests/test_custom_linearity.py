"""Forward mode through a custom gradient whose rule is not linear in the upstream gradient
(issue 22, cause 4): a TypeError naming the function, ``jvp=`` and ``forward='none'``, on the
finegrad engine (eager, traced, nested) and on every `finegrad.ops` backend; linear rules keep
their exact tangents, and the check runs once per function."""
import numpy as np
import pytest

import finegrad as fg
from finegrad import ops

NONLINEAR = {
    "ignores_dy": lambda x, dy, lib: 2. * x,
    "adds_constant": lambda x, dy, lib: dy * 2. * x + 1.,
    "squares_dy": lambda x, dy, lib: dy * dy * 2. * x,
    "normalizes_dy": lambda x, dy, lib: dy / lib(dy) * 2. * x,
}
MESSAGE = r"forward mode through '[^']*\bf'.*linear in the upstream.*jvp=.*forward='none'"


def _square(rule, norm=fg.norm):
    @fg.custom_gradient
    def f(x):
        return x * x, lambda dy: rule(x, dy, norm)
    return f


def _jvp(f, x, v):
    with fg.autodiff.ForwardAccumulator(x, v) as acc:
        y = f(x)
    return acc.jvp(y)


X, V = fg.constant([1., 2.]), fg.constant([1., -1.])


@pytest.mark.parametrize("name", sorted(NONLINEAR))
def test_nonlinear_rule_in_forward_mode_raises(name):
    f = _square(NONLINEAR[name])
    with pytest.raises(TypeError, match=MESSAGE):
        _jvp(f, X, V)
    with pytest.raises(TypeError, match=MESSAGE):   # and again: never a silent tangent
        _jvp(f, X, V)
    with fg.GradientTape() as tape:   # reverse mode uses the rule as given
        tape.watch(X)
        y = f(X)
    assert tape.gradient(y, X) is not None


@pytest.mark.parametrize("name", sorted(NONLINEAR))
def test_nonlinear_rule_in_traced_forward_mode_raises(name):
    f = _square(NONLINEAR[name])
    with pytest.raises(TypeError, match=MESSAGE):
        fg.function(lambda x, v: _jvp(f, x, v))(X, V)


@pytest.mark.parametrize("name", sorted(NONLINEAR))
def test_nonlinear_rule_in_forward_over_reverse_raises(name):
    f = _square(NONLINEAR[name])
    with pytest.raises(TypeError, match=MESSAGE):
        with fg.autodiff.ForwardAccumulator(X, V) as acc:
            with fg.GradientTape() as tape:
                tape.watch(X)
                y = fg.reduce_sum(f(X))
            g = tape.gradient(y, X)
        acc.jvp(g)
        _jvp(f, X, V)


def test_nonlinear_rule_nested_in_another_custom_function():
    inner = _square(NONLINEAR["adds_constant"])

    @fg.custom_gradient
    def outer(x):
        y = inner(x)
        return y, lambda dy: dy * 2. * x

    with pytest.raises(TypeError, match=r"_square.<locals>.f'"):
        _jvp(lambda x: outer(x) + inner(x), X, V)


def test_linear_rules_keep_their_tangents_and_probe_once():
    calls = []

    @fg.custom_gradient
    def f(x):
        def grad(dy):
            calls.append(1)
            return dy * 2. * x
        return x * x, grad

    np.testing.assert_allclose(_jvp(f, X, V).numpy(), [2., -4.])
    first = len(calls)
    np.testing.assert_allclose(_jvp(f, X, V).numpy(), [2., -4.])
    assert first == (len(calls) - first) + 2   # the two probe calls: at the first use only


def test_linear_rule_with_two_outputs_and_a_variable():
    w = fg.Variable(3.)

    @fg.custom_gradient
    def f(x):
        def grad(dy1, dy2, variables=None):
            return dy1 * w + dy2 * 2. * x, [fg.reduce_sum(dy1 * x)]
        return (x * w, x * x), grad

    with fg.autodiff.ForwardAccumulator(X, V) as acc:
        a, b = f(X)
    np.testing.assert_allclose(acc.jvp(a).numpy(), [3., -3.])
    np.testing.assert_allclose(acc.jvp(b).numpy(), [2., -4.])


def test_nonlinear_rule_on_finegrad_ops_backend():
    @ops.custom_gradient
    def f(x):
        return x * x, lambda dy: dy * dy * x
    with ops.backend_scope("finegrad"):
        with pytest.raises(TypeError, match=MESSAGE):
            _jvp(f, X, V)


@pytest.mark.parametrize("name", sorted(NONLINEAR))
def test_nonlinear_rule_on_torch_backend_raises(name):
    torch = pytest.importorskip("torch")
    rule = NONLINEAR[name]

    @ops.custom_gradient
    def f(x):
        return x * x, lambda dy: rule(x, dy, torch.linalg.norm)

    x, v = torch.tensor([1., 2.]), torch.tensor([1., -1.])
    with ops.backend_scope("torch"):
        with pytest.raises(TypeError, match=r"torch backend.*" + MESSAGE):
            torch.func.jvp(f, (x,), (v,))
        import torch.autograd.forward_ad as fwd
        with pytest.raises(TypeError, match=MESSAGE):
            with fwd.dual_level():
                f(fwd.make_dual(x, v))


def test_linear_rule_on_torch_backend_is_exact():
    torch = pytest.importorskip("torch")

    @ops.custom_gradient
    def f(x):
        return x * x, lambda dy: dy * 2. * x

    with ops.backend_scope("torch"):
        for _ in range(2):
            _, t = torch.func.jvp(f, (torch.tensor([1., 2.]),), (torch.tensor([1., -1.]),))
            np.testing.assert_allclose(t.numpy(), [2., -4.])


@pytest.mark.parametrize("name", sorted(NONLINEAR) + ["sin_of_dy"])
def test_nonlinear_rule_on_jax_backend_raises(name):
    jax = pytest.importorskip("jax")
    rule = NONLINEAR.get(name, lambda x, dy, lib: jax.numpy.sin(dy) * x)

    @ops.custom_gradient(forward="transpose")
    def f(x):
        return x * x, lambda dy: rule(x, dy, jax.numpy.linalg.norm)

    with ops.backend_scope("jax"):   # the documented TypeError, never XLA's own error
        with pytest.raises(TypeError, match="forward='transpose' needs the gradient function "
                                            r"of \S*\bf to be linear.*forward='none'.*jvp="):
            jax.jvp(f, (jax.numpy.array([1., 2.]),), (jax.numpy.array([1., -1.]),))
