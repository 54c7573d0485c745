"""Pictures and HTML of finegrad check: failing points circled (even a single one), the error
axis reaching them, one colour and style per mode and order, and ``--html FILE`` / Jupyter's
HTML with the table and the figure inline (a base64 PNG)."""
import base64
import re

import numpy as np
import pytest

import finegrad as fg
from finegrad.__main__ import main


def _one_point(x):
    return np.log1p(np.exp(x)), lambda dy: dy * np.where(x == 2, 2.0, 1.0) / (1 + np.exp(-x))


def _labels(ax):
    return [line.get_label() for line in ax.get_lines()]


def test_a_single_failing_point_is_circled():
    pytest.importorskip("matplotlib")
    report = fg.testing.sweep(_one_point, framework="numpy", points=1001)
    assert not report.ok and report.failing_spans(report.checks[0]) == \
        "d/dx: 1 of 1001 points (x in [2, 2])"
    fig = report.plot()
    derivative, error = fig.axes[1], fig.axes[2]
    circled = [line for line in derivative.get_lines() if line.get_label().startswith("fails")]
    assert len(circled) == 1 and list(circled[0].get_xdata()) == [2.0]
    assert circled[0].get_ydata()[0] == pytest.approx(2 / (1 + np.exp(-2)), rel=1e-6)
    assert "rev, order 1: 1 fail" in _labels(error)
    assert error.get_ylim()[1] >= 1.0        # the error of 1 is inside the axis
    assert "MISMATCH (failing points circled)" in fig._suptitle.get_text()


def test_modes_and_orders_have_distinct_styles():
    pytest.importorskip("matplotlib")
    fig = fg.testing.sweep(fg.stable.log1pexp, points=51, order=2).plot()
    curves = [line for line in fig.axes[-1].get_lines() if ", order " in line.get_label()]
    styles = {(line.get_color(), line.get_linestyle()) for line in curves}
    assert len(curves) == 4 and len(styles) == 4


def test_html_has_table_and_inline_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    report = fg.testing.sweep(_one_point, framework="numpy", points=101)
    assert "<img" not in report.to_html()
    page = report._repr_html_()
    assert "<table>" in page and "MISMATCH" in page
    data = re.search(r'src="data:image/png;base64,([^"]+)"', page).group(1)
    assert base64.b64decode(data).startswith(b"\x89PNG")
    out = tmp_path / "report.html"
    assert main(["check", "docs/check_examples.py:softplus_np", "--framework", "numpy",
                 "--points", "101", "-q", "--html", str(out)]) == 1
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "data:image/png;base64," in text
    assert "d/dx: 35 of 101 points (x in [3.2, 10])" in text
    assert f"report written to {out}" in capsys.readouterr().out


def test_vector_report_html():
    pytest.importorskip("matplotlib")
    report = fg.testing.sweep(fg.stable.logsumexp, points=21)
    page = report._repr_html_()
    assert page.count("<table>") == 2 and "data:image/png;base64," in page
