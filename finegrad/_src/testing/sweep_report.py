"""The report of a sweep (`finegrad.testing.sweep`): a table, a verdict, JSON and a plot.

Errors are relative: (|rule - expected| - noise) / |expected|, where ``expected`` is the
float64 central difference and ``noise`` an estimate of that difference's own error. So that
points where a derivative is almost 0 are not judged on their rounding alone, the denominator
is never less than ``floor`` (1e-3) times the largest |expected| of that input and order over
the sweep. A rule must give a finite derivative wherever the value is finite, and where the
value overflows the dtype but not float64 while the expected derivative fits in the dtype.
At a kink (see `finite_differences`) any first derivative between the one-sided differences
is right.
"""
import collections
import html

import numpy as np

from finegrad._src.testing.comparison import compare
from finegrad._src.testing.sweep_text import report_dict, report_rows, report_text, verdict

Worst = collections.namedtuple("Worst", "mode order input point error got expected")
Worst.__doc__ = """The worst point of a sweep: the mode ("rev"/"fwd") and order of the
derivative, the input's name, the point (input name -> value), the relative error, and the
rule's and the expected (float64 finite-difference) derivative."""


class Check:
    """One mode and order of a sweep, over all inputs and points."""

    def __init__(self, report, mode, order):
        self.mode, self.order = mode, order
        self.unavailable = getattr(report, "unavailable", {}).get((mode, order))
        self.error = []             # per input: relative error where checked, else 0
        self.failing = []           # per input: off by more than rtol, or nan/inf when due
        self.rule_nonfinite = []    # per input: nan/inf where a finite derivative is due
        self.reference_breaks = []  # per input: reference nan/inf where the rule is finite
        self.reference_off = []     # per input: reference finite but off by more than rtol
        self.unchecked = []         # per input: rule finite, no finite expected value
        self.compared = []          # per input: where the rule was compared with the expected
        limit = np.finfo(report.dtype).max
        value_finite = np.isfinite(report.value)
        value64_finite = np.isfinite(report.value64)
        for k in range(len(report.input_names)):
            exp = report.expected[order][k]
            ref = None if report.reference is None else report.reference[mode, order][k]
            if self.unavailable:    # compare nothing: neither a failure nor a pass
                ref, exp = None, np.full(exp.shape, np.nan)
            c = compare(report.got[mode, order][k], exp, ref)
            # a finite derivative is due where the value is finite, and where it overflows
            # only in the dtype while the expected derivative fits (not at a pole)
            due = (value_finite & (not self.unavailable)) | (value64_finite & c.expected_finite &
                                  (np.abs(np.nan_to_num(exp)) <= limit))
            denom = np.maximum(np.abs(np.where(c.expected_finite, exp, 0.0)),
                               report.floor * _scale(exp))
            # the finite difference's own rounding error is not the rule's
            noise = np.nan_to_num(report.noise[order][k], nan=0.0, posinf=0.0)
            rel = np.maximum(c.error - noise, 0.0) / denom
            keep = ~getattr(report, "intended", np.zeros(exp.shape, bool))
            self.error.append(np.where(keep, rel, 0.0))    # intended points: not checked
            self.rule_nonfinite.append(due & ~c.got_finite & keep)
            self.failing.append((c.checked & keep & (rel > report.rtol)) |
                                self.rule_nonfinite[-1])
            self.compared.append(c.checked & keep)
            self.reference_breaks.append(c.reference_breaks)
            if ref is None:
                self.reference_off.append(np.zeros(exp.shape, bool))
            else:
                ref_rel = np.where(np.isfinite(ref) & c.expected_finite, np.maximum(
                    np.abs(np.nan_to_num(ref - exp)) - noise, 0.0) / denom, 0.0)
                self.reference_off.append(ref_rel > report.rtol)
            self.unchecked.append(c.got_finite & ~c.expected_finite)
        self.ok = not any(f.any() for f in self.failing)

    def worst(self):
        """``(input index, point index, error)``: a failing nan/inf first, else the largest
        relative error; None when no point was checked."""
        best = None
        for k, (err, nonfinite) in enumerate(zip(self.error, self.rule_nonfinite, strict=True)):
            if nonfinite.any():
                cand = (k, int(np.flatnonzero(nonfinite)[0]), np.inf)
            elif err.size:
                j = int(np.argmax(err))
                cand = (k, j, float(err[j]))
            else:
                continue
            if best is None or cand[2] > best[2]:
                best = cand
        return best

    def count(self, masks):
        """How many points are marked in any input's mask."""
        return int(np.logical_or.reduce(masks).sum())


def _scale(expected):
    finite = np.abs(expected[np.isfinite(expected)])
    top = float(finite.max()) if finite.size else 0.0
    return top if top > 0 else 1.0


class SweepReport:
    """What `finegrad.testing.sweep` found: printable as a table, ``ok``, ``worst``,
    ``to_dict()`` (JSON-ready), ``plot()`` and a table in Jupyter."""

    def __init__(self, **data):
        self.notes = []     # lines the sweep adds under the table
        self.__dict__.update(data)
        self.checks = [Check(self, mode, order) for order in range(1, self.order + 1)
                       for mode in self.modes]

    @property
    def compared(self):
        """How many (point, input, mode, order) comparisons were made: 0 means the sweep
        checked nothing (the value is nan/inf everywhere, say), which is never "ok"."""
        return sum(int(m.sum()) for c in self.checks for m in c.compared)

    @property
    def ok(self):
        """True when something was compared, and the rule agrees within ``rtol`` at every
        point where it must."""
        return self.compared > 0 and all(c.ok for c in self.checks)

    def __bool__(self):
        return self.ok

    def point(self, j):
        """The ``j``-th point, as {input name: value}."""
        return {n: float(c[j]) for n, c in zip(self.input_names, self.cols, strict=True)}

    @property
    def worst(self):
        """The `Worst` point over all modes and orders (None if nothing was checked)."""
        best = None
        for c in self.checks:
            w = c.worst()
            if w is not None and (best is None or w[2] > best[1][2]):
                best = (c, w)
        if best is None:
            return None
        c, (k, j, err) = best
        return Worst(c.mode, c.order, self.input_names[k], self.point(j), err,
                     float(self.got[c.mode, c.order][k][j]),
                     float(self.expected[c.order][k][j]))

    def where(self, j, k=None):
        """A point as text: ``x=3.5``, or ``(x=1, y=2)``, with ``d/dy`` when ``k`` is given
        and there are several inputs."""
        p = self.point(j)
        if len(p) == 1:
            return f"{self.input_names[0]}={_num(p[self.input_names[0]])}"
        text = "(" + ", ".join(f"{n}={_num(v)}" for n, v in p.items()) + ")"
        return text if k is None else f"d/d{self.input_names[k]} at {text}"

    def spans(self, masks, unit=""):
        """The marked points as text: a count (with ``unit``) and, with one input, their
        range."""
        mask = np.logical_or.reduce(masks)
        n = int(mask.sum())
        if not n:
            return "0"
        if len(self.input_names) == 1:
            xs = self.cols[0][mask]
            return (f"{n}{unit} ({self.input_names[0]} in [{_num(xs.min())}, "
                    f"{_num(xs.max())}])")
        return f"{n}{unit}"

    def failing_spans(self, check):
        """Where ``check`` fails, per input: ``d/dx: 350 of 1001 points (x in [3.02,
        10])``, "0", or "-" when the mode is not available."""
        if check.unavailable:
            return "-"
        parts = []
        for k, mask in enumerate(check.failing):
            n = int(mask.sum())
            if not n:
                continue
            name = self.input_names[k]
            j = np.flatnonzero(mask)
            xs = self.cols[k][j]
            parts.append(f"d/d{name}: {n} of {mask.size} points ({name} in "
                         f"[{_num(xs.min())}, {_num(xs.max())}])")
        return "; ".join(parts) or "0"

    def __str__(self):
        return report_text(self)

    def __repr__(self):
        state = "ok" if self.ok else "MISMATCH" if self.compared else "NOTHING COMPARED"
        return f"<SweepReport of {self.name}: {state}>"

    def to_dict(self):
        """The report as plain data (what ``finegrad check --json`` writes)."""
        return report_dict(self)

    def _repr_html_(self):
        return self.to_html(figure=True)

    def to_html(self, figure=False):
        """The report as HTML: the title, the table, the notes and the verdict; with
        ``figure``, the picture inline (a base64 PNG; nothing without matplotlib)."""
        head, rows = report_rows(self)
        cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                       for r in rows)
        notes = "".join(f"<li>{html.escape(t.strip())}</li>" for t in
                        report_text(self).splitlines()[len(rows) + 2:-1])
        picture = ""
        if figure:
            from finegrad._src.testing.sweep_plot import figure_html
            picture = figure_html(self)
        return (f"<div><p><b>{html.escape(self.title())}</b></p><table><tr>{cells}</tr>{body}"
                f"</table>{f'<ul>{notes}</ul>' if notes else ''}"
                f"<p>{html.escape(verdict(self))}</p>{picture}</div>")

    def title(self):
        """One line: what was checked, against what, over which range."""
        lo, hi = self.interval
        ref = f" against {self.reference_name}" if self.reference_name else ""
        n = len(self.cols[0])
        on = getattr(self, "framework_label", None)
        on = f" ({on})" if on else ""
        return (f"finegrad check: {self.name}{on}{ref}, {', '.join(self.input_names)} in "
                f"[{_num(lo)}, {_num(hi)}] ({self.scale}), {n} points, {self.dtype.name}")

    def plot(self, path=None):
        """Draw the sweep with matplotlib (the ``[plot]`` extra) and return the figure;
        with ``path``, also save it there (.png, .svg, .pdf)."""
        from finegrad._src.testing.sweep_plot import plot_report
        return plot_report(self, path)


def _num(v):
    return f"{v:.4g}"
