"""What a sweep checks, decided before it runs (`finegrad.testing.sweep`): the framework and
backend the function is written for, its inputs' names and shapes (scalars, or arrays swept
along lines: `sweep_vector`), the intended deviations (given, or declared with
`finegrad.testing.intended`), then the scalar sweep (`sweep.run`) once, or once per line."""
import numpy as np

from finegrad._src.testing import frameworks
from finegrad._src.testing import sweep as _points
from finegrad._src.testing import sweep_vector
from finegrad._src.testing.deviations import Intended, declared
from finegrad._src.testing.frameworks import arrays, ops_rules
from finegrad._src.testing.sweep_lines_report import LinesReport

MODES = _points.MODES


def sweep(f, reference=None, interval=(-10.0, 10.0), points=1001, scale="linear",
          dtype="float32", order=1, modes=MODES, rtol=None, floor=1e-3, base=None, seed=0,
          progress=False, framework=None, reference_framework=None, deviation=None,
          backend=None, shape=None, elements=None, lines=None):
    """Check ``f``'s derivatives over a whole range; see `finegrad.testing.sweep`."""
    np_dtype, interval, points = _points.checked_arguments(f, interval, points, dtype, rtol)
    if order not in (1, 2):
        raise ValueError(f"finegrad.testing.sweep: order must be 1 or 2, got {order!r}")
    modes = tuple(modes)
    if any(m not in MODES for m in modes) or not modes:
        raise ValueError(f"finegrad.testing.sweep: modes must be among {MODES}, got {modes!r}")
    reference_name = None if reference is None else _points._name(reference)
    if reference is None and hasattr(f, "forward_without_rule"):
        reference = f.forward_without_rule
        reference_name = f"{_points._name(f)} without its rule"
    names = _points.input_names(f)
    region = declared(f, ops_rules.user_function(f))
    if deviation is not None:
        region = Intended(deviation if isinstance(deviation, (list, tuple)) else [deviation],
                          source="deviation") | region
    spec = {"name": _points._name(f), "reference_name": reference_name, "names": names,
            "label": ops_rules.label(f, framework, backend), "dtype": np_dtype,
            "interval": interval, "points": points, "scale": scale, "order": order,
            "modes": modes, "rtol": _points._default_rtol(np_dtype) if rtol is None else
            float(rtol), "floor": floor, "base": base, "seed": seed, "progress": progress,
            "intended": region}
    f, framework = ops_rules.resolve(f, framework, backend)
    functions = [f]
    if reference is not None:
        reference, reference_framework = ops_rules.resolve(reference, reference_framework,
                                                           backend)
        functions.append(reference)
    kinds = [frameworks.detect(fn, fw, len(names)) for fn, fw in
             zip(functions, (framework, reference_framework), strict=False)]
    shapes = sweep_vector.input_shapes(shape, len(names))
    scalars = shapes is not None and all(s == () for s in shapes)    # shape=(): scalars
    shapes = None if scalars else shapes
    guessed = shapes is None and not scalars and sweep_vector.probe_shape(
        f, kinds[0], len(names), interval, np_dtype)
    if guessed:
        shapes = [guessed] * len(names)
    if shapes is None:
        if elements is not None or lines is not None:
            raise ValueError("finegrad.testing.sweep: elements= and lines= need array inputs "
                             "(shape=)")
        report = _points.run(f, reference, kinds, spec)
        if order == 1 and report.ok:
            report.order2_hint = order2_hint(f, kinds, spec)
        return report
    indices = sweep_vector.element_indices(elements, shapes)
    spec["base_arrays"] = sweep_vector.base_arrays(base, shapes)
    spec["base"] = None     # the scalar sweep along each line starts from its own default
    n_lines = (2 if not indices else 0) if lines is None else int(lines)
    if n_lines < 0 or n_lines + len(indices) == 0:
        raise ValueError(f"finegrad.testing.sweep: lines must be >= 1 without elements, got "
                         f"{lines!r}")
    return along_lines(f, reference, kinds, spec, shapes, indices, n_lines, bool(guessed))


def along_lines(f, reference, kinds, spec, shapes, indices, n_lines, guessed):
    """The sweep of a function of arrays: one scalar sweep per line (`sweep_vector`), and,
    where a line fails at order 1, the wrong elements at its worst point."""
    weights = arrays.Weights(spec["seed"])
    found, on_lines = [], []
    wrong = sweep_vector.wrong_shapes(arrays.weighted(f, kinds[0], weights), kinds[0], shapes,
                                      spec["names"], spec["interval"], spec["dtype"],
                                      spec["seed"])
    if wrong:     # a broadcast not reduced: no line can be checked with such a gradient
        return LinesReport(spec, shapes, [], guessed, wrong_shapes=wrong, framework=kinds[0])
    line_names = ["t"] if len(spec["names"]) == 1 else [f"t_{n}" for n in spec["names"]]
    for label, ps, ds in sweep_vector.lines(shapes, spec["interval"], indices, n_lines,
                                            spec["dtype"], spec["seed"], spec["base_arrays"]):
        g = arrays.on_line(f, kinds[0], ps, ds, weights)
        r = None if reference is None else arrays.on_line(reference, kinds[1], ps, ds, weights)
        region = None if spec["intended"] is None else _OnLine(spec["intended"], ps, ds,
                                                                spec["names"])
        report = _points.run(g, r, kinds, dict(spec, name=f"{spec['name']} along {label}",
                                               intended=region, names=line_names))
        wrong = _wrong_at_worst(report, f, kinds[0], ps, ds, weights, spec)
        found.append((label, ps, ds, report, wrong))
        on_lines.append((label, g, dict(spec, intended=region, names=line_names)))
    out = LinesReport(spec, shapes, found, guessed)
    if spec["order"] == 1 and out.ok:
        out.order2_hint = lines_order2_hint(on_lines, kinds)
    return out


def lines_order2_hint(on_lines, kinds, quick=21):
    """`order2_hint` for a sweep along lines: a quick look at ``quick`` points of each line
    (reverse over reverse, the second derivative along d); the first line where it finds
    something wrong (or cannot look) is named."""
    hints = []
    for label, g, spec in on_lines:
        hint = order2_hint(g, kinds, spec, quick)
        if not hint.startswith("order 2 not checked (a quick look"):
            return hint.replace("(a quick look", f"(a quick look along {label}", 1) \
                if "looks wrong" in hint else f"{label}: {hint}"
        hints.append(hint)
    n = min(on_lines[0][2]["points"], quick)
    return (f"order 2 not checked (a quick look at {n} points of each of the {len(hints)} "
            f"lines found nothing); ask for it with --order 2 (order=2)")


def _wrong_at_worst(report, f, framework, ps, ds, weights, spec):
    """The wrong elements at the worst failing point of order 1 (None when order 1 is ok)."""
    failing = [c for c in report.checks if c.order == 1 and not c.ok]
    if not failing:
        return None
    worst = max((c.worst() for c in failing), key=lambda w: w[2])
    j = worst[1]
    xs = [p + t[j] * d for p, t, d in zip(ps, report.cols, ds, strict=True)]
    try:
        return xs, sweep_vector.wrong_elements(arrays.weighted(f, framework, weights), framework,
                                               xs, spec["dtype"], spec["rtol"], spec["floor"])
    except Exception as e:   # the reverse gradient itself fails there: say so, not crash
        return xs, f"{type(e).__name__}: {e}"


def order2_hint(f, kinds, spec, quick=21):
    """What the report says of order 2 when order 1 passes: a quick look at ``quick``
    points (reverse over reverse) tells whether asking for it is likely to find something."""
    ask = "ask for it with --order 2 (order=2)"
    try:
        look = _points.run(f, None, kinds[:1], dict(
            spec, points=min(spec["points"], quick), order=2, modes=("rev",), progress=False))
    except Exception as e:    # the second derivative cannot even be taken: say so
        return (f"this rule passes at order 1, but a quick look at order 2 failed "
                f"({type(e).__name__}: {str(e)[:120]}); {ask}")
    check = look.checks[-1]
    if check.unavailable:
        return f"order 2 not checked: {check.unavailable}"
    if not check.ok:
        return (f"this rule passes at order 1, but its second derivative looks wrong "
                f"(a quick look, reverse over reverse: {look.failing_spans(check)}); {ask}")
    return f"order 2 not checked (a quick look at {len(look.cols[0])} points found nothing); {ask}"


class _OnLine:
    """An intended region seen along a line: a point is in it when any element is."""

    def __init__(self, region, ps, ds, names):
        self.region, self.ps, self.ds, self.names = region, ps, ds, names

    def text(self):
        return self.region.text()

    def mask(self, names, ts):
        out = np.zeros(len(ts[0]), bool)
        for i in range(len(out)):
            xs = [p + t[i] * d for p, t, d in zip(self.ps, ts, self.ds, strict=True)]
            out[i] = self.region.mask(self.names, xs).any()
        return out
