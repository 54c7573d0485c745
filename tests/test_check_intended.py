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


def _same_marker(fn, of):
    """``fn`` marked with the declaration ``of`` carries (regions, reason, derivative)."""
    regions, reason, derivative = of._finegrad_intended
    return fg.testing.intended(*regions, reason=reason, derivative=derivative)(fn)


def _buggy(kind):
    """Each finegrad.stable rule with a real bug: a straight-through gradient of 2, a scale
    forgotten, a sign forgotten, a clip to the wrong bound."""
    if kind == "straight_through_round":
        @fg.custom_gradient
        def rule(x):
            return fg.round(x), lambda dy: 2 * dy
        return rule

    def wrap(grad):
        @fg.custom_gradient
        def inner(x):
            return x * 1, grad
        return inner
    return {"scale_gradient": lambda x, scale: wrap(lambda dy: dy)(x),
            "gradient_reversal": lambda x: wrap(lambda dy: dy)(x),
            "clip_gradient": lambda x, lo, hi: wrap(
                lambda dy: fg.clip_by_value(dy, lo, fg.abs(hi)))(x)}[kind]


@pytest.mark.parametrize("name", ["straight_through_round", "clip_gradient", "scale_gradient",
                                  "gradient_reversal"])
def test_stable_deviations_declared_pass_and_a_real_bug_is_still_found(name, capsys):
    """finegrad.stable's straight-through, clipped, scaled and reversed gradients declare the
    derivative they are meant to give: finegrad check passes them (orders 1 and 2), and the
    same declaration on a buggy rule is a MISMATCH."""
    fn = getattr(fg.stable, name)
    assert main(["check", f"finegrad.stable:{name}", "--points", "51", "--order", "2",
                 "-q"]) == 0
    out = capsys.readouterr().out
    assert "intended, checked against the declared derivative:" in out
    assert "MISMATCH" not in out
    report = fg.testing.sweep(_same_marker(_buggy(name), fn), points=51, order=2)
    assert not report.ok
    rev1 = next(c for c in report.checks if c.mode == "rev" and c.order == 1)
    assert not rev1.ok and rev1.failing[0].any(), str(report)


def test_declared_derivative_arguments():
    with pytest.raises(TypeError, match="derivative must be a function"):
        fg.testing.intended("x > 0", derivative=1.0)
    fn = fg.testing.intended(derivative=lambda x: (x, x))(_clipped_cube())
    with pytest.raises(ValueError, match="derivative gave 2 arrays for 1 inputs"):
        fg.testing.sweep(fn, points=11)
    # a region: the declared derivative there, finite differences elsewhere
    cube = fg.testing.intended("abs(x) > 1", derivative=lambda x: np.zeros_like(x))(
        _clipped_cube())
    report = fg.testing.sweep(cube, interval=(-3, 3), points=61)
    assert report.ok and report.declared.sum() == 40 and not report.intended.any()
    assert len(report.to_dict()["declared"]) == 40
    assert "agrees with its declared derivative where declared" in str(report)
    wrong = fg.testing.intended("abs(x) > 1", derivative=lambda x: np.ones_like(x))(
        _clipped_cube())
    assert not fg.testing.sweep(wrong, interval=(-3, 3), points=61).ok


def test_forward_mode_of_a_rule_not_linear_in_dy_is_not_available():
    report = fg.testing.sweep(fg.stable.clip_gradient, points=21)
    fwd = next(c for c in report.checks if c.mode == "fwd")
    assert fwd.unavailable == ("not available in finegrad: the rule is not linear in the "
                               "upstream gradient (NotLinearError)")
    assert report.ok and "not available, so not checked: forward order 1" in str(report)
