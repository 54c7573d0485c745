"""The fast path: elementwise work split over threads (eager and in compiled graphs), and
sums absorbed into fused chains.

Every row of the op table is run, value and gradients, eager and traced, with the fast path
on and off, with the thresholds lowered so the table's small arrays split over threads,
fuse, and run several blocks per thread; the results must agree within `RTOL`. Elementwise
results are in fact bitwise equal (each element goes through the same ufunc); what may
differ is a sum absorbed into a fused chain (added block by block, then the blocks' sums).
"""
import time

import numpy as np
import pytest

import finegrad as fg
from finegrad._src import nest, threads
from finegrad._src.tensor import Tensor
from finegrad._src.graph.compile import fast
from finegrad._src.graph.compile import fuse
from finegrad._src.graph.compile.pipeline import compiled as compiled_form

from op_specs import SPECS

#: the fast path adds a sum in another order (pairwise per block, then over the blocks): a
#: few units in the last place of the sum, relative to the scale of the summed values
RTOL = {np.dtype(np.float32): 2e-5, np.dtype(np.float64): 1e-12}


@pytest.fixture
def small_arrays_split(monkeypatch):
    """The fast path forced on, whatever the cores; every array of 2+ elements is split into
    pieces of 2+ elements (2 per thread, 3 threads), every chain of 2+ elements fuses, and
    runs in blocks of 4."""
    monkeypatch.setenv("FINEGRAD_FAST", "1")
    monkeypatch.setattr(threads, "SPLIT_MIN", 2)
    monkeypatch.setattr(threads, "split_from", 2)
    monkeypatch.setattr(threads, "ALIGN", 2)
    monkeypatch.setattr(threads, "workers", lambda: 3)
    monkeypatch.setattr(fuse, "FUSE_MIN", 2)
    monkeypatch.setattr(fuse, "CHUNK", 4)


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
    # a gather's gradient is an IndexedSlices, as TensorFlow's: its dense value is compared
    return [np.asarray(fg.convert_to_tensor(t).numpy()) for t in nest.flatten(res)
            if t is not None]


def _fused(fn, args):
    g = compiled_form(fn.get_concrete_function(*args).graph).graph
    return [n.prim for n in g.nodes if isinstance(n.prim, fuse.Fused)]


def _assert_close(got, want, dtype):
    assert len(got) == len(want)
    tol = RTOL[np.dtype(dtype)]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0, where=np.isfinite(w))))
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, equal_nan=True)


CASES = [(spec, spec.cases()[-1], dt) for spec in SPECS for dt in (np.float32, np.float64)]


@pytest.mark.parametrize("spec, shapes, dtype", CASES,
                         ids=[f"{s.label}-{np.dtype(d).name}" for s, _, d in CASES])
def test_fast_path_agrees_with_numpy_path(spec, shapes, dtype, small_arrays_split):
    args = [fg.constant(np.asarray(a, dtype)) for a in spec.make_args(shapes, seed=7)]
    fn = _value_and_grads(spec)
    with fast.disabled(), threads.switched(False):
        want = _leaves(fn(*args))
        want_traced = _leaves(fg.function(fn)(*args))
    with threads.switched(True):
        _assert_close(_leaves(fn(*args)), want, dtype)                 # eager
        _assert_close(_leaves(fg.function(fn)(*args)), want_traced, dtype)   # traced


def test_eager_split_is_bitwise_and_uses_the_pool(small_arrays_split, monkeypatch):
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    ranges = []
    real_bounds = threads.bounds
    monkeypatch.setattr(threads, "bounds", lambda size: ranges.append(real_bounds(size))
                        or ranges[-1])
    with threads.switched(True):
        got = fg.math.log(1. + fg.exp(fg.constant(x))).numpy()
        prod = (fg.constant(x) * fg.constant(x)).numpy()
    assert len(ranges) == 4 and all(len(r) == 6 for r in ranges)   # 4 ops, 6 pieces each
    np.testing.assert_array_equal(got, np.log(np.float32(1) + np.exp(x)))
    np.testing.assert_array_equal(prod, x * x)
    assert got.dtype == np.float32


def test_eager_split_keeps_what_it_cannot_split_on_the_plain_path(small_arrays_split):
    """Broadcasting between two arrays, ints, parameters: the primitive's impl, unchanged."""
    with threads.switched(True):
        outer = fg.constant(np.ones((3, 1))) + fg.constant(np.arange(4.))
        ints = fg.constant(np.arange(6)) * 2
        with pytest.raises(TypeError, match="finegrad.exp"):
            fg.exp(fg.constant(np.arange(6)))
    np.testing.assert_array_equal(outer.numpy(), np.ones((3, 1)) + np.arange(4.))
    np.testing.assert_array_equal(ints.numpy(), np.arange(6) * 2)


def test_eager_split_keeps_the_numpy_error_state(small_arrays_split):
    x = fg.constant(np.full(64, 100., np.float32))
    with threads.switched(True), np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            fg.exp(x)
    with threads.switched(True), np.errstate(over="ignore"):
        assert np.all(np.isinf(fg.exp(x).numpy()))


def test_softplus_gradient_chain_is_one_threaded_pass_with_its_sum(small_arrays_split):
    """The W6 workload: the forward chain, its sum and the gradient in one fused node."""
    @fg.function
    def f(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = fg.reduce_sum(fg.math.log(1 + fg.exp(x)))
        return y, tape.gradient(y, x)

    x = np.random.default_rng(1).standard_normal(1001).astype(np.float32)
    xt = fg.constant(x)
    (chain,) = _fused(f, (xt,))
    assert chain.threaded and [m.prim.name for m in chain.reductions] == ["reduce_sum"]
    y, g = f(xt)
    e = np.exp(x)
    np.testing.assert_array_equal(g.numpy(), (1 / (1 + e)) * e)    # elementwise: same bits
    np.testing.assert_allclose(y.numpy(), np.sum(np.log(1 + e)), rtol=RTOL[np.dtype("f4")])
    assert y.numpy().dtype == np.float32 and y.shape == ()


def test_absorbed_sum_with_keepdims_and_a_value_used_elsewhere(small_arrays_split):
    @fg.function
    def f(x):
        t = fg.tanh(x) * 2.
        return fg.reduce_sum(t, axis=[0, 1], keepdims=True), t + 1.

    x = np.linspace(-1, 3, 60).reshape(6, 10)
    s, t1 = f(fg.constant(x))
    (chain,) = _fused(f, (fg.constant(x),))
    assert chain.reductions
    np.testing.assert_allclose(s.numpy(), np.sum(np.tanh(x) * 2, keepdims=True), rtol=1e-12)
    np.testing.assert_array_equal(t1.numpy(), np.tanh(x) * 2 + 1)


def test_partial_sums_are_not_absorbed(small_arrays_split):
    """A sum over some axes keeps its own step (it reduces to an array, not a scalar)."""
    @fg.function
    def f(x):
        return fg.reduce_sum(fg.exp(x) * 2., axis=0)

    x = np.linspace(-1, 1, 12).reshape(3, 4)
    assert not any(c.reductions for c in _fused(f, (fg.constant(x),)))
    np.testing.assert_allclose(f(fg.constant(x)).numpy(), np.sum(np.exp(x) * 2, 0))


def test_switched_off_by_environment(small_arrays_split, monkeypatch):
    monkeypatch.setenv("FINEGRAD_FAST", "0")
    assert not threads.wanted() and not fast.threaded()

    @fg.function
    def f(x):
        return fg.reduce_sum(fg.exp(x) * 2.)

    x = fg.constant(np.ones(64, np.float32))
    assert all(not c.threaded and not c.reductions for c in _fused(f, (x,)))
    threads.refresh()
    try:
        assert not threads.on()
    finally:
        monkeypatch.undo()
        threads.refresh()


def test_pieces_left_by_a_late_thread_run_on_the_caller(monkeypatch):
    """A pool thread that does not start (a busy machine) costs no wait: the caller takes
    every piece; results stay in order and errors reach the caller."""
    monkeypatch.setattr(threads, "ALIGN", 2)
    monkeypatch.setattr(threads, "SPLIT_MIN", 2)
    monkeypatch.setattr(threads, "workers", lambda: 2)

    class Idle:
        def submit(self, fn):
            return None     # never runs
    monkeypatch.setattr(threads, "_executor", lambda: Idle())
    assert threads.run_parts(lambda lo, hi: (lo, hi), 8) == [(0, 2), (2, 4), (4, 6), (6, 8)]

    def fail(lo, hi):
        if lo == 4:
            raise FloatingPointError("piece 4")
        return lo
    with pytest.raises(FloatingPointError, match="piece 4"):
        threads.run_parts(fail, 8)


def test_eager_split_of_broadcast_values(small_arrays_split):
    """A broadcast value (the seed's ones) is a single value to split around; a product
    with a broadcast one is still left to the impl, which returns the other factor."""
    x = np.linspace(1, 2, 100, dtype=np.float32)
    # as the reverse pass seeds a sum's gradient: a read-only view of one value
    ones = Tensor(np.broadcast_to(np.float32(1), x.shape))
    with threads.switched(True):
        quotient = fg.divide(ones, fg.constant(x))
        xt = fg.constant(x)
        product = fg.multiply(xt, ones)
    np.testing.assert_array_equal(quotient.numpy(), np.float32(1) / x)
    assert product._value is xt._value     # no pass over memory, as without threads


def _address(a):
    return a.__array_interface__["data"][0]


def test_eager_outputs_reuse_buffers_nobody_holds(small_arrays_split, monkeypatch):
    """Large eager outputs come from recycled buffers, with the fast path on or off: one
    is reused once its Tensor (and every view of it) is gone, never before."""
    x = fg.constant(np.linspace(0, 1, 50))
    for on in (True, False):
        monkeypatch.setattr(threads, "_cache", [])
        with threads.switched(on):
            y = fg.exp(x)
            buf = y._value
            address = _address(buf)
            z = fg.exp(x)
            assert not np.shares_memory(z._value, buf)        # y still holds it
            view = y.numpy()[::2]
            del y
            w = fg.sin(x)
            assert not np.shares_memory(w._value, buf)        # a view of it is alive
            del view, buf
            # now it is free: at once, or as soon as a pool thread that woke too late to
            # take a piece lets go of the call (it is held, never reused, until then)
            v = fg.cos(x)
            for _ in range(200):
                if _address(v._value) == address:
                    break
                time.sleep(0.005)
                v = None
                v = fg.cos(x)
            assert _address(v._value) == address
            np.testing.assert_array_equal(v.numpy(), np.cos(x.numpy()))
            np.testing.assert_array_equal(z.numpy(), np.exp(x.numpy()))
            np.testing.assert_array_equal(w.numpy(), np.sin(x.numpy()))
            del z, w, v
