"""Drawing a sweep report with matplotlib (the ``[plot]`` extra), imported only when asked.

One column per input swept over the range (the others at the base point); rows: the value,
the first derivatives (the rule's, the reference's plain autodiff and float64 finite
differences), with ``order=2`` the second derivatives, and the relative error of the rule on
a log scale with the tolerance drawn, each mode and order in its own colour and line style.
Failing points are circled (on the rule's curve and on its error, the error axis reaching
the largest), so that even one shows; where a derivative is nan/inf a marker is drawn at the
bottom of its panel (at the top of the error panel when the rule fails there).
"""
import base64
import html
import io
import sys

import numpy as np

_MISSING = ("finegrad: plotting needs matplotlib, which is not installed; install the "
            "[plot] extra: pip install 'finegrad[plot]' (or pip install matplotlib)")


def _pyplot():
    """matplotlib.pyplot (Agg unless a backend is chosen), or ImportError naming the extra."""
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError(_MISSING) from e
    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")   # no display needed; a notebook has chosen its backend already
    import matplotlib.pyplot as plt
    return plt


def plot_report(report, path=None):
    """The figure of ``report`` (saved to ``path`` when given)."""
    plt = _pyplot()
    lines = [g for g in report.groups if g[2] is not None]
    rows = 2 + report.order
    fig, axes = plt.subplots(rows, len(lines), figsize=(8 * len(lines), 2.4 * rows + 0.9),
                             sharex="col", squeeze=False)
    for col, (_, idx, k) in enumerate(lines):
        x = report.cols[k][idx]
        name = report.input_names[k]
        ax = axes[:, col]
        _panel_value(ax[0], report, idx, k, x)
        for order in range(1, report.order + 1):
            _panel_derivative(ax[order], report, idx, k, x, order)
        _panel_error(ax[-1], report, idx, k, x)
        for a in ax[:-1]:
            _readable_ylim(a)
        for a in ax:
            a.grid(True, alpha=0.3)
            if report.scale == "symlog":
                a.set_xscale("symlog")
        ax[-1].set_xlabel(name)
    ref = f" against {report.reference_name}" if report.reference_name else ""
    state = "ok" if report.ok else "MISMATCH (failing points circled)"
    fig.suptitle(f"finegrad check of {report.name}{ref}\n{report.dtype.name}, "
                 f"{len(report.cols[0])} points: {state}", fontsize=10)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=80)
    return fig


def _panel_value(ax, report, idx, k, x):
    names = report.input_names
    ax.plot(x, _masked(report.value[idx]), color="black", lw=1.2,
            label=f"value of {report.name}({', '.join(names)}), {report.dtype.name}")
    _mark_nonfinite(ax, x, report.value[idx], "value nan/inf", "black", 0)
    ax.set_ylabel("value")
    fixed = ", ".join(f"{n} = {c[idx[0]]:.4g}" for i, (n, c) in
                      enumerate(zip(names, report.cols, strict=True)) if i != k)
    ax.set_title("the function" + (f" ({fixed})" if fixed else ""), fontsize=9)
    ax.legend(loc="best", fontsize=8)


def _panel_derivative(ax, report, idx, k, x, order):
    name = report.input_names[k]
    what = f"d{name}" if order == 1 else f"d{name}²"
    exp = report.expected[order][k][idx]
    ax.plot(x, _masked(exp), color="0.6", lw=4, alpha=0.6,
            label="finite differences (float64)")
    colours = {"rev": "tab:blue", "fwd": "tab:cyan"}
    for mode in report.modes:
        if (mode, order) in getattr(report, "unavailable", {}):   # nothing computed: no curve
            continue
        got = report.got[mode, order][k][idx]
        style = "-" if mode == "rev" else ":"
        ax.plot(x, _masked(got), style, color=colours[mode], lw=1.4,
                label=f"custom rule ({mode})")
        check = _check(report, mode, order)
        bad = check.failing[k][idx] & np.isfinite(got)
        if bad.any():   # circled, so that even one failing point shows
            j = _thinned(bad)
            ax.plot(x[j], got[j], "o", mfc="none", mec="tab:red", ms=_size(bad), mew=1.3,
                    label=f"fails ({mode}): {int(bad.sum())} points")
        _mark_nonfinite(ax, x, got, f"custom rule ({mode}) nan/inf", colours[mode],
                        1 + report.modes.index(mode))
    if report.reference is not None:
        ref = report.reference[report.modes[0], order][k][idx]
        ax.plot(x, _masked(ref), "--", color="tab:orange", lw=1.2,
                label=f"{report.reference_name} (plain autodiff)")
        _mark_nonfinite(ax, x, ref, f"{report.reference_name} nan/inf", "tab:red", 0)
    ax.set_ylabel(f"d{'' if order == 1 else '²'}f/{what}")
    ax.set_title("first derivative" if order == 1 else "second derivative", fontsize=9)
    ax.legend(loc="best", fontsize=8)


_STYLES = {("rev", 1): ("tab:blue", "-"), ("fwd", 1): ("tab:cyan", ":"),
           ("rev", 2): ("tab:purple", "-."), ("fwd", 2): ("tab:olive", "--")}


def _thinned(mask, most=60):
    """At most about ``most`` of the marked indices, evenly spread (all when few)."""
    j = np.flatnonzero(mask)
    return j[::max(1, len(j) // most)]


def _size(mask):
    return 7 if mask.sum() <= 20 else 4


def _check(report, mode, order):
    return next(c for c in report.checks if c.mode == mode and c.order == order)


def _panel_error(ax, report, idx, k, x):
    top = 10 * report.rtol
    for check in report.checks:
        if check.unavailable:
            continue
        err = check.error[k][idx]
        colour, style = _STYLES[check.mode, check.order]
        ax.plot(x, np.where(err > 0, err, np.nan), style, color=colour, lw=1.2,
                label=f"{check.mode}, order {check.order}")
        bad = check.failing[k][idx] & ~check.rule_nonfinite[k][idx]
        if bad.any():
            top = max(top, float(err[bad].max()))
            j = _thinned(bad)
            ax.plot(x[j], err[j], "o", mfc="none", mec=colour, ms=_size(bad), mew=1.3,
                    label=f"{check.mode}, order {check.order}: {int(bad.sum())} fail")
        failing = check.rule_nonfinite[k][idx]
        if failing.any():
            ax.plot(x[failing], np.full(int(failing.sum()), 0.95), "v", ms=5,
                    color=colour, transform=ax.get_xaxis_transform(),
                    label=f"{check.mode}, order {check.order}: nan/inf (fails)")
    ax.axhline(report.rtol, color="tab:red", lw=1, ls="--", label=f"rtol = {report.rtol:g}")
    ax.set_yscale("log")
    ax.set_ylim(1e-12, max(10.0, 3 * top))
    ax.set_ylabel("relative error")
    ax.set_title("relative error of the custom rule against finite differences (0: not drawn)",
                 fontsize=9)
    ax.legend(loc="best", fontsize=8, ncol=2)


def _readable_ylim(ax):
    """No offset notation, and a y range of at least 0.1% of its values: a constant curve
    with rounding noise stays a flat line instead of an enlarged wobble."""
    ax.yaxis.get_major_formatter().set_useOffset(False)
    lo, hi = ax.get_ylim()
    half = 1e-3 * max(abs(lo), abs(hi))
    if hi - lo < 2 * half:
        mid = (lo + hi) / 2
        ax.set_ylim(mid - half, mid + half)


def _masked(y):
    return np.where(np.isfinite(y), y, np.nan)


def _mark_nonfinite(ax, x, y, label, colour, row):
    """Crosses at the bottom of the panel (row 0, 1, 2 from the bottom) where ``y`` is
    nan/inf."""
    bad = ~np.isfinite(y)
    if bad.any():
        ax.plot(x[bad], np.full(int(bad.sum()), 0.03 + 0.06 * row), "x", color=colour, ms=4,
                transform=ax.get_xaxis_transform(), clip_on=False, label=label)


def figure_html(report):
    """The report's figure as an inline ``<img>`` (a base64 PNG), or "" without matplotlib."""
    try:
        plt = _pyplot()
    except ImportError:
        return ""
    fig = report.plot()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=72)
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f'<img alt="the sweep of {html.escape(report.name)}" style="max-width:100%" '
            f'src="data:image/png;base64,{data}"/>')


def html_page(report):
    """A whole HTML page: the report's table and verdict, and its figure inline."""
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(report.title())}</title></head><body>"
            f"{report.to_html(figure=True)}</body></html>\n")
