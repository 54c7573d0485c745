"""Sweeping a function's derivatives over a whole range (`finegrad.testing.sweep`).

A sweep evaluates a function of scalar inputs at many points: each input in turn over a range
with the others at a base point, plus, with several inputs, random points of the whole box. At
every point it takes the derivatives finegrad computes (reverse and forward mode, order 1 and
2) in the requested dtype, the central finite differences of the function's value in float64
(the expected derivatives), and, when there is one, the plain autodiff of a reference function
in the requested dtype. The comparison is the one `check_custom_gradient` uses
(`finegrad._src.testing.comparison`); `sweep_report` turns the arrays into a report.

An elementwise function is evaluated on all points at once (one tape for the whole vector);
whether it is elementwise is checked by comparing a few points with calls on single points,
and a function that is not is evaluated one point at a time.
"""
import inspect

import numpy as np

from finegrad._src import nest
from finegrad._src.ad.forward import ForwardAccumulator
from finegrad._src.ad.linearity import NotLinearError
from finegrad._src.ad.tape import GradientTape
from finegrad._src.dtypes import as_dtype
from finegrad._src.ops.array.structural import reduce_sum
from finegrad._src.testing import frameworks
from finegrad._src.testing.frameworks import ops_rules
from finegrad._src.testing.frameworks.base import UPSTREAM
from finegrad._src.testing.progress import ProgressBar
from finegrad._src.testing.sweep_report import SweepReport
from finegrad._src.tensor import Tensor

MODES = ("rev", "fwd")
# central-difference steps, relative to max(1, |x|): about eps**(1/3) for the first
# derivative and eps**(1/4) for the second, which balance truncation and rounding in float64
_FD_STEP = {1: 6e-6, 2: 1e-4}


class NotElementwise(Exception):
    """The function's output on a vector of points is not one value per point."""


def _output(fn, ts, shape):
    """``fn(*ts)`` as one tensor of ``shape``: a single output of that shape, or, on single
    points, the sum of all outputs' elements."""
    flat = nest.flatten(fn(*ts))
    for o in flat:
        if not isinstance(o, Tensor):
            raise TypeError(f"finegrad.testing.sweep: {_name(fn)} returned a "
                            f"{type(o).__name__}, not a finegrad Tensor: write it with "
                            f"finegrad ops")
    if len(flat) == 1 and isinstance(flat[0], Tensor) and flat[0].shape == shape:
        return flat[0]
    if shape:
        raise NotElementwise(f"the output has shape {[tuple(o.shape) for o in flat]}, "
                             f"not one value per point {shape}")
    total = None
    for o in flat:
        s = reduce_sum(o)
        total = s if total is None else total + s
    return total


def _tensors(cols, dtype):
    return [Tensor(np.asarray(c, dtype)) for c in cols]


def _ones(t):
    return Tensor(np.ones(np.shape(t._value), t._value.dtype))


def _upstream(t):
    return Tensor(np.full(np.shape(t._value), UPSTREAM, t._value.dtype))


def _array(t, like):
    if t is None:
        return np.zeros(np.shape(like._value))
    return np.asarray(t._value, np.float64)


def derivatives(fn, cols, dtype, modes=MODES, order=1):
    """The value of ``fn`` at the points ``cols`` (one array per input) and its derivatives.

    Returns ``(value, {(mode, k): [d/dx_0, ..., d/dx_n-1]})`` for k in 1..order, each
    derivative an array of the points' shape: order 2 is each input's own second derivative
    (reverse over reverse, or forward over reverse).
    """
    shape = np.shape(cols[0])
    ts = _tensors(cols, dtype)
    out = {}
    with np.errstate(all="ignore"):
        with GradientTape(persistent=True) as outer:
            outer.watch(ts)
            with GradientTape() as tape:
                tape.watch(ts)
                y = _output(fn, ts, shape)
            g = tape.gradient(y, ts, output_gradients=_upstream(y),
                              unconnected_gradients="zero")
        value = np.asarray(y._value, np.float64)
        if "rev" in modes:
            out["rev", 1] = [_array(gi, t) / UPSTREAM for gi, t in zip(g, ts, strict=True)]
            if order >= 2:
                out["rev", 2] = [_array(outer.gradient(gi, t, output_gradients=_ones(gi),
                                                       unconnected_gradients="zero"), t) / UPSTREAM
                                 for gi, t in zip(g, ts, strict=True)]
        if "fwd" in modes:
            out["fwd", 1], out["fwd", 2] = [], []
            for k in range(len(ts)):
                d1, d2 = _forward(fn, ts, k, shape, order)
                out["fwd", 1].append(d1)
                out["fwd", 2].append(d2)
            if order < 2:
                del out["fwd", 2]
    return value, out


def _forward(fn, ts, k, shape, order):
    """Forward mode along input ``k``: the first derivative, and forward over reverse for
    the second (None at order 1)."""
    tangents = [_ones(t) if i == k else Tensor(np.zeros(np.shape(t._value), t._value.dtype))
                for i, t in enumerate(ts)]
    with ForwardAccumulator(ts, tangents) as acc:
        with GradientTape() as tape:
            tape.watch(ts[k])
            y = _output(fn, ts, shape)
        g = tape.gradient(y, ts[k], output_gradients=_upstream(y),
                          unconnected_gradients="zero") if order >= 2 else None
    d1 = _array(acc.jvp(y), ts[k])
    d2 = _array(acc.jvp(g), ts[k]) / UPSTREAM if order >= 2 else None
    return d1, d2


def values(fn, cols, dtype=np.float64):
    """``fn``'s value at the points ``cols``, with no recorder active."""
    ts = _tensors(cols, dtype)
    with np.errstate(all="ignore"):
        return np.asarray(_output(fn, ts, np.shape(cols[0]))._value, np.float64)


def finite_differences(value_fn, cols, order):
    """Central differences of ``value_fn`` (points -> float64 values) along each input.

    Returns ``(expected, noise, kinks, value)``. ``expected`` and ``noise`` are ``{k: [array
    per input]}`` for k in 1..order (second order: each input's own): the differences and an
    estimate of their own error, the larger of a bound on rounding (a few float64 epsilons of
    the values over the step) and how much the difference changes when the step is doubled
    (which also catches a function that loses digits inside, such as log(1 + e) for small
    e). ``kinks`` marks, per input, where the two one-sided first differences disagree by
    more than 10% (and by more than 1/1000 of the largest derivative over the sweep): there
    any value between them is a right answer (a subgradient), so the first-order noise
    includes half their gap, and the second difference, which sees a spike there, is nan
    (not checked). ``value`` is the float64 value at the points.
    """
    expected, noise, kinks = {}, {}, []
    eps = np.finfo(np.float64).eps
    with np.errstate(all="ignore"):
        f0 = value_fn(cols)
        for m in range(1, order + 1):
            expected[m], noise[m] = [], []
            for k, x in enumerate(cols):
                h = _FD_STEP[m] * np.maximum(1.0, np.abs(x))
                d, rounding, fp, fm = _difference(value_fn, cols, k, h, m, f0, eps)
                d2 = _difference(value_fn, cols, k, 2 * h, m, f0, eps)[0]
                err = np.maximum(rounding, np.abs(d - d2))
                if m == 1:
                    left, right = (f0 - fm) / h, (fp - f0) / h
                    gap = np.abs(left - right)
                    kink = ((gap > 0.1 * np.maximum(np.abs(left), np.abs(right)) + 4 * err)
                            & (gap > 1e-3 * _largest(d)))   # not a function's lost digits
                    kinks.append(kink)
                    err = np.where(kink, np.maximum(err, gap / 2), err)
                else:
                    d = np.where(kinks[k], np.nan, d)
                expected[m].append(d)
                noise[m].append(err)
    return expected, noise, kinks, f0


def _largest(d):
    finite = np.abs(d[np.isfinite(d)])
    return float(finite.max()) if finite.size else 0.0


def _difference(value_fn, cols, k, h, m, f0, eps):
    """The central difference of order ``m`` along input ``k`` with steps ``h``, a bound on
    its rounding error, and the values at x + h and x - h."""
    x = cols[k]
    xp, xm = x + h, x - h
    fp = value_fn([xp if i == k else c for i, c in enumerate(cols)])
    fm = value_fn([xm if i == k else c for i, c in enumerate(cols)])
    if m == 1:
        return ((fp - fm) / (xp - xm), 4 * eps * (np.abs(fp) + np.abs(fm)) / (xp - xm),
                fp, fm)
    h2 = ((xp - xm) / 2) ** 2
    return ((fp - 2 * f0 + fm) / h2,
            4 * eps * (np.abs(fp) + 2 * np.abs(f0) + np.abs(fm)) / h2, fp, fm)


class Evaluator:
    """Evaluates a function on a set of points: on all at once when it is elementwise, else
    one point at a time. ``progress`` (a `ProgressBar`) counts each pass over the points, or
    each point when they go one at a time."""

    def __init__(self, fn, cols, dtype, progress=None):
        self.fn, self.dtype, self.progress = fn, dtype, progress
        self.vectorized = _is_elementwise(fn, cols, dtype)
        self.steps = 1 if self.vectorized else len(cols[0])   # per pass over the points

    def _done(self, n=1):
        if self.progress is not None:
            self.progress.update(n)

    def derivatives(self, cols, modes, order):
        """`derivatives` of the function at ``cols``, vectorized or point by point. Forward
        mode through a rule that is not linear in the upstream gradient (a clipped one) is
        "not available", and reverse mode is checked alone."""
        try:
            return self._derivatives(cols, modes, order)
        except NotLinearError as e:
            if "fwd" not in modes or modes == ("fwd",):
                raise
            why = (f"not available in finegrad: the rule is not linear in the upstream "
                   f"gradient ({type(e).__name__})")
            self.unavailable = dict(getattr(self, "unavailable", {}))
            self.unavailable.update({("fwd", m): why for m in range(1, order + 1)})
            value, out = self._derivatives(cols, tuple(m for m in modes if m != "fwd"), order)
            zeros = [np.zeros(np.shape(c)) for c in cols]
            out.update({("fwd", m): [z.copy() for z in zeros] for m in range(1, order + 1)})
            return value, out

    def _derivatives(self, cols, modes, order):
        if self.vectorized:
            out = derivatives(self.fn, cols, self.dtype, modes, order)
            self._done()
            return out
        results = []
        for i in range(len(cols[0])):
            results.append(derivatives(self.fn, [c[i] for c in cols], self.dtype, modes, order))
            self._done()
        value = np.array([r[0] for r in results], np.float64)
        keys = results[0][1].keys()
        return value, {key: [np.array([r[1][key][k] for r in results], np.float64)
                             for k in range(len(cols))] for key in keys}

    def values64(self, cols):
        """The function's value in float64 at ``cols``."""
        if self.vectorized:
            out = values(self.fn, cols)
        else:
            out = np.array([values(self.fn, [c[i] for c in cols]) for i in range(len(cols[0]))])
        self._done(self.steps)
        return out


def _is_elementwise(fn, cols, dtype):
    """Whether ``fn`` on vectors of points acts on each point alone: moving one point changes
    no other point's value, and at a few points the value and both modes' first derivatives
    are what ``fn`` gives on that point alone."""
    n = len(cols[0])
    try:
        value, d = derivatives(fn, cols, dtype, MODES, 1)
        j = n // 2
        moved = [np.where(np.arange(n) == j, c * 0.5 + 0.25, c) for c in cols]
        others = np.arange(n) != j
        if not np.array_equal(values(fn, moved, dtype)[others],
                              np.asarray(value, dtype).astype(np.float64)[others],
                              equal_nan=True):
            return False
    except Exception:  # a function written for one point may fail on vectors in many ways
        return False
    for i in sorted({0, n // 3, (2 * n) // 3, n - 1}):
        v, di = derivatives(fn, [c[i] for c in cols], dtype, MODES, 1)
        got = [value[i]] + [g[i] for m in MODES for g in d[m, 1]]
        want = [v] + [g for m in MODES for g in di[m, 1]]
        if not np.allclose(got, want, rtol=1e-6, atol=0.0, equal_nan=True):
            return False
    return True


def grid(lo, hi, n, scale):
    """``n`` points from ``lo`` to ``hi``, evenly spaced (linear) or denser near 0 (symlog:
    evenly spaced in asinh(x))."""
    if scale == "symlog":
        return np.sinh(np.linspace(np.arcsinh(lo), np.arcsinh(hi), n))
    return np.linspace(lo, hi, n)


def sweep_points(n_inputs, interval, n, scale, base=None, seed=0):
    """The points of a sweep: ``(cols, groups)``.

    ``cols`` has one float64 array per input. ``groups`` lists ``(label, indices, k)``: each
    input ``k`` over the range with the others at ``base`` (default: 0.618 of the way from
    ``lo`` to ``hi``, away from the middle, which is often a special point such as 0; with
    symlog, of the way in asinh(x)), and, with several inputs, ``n`` random points of the box
    (``k`` None).
    """
    lo, hi = interval
    line = grid(lo, hi, n, scale)
    if base is None:
        base = _from_unit(np.array(0.618), lo, hi, scale)
    base = np.broadcast_to(np.asarray(base, np.float64), (n_inputs,))
    cols = [[] for _ in range(n_inputs)]
    groups = []
    for k in range(n_inputs):
        for i in range(n_inputs):
            cols[i].append(line if i == k else np.full(n, base[i]))
        groups.append((f"input {k} over the range", np.arange(k * n, (k + 1) * n), k))
    if n_inputs > 1:
        rng = np.random.default_rng(seed)
        u = rng.uniform(0.0, 1.0, (n_inputs, n))
        for i in range(n_inputs):
            cols[i].append(_from_unit(u[i], lo, hi, scale))
        groups.append(("random points of the box", np.arange(n_inputs * n, (n_inputs + 1) * n),
                       None))
    return [np.concatenate(c) for c in cols], groups


def _from_unit(u, lo, hi, scale):
    if scale == "symlog":
        a, b = np.arcsinh(lo), np.arcsinh(hi)
        return np.sinh(a + u * (b - a))
    return lo + u * (hi - lo)


def input_names(fn):
    """The names of ``fn``'s required positional parameters (its swept inputs)."""
    fn = ops_rules.user_function(fn)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ["x"]
    names = [p.name for p in params if p.default is p.empty and
             p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names or ["x"]


def _name(fn):
    fn = ops_rules.user_function(fn)
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, type):     # autograd.Function.apply: the user's class
        return f"{owner.__name__}.{getattr(fn, '__name__', 'apply')}"
    return getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))


def run(f, reference, kinds, spec):
    """Sweep ``f`` (written for ``kinds[0]``) and ``reference`` (``kinds[1]``, or None) over
    the points of ``spec`` (a dict of `finegrad.testing.sweep`'s checked arguments, with the
    names to report: see `sweep_plan.sweep`); returns a `SweepReport`."""
    names, np_dtype, order, modes = spec["names"], spec["dtype"], spec["order"], spec["modes"]
    cols, groups = sweep_points(len(names), spec["interval"], spec["points"], spec["scale"],
                                spec["base"], spec["seed"])
    # the points the function really receives, so that finite differences are taken there
    cols = [np.asarray(c.astype(np_dtype), np.float64) for c in cols]
    region = spec["intended"]
    intended = np.zeros(np.shape(cols[0]), bool) if region is None else region.mask(names, cols)
    functions = [f] + ([reference] if reference is not None else [])
    evaluators = [_evaluator(fn, cols, np_dtype, kind)
                  for fn, kind in zip(functions, kinds, strict=False)]
    fd_passes = 4 * order * len(names) + 1
    bar = ProgressBar(sum(ev.steps for ev in evaluators) + fd_passes * evaluators[0].steps,
                      "sweeping", enabled=spec["progress"])
    for ev in evaluators:
        ev.progress = bar
    value, got = evaluators[0].derivatives(cols, modes, order)
    ref = evaluators[1].derivatives(cols, modes, order)[1] if reference is not None else None
    fd, noise, kinks, value64 = finite_differences(evaluators[0].values64, cols, order)
    bar.close()
    declared = _declared(region, names, cols, order, np_dtype)
    if declared is not None:      # checked against the declared derivative, not skipped
        mask, want = declared
        for m in want:
            for k in range(len(names)):
                fd[m][k] = np.where(mask, want[m][k], fd[m][k])
                noise[m][k] = np.where(mask, 0.0, noise[m][k])
        intended = intended & ~mask
    report = SweepReport(
        name=spec["name"], reference_name=spec["reference_name"],
        input_names=names, dtype=np_dtype, interval=spec["interval"],
        scale=spec["scale"], points=spec["points"], order=order, modes=modes,
        rtol=spec["rtol"], floor=spec["floor"],
        cols=cols, groups=groups, value=value, got=got, expected=fd, noise=noise, kinks=kinks,
        value64=value64, reference=ref,
        vectorized=evaluators[0].vectorized, framework=kinds[0],
        framework_label=spec["label"] or (None if kinds[0] == "finegrad" else kinds[0]),
        unavailable=evaluators[0].unavailable, intended=intended,
        deviation=None if region is None else region.text(),
        declared=None if declared is None else declared[0])
    if getattr(evaluators[0], "without_graph", False) and not report.ok:
        report.notes.append(f"note: {evaluators[0].NO_GRAPH}")
    return report


def _declared(region, names, cols, order, dtype):
    """Where ``region`` declares the intended derivative, and its values (see
    `Intended.expected`); None when it declares none."""
    expected = getattr(region, "expected", None)
    if expected is None:
        return None
    return expected(names, cols, order, float(np.asarray(UPSTREAM, dtype)))


def _evaluator(fn, cols, dtype, kind):
    if kind != "finegrad":
        return frameworks.evaluator(fn, cols, dtype, kind)
    ev = Evaluator(fn, cols, dtype)
    ev.unavailable = {}
    return ev


def checked_arguments(f, interval, points, dtype, rtol):
    """The dtype, interval and number of points of a sweep, each checked: a sweep whose
    arguments would compare nothing (an infinite range, rtol nan) is an error, not "ok"."""
    fn = "finegrad.testing.sweep"
    if not callable(f):
        raise TypeError(f"{fn}: f must be a function, got {type(f).__name__} {f!r:.40}")
    try:
        np_dtype = np.dtype(as_dtype(dtype)._np)
    except (TypeError, ValueError):
        np_dtype = None
    if np_dtype is None or np_dtype not in (np.float32, np.float64):
        raise ValueError(f"{fn}: dtype must be float32 or float64, got {dtype!r}")
    if isinstance(interval, (str, bytes)) or not isinstance(interval, (tuple, list)) or \
            len(interval) != 2:
        raise TypeError(f"{fn}: interval must be a pair of numbers (lo, hi), got "
                        f"{type(interval).__name__} {interval!r:.40}")
    try:
        lo, hi = float(interval[0]), float(interval[1])
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: interval must be a pair of numbers (lo, hi), got "
                        f"{interval!r:.40}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"{fn}: interval must be finite with lo < hi, got {interval!r:.40}")
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 3:
        raise ValueError(f"{fn}: points must be an int >= 3, got {points!r:.40}")
    if points > MAX_POINTS:
        raise ValueError(f"{fn}: points must be at most {MAX_POINTS:,} (the sweep keeps "
                         f"several float64 arrays of that many values), got {points:,}")
    if rtol is not None and not (isinstance(rtol, (int, float, np.floating)) and
                                 np.isfinite(rtol) and rtol > 0):
        raise ValueError(f"{fn}: rtol must be a finite number > 0, got {rtol!r:.40}")
    return np_dtype, (lo, hi), int(points)


# a larger sweep would take minutes and gigabytes: a typo (--points 1e9) more likely than a need
MAX_POINTS = 10 ** 7


def _default_rtol(np_dtype):
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-3}.get(np_dtype, 1e-6)
