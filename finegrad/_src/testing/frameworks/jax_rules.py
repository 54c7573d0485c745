"""Rules written for JAX (``custom_vjp``, ``custom_jvp``, any jax function), run through
jax's own autodiff: ``jax.grad`` (reverse, twice for order 2) and ``jax.jvp`` (forward,
over ``jax.grad`` for order 2), mapped over the points with ``jax.vmap`` and compiled with
``jax.jit``; float64 inside ``jax.enable_x64``. jax is imported when a rule is checked."""
import numpy as np

from finegrad._src.testing.frameworks.base import UPSTREAM, FrameworkEvaluator


def scaled(arrays):
    """Each array divided by the upstream the rule received."""
    return [a / UPSTREAM for a in arrays]


def _jax():
    import jax
    return jax


def _scalar(fn):
    """``fn`` on one point as one scalar (several outputs summed)."""
    jnp = _jax().numpy

    def f(*xs):
        y = fn(*xs)
        ys = list(y) if isinstance(y, (tuple, list)) else [y]
        return sum(jnp.sum(o) for o in ys)
    return f


class JaxEvaluator(FrameworkEvaluator):
    """A jax function on a set of points: always vectorized (``jax.vmap`` of the function
    on one point)."""

    name = "jax"

    def __init__(self, fn, cols, dtype, progress=None):
        self._cache = {}
        super().__init__(fn, cols, dtype, progress)

    def _is_elementwise(self, cols):
        return True

    def _compiled(self, key, make):
        jax = _jax()
        if key not in self._cache:
            self._cache[key] = jax.jit(jax.vmap(make(_scalar(self.fn))))
        return self._cache[key]

    def _call(self, key, make, cols, dtype):
        jax = _jax()
        with jax.enable_x64(np.dtype(dtype) == np.float64):
            xs = [jax.numpy.asarray(np.asarray(c), dtype) for c in cols]
            try:
                r = self._compiled(key, make)(*xs)
            except jax.errors.ConcretizationTypeError:   # Python control flow on values
                r = jax.vmap(make(_scalar(self.fn)))(*xs)
            return np.asarray(r, np.float64)

    def _values(self, cols, dtype):
        return self._call(("value", np.dtype(dtype).name), lambda f: f, cols, dtype)

    def _derivatives(self, cols, dtype, modes, order):
        jax = _jax()
        n, dt = len(cols), np.dtype(dtype).name
        out = {}

        def run(key, make):
            return [self._call((key, dt, k), lambda f, k=k: make(f, k), cols, dtype)
                    for k in range(n)]

        def jvp(f, k):
            def d(*xs):
                ts = [jax.numpy.ones_like(x) if i == k else jax.numpy.zeros_like(x)
                      for i, x in enumerate(xs)]
                return jax.jvp(f, tuple(xs), tuple(ts))[1]
            return d
        def up(f):      # the upstream the rule receives (see base.UPSTREAM)
            return lambda *xs: UPSTREAM * f(*xs)
        if "rev" in modes:
            out["rev", 1] = scaled(run("rev1", lambda f, k: jax.grad(up(f), argnums=k)))
            if order >= 2:
                self.attempt("rev", 2, out, lambda: scaled(run("rev2", lambda f, k: jax.grad(
                    jax.grad(up(f), argnums=k), argnums=k))))
        if "fwd" in modes:
            self.attempt("fwd", 1, out, lambda: run("fwd1", jvp))
            if order >= 2:
                self.attempt("fwd", 2, out, lambda: scaled(run(
                    "fwd2", lambda f, k: jvp(jax.grad(up(f), argnums=k), k))))
        return self._values(cols, dtype), out
