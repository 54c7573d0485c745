"""Comparing a derivative with the expected one, and with a reference's: shared by
`finegrad.testing.check_custom_gradient` (at one point) and `finegrad.testing.sweep` (over a
range)."""
import numpy as np


class Comparison:
    """A derivative ``got`` against the ``expected`` one and, optionally, a reference's.

    All masks and errors are arrays of the derivatives' shape. ``error`` is |got - expected|
    where both are finite (0 elsewhere); ``reference_difference`` is |got - reference| where
    both are finite; ``reference_breaks`` marks where the reference is nan/inf and ``got`` is
    not (the reason a custom rule exists).
    """

    def __init__(self, got, expected, reference=None):
        got, expected = np.asarray(got, np.float64), np.asarray(expected, np.float64)
        self.got, self.expected = got, expected
        self.got_finite, self.expected_finite = np.isfinite(got), np.isfinite(expected)
        self.checked = self.got_finite & self.expected_finite
        with np.errstate(all="ignore"):
            self.error = np.where(self.checked, np.abs(got - expected), 0.0)
        self.reference = None if reference is None else np.asarray(reference, np.float64)
        if self.reference is None:
            self.reference_breaks = np.zeros(got.shape, bool)
            self.reference_difference = np.zeros(got.shape)
        else:
            ref_finite = np.isfinite(self.reference)
            self.reference_breaks = ~ref_finite & self.got_finite
            both = ref_finite & self.got_finite
            with np.errstate(all="ignore"):
                self.reference_difference = np.where(both, np.abs(got - self.reference), 0.0)

    def bad(self, atol, rtol):
        """Where ``got`` is finite and off by more than ``atol + rtol * |expected|``."""
        return self.checked & (self.error > atol + rtol * np.abs(
            np.where(self.expected_finite, self.expected, 0.0)))


def compare(got, expected, reference=None):
    """The `Comparison` of a derivative with the expected one (and a reference's)."""
    return Comparison(got, expected, reference)
