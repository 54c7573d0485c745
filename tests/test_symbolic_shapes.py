"""Symbolic sizes inside a shape-polymorphic trace (finegrad/_src/dims.py).

Each None dimension of an input_signature is a symbol; the shapes rules see (`core.shape_of`)
hold `Dim` expressions of them, so one graph serves every size: reshape with -1, concat of two
open axes (n + m), a mean's divisor, the sum of a broadcasting gradient, matmul and custom
gradients all resolve their sizes at each call. Sizes decided in Python become guards: a call
that breaks one traces again with a warning naming why. Values and gradients are checked
against eager finegrad at several sizes.
"""
import warnings

import numpy as np
import pytest

import finegrad as fg
from finegrad._src import core, dims
from finegrad._src.dims import Dim

from seed_examples import log1pexp

SIZES = (2, 5, 7)


def _rand(*shape, seed=0):
    return fg.constant(np.random.default_rng(seed).normal(size=shape))


def _value_and_grads(f, xs):
    with fg.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return y, tape.gradient(y, xs)


def _check_one_graph(f, make_args):
    """``f`` traced under its signature serves SIZES with one trace; values and gradients
    (inside the trace with `gradients`, and through it from a tape) equal eager ones."""
    traced = fg.function(f.fn, input_signature=f.signature)

    @fg.function(input_signature=f.signature)
    def with_grads(*xs):
        y = f.fn(*xs)
        return y, fg.gradients(fg.reduce_sum(y), list(xs))

    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no retrace, no warning
        for n in SIZES:
            xs = make_args(n)
            y_eager, g_eager = _value_and_grads(lambda *a: fg.reduce_sum(f.fn(*a)), xs)
            y, gs = with_grads(*xs)
            np.testing.assert_allclose(fg.reduce_sum(y).numpy(), y_eager.numpy(), rtol=1e-12)
            y_tape, g_tape = _value_and_grads(lambda *a: fg.reduce_sum(traced(*a)), xs)
            np.testing.assert_allclose(y_tape.numpy(), y_eager.numpy(), rtol=1e-12)
            for a, b, c in zip(gs, g_tape, g_eager, strict=True):
                np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-12)
                np.testing.assert_allclose(b.numpy(), c.numpy(), rtol=1e-12)
    assert with_grads.experimental_get_tracing_count() == 1
    assert traced.experimental_get_tracing_count() == 1


class _F:
    def __init__(self, fn, *specs):
        self.fn, self.signature = fn, [fg.TensorSpec(s, fg.float64) for s in specs]


def test_reshape_with_minus_one():
    _check_one_graph(_F(lambda x: fg.reshape(fg.tanh(x), (-1,)) * 2., (None, 3)),
                     lambda n: [_rand(n, 3)])


def test_concat_of_two_open_axes_is_n_plus_m():
    def f(x, y):
        z = fg.concat([fg.sin(x), y * y], axis=0)       # size n + m
        return z * fg.reshape(fg.range(3, dtype=fg.float64), (1, 3))
    _check_one_graph(_F(f, (None, 3), (None, 3)),
                     lambda n: [_rand(n, 3), _rand(n + 1, 3, seed=1)])


def test_mean_over_an_open_axis():
    _check_one_graph(_F(lambda x: fg.reduce_mean(x * x, axis=0), (None, 4)),
                     lambda n: [_rand(n, 4)])


def test_broadcasting_gradient_with_an_open_axis():
    # y broadcasts over the open axis of x: its gradient sums that axis back
    _check_one_graph(_F(lambda x, y: fg.exp(x * y) + y, (None, 3), (1, 3)),
                     lambda n: [_rand(n, 3), _rand(1, 3, seed=1)])


def test_matmul_with_open_rows():
    _check_one_graph(_F(lambda x, w: fg.tanh(x @ w), (None, 4), (4, 2)),
                     lambda n: [_rand(n, 4), _rand(4, 2, seed=1)])


def test_custom_gradient_inside():
    _check_one_graph(_F(lambda x: log1pexp(x) * x, (None,)), lambda n: [_rand(n)])


def test_a_size_decided_in_python_is_a_guard_that_retraces_with_a_warning():
    @fg.function(input_signature=[fg.TensorSpec([None, 2], fg.float64)])
    def f(x):   # a DCT's length is fixed: the size is fixed in the graph
        y = fg.signal.idct(fg.signal.dct(fg.transpose(x), norm="ortho"), norm="ortho")
        return fg.reduce_sum(y * 2., 1)

    for n in SIZES:
        x = _rand(n, 2)
        expected = 2 * x.numpy().sum(0)
        if n == SIZES[1]:   # the first retrace says why (once per function)
            with pytest.warns(UserWarning, match="dct along a dynamic axis"):
                y = f(x)
        else:
            y = f(x)
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)
    assert f.experimental_get_tracing_count() == len(SIZES)
    np.testing.assert_allclose(f(_rand(5, 2)).numpy(),     # the size-5 graph again
                               2 * _rand(5, 2).numpy().sum(0))
    assert f.experimental_get_tracing_count() == len(SIZES)


def test_the_listing_shows_symbolic_params():
    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    def f(x):
        return fg.gradients(fg.reduce_mean(x), x)[0]

    text = str(f.get_concrete_function().graph)
    assert "full(shape=(), value=3*n0" in text     # the mean's divisor
    assert "shape=(n0, 3)" in text                   # its gradient broadcast back
    assert "count" not in text and "_like" not in text


def test_rules_see_symbolic_shapes_and_users_see_none():
    seen = []

    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    def f(x):
        seen.append((core.shape_of(x), x.shape))
        return x

    f(fg.ones((4, 3)))
    (internal, public), = seen
    assert type(internal[0]) is Dim and internal[0].value == 4 and internal[1] == 3
    assert public == fg.TensorShape([None, 3])
    assert core.shape_of(fg.ones((4, 3))) == (4, 3)   # eagerly: the NumPy shape


def test_dim_arithmetic_and_structural_comparisons():
    n, m = Dim.symbol("n", 4), Dim.symbol("m", 3)
    assert (n * 3) // 3 == n and (n + m) - m == n
    assert (n + m).value == 7 and str(n * m + 1) == "m*n + 1"
    assert (n * 2 + m).evaluate({"n": 10, "m": 1}) == 21
    assert n + 1 > n and n >= 0 and n != -1      # decided by the expressions
    assert hash(n + m) == hash(m + n)
    assert dims.broadcast_shape((n, 3), (1, 3)) == (n, 3)
    assert dims.concrete(((n, 3), [m])) == ((4, 3), [3])


def test_comparisons_that_depend_on_the_size_are_guards():
    @fg.function(input_signature=[fg.TensorSpec([None], fg.float32),
                                  fg.TensorSpec([None], fg.float32)])
    def f(x, y):
        return x * y      # n == m is decided at the traced sizes: a guard

    np.testing.assert_array_equal(f(fg.ones(2), fg.ones(2)).numpy(), [1., 1.])
    np.testing.assert_array_equal(f(fg.ones(5), fg.ones(5)).numpy(), np.ones(5))
    assert f.experimental_get_tracing_count() == 1
    with pytest.warns(UserWarning, match="multiply"):
        np.testing.assert_array_equal(f(fg.ones(1), fg.ones(3)).numpy(), np.ones(3))
    assert f.experimental_get_tracing_count() == 2


def test_an_unknown_rank_spec_traces_once_per_rank():
    @fg.function(input_signature=[fg.TensorSpec(None, fg.float64)])
    def f(x):
        return fg.reduce_sum(fg.tanh(x) * x)

    for shape in [(2, 3), (4, 5), (3,), (7,), (), (1, 2, 3)]:
        x = _rand(*shape)
        np.testing.assert_allclose(f(x).numpy(), np.sum(np.tanh(x.numpy()) * x.numpy()))
    assert f.experimental_get_tracing_count() == 4    # ranks 2, 1, 0 and 3
