"""One calling convention for differentiation rules, and no hidden state.

Every VJP rule is called as ``vjp(ct, *ins, out=..., needs=..., batch=..., **params)`` by
`Primitive.run_vjp`; every JVP rule accepts None (a symbolic zero) for an input without a
tangent. The batch axes of a vectorized Jacobian reach the rules as that ``batch`` argument,
never through a global.
"""
import inspect

import numpy as np
import pytest

import finegrad as fg
from finegrad._src import nest
from finegrad._src import core
from finegrad._src.ops.math.arithmetic import multiply_p
from finegrad._src.ops.linalg.products import matmul_p

from op_specs import SPECS

_MULTI = [s for s in SPECS if s.nargs > 1]


def _accepts(fn, name):
    params = inspect.signature(fn).parameters
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def test_every_vjp_rule_takes_needs_and_batch():
    missing = [f"{p.name}: {arg}" for p in core.primitives().values() if p.vjp is not None
               for arg in ("out", "needs", "batch") if not _accepts(p.vjp, arg)]
    assert not missing, f"VJP rules outside the calling convention: {missing}"


def test_no_hidden_batch_state_in_core():
    assert not hasattr(core, "batch_shape") and not hasattr(core, "batch_axes")
    assert not hasattr(core._state, "batch_shape")


def test_run_vjp_passes_needs_and_the_rule_may_skip():
    x, y = fg.constant([[1., 2.]]), fg.constant([[3.], [4.]])
    out = matmul_p.bind(x, y)
    ct = fg.ones_like(out)
    gx, gy = matmul_p.run_vjp(ct, (x, y), out, {}, needs=[True, False])
    assert gy is None
    np.testing.assert_allclose(gx.numpy(), [[3., 4.]])
    gx, gy = multiply_p.run_vjp(ct, (x, x), out, {}, needs=[False, True])
    assert gx is None and gy is not None


def test_run_vjp_batch_is_the_leading_cotangent_shape():
    x, y = fg.constant([1., 2., 3.]), fg.constant(2.)
    out = x * y
    ct = fg.constant(np.arange(6.).reshape(2, 3).astype(np.float32))
    gx, gy = multiply_p.run_vjp(ct, (x, y), out, {}, needs=[True, True], batch=(2,))
    np.testing.assert_allclose(gx.numpy(), 2 * ct.numpy())
    np.testing.assert_allclose(gy.numpy(), ct.numpy() @ x.numpy())   # one per batch row


@pytest.mark.parametrize("spec", _MULTI, ids=[s.label for s in _MULTI])
def test_jvp_with_symbolic_zero_tangents(spec):
    """A tangent for one input only (the others are constants, so their tangent is None)
    gives what explicit zero tangents for the others give."""
    args = [fg.constant(a) for a in spec.make_args(spec.cases()[-1], seed=7)]
    rng = np.random.default_rng(1)
    for k in range(spec.nargs):
        v = fg.constant(rng.standard_normal(args[k].shape))

        def only_k(xk, k=k):
            return spec(*args[:k], xk, *args[k + 1:])
        _, partial = fg.jvp(only_k, [args[k]], [v])
        tangents = [v if i == k else fg.zeros_like(a) for i, a in enumerate(args)]
        _, full = fg.jvp(spec, args, tangents)
        for p, f in zip(nest.flatten(partial), nest.flatten(full), strict=True):
            if f is None:
                continue
            assert p is not None, f"{spec.label}: input {k} lost its tangent"
            np.testing.assert_allclose(p.numpy(), f.numpy(), rtol=1e-12, atol=1e-12,
                                       err_msg=f"{spec.label}: tangent of input {k} only")
