"""The optional ``finegrad[fast]`` extra: fused chains of compiled graphs as numexpr kernels.

The same traced functions are compiled with the fast path and without it (`fast.disabled`),
with the thresholds lowered so the op table's small arrays fuse, and their values must agree
within float rounding: `RTOL` states the tolerance. Without numexpr, or with
``FINEGRAD_FAST=0``, no chain uses it (the rest of the suite then runs the NumPy path).
"""
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad._src import nest
from finegrad._src.graph import fast, fuse

from op_specs import SPECS

#: numexpr evaluates the same IEEE operations, but may contract or reorder their roundings:
#: a few units in the last place per op of a chain, relative to the values' scale
RTOL = {np.dtype(np.float32): 2e-5, np.dtype(np.float64): 1e-12}


@pytest.fixture
def small_arrays_fuse(monkeypatch):
    """Every chain of 2+ elements fuses and goes to numexpr when it can."""
    pytest.importorskip("numexpr")
    if os.environ.get("FINEGRAD_FAST") == "0":
        pytest.skip("the fast path is switched off (FINEGRAD_FAST=0)")
    monkeypatch.setenv("FINEGRAD_FAST", "1")      # on, whatever the number of cores
    monkeypatch.setattr(fuse, "FUSE_MIN", 2)
    monkeypatch.setattr(fast, "NUMEXPR_MIN", 2)


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
    return [np.asarray(t.numpy()) for t in nest.flatten(res) if t is not None]


def _numexpr_chains(fn, args):
    g = fn.get_concrete_function(*args).graph.compiled().graph
    return [n.prim for n in g.nodes if isinstance(n.prim, fuse.Fused) and n.prim.fast]


CASES = [(spec, spec.cases()[-1], dt) for spec in SPECS for dt in (np.float32, np.float64)]


@pytest.mark.parametrize("spec, shapes, dtype", CASES,
                         ids=[f"{s.label}-{np.dtype(d).name}" for s, _, d in CASES])
def test_fast_path_agrees_with_numpy_path(spec, shapes, dtype, small_arrays_fuse):
    args = [fg.constant(np.asarray(a, dtype)) for a in spec.make_args(shapes, seed=7)]
    with fast.disabled():
        want = _leaves(fg.function(_value_and_grads(spec))(*args))
    traced = fg.function(_value_and_grads(spec))
    got = _leaves(traced(*args))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0, where=np.isfinite(w))))
        np.testing.assert_allclose(g, w, rtol=RTOL[np.dtype(dtype)],
                                   atol=RTOL[np.dtype(dtype)] * scale, equal_nan=True)


def test_an_arithmetic_chain_runs_as_numexpr(small_arrays_fuse):
    @fg.function
    def f(x, y):
        return y * (1. - x * x) + x / y

    x = fg.constant(np.linspace(-1, 1, 64, dtype=np.float32))
    y = fg.constant(np.linspace(1, 2, 64, dtype=np.float32))
    chains = _numexpr_chains(f, (x, y))
    assert chains and "numexpr" in chains[0].label
    want = y.numpy() * (1 - x.numpy() * x.numpy()) + x.numpy() / y.numpy()
    got = f(x, y).numpy()
    assert got.dtype == np.float32     # typed constants: no upcast to float64
    np.testing.assert_allclose(got, want, rtol=RTOL[np.dtype(np.float32)])


def test_switched_off_by_environment(small_arrays_fuse, monkeypatch):
    monkeypatch.setenv("FINEGRAD_FAST", "0")

    @fg.function
    def f(x):
        return x * x + x

    x = fg.constant(np.ones(64, np.float32))
    assert not _numexpr_chains(f, (x,))
    assert fast.numexpr() is None


def test_transcendental_chains_stay_on_numpy_without_vml(small_arrays_fuse):
    """numexpr's exp/log without Intel's VML are slower than NumPy's SIMD loops."""
    ne = fast.numexpr()
    if getattr(ne, "use_vml", False):
        pytest.skip("numexpr built with VML")

    @fg.function
    def f(x):
        return fg.math.log(1. + fg.exp(x))

    x = fg.constant(np.ones(64, np.float32))
    assert not _numexpr_chains(f, (x,))
    np.testing.assert_allclose(f(x).numpy(), np.log1p(np.e), rtol=1e-6)
