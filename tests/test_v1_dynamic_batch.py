"""The TF1 dynamic-batch idiom, ``b = tf.shape(x)[0]`` used as a size (``zeros([b, 3])``,
``range(b)``, ``reshape(x, [b, -1])``, ``fill([b], 2.)``, ``ones``): the size is the
placeholder's symbol, so one graph (and one `finegrad.function` trace) serves every fed
batch size, with TensorFlow's values and gradients. A value used as a size that the graph
cannot follow symbolically is a value guard, which checks each run's value against the
built one and binds only the runs whose fetches were built from it."""
import warnings

import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

v1 = fg.compat.v1


IDIOMS = {
    "zeros": lambda lib, x, b: lib.zeros([b, 3]) + x,
    "ones": lambda lib, x, b: lib.ones([b, 3], lib.float32) * x,
    "range": lambda lib, x, b: lib.range(b),
    "range_times": lambda lib, x, b: lib.cast(lib.range(b * 2), lib.float32),
    "reshape": lambda lib, x, b: lib.reshape(x, [b, -1]) * 2.,
    "reshape_back": lambda lib, x, b: lib.reshape(lib.reshape(x, [-1]), [b, 3]),
    "fill": lambda lib, x, b: lib.fill([b], 2.),
    "gather_nd": lambda lib, x, b: lib.gather_nd(
        x, lib.stack([lib.range(b), lib.zeros([b], lib.int32)], 1)),
    "size": lambda lib, x, b: lib.zeros([lib.size(x)]),
    "ones_plus_one": lambda lib, x, b: lib.ones([b + 1]),
    "zeros_of_shape": lambda lib, x, b: lib.zeros(lib.shape(x)) + x,
    "zeros_of_stack": lambda lib, x, b: lib.zeros(lib.stack([b, 3])) - x,
    "one_hot": lambda lib, x, b: lib.one_hot(lib.cast(x[:, 1] * 7., lib.int32) // 3, b),
    "tile": lambda lib, x, b: lib.tile(lib.reduce_sum(x, 0, keepdims=True), [b, 1]) * x,
}
DIFF = ["zeros", "ones", "reshape", "reshape_back", "gather_nd", "zeros_of_shape",
        "zeros_of_stack", "tile"]


def _graph():
    g = fg.Graph()
    with g.as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        b = fg.shape(x)[0]
        built = {k: f(fg, x, b) for k, f in IDIOMS.items()}
        free = {"ones_like": fg.ones_like(x), "tile": fg.tile(x, [1, 2]),
                "sin": fg.sin(x) * 2.}
    return g, x, built, free


def _x(n):
    return np.arange(3 * n, dtype=np.float32).reshape(n, 3) / 7.


def _tf_values(n):
    tf = pytest.importorskip("tensorflow")
    out = {}
    for k, f in IDIOMS.items():
        x = tf.constant(_x(n))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(tf, x, tf.shape(x)[0])
            loss = tf.reduce_sum(tf.sin(tf.cast(y, tf.float32)))
        out[k] = (y.numpy(), tape.gradient(loss, x) if k in DIFF else None)
    return out


@pytest.mark.parametrize("shape, target, expect", [
    ((0, 3), (0, -1), (0, 3)), ((0, 6), (0, -1, 2), (0, 3, 2)), ((0, 3), (-1, 0), (3, 0)),
    ((2, 0), (-1, 4), (0, 4)), ((0, 3), (-1,), (0,)), ((0, 3), (3, -1), (3, 0))])
def test_reshape_of_an_empty_tensor_resolves_minus_one_as_tensorflow(shape, target, expect):
    # TensorFlow 2.21's shapes (NumPy refuses the first three)
    assert fg.reshape(fg.zeros(shape), target).shape == expect


@pytest.mark.parametrize("n", [0, 2, 5])
def test_one_graph_serves_every_batch_size_as_tensorflow(n):
    expect = _tf_values(n)
    g, x, built, _ = _graph()
    with g.as_default():
        grads = {k: fg.gradients(fg.reduce_sum(fg.sin(fg.cast(built[k], fg.float32))), [x])[0]
                 for k in DIFF}
    with v1.Session(graph=g) as sess:
        got, dx = sess.run([built, grads], {x: _x(n)})
    for k, (y, gx) in expect.items():
        assert got[k].dtype == y.dtype, k
        np.testing.assert_allclose(got[k], y, rtol=1e-6, err_msg=k)
        if gx is not None:
            np.testing.assert_allclose(dx[k], gx.numpy(), rtol=1e-6, err_msg=k)


@pytest.mark.parametrize("n", [2, 5, 0])
def test_function_traced_once_serves_every_batch_size(n):
    expect = _tf_values(n)
    traces = []

    @fg.function(input_signature=[fg.TensorSpec([None, 3])])
    def f(x):
        traces.append(1)
        return {k: fn(fg, x, fg.shape(x)[0]) for k, fn in IDIOMS.items()}

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for m in (2, 5, n):
            got = f(_x(m))
    assert len(traces) == 1
    for k, v in got.items():
        np.testing.assert_allclose(v.numpy(), expect[k][0], rtol=1e-6, err_msg=k)


def _range_used_later(use):
    g = fg.Graph()
    with g.as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        n = v1.placeholder(fg.int32, [])
        p = v1.placeholder(fg.bool, [])
        r = fg.range(n)         # a value guard on n; r is used by a later call
        other = fg.reduce_sum(x) + fg.cast(n, fg.float32)
        y = use(r, p)
    return g, x, n, p, y, other


@pytest.mark.parametrize("use", [
    lambda r, p: fg.cast(r, fg.float32) * 2.,
    lambda r, p: v1.cond(p, lambda: fg.cast(r, fg.float32), lambda: fg.cast(r, fg.float32) - 1.),
], ids=["later_op", "cond_branch"])
def test_a_guarded_value_used_by_a_later_call_keeps_its_guard(use):
    g, x, n, p, y, other = _range_used_later(use)
    with v1.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y, {n: 0, p: True}), np.zeros(0))
        with pytest.raises(InvalidArgumentError, match="traced as 0 and this call's is 3"):
            sess.run(y, {n: 3, p: True})
        # a fetch not built from the guarded value runs with any n
        assert sess.run(other, {x: _x(5), n: 3}) == pytest.approx(_x(5).sum() + 3)


def test_range_of_a_size_that_may_be_negative_follows_each_fed_size():
    # range(b - 1) is symbolic: [0, ..., b - 2], and at b = 0 TensorFlow's Range kernel
    # refuses limit -1 ("Requires start <= limit when delta > 0: 0/-1")
    g = fg.Graph()
    with g.as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        y = fg.range(fg.shape(x)[0] - 1)
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: _x(2)}), [0])
            np.testing.assert_array_equal(sess.run(y, {x: _x(4)}), [0, 1, 2])
            assert sess.run(y, {x: _x(1)}).shape == (0,)
            with pytest.raises(InvalidArgumentError, match="Requires start <= limit when "
                                                           "delta > 0: 0/-1"):
                sess.run(y, {x: _x(0)})


def test_a_symbolic_size_that_resolves_negative_is_invalid_argument():
    # TensorFlow: InvalidArgumentError "Dimension -1 must be >= 0"
    g = fg.Graph()
    with g.as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        y = fg.zeros([fg.shape(x)[0] - 1, 3])
        with v1.Session() as sess:
            assert sess.run(y, {x: _x(5)}).shape == (4, 3)
            with pytest.raises(InvalidArgumentError, match="Dimension -1 must be >= 0"):
                sess.run(y, {x: _x(0)})
