"""The static shapes of numpy_function / py_func / py_function results: unknown (any rank)
in a graph, as TensorFlow gives them, until ``set_shape``; what later ops do with such a
tensor, and len() and iteration of graph tensors (TensorFlow's exception classes), compared
live with TensorFlow."""

import numpy as np
import pytest

import finegrad as fg


def _outputs(T, x):
    v1 = T.compat.v1
    return {
        "py_func": v1.py_func(lambda a: a * 2, [x], T.float32),
        "py_func_stateless": v1.py_func(lambda a: a * 2, [x], T.float32, stateful=False),
        "py_func_list": v1.py_func(lambda a: [a * 2, a], [x], [T.float32, T.float32]),
        "numpy_function": T.numpy_function(lambda a: a * 2, [x], T.float32),
        "numpy_function_stateless": T.numpy_function(lambda a: a * 2, [x], T.float32,
                                                     stateful=False),
        "py_function": T.py_function(lambda a: a * 2, [x], T.float32),
        "py_function_list": T.py_function(lambda a: [a * 2], [x], [T.float32]),
    }


def _static(v):
    shapes = [t.shape for t in v] if isinstance(v, list) else [v.shape]
    return [None if s.rank is None else s.as_list() for s in shapes]


LATER = {
    "reduce_sum_axis1": lambda T, t: T.reduce_sum(t, axis=1),
    "matmul": lambda T, t: T.matmul(t, t),
    "add": lambda T, t: t + 1.,
    "reduce_mean": lambda T, t: T.reduce_mean(t),
    "reshape": lambda T, t: T.reshape(t, [-1]),
    "getitem": lambda T, t: t[0],
    "tile": lambda T, t: T.tile(t, [2, 1]),
    "softmax": lambda T, t: T.nn.softmax(t),
    "unstack": lambda T, t: T.unstack(t),
    "unstack_num": lambda T, t: T.unstack(t, num=2),
    "as_list": lambda T, t: t.shape.as_list(),
    "len": lambda T, t: len(t),
}


def _later(T, t, name):
    try:
        LATER[name](T, t)
    except Exception as e:   # (the class is compared with TensorFlow's)
        return type(e)
    return "ok"


def _in_function(T, tf, build):
    box = {}
    extra = {"autograph": False} if T is tf else {}   # (no rewriting of len())
    T.function(lambda x: box.update(build(x)) or x,
               input_signature=[T.TensorSpec([None, 2], T.float32)], **extra)(T.ones([2, 2]))
    return box


@pytest.mark.parametrize("graph_kind", ["v1", "function"])
def test_static_shapes_and_later_ops_follow_tensorflow(graph_kind):
    tf = pytest.importorskip("tensorflow")
    got = {}
    for T in (tf, fg):
        def build(x, T=T):
            outs = _outputs(T, x)
            res = {k: _static(v) for k, v in outs.items()}
            t = outs["numpy_function"]
            res.update({k: _later(T, t, k) for k in LATER})
            t.set_shape([None, 2])
            res["after_set_shape"] = t.shape.as_list()
            try:
                t.set_shape([3, 3])
            except ValueError:
                res["conflicting_set_shape"] = ValueError
            return res
        if graph_kind == "v1":
            with T.Graph().as_default():
                got[T] = build(T.compat.v1.placeholder(T.float32, [None, 2]))
        else:
            got[T] = _in_function(T, tf, build)
    theirs = got[tf]
    for k, v in got[fg].items():
        want = theirs[k]
        if isinstance(want, type) and issubclass(want, TypeError):
            want = TypeError   # (TensorFlow's OperatorNotAllowedInGraphError is one)
        assert v == want or (isinstance(v, type) and isinstance(want, type)
                             and issubclass(v, want)), (k, v, want)
    assert got[fg]["py_func"] == [None]


def test_set_shape_outside_graphs_checks_only():
    t = fg.ones([2, 3])
    t.set_shape([None, 3])
    assert t.shape == (2, 3)
    with pytest.raises(ValueError, match="not compatible"):
        t.set_shape([3])


def test_len_and_iteration_of_graph_tensors_are_type_errors():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        for shape in ([3, 2], [None, 2], None):
            x = v1.placeholder(fg.float32, shape)
            with pytest.raises(TypeError, match="len is not well defined"):
                len(x)
            with pytest.raises(TypeError, match="Iterating over a symbolic"):
                list(x)


def test_function_unrolls_static_lengths_and_refuses_open_ones():
    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    def open_rows(x):
        return fg.stack([r * 2. for r in x])

    with pytest.raises(TypeError, match="not static"):
        open_rows(fg.ones([2, 3]))

    @fg.function
    def fixed(x):
        return len(x), fg.stack([r * 2. for r in x])

    n, y = fixed(fg.ones([2, 3]))
    assert n == 2
    np.testing.assert_array_equal(y.numpy(), np.full((2, 3), 2., np.float32))


def test_a_py_func_result_feeds_later_ops_in_a_session():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [None, 2])
        y = v1.py_func(lambda a: a[::-1] * 2, [x], fg.float32)
        z = fg.reduce_sum(y, axis=1) + fg.reduce_mean(y)
        with v1.Session() as sess:
            for n in (3, 1, 0):
                xv = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
                want = (xv[::-1] * 2).sum(1) + (xv * 2).mean() if n else np.zeros(0)
                np.testing.assert_allclose(sess.run(z, {x: xv}), want, rtol=1e-6)


def _positives(a):
    return a[a > 0]


def test_result_sizes_that_depend_on_values_in_a_function():
    """A host function's results may change size from call to call (TensorFlow computes the
    shape when the op runs): the function follows, it does not keep the first call's."""
    f = fg.function(lambda x: (fg.reduce_sum(fg.numpy_function(_positives, [x], fg.float32)
                                             * 2.), fg.numpy_function(_positives, [x],
                                                                      fg.float32) + 1.))
    for x, want in [([1., -1., 2.], [2., 3.]), ([1., 3., 2.], [2., 4., 3.]), ([-1.], [])]:
        total, shifted = f(fg.constant(x))
        np.testing.assert_array_equal(shifted.numpy(), want)
        assert float(total) == 2 * sum(v for v in x if v > 0)


def test_result_sizes_that_depend_on_values_in_a_tf1_session():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        s = v1.placeholder(fg.string, [])
        n = v1.py_func(lambda b: np.arange(len(b.item()), dtype=np.int64), [s],
                        fg.int64)
        y = n * 2
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {s: b"abc"}), [0, 2, 4])
            np.testing.assert_array_equal(sess.run(y, {s: b"abcde"}), [0, 2, 4, 6, 8])
            np.testing.assert_array_equal(sess.run(y, {s: b""}), np.zeros(0, np.int64))
