"""finegrad.testing.sweep / assert_rule on rules written for torch, JAX, TensorFlow and as
NumPy black boxes: a rule 2x off on x > 3 is flagged with its region, input and order, the
fixed rule passes, and a mode the framework cannot do is "not available", not a pass."""
import numpy as np
import pytest

import finegrad as fg


def _soft_np(x, factor):
    return np.log1p(np.exp(x)), lambda dy: dy * np.where(x > 3, factor, 1.0) / (1 + np.exp(-x))


def _check_flagged(report, order=1, mode="rev"):
    assert not report.ok
    check = next(c for c in report.checks if c.mode == mode and c.order == order)
    xs = report.cols[0][check.failing[0]]
    assert 340 <= xs.size <= 360 and 3.0 <= xs.min() <= 3.05 and xs.max() == 10.0
    assert "d/dx: " in report.failing_spans(check) and "x in [3.02, 10]" in str(report)


def test_numpy_black_box_flagged_and_fixed():
    bad = fg.testing.sweep(lambda x: _soft_np(x, 2.0), framework="numpy")
    _check_flagged(bad)
    fwd = next(c for c in bad.checks if c.mode == "fwd")
    assert fwd.unavailable.startswith("not available in numpy")
    assert "not available in numpy" in str(bad)
    assert fg.testing.sweep(lambda x: _soft_np(x, 1.0), framework="numpy").ok


def test_assert_rule_raises_with_report():
    with pytest.raises(AssertionError, match=r"x in \[3.02, 10\]"):
        fg.testing.assert_rule(lambda x: _soft_np(x, 2.0), framework="numpy")
    assert fg.testing.assert_rule(lambda x: _soft_np(x, 1.0), framework="numpy").ok


def _torch_function(factor, torch):
    class Soft(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.log1p(torch.exp(x))

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * torch.where(x > 3, factor, 1.0) * torch.sigmoid(x)
    return Soft.apply


def test_torch_function():
    torch = pytest.importorskip("torch")
    bad = fg.testing.sweep(_torch_function(2.0, torch), order=2)
    _check_flagged(bad, order=1)
    _check_flagged(bad, order=2)
    assert "not available in torch" in str(bad)      # no jvp staticmethod
    assert bad.to_dict()["framework"] == "torch"
    assert fg.testing.sweep(_torch_function(1.0, torch), order=2).ok


def _jax_rule(factor, jax):
    jnp = jax.numpy

    @jax.custom_vjp
    def soft(x):
        return jnp.log1p(jnp.exp(x))
    soft.defvjp(lambda x: (soft(x), x),
                lambda x, g: (g * jnp.where(x > 3, factor, 1.0) * jax.nn.sigmoid(x),))
    return soft


def test_jax_custom_vjp():
    jax = pytest.importorskip("jax")
    bad = fg.testing.sweep(_jax_rule(2.0, jax), order=2)
    _check_flagged(bad, order=1)
    _check_flagged(bad, order=2)
    fwd = next(c for c in bad.checks if c.mode == "fwd" and c.order == 1)
    assert "custom_vjp" in fwd.unavailable
    assert fg.testing.sweep(_jax_rule(1.0, jax), order=2).ok


def test_tensorflow_custom_gradient():
    tf = pytest.importorskip("tensorflow")

    def make(factor):
        @tf.custom_gradient
        def soft(x):
            return tf.math.log1p(tf.exp(x)), lambda dy: dy * tf.where(x > 3, factor, 1.0) * \
                tf.sigmoid(x)
        return soft
    bad = fg.testing.sweep(make(2.0), order=2)
    _check_flagged(bad, order=1)
    _check_flagged(bad, order=2)
    assert "not available in tensorflow" in str(bad)
    assert fg.testing.sweep(make(1.0), order=2).ok


def test_unknown_framework_is_value_error():
    with pytest.raises(ValueError, match="framework must be one of"):
        fg.testing.sweep(lambda x: x, framework="mxnet")


def test_check_custom_gradient_numpy_black_box_no_crash():
    """The guide's black_box_sin (NumPy forward, NumPy gradient) used to raise
    AttributeError '_value'; now order 1 is checked and forward mode is 'not available'."""
    def make(factor):
        @fg.custom_gradient
        def black_box_sin(x):
            def grad(dy):
                return dy.numpy() * factor * np.cos(x.numpy())
            return np.sin(x.numpy()), grad
        return black_box_sin
    good = fg.testing.check_custom_gradient(make(1.0), [fg.constant(0.3)], order=1)
    assert good.inputs["x"].ok and good.inputs["x"].max_error_fd < 1e-6
    assert "forward mode (jvp): not available in finegrad" in str(good)
    bad = fg.testing.check_custom_gradient(make(2.0), [fg.constant(0.3)], order=1)
    assert not bad.ok and not bad.inputs["x"].ok


def test_intended_deviation_not_checked():
    """A straight-through estimator: the rule is 1 everywhere, the true derivative of
    clip(x, -1, 1) is 0 outside [-1, 1]; declared there, the rest is checked."""
    @fg.custom_gradient
    def ste_clip(x):
        return fg.clip_by_value(x, -1.0, 1.0), lambda dy: dy
    assert not fg.testing.sweep(ste_clip, interval=(-3, 3), points=301).ok
    report = fg.testing.sweep(ste_clip, interval=(-3, 3), points=301,
                              deviation="(x < -1) | (x > 1)")
    assert report.ok and "intended, not checked: 200 points" in str(report)
    assert len(report.to_dict()["intended"]) == 200
    # the declared region does not hide a bug elsewhere
    @fg.custom_gradient
    def bad(x):
        return fg.clip_by_value(x, -1.0, 1.0), lambda dy: 2 * dy
    assert not fg.testing.sweep(bad, interval=(-3, 3), points=301,
                                deviation=lambda x: np.abs(x) > 1).ok


def test_cli_expect_deviation_and_framework(tmp_path, capsys):
    from finegrad.__main__ import main
    src = tmp_path / "rules.py"
    src.write_text("import numpy as np\n"
                   "def soft(x):\n"
                   "    return np.log1p(np.exp(x)), lambda dy: dy * np.where(x > 3, 2.0, 1.0)"
                   " / (1 + np.exp(-x))\n")
    assert main(["check", f"{src}:soft", "--framework", "numpy", "-q"]) == 1
    assert "x in [3.02, 10]" in capsys.readouterr().out
    assert main(["check", f"{src}:soft", "--framework", "numpy", "-q",
                 "--expect-deviation", "x > 3"]) == 0
    assert "intended, not checked" in capsys.readouterr().out


@pytest.mark.parametrize("name, deviation, interval", [
    ("log1pexp", None, (-100, 100)), ("log_sigmoid", None, (-100, 100)),
    ("safe_sqrt", "x <= 0", (-10, 10)), ("safe_divide", "y == 0", (-10, 10))])
def test_stable_functions_pass_with_their_regions_declared(name, deviation, interval):
    f = getattr(fg.stable, name)
    report = fg.testing.sweep(f, interval=interval, deviation=deviation, order=2)
    assert report.ok, str(report)
    if name == "safe_divide":     # the safe 0 at y = 0 is intended: undeclared, it fails there
        assert fg.testing.sweep(f, interval=interval).ok       # declared on the function
        bad = fg.testing.sweep(lambda x, y: f(x, y), interval=interval)    # not declared
        assert not bad.ok and "d/dy: 1 of 3003 points (y in [0, 0])" in str(bad)


def test_check_custom_gradient_reports_worst_element_unweighted():
    """A rule 2x off on x > 3: the report names the element and gives rule vs expected with
    relative error 1, whatever the random cotangent."""
    @fg.custom_gradient
    def soft(x):
        e = fg.exp(x)
        return fg.math.log(1 + e), lambda dy: dy * fg.cast(
            fg.where(x > 3, 2.0, 1.0), x.dtype) * fg.sigmoid(x)
    xs = np.linspace(-10, 10, 11)
    r = fg.testing.check_custom_gradient(soft, [fg.constant(xs)], order=1).inputs["x"]
    assert not r.ok and xs[r.worst_at[0]] > 3
    assert r.worst_relative == pytest.approx(1.0, abs=1e-4)
    assert r.worst_got == pytest.approx(2 * r.worst_expected, rel=1e-4)


def test_torch_double_backward_bug_found_at_order_2_only():
    """A backward that detaches x (so its own derivative is 0): order 1 passes, order 2
    names the region; torch.autograd.gradcheck would pass it too."""
    torch = pytest.importorskip("torch")

    def make(detach):
        class Soft(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return torch.log1p(torch.exp(x))

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * torch.sigmoid(x.detach() if detach else x)
        return Soft.apply
    assert fg.testing.sweep(make(True), modes=("rev",)).ok
    bad = fg.testing.sweep(make(True), modes=("rev",), order=2)
    second = bad.to_dict()["checks"][1]
    assert not bad.ok and second["order"] == 2 and not second["ok"]
    assert second["failing_where"].startswith("d/dx: ")
    assert fg.testing.sweep(make(False), modes=("rev",), order=2).ok


def test_forgotten_chain_rule_is_found():
    """A rule that ignores its upstream gradient is wrong by 1/0.75 - 1 in every framework
    (the sweep's upstream is 0.75, not 1), where an upstream of ones would hide it."""
    def forgets(x):
        return np.sin(x), lambda dy: np.cos(x)          # should be dy * cos(x)
    report = fg.testing.sweep(forgets, framework="numpy", points=101)
    assert not report.ok and report.worst.got == pytest.approx(report.worst.expected / 0.75,
                                                               rel=1e-4)

    @fg.custom_gradient
    def forgets_fg(x):
        return fg.sin(x), lambda dy: fg.cos(x)
    assert not fg.testing.sweep(forgets_fg, points=101, modes=("rev",)).ok
    assert fg.testing.sweep(lambda x: (np.sin(x), lambda dy: dy * np.cos(x)),
                            framework="numpy", points=101).ok
