"""When order 1 passes, the report says what of order 2: a quick look that finds a wrong
second derivative says to ask for ``--order 2``; torch's @once_differentiable backward is
"not available" at order 2, a backward with no graph (detach) stays a MISMATCH with a note."""
import pytest

import finegrad as fg
from finegrad.__main__ import main


def _log1pexp_seed():
    @fg.custom_gradient
    def log1pexp(x):
        e = fg.exp(x)
        return fg.math.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))
    return log1pexp


def test_hint_when_second_derivative_looks_wrong():
    report = fg.testing.sweep(_log1pexp_seed(), interval=(-100, 100), points=201)
    assert report.ok
    assert report.order2_hint.startswith("this rule passes at order 1, but its second "
                                         "derivative looks wrong")
    assert "(x in [90, 100])" in report.order2_hint and "--order 2" in report.order2_hint
    assert report.to_dict()["order2"] == report.order2_hint
    # asked for, order 2 indeed fails there
    assert not fg.testing.sweep(_log1pexp_seed(), interval=(-100, 100), points=201,
                                order=2).ok


def test_hint_for_a_rule_written_with_numpy():
    @fg.custom_gradient
    def cube(x):
        return x ** 3, lambda dy: dy * fg.constant(3 * x.numpy() ** 2)
    assert "looks wrong" in fg.testing.sweep(cube, points=51).order2_hint


def test_no_hint_when_order_2_looks_right(capsys):
    report = fg.testing.sweep(fg.stable.log1pexp, points=51)
    assert report.order2_hint.startswith("order 2 not checked (a quick look at 21 points "
                                         "found nothing)")
    assert not hasattr(fg.testing.sweep(fg.stable.log1pexp, points=51, order=2),
                       "order2_hint")
    assert main(["check", "finegrad.stable:log1pexp", "--points", "51", "-q"]) == 0
    assert "ask for it with --order 2" in capsys.readouterr().out


def test_numpy_rule_says_order_2_not_available():
    import numpy as np
    report = fg.testing.sweep(lambda x: (np.sin(x), lambda dy: dy * np.cos(x)),
                              framework="numpy", points=51)
    assert report.ok and report.order2_hint.startswith("order 2 not checked: not available "
                                                       "in numpy")


def _torch_soft(torch, kind):
    from torch.autograd.function import once_differentiable

    class Soft(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.log1p(torch.exp(x))

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * torch.sigmoid(x.detach() if kind == "detach" else x)
    if kind == "once":
        Soft.backward = staticmethod(once_differentiable(Soft.backward))
    return Soft.apply


def test_torch_once_differentiable_is_not_available_at_order_2():
    torch = pytest.importorskip("torch")
    report = fg.testing.sweep(_torch_soft(torch, "once"), points=51, order=2)
    rev2 = next(c for c in report.checks if c.mode == "rev" and c.order == 2)
    assert rev2.unavailable == ("not available in torch: NotImplementedError: the "
                                "autograd.Function's backward is marked @once_differentiable")
    assert report.ok and "not available, so not checked: forward order 1, reverse over " \
        "reverse order 2" in str(report)
    hint = fg.testing.sweep(_torch_soft(torch, "once"), points=51).order2_hint
    assert hint.startswith("order 2 not checked: not available in torch")


def test_torch_detached_backward_is_a_mismatch_with_a_note():
    torch = pytest.importorskip("torch")
    report = fg.testing.sweep(_torch_soft(torch, "detach"), points=51, order=2,
                              modes=("rev",))
    assert not report.ok and report.worst.order == 2
    assert "does not depend on x in its graph" in str(report)
    assert "looks wrong" in fg.testing.sweep(_torch_soft(torch, "detach"), points=51,
                                             modes=("rev",)).order2_hint
    assert fg.testing.sweep(_torch_soft(torch, "plain"), points=51, order=2).ok


def _soft_sum(detached):
    @fg.custom_gradient
    def soft_sum(x):
        s = fg.stop_gradient(x) if detached else x
        return fg.reduce_sum(fg.math.softplus(x)), lambda dy: dy * fg.sigmoid(s)
    return soft_sum


def test_array_sweeps_take_a_quick_look_at_order_2(capsys):
    """--shape, --elements and --lines sweeps look at order 2 along each line, as the
    scalar sweeps do, and name the line where the second derivative looks wrong."""
    report = fg.testing.sweep(_soft_sum(True), shape=(4,), points=101)
    assert report.ok
    assert report.order2_hint.startswith("this rule passes at order 1, but its second "
                                         "derivative looks wrong (a quick look along random "
                                         "line 1, reverse over reverse: d/dt: 21 of 21 points")
    assert report.to_dict()["order2"] == report.order2_hint
    assert report.order2_hint in str(report)
    along = fg.testing.sweep(_soft_sum(True), shape=(4,), points=101, elements=[2], lines=0)
    assert "a quick look along element [2]" in along.order2_hint
    assert not fg.testing.sweep(_soft_sum(True), shape=(4,), points=101, order=2).ok
    right = fg.testing.sweep(_soft_sum(False), shape=(2, 2), points=101)
    assert right.ok and right.order2_hint == (
        "order 2 not checked (a quick look at 21 points of each of the 2 lines found "
        "nothing); ask for it with --order 2 (order=2)")
    assert main(["check", "finegrad.stable:logsumexp", "--points", "51", "-q"]) == 0
    assert "a quick look at 21 points of each of the 2 lines found nothing" in \
        capsys.readouterr().out


def test_array_sweep_order_2_not_available_in_numpy():
    import numpy as np
    report = fg.testing.sweep(lambda x: (np.sum(np.sin(x)), lambda dy: dy * np.cos(x)),
                              framework="numpy", shape=(3,), points=51)
    assert report.ok and report.order2_hint.startswith(
        "random line 1: order 2 not checked: not available in numpy")
