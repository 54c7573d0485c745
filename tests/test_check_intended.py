"""finegrad.testing.intended: a marker declaring where a rule deviates on purpose, read by
sweep, assert_rule and ``finegrad check`` (finegrad, torch, jax and NumPy rules, scalar and
vector inputs), shown in the report as "intended, not checked"; the rest is still checked."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.__main__ import main


def _clipped_cube(bug=1.0):
    @fg.custom_gradient
    def clipped_cube(x):
        def grad(dy):
            inside = fg.cast(fg.abs(x) <= 1, dy.dtype)
            return dy * 3 * x ** 2 * inside * fg.where(x > 0.5, bug, 1.0)
        return x ** 3, grad
    return clipped_cube


def test_marker_finegrad():
    plain = _clipped_cube()
    assert not fg.testing.sweep(plain, interval=(-3, 3), points=61).ok
    marked = fg.testing.intended("abs(x) > 1", reason="clipped")(_clipped_cube())
    report = fg.testing.sweep(marked, interval=(-3, 3), points=61)
    assert report.ok and report.intended.sum() == 40
    assert "(declared: abs(x) > 1; clipped)" in str(report)
    assert fg.testing.assert_rule(marked, domain=(-3, 3), points=61).ok
    # the rest is still checked: a bug inside [-1, 1] is found
    buggy = fg.testing.intended("abs(x) > 1")(_clipped_cube(bug=2.0))
    with pytest.raises(AssertionError, match=r"x in \[0.6, 1\]"):
        fg.testing.assert_rule(buggy, domain=(-3, 3), points=61)


def test_marker_and_deviation_combine():
    marked = fg.testing.intended("x > 1")(_clipped_cube())
    assert not fg.testing.sweep(marked, interval=(-3, 3), points=61).ok
    report = fg.testing.sweep(marked, interval=(-3, 3), points=61, deviation="x < -1")
    assert report.ok and "deviation: x < -1" in report.deviation
    assert "declared: x > 1" in report.deviation
    fn = fg.testing.intended(lambda x: np.abs(x) > 1)(_clipped_cube())
    assert fg.testing.sweep(fn, interval=(-3, 3), points=61).ok


def test_marker_arguments():
    with pytest.raises(TypeError, match="regions must be expressions or functions"):
        fg.testing.intended()
    with pytest.raises(TypeError, match="regions must be expressions or functions"):
        fg.testing.intended(3)
    with pytest.raises(TypeError, match="cannot mark"):
        fg.testing.intended("x > 0")(len)
    bad = fg.testing.intended("z > 0")(_clipped_cube())
    with pytest.raises(ValueError, match="is not an expression in"):
        fg.testing.sweep(bad, points=11)


def test_marker_on_torch_function_class():
    torch = pytest.importorskip("torch")

    @fg.testing.intended("abs(x) > 1", reason="straight-through, clipped")
    class SignSTE(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.sign(x) * x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x.abs() * (x.abs() <= 1)
    report = fg.testing.sweep(SignSTE.apply, interval=(-3, 3), points=61)
    assert report.ok and report.intended.sum() == 40, str(report)


def test_marker_on_jax_custom_vjp_and_vectors():
    jax = pytest.importorskip("jax")

    @fg.testing.intended("np.any(x < 0)", reason="safe: 0 for negative elements")
    @jax.custom_vjp
    def relu_sum(x):
        return jax.numpy.sum(jax.nn.relu(x) ** 2)
    relu_sum.defvjp(lambda x: (relu_sum(x), x),
                    lambda x, g: (g * 2 * x * (x > 0) * (x > 0).all(),))
    report = fg.testing.sweep(relu_sum, shape=(3,), points=101)
    assert report.ok, str(report)
    assert all(line.report.intended.any() for line in report.lines)
    assert "intended, not checked" in str(report)


def test_stable_safe_divide_declares_its_region(capsys):
    assert main(["check", "finegrad.stable:safe_divide", "--points", "101", "-q"]) == 0
    out = capsys.readouterr().out
    assert "intended, not checked: 1 points (declared: y == 0;" in out


def test_cli_shows_marker(tmp_path, capsys):
    path = tmp_path / "rule.py"
    path.write_text("import finegrad as fg\n"
                    "@fg.testing.intended('x < 0', reason='straight-through')\n"
                    "@fg.custom_gradient\n"
                    "def relu_ste(x):\n"
                    "    return fg.nn.relu(x), lambda dy: dy\n")
    assert main(["check", f"{path}:relu_ste", "--points", "101", "-q"]) == 0
    assert "(declared: x < 0; straight-through)" in capsys.readouterr().out
