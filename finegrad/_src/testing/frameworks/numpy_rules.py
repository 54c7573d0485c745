"""Black-box NumPy rules: a function of NumPy arrays returning ``(value, grad)`` as in
`finegrad.custom_gradient` (``grad(dy)`` gives one array per input), for a simulator or
kernel no framework can differentiate. Only reverse mode of order 1 can be checked: the
rule gives a vector-Jacobian product and nothing differentiates it."""
import numpy as np

from finegrad._src.testing.frameworks.base import UPSTREAM, FrameworkEvaluator


def _split(fn, cols, dtype):
    out = fn(*[np.asarray(c, dtype) for c in cols])
    if not (isinstance(out, tuple) and len(out) == 2 and callable(out[1])):
        raise TypeError("finegrad.testing.sweep: a NumPy rule must return (value, grad) with "
                        f"grad(dy) giving the input's gradients, got {type(out).__name__}")
    return np.asarray(out[0]), out[1]


class NumpyEvaluator(FrameworkEvaluator):
    """A NumPy ``(value, grad)`` function on a set of points (see `FrameworkEvaluator`)."""

    name = "numpy"

    def _values(self, cols, dtype):
        return np.asarray(_split(self.fn, cols, dtype)[0], np.float64)

    def _derivatives(self, cols, dtype, modes, order):
        value, grad = _split(self.fn, cols, dtype)
        out = {}
        if "rev" in modes:
            g = grad(np.full_like(value, UPSTREAM))
            g = list(g) if isinstance(g, (tuple, list)) else [g]
            out["rev", 1] = [np.broadcast_to(np.asarray(gi, np.float64) / UPSTREAM,
                                             np.shape(c)).copy()
                             for gi, c in zip(g, cols, strict=True)]
        why = NotImplementedError("a NumPy rule gives only a vector-Jacobian product, "
                                  "which nothing differentiates")
        for mode in modes:
            for m in range(1, order + 1):
                if (mode, m) not in out:
                    self.not_available(mode, m, why)
        return np.asarray(value, np.float64), out
