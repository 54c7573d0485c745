"""A traced integer used as a size or a Python int inside finegrad.function (issue 22, cause 1).

TensorFlow builds a graph that depends on the value where the value is a shape argument
(``zeros``, ``fill``, ``eye``, ``linspace``, ``tile``, ``reshape``, ``range``, ``one_hot``, a
slice bound): finegrad accepts it too, and every call gets its own value's answer (the graph
checks the value; a call with another runs eagerly). Where Python itself needs an int
(``range()``, a list index) a traced value is a TypeError naming the function and the ops to
use instead, as in TensorFlow's graphs. No call ever reuses the first call's value.
"""
import warnings

import numpy as np
import pytest

import finegrad as fg

SIZED = {
    "zeros": lambda n: fg.zeros([n, 3]),
    "ones": lambda n: fg.ones([n]),
    "fill": lambda n: fg.fill([n], 2.),
    "eye": lambda n: fg.eye(n),
    "linspace": lambda n: fg.linspace(0., 1., n),
    "tile": lambda n: fg.tile(fg.ones([2]), [n]),
    "reshape": lambda n: fg.reshape(fg.range(12), [n, -1]),
    "range": lambda n: fg.range(n),
    "one_hot": lambda n: fg.one_hot(1, n),
    "slice": lambda n: fg.range(10)[:n],
    "random": lambda n: fg.random.uniform([n]),
}
EXPECTED = {"zeros": lambda n: (n, 3), "ones": lambda n: (n,), "fill": lambda n: (n,),
            "eye": lambda n: (n, n), "linspace": lambda n: (n,), "tile": lambda n: (2 * n,),
            "reshape": lambda n: (n, 12 // n), "range": lambda n: (n,),
            "one_hot": lambda n: (n,), "slice": lambda n: (n,), "random": lambda n: (n,)}


def _calls(f, make, sizes=(3, 4, 6, 3)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [tuple(f(make(n)).shape) for n in sizes]


@pytest.mark.parametrize("name", sorted(SIZED))
def test_int_argument_as_size(name):
    f = fg.function(lambda n: SIZED[name](n))
    assert _calls(f, fg.constant) == [EXPECTED[name](n) for n in (3, 4, 6, 3)]


@pytest.mark.parametrize("name", sorted(SIZED))
def test_shape_of_open_axis_as_size(name):
    f = fg.function(lambda x: SIZED[name](fg.shape(x)[0]),
                    input_signature=[fg.TensorSpec([None])])
    assert _calls(f, lambda n: fg.ones([n])) == [EXPECTED[name](n) for n in (3, 4, 6, 3)]


@pytest.mark.parametrize("name", sorted(SIZED))
def test_shape_without_signature_as_size(name):
    f = fg.function(lambda x: SIZED[name](fg.shape(x)[0]))
    assert _calls(f, lambda n: fg.ones([n])) == [EXPECTED[name](n) for n in (3, 4, 6, 3)]


def test_computed_int_as_size():
    """A size computed from values (a count of positives), as TF computes it."""
    f = fg.function(lambda x: fg.zeros([fg.reduce_sum(fg.cast(x > 0, fg.int32)), 2]))
    assert tuple(f(fg.constant([1., -1., 2.])).shape) == (2, 2)
    assert tuple(f(fg.constant([1., 1., 2.])).shape) == (3, 2)


def test_sized_values_and_gradient():
    @fg.function
    def f(x, n):
        return fg.reduce_sum(fg.tile(x, [n]) * fg.linspace(1., 2., 2 * n))

    x = fg.constant([1., 2.])
    for n in (1, 3, 2):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = f(x, fg.constant(n))
        w = np.linspace(1., 2., 2 * n, dtype=np.float32).reshape(n, 2)
        np.testing.assert_allclose(y.numpy(), (np.tile([1., 2.], n) * w.ravel()).sum(), 1e-6)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), w.sum(0), 1e-6)


def test_nested_function_and_cond_branch():
    inner = fg.function(lambda n: fg.reduce_sum(fg.ones([n])))
    outer = fg.function(lambda n: inner(n) + fg.cond(n > 2, lambda: fg.reduce_sum(
        fg.ones([n, 2])), lambda: fg.constant(0.)))
    assert [float(outer(fg.constant(n))) for n in (3, 5, 1, 3)] == [9., 15., 1., 9.]


@pytest.mark.parametrize("signature", [None, [fg.TensorSpec([None])]])
def test_python_range_of_traced_size_raises(signature):
    @fg.function(input_signature=signature)
    def f(x):
        s = 0.
        for _ in range(fg.shape(x)[0] if signature else fg.reduce_sum(fg.cast(x, fg.int32))):
            s += 1.
        return s

    with pytest.raises(TypeError, match=r"finegrad.function.*range\(\).*finegrad.range.*"
                                        r"finegrad.while_loop.*finegrad.gather.*in f"):
        f(fg.ones([3]))


def test_python_range_of_int_argument_raises():
    f = fg.function(lambda n: sum(1. for _ in range(n)))
    with pytest.raises(TypeError, match="finegrad.while_loop"):
        f(fg.constant(3))


def test_list_index_with_traced_int_raises():
    table = [1., 2., 3., 4.]
    f = fg.function(lambda i: fg.constant(table[i]))
    with pytest.raises(TypeError, match="finegrad.gather"):
        f(fg.constant(1))
    # a shape that is a constant of the trace (no signature: one trace per shape) is an int
    g = fg.function(lambda x: fg.constant(table[fg.shape(x)[0]]))
    assert [float(g(fg.ones([n]))) for n in (1, 2, 3)] == [2., 3., 4.]


def test_while_loop_with_traced_bound_is_the_way():
    @fg.function
    def f(n):
        return fg.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 1.),
                             (fg.constant(0), fg.constant(0.)))[1]

    assert [float(f(fg.constant(n))) for n in (3, 5)] == [3., 5.]


def test_eager_int_tensor_is_an_int():
    n = fg.constant(3)
    assert list(range(n)) == [0, 1, 2]
    assert [1, 2, 3, 4][n] == 4
    assert tuple(fg.zeros([n, 2]).shape) == (3, 2)


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for name, make in (("zeros", lambda n: tf.zeros([n, 3])), ("eye", tf.eye),
                       ("range", tf.range), ("tile", lambda n: tf.tile(tf.ones([2]), [n]))):
        f = tf.function(make)
        ours = fg.function(SIZED[name])
        for n in (3, 5):
            assert tuple(f(tf.constant(n)).shape) == tuple(ours(fg.constant(n)).shape)
