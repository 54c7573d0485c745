"""The report of a sweep of a function of arrays (`finegrad.testing.sweep` with ``shape=``):
one scalar report (`SweepReport`) per line ``x = p + t d`` of the input space, and, where a
line fails at order 1, the elements of the gradient that are wrong at its worst point."""
import html

from finegrad._src.testing.sweep_text import report_dict, report_text, verdict


class Line:
    """One line of the sweep: its label, ``ps`` and ``ds`` (per input), its `SweepReport`,
    and ``wrong``: None, or ``(xs, per input [(index, rule, expected)])`` at the worst point
    (or ``(xs, message)`` when the gradient could not be taken there)."""

    def __init__(self, label, ps, ds, report, wrong):
        self.label, self.ps, self.ds, self.report, self.wrong = label, ps, ds, report, wrong


class LinesReport:
    """What a sweep of array inputs found: printable, ``ok``, ``worst``, ``lines`` (each a
    `Line` with its own report), ``to_dict()``, ``plot()`` and HTML in Jupyter."""

    def __init__(self, spec, shapes, found, guessed, wrong_shapes=(), framework=None):
        self.name, self.input_names, self.shapes = spec["name"], spec["names"], shapes
        self.reference_name, self.label = spec["reference_name"], spec["label"]
        self.dtype, self.interval, self.points = spec["dtype"], spec["interval"], spec["points"]
        self.order, self.modes, self.rtol = spec["order"], spec["modes"], spec["rtol"]
        self.lines = [Line(*item) for item in found]
        self.guessed = guessed
        # the inputs whose gradient has another shape than theirs (then no line is swept)
        self.wrong_shapes = list(wrong_shapes)
        self.framework = framework or self.lines[0].report.framework

    @property
    def compared(self):
        """How many comparisons were made over all lines (0: nothing checked, never ok)."""
        return sum(line.report.compared for line in self.lines)

    @property
    def ok(self):
        """True when something was compared and every line agrees."""
        return not self.wrong_shapes and self.compared > 0 and all(
            _line_ok(line) for line in self.lines)

    def __bool__(self):
        return self.ok

    @property
    def worst(self):
        """The `Worst` point of the worst line (its ``point`` is the position ``t`` on that
        line), or None."""
        ranked = [(line.report.worst, line) for line in self.lines if line.report.worst]
        if not ranked:
            return None
        return max(ranked, key=lambda wl: wl[0].error)[0]

    def worst_line(self):
        """The failing `Line` with the largest error, else the first line."""
        failing = [line for line in self.lines if not _line_ok(line) and line.report.worst]
        if not failing:
            return self.lines[0]
        return max(failing, key=lambda line: line.report.worst.error)

    def title(self):
        """One line: what was checked, on which shapes, over which range."""
        lo, hi = self.interval
        on = f" ({self.label})" if self.label else ""
        ref = f" against {self.reference_name}" if self.reference_name else ""
        inputs = ", ".join(f"{n} of shape {_shape(s)}" for n, s in
                           zip(self.input_names, self.shapes, strict=True))
        return (f"finegrad check: {self.name}{on}{ref}, {inputs}, elements in "
                f"[{lo:.4g}, {hi:.4g}], {len(self.lines)} lines of {self.points} points, "
                f"{self.dtype.name}")

    def __str__(self):
        lo, hi = self.interval
        out = [self.title(),
               f"  along each line {self.line_text()} (t in [{lo:.4g}, {hi:.4g}]) the "
               f"derivatives are along d, with respect to t"]
        if self.guessed:
            out.append(f"  note: {self.name} is not elementwise on vectors, so it is swept "
                       f"with shape {_shape(self.shapes[0])}; choose one with shape= (--shape)")
        for line in self.lines:
            state = ("all intended, not checked" if _all_intended(line) else
                     "ok" if line.report.ok else "MISMATCH")
            out.append(f"  {line.label}: {state}")
            out += ["  " + t for t in report_text(line.report).splitlines()[1:-1]]
            if line.wrong is not None:
                out.append("    " + self.wrong_text(line))
        if self.order == 1 and self.ok:
            out.append("  " + (getattr(self, "order2_hint", None) or
                               "order 2 not checked; ask for it with --order 2 (order=2)"))
        out.append(self.verdict())
        return "\n".join(out)

    def line_text(self):
        """The lines' equation: ``x = p + t d``, one per input."""
        if len(self.input_names) == 1:
            return f"{self.input_names[0]} = p + t d"
        return ", ".join(f"{n} = p_{n} + t_{n} d_{n}" for n in self.input_names)

    def wrong_text(self, line):
        """The wrong elements of ``line``'s worst point, as text."""
        xs, wrong = line.wrong
        if isinstance(wrong, str):
            return f"the gradient could not be taken at the worst point: {wrong}"
        parts = [f"{self.input_names[k]}{idx}: {got:.6g}, expected {exp:.6g}"
                 for k, items in enumerate(wrong) for idx, got, exp in items]
        total = sum(x.size for x in xs)
        if not parts:
            return ("at the worst point, no single element of the gradient is off by more "
                    "than rtol (the error is spread over elements)")
        shown = "; ".join(parts[:6]) + (f"; ... ({len(parts) - 6} more)" if len(parts) > 6
                                        else "")
        return f"wrong elements at the worst point ({len(parts)} of {total}): {shown}"

    def verdict(self):
        """One line: ok or MISMATCH, with the line and the elements that are wrong."""
        if self.wrong_shapes:
            return (f"MISMATCH: {self.name}'s gradient has the wrong shape: "
                    f"{'; '.join(self.wrong_shapes)} (a gradient not reduced over the "
                    f"dimensions its input was broadcast along?)")
        if not self.compared:
            return (f"NOTHING COMPARED: no point of any line had a finite derivative of "
                    f"{self.name} and a finite expected value; choose another range")
        if self.ok:
            return (f"ok: {self.name} agrees with float64 finite differences within rtol="
                    f"{self.rtol:g} along {len(self.lines)} lines ({' and '.join(self.modes)}, "
                    f"{'order 1' if self.order == 1 else 'orders 1 and 2'})")
        line = self.worst_line()
        text = verdict(line.report)
        if line.wrong is not None and not isinstance(line.wrong[1], str):
            text += "; " + self.wrong_text(line)
        return text

    def to_dict(self):
        """The report as plain data (what ``finegrad check --json`` writes)."""
        lines = []
        for line in self.lines:
            entry = {"line": line.label, "p": [p.tolist() for p in line.ps],
                     "d": [d.tolist() for d in line.ds], "report": report_dict(line.report),
                     "wrong_elements": None}
            if line.wrong is not None:
                xs, wrong = line.wrong
                entry["wrong_elements"] = wrong if isinstance(wrong, str) else {
                    "at": [x.tolist() for x in xs],
                    "elements": {self.input_names[k]: [
                        {"index": idx, "got": _plain(got), "expected": _plain(exp)}
                        for idx, got, exp in items]
                        for k, items in enumerate(wrong)}}
            lines.append(entry)
        return {"target": self.name, "reference": self.reference_name,
                "inputs": list(self.input_names), "shapes": [list(s) for s in self.shapes],
                "dtype": self.dtype.name, "range": list(self.interval), "points": self.points,
                "order": self.order, "modes": list(self.modes), "rtol": self.rtol,
                "framework": self.framework, "ok": self.ok, "compared": self.compared,
                "lines": lines, "wrong_shapes": self.wrong_shapes,
                "order2": getattr(self, "order2_hint", None),
                "verdict": self.verdict()}

    def plot(self, path=None):
        """The picture of the worst line (see `SweepReport.plot`)."""
        if not self.lines:
            raise ValueError(f"finegrad.testing.sweep: no line was swept, nothing to draw "
                             f"({self.verdict()})")
        return self.worst_line().report.plot(path)

    def _repr_html_(self):
        return self.to_html(figure=True)

    def to_html(self, figure=False):
        """The report as HTML, each line's table in turn; with ``figure``, the picture of
        the worst line inline."""
        parts = [f"<p><b>{html.escape(self.title())}</b></p>"]
        for line in self.lines:
            parts.append(f"<p>{html.escape(line.label)}</p>" + line.report.to_html())
            if line.wrong is not None:
                parts.append(f"<p>{html.escape(self.wrong_text(line))}</p>")
        picture = ""
        if figure and self.lines:
            from finegrad._src.testing.sweep_plot import figure_html
            picture = figure_html(self.worst_line().report)
        return f"<div>{''.join(parts)}<p>{html.escape(self.verdict())}</p>{picture}</div>"

    def __repr__(self):
        return f"<LinesReport of {self.name}: {'ok' if self.ok else 'MISMATCH'}>"


def _plain(v):
    """A number for JSON: nan and inf as strings (JSON has neither)."""
    return v if v == v and abs(v) != float("inf") else str(v)


def _all_intended(line):
    intended = getattr(line.report, "intended", None)
    return intended is not None and bool(intended.all())


def _line_ok(line):
    """A line agrees, or lies wholly in an intended region (nothing to check there)."""
    return line.report.ok or (line.report.compared == 0 and _all_intended(line))


def _shape(s):
    return "(" + ", ".join(str(d) for d in s) + ("," if len(s) == 1 else "") + ")"

