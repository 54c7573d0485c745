"""`finegrad.testing.assert_rule`: a sweep that raises in a test suite."""
from typing import Any as _Any

from finegrad._src.testing.gradient_checks import sweep


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
