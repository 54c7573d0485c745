"""What every framework's evaluator shares: evaluating on all points at once when the
function is elementwise, else one point at a time, and recording the modes the framework
cannot do ("not available in <framework>: <why>") instead of failing or passing them."""
import numpy as np

MODES = ("rev", "fwd")

# the upstream gradient given to a rule in reverse mode, and divided out of what it returns:
# not 1, so that a rule that forgets to multiply by its upstream (a forgotten chain rule) is
# wrong by 1/UPSTREAM - 1 = 33% instead of exactly right (rules are linear in the upstream,
# so the division is exact up to rounding)
UPSTREAM = 0.75


class FrameworkEvaluator:
    """Evaluates a function written for ``name`` on a set of points. Subclasses give
    ``_derivatives(cols, dtype, modes, order) -> (value, {(mode, k): [per input]})`` on
    arrays of any shape and ``_values(cols, dtype)``; a (mode, order) they cannot do they
    leave out after calling ``self.not_available``."""

    name = "?"

    def __init__(self, fn, cols, dtype, progress=None):
        self.fn, self.dtype, self.progress = fn, dtype, progress
        self.unavailable = {}
        self.vectorized = self._is_elementwise(cols)
        self.steps = 1 if self.vectorized else len(cols[0])

    def not_available(self, mode, order, error):
        text = str(error).strip().splitlines()[0] if str(error).strip() else ""
        self.unavailable.setdefault((mode, order), f"not available in {self.name}: "
                                    f"{type(error).__name__}: {text[:200]}")

    def _done(self, n=1):
        if self.progress is not None:
            self.progress.update(n)

    def _is_elementwise(self, cols):
        n = len(cols[0])
        try:
            v = self._values(cols, self.dtype)
            if np.shape(v) != (n,):
                return False
            for i in sorted({0, n // 2, n - 1}):
                one = self._values([c[i] for c in cols], self.dtype)
                if not np.allclose(v[i], one, rtol=1e-6, atol=0.0, equal_nan=True):
                    return False
        except Exception:  # written for one point
            return False
        return True

    def derivatives(self, cols, modes, order):
        """The value at ``cols`` and the derivatives, with nan for modes not available."""
        if self.vectorized:
            value, out = self._derivatives(cols, self.dtype, modes, order)
            self._done()
        else:
            results = []
            for i in range(len(cols[0])):
                results.append(self._derivatives([c[i] for c in cols], self.dtype, modes,
                                                  order))
                self._done()
            value = np.array([r[0] for r in results], np.float64)
            keys = set().union(*(r[1].keys() for r in results))
            out = {key: [np.array([r[1][key][k] if key in r[1] else np.nan
                                   for r in results], np.float64)
                         for k in range(len(cols))] for key in keys}
        for mode in modes:
            for m in range(1, order + 1):
                if (mode, m) not in out:
                    out[mode, m] = [np.full(np.shape(cols[0]), np.nan) for _ in cols]
        return value, out

    def values64(self, cols):
        """The function's value in float64 at ``cols``."""
        if self.vectorized:
            out = self._values(cols, np.float64)
        else:
            out = np.array([self._values([c[i] for c in cols], np.float64)
                            for i in range(len(cols[0]))])
        self._done(self.steps)
        return np.asarray(out, np.float64)

    def attempt(self, mode, order, out, key_fn):
        """``out[mode, order] = key_fn()``, or record why the framework cannot do it."""
        try:
            out[mode, order] = key_fn()
        except Exception as e:
            self.not_available(mode, order, e)

