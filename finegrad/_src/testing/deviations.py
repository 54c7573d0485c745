"""Intended deviations: regions where a rule differs from the derivative on purpose (a
straight-through estimator, a clipped or safe gradient), declared on the function with
`finegrad.testing.intended` or given to the sweep (``deviation=``, ``--expect-deviation``),
listed in the report as "intended, not checked"."""
from typing import Any as _Any

import numpy as np

_ATTRIBUTE = "_finegrad_intended"


class Intended:
    """The regions (expressions in the inputs' names, or functions of their arrays giving
    booleans) where a rule deviates on purpose, and why."""

    def __init__(self, regions, reason="", source="declared"):
        self.regions, self.reason, self.source = tuple(regions), reason, source
        self.also = []      # other declarations combined with this one (`|`)

    def text(self):
        """Where it comes from, the regions and the reason, for a report."""
        parts = " or ".join(r if isinstance(r, str) else getattr(r, "__name__", "a function")
                            for r in self.regions)
        own = f"{self.source}: {parts}" + (f"; {self.reason}" if self.reason else "")
        return "; ".join([own] + [o.text() for o in self.also])

    def __or__(self, other):
        if other is None:
            return self
        both = Intended(self.regions, self.reason, self.source)
        both.also = self.also + [other]
        return both

    def mask(self, names, cols):
        """Where any region holds, at the points ``cols`` (one array per input)."""
        shape = np.shape(cols[0])
        out = np.zeros(shape, bool)
        for region in self.regions:
            out |= region_mask(region, names, cols)
        for other in self.also:
            out |= other.mask(names, cols)
        return out


def intended(*regions: _Any, reason: str = "") -> _Any:
    """Decorator: declare where ``fn``'s rule deviates from the derivative on purpose.

    Each region is an expression in the inputs' names (``"x < 0"``; ``np`` is NumPy; with
    vector inputs, a point is in the region when any element is) or a function of the
    inputs' arrays giving booleans. `finegrad.testing.sweep`, `assert_rule` and
    ``finegrad check`` read it: the points in a region are listed as "intended, not checked"
    and the rest is checked. It marks any callable that takes attributes, a torch
    ``autograd.Function`` class included, and returns it unchanged.

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
    if not regions or not all(isinstance(r, str) or callable(r) for r in regions):
        raise TypeError(f"finegrad.testing.intended: regions must be expressions or functions, "
                        f"got {regions!r:.60}")

    def mark(fn):
        try:
            setattr(fn, _ATTRIBUTE, Intended(regions, reason))
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
            if isinstance(marker, tuple) and len(marker) == 2:   # (regions, reason): the
                return Intended(marker[0], marker[1])            # form lower layers write
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
