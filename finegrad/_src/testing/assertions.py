"""`finegrad.testing.sweep` (a rule checked over a whole range, as a report) and
`finegrad.testing.assert_rule` (the same sweep, raising in a test suite)."""
from typing import Any as _Any

from finegrad._src.testing import sweep_plan as _sweep
from finegrad._src.types import DTypeLike as _DTypeLike


def assert_rule(fn: _Any, reference: _Any = None, domain: _Any = (-10.0, 10.0),
                order: int = 1, **options: _Any) -> _Any:
    """Raise ``AssertionError`` with the sweep's report when ``fn``'s rule is wrong anywhere
    in ``domain``; for a test suite, with rules written for finegrad, torch, JAX, TensorFlow
    or NumPy (see `sweep`, which takes ``options``). Returns the report when it is ok.

    >>> import finegrad as fg
    >>> @fg.custom_gradient
    ... def double(x):
    ...     return 2 * x, lambda dy: 3 * dy          # wrong: should be 2 * dy
    >>> fg.testing.assert_rule(double, domain=(0, 1), points=11)
    Traceback (most recent call last):
    ...
    AssertionError: finegrad check: double against double without its rule, x in [0, 1]...
    ...MISMATCH: double's reverse derivative of order 1 with respect to x is off by 0.5...
    """
    report = sweep(fn, reference, interval=domain, order=order, **options)
    if not report.ok:
        raise AssertionError(str(report))
    return report


def sweep(f: _Any, reference: _Any = None, interval: _Any = (-10.0, 10.0), points: int = 1001,
          scale: str = "linear", dtype: _DTypeLike = "float32", order: int = 1,
          modes: _Any = ("rev", "fwd"), rtol: _Any = None, floor: float = 1e-3, base: _Any = None,
          seed: int = 0, progress: bool = False, framework: _Any = None,
          reference_framework: _Any = None, deviation: _Any = None,
          backend: _Any = None, shape: _Any = None, elements: _Any = None,
          lines: _Any = None) -> _Any:
    """Check ``f``'s derivatives over a whole range, against float64 finite differences.

    ``f`` takes scalar inputs (its required positional parameters) and returns a scalar
    (several outputs summed), written for finegrad, torch, JAX, TensorFlow, Keras or NumPy,
    whose own autodiff runs it (a mode it cannot do is "not available in <framework>: <why>",
    neither failed nor passed). Each input goes over ``interval`` with the others at ``base``,
    plus, with several inputs, ``points`` random points of the box. At every point the
    derivatives in ``dtype`` (reverse and forward mode; ``order=2``: each input's second
    derivative) are compared with float64 central finite differences, and with the plain
    autodiff of ``reference`` (default for a `finegrad.custom_gradient` function: its forward
    computation without the rule). ``finegrad check`` runs this.

    Args:
        f: the function to check.  reference: a plain function computing the same value.
        interval: ``(lo, hi)``, the range of every input.  points: points per input.
        scale: "linear", or "symlog" (denser near 0, evenly spaced in asinh(x)).
        dtype: "float32" or "float64", the derivatives' dtype.  order: 1 or 2.
        modes: any of "rev" and "fwd".  rtol: default 1e-3 (float32), 1e-6 (float64).
        floor: errors are relative to |expected|, never to less than ``floor`` times the
            largest |expected| of that input and order.  seed: for the random points.
        base: where the other inputs stay (default 0.618 of the way across the range; with
            ``shape``, the array the coordinate lines go through, default random).
        progress: a progress bar on stderr (True, False, "auto").
        framework: "finegrad", "torch", "jax", "tensorflow", "keras" (Keras's backend) or
            "numpy" (arrays -> ``(value, grad)``); default: found from ``f``.
        reference_framework: the same for ``reference``.  deviation: where the rule deviates
            on purpose ("x < 0", or a function of the inputs' arrays): intended, not checked.
        backend: a `finegrad.ops` backend to run ``f`` on (default for a
            `finegrad.ops.custom_gradient` function: the active one).
        shape: array inputs (one shape, or one per input), swept along ``lines`` random
            lines (default 2) and the coordinate lines of ``elements`` ("all" or indices);
            default: scalars, or (3,) for a function that is not elementwise on vectors.

    Returns:
        A report: ``str(report)`` (table and verdict), ``ok``, ``worst`` (mode, order, input,
        point, error, got, expected), ``to_dict()`` (JSON-ready), ``plot(path=None)`` and
        HTML in Jupyter. The rule must agree within ``rtol`` wherever it is finite (at a kink,
        anything between the one-sided differences), and be finite wherever the value is.

    >>> import finegrad as fg
    >>> @fg.custom_gradient
    ... def log1pexp(x):
    ...     e = fg.exp(x)
    ...     return fg.math.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))
    >>> report = fg.testing.sweep(log1pexp, interval=(-100, 100), points=201)
    >>> report.ok
    True
    >>> report.to_dict()["checks"][0]["reference_nonfinite"][:2]    # the plain one's nan
    [89.0, 90.0]
    """
    return _sweep.sweep(f, reference, interval, points, scale, dtype, order, modes, rtol,
                        floor, base, seed, progress, framework, reference_framework, deviation,
                        backend, shape, elements, lines)

