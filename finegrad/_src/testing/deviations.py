"""Intended deviations: regions where a rule differs from the derivative on purpose (a
straight-through estimator, a clipped or safe gradient), declared on the function with
`finegrad.testing.intended` or given to the sweep (``deviation=``, ``--expect-deviation``),
listed in the report as "intended, not checked"."""
import inspect
from typing import Any as _Any

import numpy as np

_ATTRIBUTE = "_finegrad_intended"


class Intended:
    """The regions (expressions in the inputs' names, or functions of their arrays giving
    booleans) where a rule deviates on purpose, and why."""

    def __init__(self, regions, reason="", source="declared", derivative=None):
        self.regions, self.reason, self.source = tuple(regions), reason, source
        self.derivative = derivative    # the intended first derivative there, or None
        self.also = []      # other declarations combined with this one (`|`)

    def text(self):
        """Where it comes from, the regions and the reason, for a report."""
        parts = " or ".join(r if isinstance(r, str) else getattr(r, "__name__", "a function")
                            for r in self.regions) or "everywhere"
        own = f"{self.source}: {parts}" + (f"; {self.reason}" if self.reason else "")
        return "; ".join([own] + [o.text() for o in self.also])

    def __or__(self, other):
        if other is None:
            return self
        both = Intended(self.regions, self.reason, self.source, self.derivative)
        both.also = self.also + [other]
        return both

    def own_mask(self, names, cols):
        """Where this declaration's own regions hold (everywhere when it has none)."""
        shape = np.shape(cols[0])
        if not self.regions:
            return np.ones(shape, bool)
        out = np.zeros(shape, bool)
        for region in self.regions:
            out |= region_mask(region, names, cols)
        return out

    def mask(self, names, cols):
        """Where any region holds, at the points ``cols`` (one array per input)."""
        out = self.own_mask(names, cols)
        for other in self.also:
            out |= other.mask(names, cols)
        return out


    def expected(self, names, cols, order, upstream):
        """``(mask, {m: [array per input]})``: where a declared derivative replaces the
        finite differences, and what it gives there (order 2: its own central differences);
        None without one."""
        if self.derivative is None:
            return None
        mask = self.own_mask(names, cols)
        out = {1: _declared(self.derivative, cols, upstream)}
        if order >= 2:
            out[2] = []
            for k, x in enumerate(cols):
                h = 1e-5 * np.maximum(1.0, np.abs(x))
                up = _declared(self.derivative, [x + h if i == k else c
                                                 for i, c in enumerate(cols)], upstream)
                down = _declared(self.derivative, [x - h if i == k else c
                                                   for i, c in enumerate(cols)], upstream)
                out[2].append((up[k] - down[k]) / (2 * h))
        return mask, out


def _declared(derivative, cols, upstream):
    """The declared derivative at ``cols``: one float64 array per input."""
    try:
        takes_dy = "dy" in inspect.signature(derivative).parameters
    except (TypeError, ValueError):
        takes_dy = False
    got = derivative(*cols, dy=upstream) if takes_dy else derivative(*cols)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    if len(got) != len(cols):
        raise ValueError(f"finegrad.testing.intended: derivative gave {len(got)} arrays for "
                         f"{len(cols)} inputs")
    return [np.broadcast_to(np.asarray(g, np.float64), np.shape(cols[0])).copy() for g in got]


def intended(*regions: _Any, reason: str = "", derivative: _Any = None) -> _Any:
    """Decorator: declare where ``fn``'s rule deviates from the derivative on purpose.

    Each region is an expression in the inputs' names (``"x < 0"``; ``np`` is NumPy; with
    vector inputs, a point is in the region when any element is) or a function of the
    inputs' arrays giving booleans. `finegrad.testing.sweep`, `assert_rule` and
    ``finegrad check`` read it: the points in a region are listed as "intended, not checked"
    and the rest is checked. It marks any callable that takes attributes, a torch
    ``autograd.Function`` class included, and returns it unchanged.

    With ``derivative`` (a function of the inputs' arrays giving the intended first
    derivative, one array per input; given the upstream gradient too when it has a
    parameter named ``dy``), the region is checked against it instead of being skipped, so
    that a straight-through or scaled rule that is wrong is still found; with no region, it
    holds everywhere. At order 2 the rule's own derivative is compared with the declared
    derivative's central differences.

    >>> import finegrad as fg
    >>> @fg.testing.intended("abs(x) > 1", reason="clipped")
    ... @fg.custom_gradient
    ... def clipped_cube(x):        # the gradient is 0 outside [-1, 1], on purpose
    ...     return x ** 3, lambda dy: dy * 3 * x ** 2 * fg.cast(fg.abs(x) <= 1, dy.dtype)
    >>> report = fg.testing.sweep(clipped_cube, interval=(-3, 3), points=61)
    >>> report.ok
    True
    >>> print(next(t for t in str(report).splitlines() if "intended" in t))
      intended, not checked: 40 points (x in [-3, 3]) (declared: abs(x) > 1; clipped)
    """
    if (not regions and derivative is None) or not all(
            isinstance(r, str) or callable(r) for r in regions):
        raise TypeError(f"finegrad.testing.intended: regions must be expressions or functions, "
                        f"got {regions!r:.60}")
    if derivative is not None and not callable(derivative):
        raise TypeError(f"finegrad.testing.intended: derivative must be a function of the "
                        f"inputs' arrays, got {type(derivative).__name__}")

    def mark(fn):
        try:
            setattr(fn, _ATTRIBUTE, Intended(regions, reason, derivative=derivative))
        except (AttributeError, TypeError):
            raise TypeError(f"finegrad.testing.intended: cannot mark {type(fn).__name__} "
                            f"{fn!r:.40}; mark the function it wraps, or pass deviation= "
                            f"to the sweep") from None
        return fn
    return mark


def declared(*fns):
    """The `Intended` marker found on any of ``fns`` or, for a bound method of a class (a
    torch ``autograd.Function``'s ``apply``), on the class; None if there is none."""
    for fn in fns:
        for obj in (fn, getattr(fn, "__self__", None)):
            marker = getattr(obj, _ATTRIBUTE, None)
            if isinstance(marker, Intended):
                return marker
            if isinstance(marker, tuple) and len(marker) in (2, 3):  # (regions, reason[,
                return Intended(*marker[:2], derivative=marker[2] if  # derivative]): the form
                                len(marker) == 3 else None)           # lower layers write
    return None


def region_mask(region, names, cols):
    """Where ``region`` (an expression in ``names`` or a function of the arrays) holds."""
    shape = np.shape(cols[0])
    if isinstance(region, str):
        scope = dict(zip(names, cols, strict=True))
        try:
            mask = eval(region, {"__builtins__": {"abs": abs}, "np": np}, scope)
        except Exception as e:
            raise ValueError(f"finegrad.testing.sweep: deviation {region!r} is not an "
                             f"expression in {names}: {type(e).__name__}: {e}") from None
    elif callable(region):
        mask = region(*cols)
    else:
        raise TypeError(f"finegrad.testing.sweep: deviation must be an expression or a "
                        f"function, got {type(region).__name__}")
    return np.broadcast_to(np.asarray(mask, bool), shape).copy()
