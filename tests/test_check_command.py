"""`finegrad check` and `finegrad.testing.sweep`: a custom gradient checked over a whole range.

The seed's log1pexp against its plain composite (exit 0, the plain gradient's nan above
x of about 89), a rule off by a factor 1.5 for x > 2 (exit 1, the worst point named), the
seed rule's nan second derivative at large x, usage errors (exit 2, naming what is missing),
the JSON, the plot, and the progress bar.
"""
import io
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import finegrad as tf
from finegrad.__main__ import main
from finegrad._src.testing.progress import ProgressBar
from tests.seed_examples import log1pexp, plain_log1pexp

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED = str(ROOT / "tests" / "seed_examples.py")

OFF_BY_A_FACTOR = '''
import finegrad as tf

@tf.custom_gradient
def wrong_sin(x):
    def grad(dy):
        return dy * tf.cos(x) * tf.where(x > 2., 1.5, 1.)   # off by 1.5 for x > 2
    return tf.sin(x), grad

answer = 42

def two(x, y):
    return x * y

def raises(x):
    raise RuntimeError("boom")
'''


@pytest.fixture
def off_file(tmp_path):
    path = tmp_path / "rules.py"
    path.write_text(OFF_BY_A_FACTOR)
    return str(path)


def _run(*argv):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "finegrad", "check", *argv], env=env,
                          capture_output=True, text=True, timeout=120)


def test_command_on_the_seed_exits_0_and_reports_the_plain_nan(tmp_path):
    out = tmp_path / "report.json"
    proc = _run(f"{SEED}:log1pexp", "--reference", f"{SEED}:plain_log1pexp",
                "--range", "-100:100", "--dtype", "float32", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "ok: log1pexp agrees" in proc.stdout
    assert "plain_log1pexp breaks where the rule does not" in proc.stdout
    assert "x in [88.8, 100]" in proc.stdout
    assert proc.stderr == ""            # no progress bar when stderr is not a terminal
    data = json.loads(out.read_text())
    assert {"target", "reference", "dtype", "range", "points", "order", "modes", "rtol", "ok",
            "worst", "checks", "verdict"} <= set(data)
    assert data["ok"] is True and data["target"] == "log1pexp"
    assert data["reference"] == "plain_log1pexp" and data["dtype"] == "float32"
    assert data["range"] == [-100.0, 100.0] and data["points"] == 1001
    assert [(c["mode"], c["order"]) for c in data["checks"]] == [("rev", 1), ("fwd", 1)]
    for c in data["checks"]:
        breaks = c["reference_nonfinite"]
        assert len(breaks) == 57 and 88 < min(breaks) < 89.5 and max(breaks) == 100.0
        assert c["rule_nonfinite"] == [] and c["failing"] == []
        assert c["worst_error"] < 1e-3


def test_a_typo_in_the_target_is_exit_2_naming_it():
    proc = _run(f"{SEED}:log1pexq")
    assert proc.returncode == 2
    assert "has no 'log1pexq'" in proc.stderr and "did you mean 'log1pexp'" in proc.stderr
    assert proc.stdout == ""


def test_a_rule_off_by_a_factor_exits_1_and_names_the_worst_point(off_file, capsys):
    assert main(["check", f"{off_file}:wrong_sin", "--range", "-5:5", "--points", "201"]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH: wrong_sin's" in out and "off by 0.5 (relative)" in out
    report = tf.testing.sweep(_load(off_file, "wrong_sin"), interval=(-5, 5), points=201)
    w = report.worst
    assert not report.ok and w.point["x"] > 2 and w.error == pytest.approx(0.5, rel=1e-3)
    assert w.got == pytest.approx(1.5 * w.expected, rel=1e-4)
    assert f"x={w.point['x']:.6g}" in out
    failing = report.to_dict()["checks"][0]["failing"]
    assert min(failing) > 2 and all(x > 2 for x in failing)


def _load(path, name):
    from finegrad._src.testing.sweep_cli import load_function
    return load_function(f"{path}:{name}")


def test_order_2_reports_the_seed_rules_nan_second_derivative(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["check", f"{SEED}:log1pexp", "--reference", f"{SEED}:plain_log1pexp",
                 "--range", "-100:100", "--order", "2", "--json", str(out), "-q"])
    text = capsys.readouterr().out
    assert code == 1
    assert "reverse over reverse" in text and "is nan/inf at x=88.8" in text
    data = json.loads(out.read_text())
    second = [c for c in data["checks"] if c["order"] == 2]
    assert [c["mode"] for c in second] == ["rev", "fwd"]
    for c in second:
        assert c["ok"] is False and min(c["rule_nonfinite"]) > 88
        assert c["worst_error"] == "inf"
    assert all(c["ok"] for c in data["checks"] if c["order"] == 1)
    assert data["worst"]["order"] == 2 and data["worst"]["got"] == "nan"


@pytest.mark.parametrize("argv, message", [
    (["nowhere/rules.py:f"], "no file 'nowhere/rules.py'"),
    (["no_such_package.rules:f"], "no module 'no_such_package'"),
    (["log1pexp"], "TARGET must be path/to/file.py:name or package.module:name"),
    ([f"{SEED}:tf"], "is a module, not a function"),
    ([f"{SEED}:log1pexp", "--reference", f"{SEED}:plain"], "REF: "),
    ([f"{SEED}:log1pexp", "--range", "5:1"], "--range must be LO:HI with finite LO < HI"),
    ([f"{SEED}:log1pexp", "--range", "a:1"], "--range must be LO:HI with two numbers"),
    ([f"{SEED}:log1pexp", "--modes", "back"], "--modes must be"),
    ([f"{SEED}:log1pexp", "--plot", "out.gif"], "--plot must name a .png, .svg or .pdf"),
    ([f"{SEED}:log1pexp", "--json", "no/such/dir/r.json"], "cannot write no/such/dir/r.json"),
])
def test_usage_errors_are_exit_2_with_a_message(argv, message, capsys):
    assert main(["check", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err


def test_not_a_function_and_not_finegrad_ops(off_file, capsys):
    assert main(["check", f"{off_file}:answer"]) == 2
    err = capsys.readouterr().err
    assert "'answer'" in err and "is a int, not a function" in err
    assert main(["check", "numpy:sin"]) == 2
    assert "not a finegrad Tensor" in capsys.readouterr().err
    assert main(["check", f"{off_file}:raises"]) == 2
    err = capsys.readouterr().err
    assert "TARGET: calling" in err and "raises on 1 scalar input (x)" in err and "boom" in err
    assert main(["check", f"{off_file}:wrong_sin", "--reference", f"{off_file}:two"]) == 2
    assert "REF: calling" in capsys.readouterr().err
    assert main(["check", "--order", "3", f"{SEED}:log1pexp"]) == 2


def test_package_module_form(capsys):
    assert main(["check", "tests.seed_examples:log1pexp", "--range", "-3:3", "--points",
                 "51", "--modes", "rev", "--dtype", "float64"]) == 0
    out = capsys.readouterr().out
    assert "float64" in out and "reverse" in out and "forward" not in out


def test_sweep_from_python():
    report = tf.testing.sweep(log1pexp, plain_log1pexp, interval=(-100, 100), points=401)
    assert report.ok and bool(report)
    text = str(report)
    assert text.splitlines()[0].startswith("finegrad check: log1pexp against plain_log1pexp")
    assert "worst rel. error" in text and text.splitlines()[-1].startswith("ok: ")
    d = report.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["vectorized"] is True and d["worst"]["error"] < 1e-3
    html = report._repr_html_()
    assert "<table>" in html and "plain_log1pexp" in html
    # the default reference of a custom_gradient function: its forward without the rule
    d = tf.testing.sweep(log1pexp, interval=(80, 100), points=101).to_dict()
    assert d["reference"] == "log1pexp without its rule" and d["checks"][0]["reference_nonfinite"]


def test_several_inputs_are_swept_one_by_one_and_over_the_box():
    @tf.custom_gradient
    def mul(x, y):
        return x * y, lambda dy: (dy * y, dy * x * tf.where(x > 1., 2., 1.))
    report = tf.testing.sweep(mul, interval=(-2, 2), points=41, order=2)
    assert [g[0] for g in report.groups] == ["input 0 over the range", "input 1 over the range",
                                            "random points of the box"]
    assert len(report.cols[0]) == 3 * 41
    w = report.worst
    assert not report.ok and w.input == "y" and w.point["x"] > 1
    assert "d/dy at (x=" in str(report)


def test_a_function_that_is_not_elementwise_is_evaluated_point_by_point():
    def mixes_points(x):
        return x * tf.reduce_sum(x)          # on one point: x**2
    # shape=(): swept as scalars (without it, a function that is not elementwise on
    # vectors is swept along lines of vectors of shape (3,))
    report = tf.testing.sweep(mixes_points, interval=(-2, 2), points=21, order=2, shape=())
    assert report.vectorized is False and report.ok
    np.testing.assert_allclose(report.got["rev", 1][0], 2 * report.cols[0], rtol=1e-6)
    assert "one point at a time" in str(report)

    def ratio_of_sums(x):                # its value is sin(x) everywhere, its Jacobian is not
        return tf.sin(x) * tf.reduce_sum(tf.exp(x)) / tf.reduce_sum(tf.exp(x))
    report = tf.testing.sweep(ratio_of_sums, interval=(-2, 2), points=21)
    assert report.vectorized is False and report.ok


def test_at_a_kink_any_subgradient_is_accepted_and_a_wrong_rule_is_still_found():
    @tf.custom_gradient
    def relu(x):
        return tf.maximum(x, 0.), lambda dy: dy * tf.where(x > 0., 1., 0.)

    @tf.custom_gradient
    def leaky(x):                      # claims to be relu, slope 0.1 for x < 0
        return tf.maximum(x, 0.), lambda dy: dy * tf.where(x > 0., 1., 0.1)
    report = tf.testing.sweep(relu, interval=(-1, 1), points=201)   # x = 0 is a point
    assert report.ok and report.to_dict()["kinks"] == [0.0]
    assert "1 points (x in [0, 0]) look like kinks" in str(report)
    assert tf.testing.sweep(tf.abs, interval=(-1, 1), points=201).ok
    wrong = tf.testing.sweep(leaky, interval=(-1, 1), points=201)
    assert not wrong.ok and wrong.worst.point["x"] < 0


def test_the_points_are_the_inputs_the_function_receives():
    report = tf.testing.sweep(tf.sin, interval=(-1000, 1000), points=501, scale="symlog")
    x = report.cols[0]
    assert np.array_equal(x.astype(np.float32).astype(np.float64), x)
    assert x[250] == 0 and 0 < x[251] < 0.1 and x[-1] == 1000   # symlog: dense near 0
    assert report.ok


def test_progress_bar_only_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True
    tty, pipe = Terminal(), io.StringIO()
    for stream in (tty, pipe):
        bar = ProgressBar(4, "sweeping", stream=stream)
        for _ in range(4):
            bar.update()
        bar.close()
    assert "100% sweeping" in tty.getvalue() and "[" in tty.getvalue()
    assert pipe.getvalue() == ""
    quiet = ProgressBar(4, "sweeping", enabled=False, stream=tty)
    quiet.update(4)
    assert tty.getvalue().count("100%") == 1


def test_the_command_draws_no_bar_with_quiet_on_a_terminal(monkeypatch, capsys):
    class Terminal(io.StringIO):
        def isatty(self):
            return True
    for quiet, expect_bar in ((["-q"], False), ([], True)):
        err = Terminal()
        monkeypatch.setattr(sys, "stderr", err)
        main(["check", f"{SEED}:log1pexp", "--points", "1000", "--modes", "rev", *quiet])
        assert ("%" in err.getvalue()) is expect_bar
    capsys.readouterr()


def test_import_finegrad_does_not_import_matplotlib():
    code = "import sys, finegrad; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60).stdout
    assert out.strip() == "False"


def test_plot_without_matplotlib_names_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)    # import matplotlib fails
    report = tf.testing.sweep(log1pexp, interval=(-5, 5), points=11)
    with pytest.raises(ImportError, match=r"\[plot\] extra"):
        report.plot()
    out = tmp_path / "x.png"
    assert main(["check", f"{SEED}:log1pexp", "--points", "11", "--plot", str(out)]) == 2
    captured = capsys.readouterr()
    assert "[plot]" in captured.err and not out.exists()
    assert captured.out == ""           # refused before sweeping


def test_plot_shows_the_curves_with_labels(tmp_path):
    pytest.importorskip("matplotlib")
    report = tf.testing.sweep(log1pexp, plain_log1pexp, interval=(-100, 100), points=201,
                              order=2)
    fig = report.plot(tmp_path / "sweep.svg")
    assert (tmp_path / "sweep.svg").read_text().lstrip().startswith("<?xml")
    value, first, second, error = fig.axes
    assert [a.get_ylabel() for a in fig.axes] == ["value", "df/dx", "d²f/dx²",
                                                  "relative error"]
    assert error.get_xlabel() == "x" and error.get_yscale() == "log"
    labels = [t.get_text() for t in first.get_legend().get_texts()]
    assert labels[:4] == ["finite differences (float64)", "custom rule (rev)",
                          "custom rule (fwd)", "plain_log1pexp (plain autodiff)"]
    assert "plain_log1pexp nan/inf" in labels
    assert "custom rule (rev) nan/inf" in [t.get_text() for t in second.get_legend().get_texts()]
    err_labels = [t.get_text() for t in error.get_legend().get_texts()]
    assert "rtol = 0.001" in err_labels and "rev, order 2: nan/inf (fails)" in err_labels
    assert "MISMATCH" in fig._suptitle.get_text()
    import matplotlib.pyplot as plt
    plt.close(fig)


def test_command_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "out.png"
    assert main(["check", f"{SEED}:log1pexp", "--reference", f"{SEED}:plain_log1pexp",
                 "--range", "-100:100", "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written to {out}" in capsys.readouterr().out
    import matplotlib.pyplot as plt
    plt.close("all")
