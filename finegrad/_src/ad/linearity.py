"""Is a custom gradient function linear in the upstream gradient? A cheap probe.

Forward mode through a `custom_gradient` function transposes its gradient function
``grad_fn(dy)``: the JVP is the derivative of ``<grad_fn(dy), v>`` with respect to ``dy``,
which is ``J v`` only when ``grad_fn`` is linear in ``dy``, as every VJP is. A rule that is
not (it ignores ``dy``, adds a constant, squares or normalizes it) would give a made-up
tangent, silently. So the first forward-mode use of each decorated function runs its rule
at two scales of one upstream gradient, ``u`` and ``2u``, outside every recorder, and
refuses a rule whose result does not double (JAX's backend checks the same thing on the
rule's jaxpr). A correct rule pays two extra calls, once per function.
"""
import numpy as np

from finegrad._src import core
from finegrad._src.tensor import Tensor


def upstream_probe(shape, dtype, scale):
    """A fixed, sign-varying upstream gradient of ``shape`` (``scale`` times it)."""
    rng = np.random.default_rng(22)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def scaling_problem(first, doubled):
    """Why ``doubled`` (the rule at ``2u``) is not twice ``first`` (at ``u``), or None.
    Both are sequences of NumPy arrays or None (one per input)."""
    for a, b in zip(first, doubled, strict=True):
        if a is None and b is None:
            continue
        if a is None or b is None:
            return "it returns None for an input at one scale of the upstream and not at another"
        a, b = _wide(a), _wide(b)
        scale = float(np.max(np.abs(b[np.isfinite(b)]), initial=0.))
        if np.allclose(2 * a, b, rtol=1e-3, atol=1e-5 * scale + 1e-30, equal_nan=True):
            continue
        if np.allclose(a, b, rtol=1e-3, atol=1e-5 * scale + 1e-30, equal_nan=True):
            return "its result does not change when the upstream gradient doubles (it " \
                   "ignores the upstream gradient, or normalizes it)"
        return "its result does not double when the upstream gradient doubles (it adds a " \
               "term that does not depend on the upstream gradient, or is not linear in it)"
    return None


def _wide(a):
    """As float64 (complex128 for complex: a complex 2 * inf would be nan)."""
    a = np.asarray(a)
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def probe(vjp, outs):
    """Why the finegrad rule ``vjp`` (one upstream per output in, one gradient per input out)
    is not linear in the upstream gradients, or None; nothing it runs is recorded."""
    def run(scale):
        us = [Tensor(upstream_probe(o._value.shape, o._value.dtype, scale))
              if o._value.dtype.kind in "fc" else None for o in outs]
        with core.hidden():
            return [None if g is None else np.asarray(g._value) for g in vjp(us)]
    return scaling_problem(run(1.), run(2.))


def check_once(rule, out):
    """Refuse ``rule`` (a custom_gradient call's rule) if its function is not linear in the
    upstream gradient; the decorated function (``rule.cg``) remembers a rule found linear."""
    cg = getattr(rule, "cg", None)
    if cg is not None and cg._linear:
        return
    why = probe(rule, out if isinstance(out, (tuple, list)) else (out,))
    if why is not None:
        raise not_linear_error(rule.name, why)
    if cg is not None:
        cg._linear = True


class NotLinearError(TypeError):
    """A custom gradient function found not linear in the upstream gradient (a TypeError,
    as JAX's backend raises; `finegrad.testing` reports it as a failed forward check)."""


def not_linear_error(name, why, where="finegrad.custom_gradient"):
    return NotLinearError(f"{where}: forward mode through {name!r} transposes its gradient "
                     f"function, which must be linear in the upstream gradient, and {why}. "
                     f"Give an explicit forward rule with jvp= (custom_gradient(f, "
                     f"jvp=...)), or use reverse mode only (finegrad.ops.custom_gradient's "
                     f"forward='none')")
