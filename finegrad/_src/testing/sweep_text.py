"""A sweep report as text: the table, the verdict line, and the JSON-ready dictionary."""
import numpy as np

_MODE = {"rev": "reverse", "fwd": "forward"}
_ORDER2 = {"rev": "reverse over reverse", "fwd": "forward over reverse"}


def _mode(mode, order):
    return _MODE[mode] if order == 1 else _ORDER2[mode]


def report_rows(report):
    """The table's header and rows, one row per mode and order."""
    ref = report.reference_name
    head = ["mode", "order", "failing", "worst rel. error", "at", "rule nan/inf"]
    if ref:
        head += ["reference nan/inf", "reference off"]
    rows = []
    for c in report.checks:
        w = c.worst()
        if c.unavailable:
            err, at = "-", c.unavailable
        elif w is None:
            err, at = "-", "(nothing checked)"
        else:
            k, j, e = w
            err = "nan/inf" if np.isinf(e) else f"{e:.2g}"
            at = report.where(j, k)
        row = [_mode(c.mode, c.order), str(c.order), report.failing_spans(c), err, at,
               report.spans(c.rule_nonfinite)]
        if ref:
            row += [report.spans(c.reference_breaks), report.spans(c.reference_off)]
        rows.append(row)
    return head, rows


def _table(head, rows):
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
              for r in rows]
    return lines


def verdict(report):
    """One line: ok or MISMATCH, the worst point, and where the reference breaks."""
    modes = " and ".join(report.modes)
    orders = "order 1" if report.order == 1 else "orders 1 and 2"
    if not report.compared:
        return (f"NOTHING COMPARED: no point of the sweep had both a finite derivative of "
                f"{report.name} and a finite expected value ({modes}, {orders}): its value "
                f"is nan/inf at every point, or its derivatives are; choose another range")
    if report.ok:
        declared = getattr(report, "declared", None)
        against = ("its declared derivative where declared, float64 finite differences "
                   "elsewhere," if declared is not None and declared.any() else
                   "float64 finite differences")
        line = (f"ok: {report.name} agrees with {against} within rtol="
                f"{report.rtol:g} wherever its derivatives must be finite ({modes}, {orders})")
        missing = [f"{_mode(c.mode, c.order)} order {c.order}" for c in report.checks
                   if c.unavailable]
        if missing:
            line += f"; not available, so not checked: {', '.join(missing)}"
    else:
        w = report.worst
        what = ("is nan/inf" if np.isinf(w.error) else
                f"is off by {w.error:.2g} (relative)")
        line = (f"MISMATCH: {report.name}'s {_mode(w.mode, w.order)} derivative of order "
                f"{w.order} with respect to {w.input} {what} at {_point(w.point)}: "
                f"{w.got:.6g}, expected {w.expected:.6g} (rtol={report.rtol:g})")
    breaks = [c for c in report.checks if c.count(c.reference_breaks)]
    if breaks:
        c = breaks[0]
        line += (f"; {report.reference_name} breaks where the rule does not: its "
                 f"{_mode(c.mode, c.order)} derivative of order {c.order} is nan/inf at "
                 f"{report.spans(c.reference_breaks, ' points')}")
    return line


def _point(point):
    return ", ".join(f"{n}={v:.6g}" for n, v in point.items())


def report_text(report):
    """The whole report: a title, the table, notes and the verdict."""
    head, rows = report_rows(report)
    lines = [report.title()] + ["  " + line for line in _table(head, rows)]
    unchecked = [c for c in report.checks if c.count(c.unchecked) and not c.unavailable]
    for c in unchecked:
        lines.append(f"  note: {_mode(c.mode, c.order)}, order {c.order}: "
                     f"{report.spans(c.unchecked, ' points')} not checked (the float64 finite "
                     f"difference is not finite there)")
    if any(k.any() for k in report.kinks):
        lines.append(f"  note: {report.spans(report.kinks, ' points')} look like kinks (the "
                     f"one-sided differences disagree): any first derivative between them "
                     f"is accepted there")
    declared = getattr(report, "declared", None)
    if declared is not None and declared.any():
        lines.append(f"  intended, checked against the declared derivative: "
                     f"{report.spans([declared], ' points')} ({report.deviation})")
    intended = getattr(report, "intended", None)
    if intended is not None and intended.any():
        lines.append(f"  intended, not checked: {report.spans([intended], ' points')} "
                     f"({report.deviation})")
    if not report.vectorized:
        lines.append("  note: evaluated one point at a time (the function is not elementwise)")
    lines += [f"  {note}" for note in getattr(report, "notes", ())]
    if getattr(report, "order2_hint", None):
        lines.append(f"  {report.order2_hint}")
    lines.append(verdict(report))
    return "\n".join(lines)


def _points(report, masks):
    idx = np.flatnonzero(np.logical_or.reduce(masks))
    if len(report.input_names) == 1:
        return [float(report.cols[0][j]) for j in idx]
    return [[float(c[j]) for c in report.cols] for j in idx]


def _finite(v):
    return v if np.isfinite(v) else str(v)


def report_dict(report):
    """Everything in the report as JSON-ready data."""
    w = report.worst
    checks = []
    for c in report.checks:
        cw = c.worst()
        entry = {"mode": c.mode, "order": c.order, "ok": c.ok,
                 "not_available": c.unavailable,
                 "worst_error": None if cw is None else _finite(cw[2]),
                 "worst_input": None if cw is None else report.input_names[cw[0]],
                 "worst_at": None if cw is None else report.point(cw[1]),
                 "failing": _points(report, c.failing),
                 "failing_where": report.failing_spans(c),
                 "rule_nonfinite": _points(report, c.rule_nonfinite),
                 "reference_nonfinite": _points(report, c.reference_breaks),
                 "reference_off": _points(report, c.reference_off),
                 "unchecked": c.count(c.unchecked)}
        checks.append(entry)
    return {
        "target": report.name, "reference": report.reference_name,
        "inputs": list(report.input_names), "dtype": report.dtype.name,
        "range": list(report.interval), "scale": report.scale, "points": len(report.cols[0]),
        "order": report.order, "modes": list(report.modes), "rtol": report.rtol,
        "floor": report.floor, "framework": getattr(report, "framework", "finegrad"),
        "vectorized": bool(report.vectorized), "ok": report.ok,
        "compared": report.compared,
        "worst": None if w is None else {
            "mode": w.mode, "order": w.order, "input": w.input, "point": w.point,
            "error": _finite(w.error), "got": _finite(w.got), "expected": _finite(w.expected)},
        "kinks": _points(report, report.kinks),
        "intended": _points(report, [report.intended]) if getattr(report, "intended", None)
        is not None else [],
        "declared": _points(report, [report.declared]) if getattr(report, "declared", None)
        is not None else [],
        "checks": checks, "verdict": verdict(report),
        "order2": getattr(report, "order2_hint", None),
    }
