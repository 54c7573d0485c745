"""Compiled chains (finegrad/_src/graph/compile/jit.py): with numba installed, a fused chain of
arithmetic steps runs as one compiled loop whose results are bitwise those of NumPy's ufuncs,
special values included; it reads strided slices in place and writes a covering scatter's
array directly; it is off with FINEGRAD_FAST=0 and inside fast.disabled()."""
import numpy as np
import pytest

import finegrad as tf
from finegrad._src import threads
from finegrad._src.graph.compile import fast
from finegrad._src.graph.compile import fuse
from finegrad._src.graph.compile import jit
from finegrad._src.ops.math.elementwise import sigmoid_grad, tanh_grad
from finegrad._src.graph.compile.pipeline import compiled as compiled_form

from test_graph_rewrite import rosenbrock_hvp

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def compiled_chains_on(monkeypatch):
    """Whatever FINEGRAD_FAST the suite runs under (0 switches compiled chains off)."""
    monkeypatch.delenv("FINEGRAD_FAST", raising=False)


def _bitwise(a, b):
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def _chains(fn, *args):
    g = compiled_form(fn.get_concrete_function(*args).graph).graph
    return [n.prim for n in g.nodes if isinstance(n.prim, fuse.Fused)]


def _every_arithmetic_step(x, y):
    """Each primitive a compiled chain takes (add, subtract, multiply, divide, negative,
    square, tanh_grad, sigmoid_grad), in one chain."""
    a = tanh_grad(x, y) + sigmoid_grad(y, x)
    b = (x - y) / -x * tf.square(y) + 3.
    return a * b - y / (x * 0.5)


def _special(n, dtype, seed):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n).astype(dtype)
    tiny = np.finfo(dtype).smallest_subnormal
    v[:8] = [0., -0., np.inf, -np.inf, np.nan, tiny, -tiny, np.finfo(dtype).max]
    return v


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_arithmetic_step_gives_numpys_bits(dtype):
    x, y = (tf.constant(_special(20000, dtype, s)) for s in (0, 1))
    compiled = tf.function(_every_arithmetic_step)
    chains = _chains(compiled, x, y)
    assert len(chains) == 1 and chains[0].compiled
    assert {n.prim.name for n in chains[0].nodes} == {
        "add", "subtract", "multiply", "divide", "negative", "square", "tanh_grad",
        "sigmoid_grad"}
    with np.errstate(all="ignore"):
        got = compiled(x, y).numpy()
        want = _every_arithmetic_step(x, y).numpy()
        with fast.disabled():
            ufuncs = tf.function(_every_arithmetic_step)
            assert not any(c.compiled for c in _chains(ufuncs, x, y))
            unfused = ufuncs(x, y).numpy()
    _bitwise(got, want)
    _bitwise(got, unfused)
    assert np.isinf(got).any() and np.isnan(got).any()   # 1 / 0 is inf, as in NumPy


def test_hessian_vector_product_is_one_loop_over_views_into_its_result():
    """Bench g4: the slices are read in place, and the loop writes both halves of the
    interleaved gradient (the scatter is absorbed); held results are never written over."""
    rng = np.random.default_rng(4)
    xs = [tf.constant(rng.standard_normal(10 ** 5)) for _ in range(3)]
    v = tf.constant(rng.standard_normal(10 ** 5))
    g = tf.function(rosenbrock_hvp)
    src = g.get_concrete_function(xs[0], v).compiled_source
    assert "strided_slice_copy" not in src and "scatter_sum_into_zeros" not in src, src
    assert src.count("= strided_slice_view(") == 4 and src.count("fused_elementwise(") == 1
    (chain,) = _chains(g, xs[0], v)
    assert "scatter_sum_into_zeros] compiled" in chain.label
    held = [(g(x, v), rosenbrock_hvp(x, v)) for x in xs]
    for got, want in held:
        _bitwise(got.numpy(), want.numpy())


def test_slices_with_negative_zeros_are_scattered_as_zero_plus_value():
    """A scatter writes 0 + value: -0.0 becomes +0.0, and the compiled loop does the same."""
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            a, b = x[0::2], x[1::2]
            y = tf.reduce_sum(a * b * 2.)
        return tape.gradient(y, x)
    x = np.zeros(20000)
    x[::4] = -0.0
    x[1::8] = 1.0
    got = tf.function(f)(tf.constant(x)).numpy()
    _bitwise(got, f(tf.constant(x)).numpy())
    assert not np.signbit(got).any()


def test_two_dimensional_and_transposed_inputs():
    rng = np.random.default_rng(2)
    x = tf.constant(rng.standard_normal((128, 96)).astype(np.float32))
    y = tf.constant(rng.standard_normal((96, 128)).astype(np.float32))

    def f(x, y):
        yt = tf.transpose(y)
        return (x * yt - 2.) / (yt + 3.)
    g = tf.function(f)
    assert any(c.compiled for c in _chains(g, x, y))
    _bitwise(g(x, y).numpy(), f(x, y).numpy())


def test_scalar_and_broadcast_inputs():
    x = tf.constant(np.linspace(-3, 3, 10000))
    c = tf.constant(2.5, tf.float64)
    ones = tf.ones_like(x)

    def f(x, c):
        return (x * c + ones) * (x - c)
    g = tf.function(f)
    assert any(ch.compiled for ch in _chains(g, x, c))
    _bitwise(g(x, c).numpy(), f(x, c).numpy())


def test_threads_split_the_loop(monkeypatch):
    monkeypatch.setenv("FINEGRAD_FAST", "1")
    monkeypatch.setattr(threads, "workers", lambda: 3)
    monkeypatch.setattr(threads, "ALIGN", 2)
    x, y = (tf.constant(_special(30001, np.float64, s)) for s in (3, 4))
    g = tf.function(_every_arithmetic_step)
    (chain,) = _chains(g, x, y)
    assert chain.compiled and chain.threaded
    with np.errstate(all="ignore"):
        _bitwise(g(x, y).numpy(), _every_arithmetic_step(x, y).numpy())


def test_switched_off_by_environment_and_for_small_or_other_chains(monkeypatch):
    x, y = (tf.constant(_special(20000, np.float32, s)) for s in (5, 6))
    monkeypatch.setenv("FINEGRAD_FAST", "0")
    assert not jit.enabled()
    assert not any(c.compiled for c in _chains(tf.function(_every_arithmetic_step), x, y))
    monkeypatch.delenv("FINEGRAD_FAST")
    small = tuple(tf.constant(_special(jit.JIT_MIN - 1, np.float32, s)) for s in (5, 6))
    assert _chains(tf.function(_every_arithmetic_step), *small) == []
    big = tuple(tf.constant(_special(fuse.FUSE_MIN, np.float64, s)) for s in (7, 8))
    mixed = tf.function(lambda x, y: tf.exp(x * y) * 2. + x)   # exp: ufuncs, block by block
    (chain,) = _chains(mixed, *big)
    assert len(chain.nodes) == 4 and not chain.compiled
