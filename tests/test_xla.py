"""function(jit_compile=True): graphs compiled with XLA through JAX (finegrad/_src/graph/xla/).

Every row of the op table runs, values and gradients, under ``function(jit_compile=True)``
and against the same function traced without it (finegrad's executor), in float32 and
float64. Tolerance `RTOL`, relative to the scale of the values: XLA computes with its own
elementary functions (exp, log, tanh, ... within a few units in the last place of NumPy's,
not bitwise equal), may contract a * b + c into one fused multiply-add, and sums in another
order; a gradient chains up to a few dozen such steps, so a few hundred ulps of float32
(2e-4) and of float64 (1e-11) bound what was measured with margin.

The primitives that had no lowering (their nodes ran as host callbacks of their ``impl``)
are collected while the table runs and reported by `test_report_of_host_callbacks`, which
warns with the list (shown in pytest's warnings summary) and prints it (``-s``).
"""
import collections
import warnings

import numpy as np
import pytest

import finegrad as fg
from finegrad._src import nest

jax = pytest.importorskip("jax")

from op_specs import SPECS   # noqa: E402
from seed_examples import log1pexp   # noqa: E402

RTOL = {np.dtype(np.float32): 2e-4, np.dtype(np.float64): 1e-11}

#: primitive name -> the op-table rows in which it ran as a host callback
FALLBACKS = collections.defaultdict(set)


def _value_and_grads(spec):
    def f(*xs):
        with fg.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            out = spec(*xs)
            leaves = [o for o in nest.flatten(out) if o.dtype.is_floating]
            loss = fg.add_n([fg.reduce_sum(o * o * 0.5 + o) for o in leaves])
        return leaves, tape.gradient(loss, list(xs))
    return f


def _leaves(res):
    return [np.asarray(fg.convert_to_tensor(t).numpy()) for t in nest.flatten(res)
            if t is not None]


def _assert_close(got, want, dtype):
    assert len(got) == len(want)
    tol = RTOL[np.dtype(dtype)]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0, where=np.isfinite(w))))
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, equal_nan=True)


def _callbacks(fn, args):
    conc = fn.get_concrete_function(*args)
    return conc._xla_function().entry([(a.shape, a._value.dtype) for a in args]).callbacks


CASES = [(spec, spec.cases()[-1], dt) for spec in SPECS for dt in (np.float32, np.float64)]


@pytest.mark.parametrize("spec, shapes, dtype", CASES,
                         ids=[f"{s.label}-{np.dtype(d).name}" for s, _, d in CASES])
def test_op_table_compiled_agrees_with_the_executor(spec, shapes, dtype):
    args = [fg.constant(np.asarray(a, dtype)) for a in spec.make_args(shapes, seed=7)]
    fn = _value_and_grads(spec)
    fg.random.set_seed(3)
    want = _leaves(fg.function(fn)(*args))
    compiled = fg.function(fn, jit_compile=True)
    fg.random.set_seed(3)
    got = _leaves(compiled(*args))
    for c in _callbacks(compiled, args):
        FALLBACKS[c.split(" ", 1)[0]].add(spec.label)
    _assert_close(got, want, dtype)


def test_report_of_host_callbacks():
    """Which primitives ran as host callbacks in the op table (no lowering yet); run after
    the table (same file, later)."""
    if not FALLBACKS:
        pytest.skip("the op table did not run in this session")
    lines = [f"{p}: {len(rows)} rows ({', '.join(sorted(rows)[:3])}...)"
             for p, rows in sorted(FALLBACKS.items())]
    report = f"{len(FALLBACKS)} primitives ran as host callbacks:\n" + "\n".join(lines)
    print(report)
    warnings.warn(report, UserWarning, stacklevel=1)


# --- the check: the custom gradient of the TF seed compiled ---------------------------

def test_log1pexp_custom_gradient_compiled_is_exactly_one_at_100_without_callbacks():
    @fg.function(jit_compile=True)
    def grad(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        return tape.gradient(y, x)

    x = fg.constant(100.)
    g = grad(x)
    assert g.dtype == fg.float32 and g.numpy() == 1.0
    src = grad.get_concrete_function(x).compiled_source
    assert "host callbacks: none" in src and "callback" not in src.split("\n", 2)[2]
    assert "exp" in src   # the jaxpr is there
