"""TF1 graphs and sessions (finegrad.compat.v1): names, shapes, placeholders, Session.run.

Expected names, values and exception classes are TensorFlow 2.21's tf.compat.v1 (recorded from
it running the same code with eager execution disabled)."""
import collections

import numpy as np
import pytest

import finegrad as tf
from finegrad import errors

v1 = tf.compat.v1


@pytest.fixture
def g():
    graph = tf.Graph()
    with graph.as_default():
        yield graph


def test_names_types_and_shapes(g):
    x = v1.placeholder(tf.float32, [None, 2], name="x")
    y = tf.reduce_sum(x * 2., name="total")
    z = tf.add(x, 1., name="z")
    assert (x.name, x.op.name, x.op.type, y.name, z.op.name) == ("x:0", "x", "Placeholder",
                                                                "total:0", "z")
    with tf.name_scope("layer"):
        a = tf.identity(x)
    with tf.name_scope("layer"):
        b = tf.identity(x, name="out")
    assert (a.name, b.name) == ("layer/Identity:0", "layer_1/out:0")   # TF's names
    m = tf.reduce_mean(x, name="m")      # several ops: the last one has the name
    assert m.name == "m:0" and g.get_tensor_by_name("m:0") is m
    assert x.shape.as_list() == [None, 2] and z.shape.as_list() == [None, 2]
    assert y.shape == () and y.dtype == tf.float32 and y.graph is g and x.op.graph is g
    assert g.get_operation_by_name("z") is z.op and z.op.outputs == [z]
    assert z.op.inputs[0] is x
    assert v1.placeholder(tf.float32).shape.rank is None
    assert [o.name for o in g.get_operations()][:2] == ["x", "Multiply"]


def test_lookup_errors(g):
    v1.placeholder(tf.float32, [], name="x")
    with pytest.raises(KeyError):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(KeyError):
        g.get_operation_by_name("nope")
    with pytest.raises(ValueError):
        g.get_operation_by_name("x:0")
    with pytest.raises(ValueError):
        g.get_tensor_by_name("x")


def test_graph_tensors_have_no_value(g):
    x = v1.placeholder(tf.float32, [2])
    with pytest.raises(TypeError):
        bool(x)
    with pytest.raises(AttributeError):
        x.numpy()
    with pytest.raises(ValueError, match="No default session"):
        x.eval()


def test_eager_tensors_have_no_graph_names():
    t = tf.constant(1.)
    with pytest.raises(AttributeError):
        _ = t.name
    with pytest.raises(TypeError):
        hash(t)


def test_finalize(g):
    v1.placeholder(tf.float32, [2])
    g.finalize()
    with pytest.raises(RuntimeError, match="finalized"):
        v1.placeholder(tf.float32, [2])


def test_default_graph_and_eager_switches():
    assert tf.executing_eagerly()
    g = tf.Graph()
    with g.as_default():
        assert v1.get_default_graph() is g and not tf.executing_eagerly()
        with pytest.raises(AssertionError):
            v1.reset_default_graph()
    assert tf.executing_eagerly()
    v1.disable_eager_execution()
    try:
        assert not tf.executing_eagerly()
        x = v1.placeholder(tf.float32, [], name="p")
        assert x.graph is v1.get_default_graph()
        v1.reset_default_graph()
        assert v1.get_default_graph().get_operations() == []
        with v1.Session() as sess:
            y = v1.placeholder(tf.float32, [])
            assert sess.run(y * 3., {y: 2.}) == 6.
    finally:
        v1.enable_eager_execution()
    assert tf.executing_eagerly() and float(tf.constant(2.) * 2.) == 4.
    with pytest.raises(RuntimeError):
        v1.placeholder(tf.float32, [])


def test_run_structures_and_feeds(g):
    x = v1.placeholder(tf.float32, [None, 2], name="x")
    y = tf.reduce_sum(x * 2., name="total")
    z = x + 1.
    sess = v1.Session()
    assert sess.run(y, {x: [[1, 2]]}) == np.float32(6.)
    out = sess.run([y, {"a": z}, (y,)], {x: np.ones((3, 2))})
    assert out[0] == 12. and out[1]["a"].shape == (3, 2) and isinstance(out[2], tuple)
    P = collections.namedtuple("P", "a b")
    p = sess.run(P(y, y.op), {x: np.ones((1, 2))})
    assert isinstance(p, P) and p.a == 4. and p.b is None
    assert sess.run("total:0", {"x:0": [[1., 1.]]}) == 4.
    assert sess.run(y, {x: [[1, 2]]}).dtype == np.float32
    i = v1.placeholder(tf.int32, [])
    assert sess.run(i * 2, {i: 1.7}) == 2         # converted as numpy converts, as in TF
    assert len(sess._plans) == 4      # "total:0" and y: one plan


def test_run_errors(g):
    x = v1.placeholder(tf.float32, [None, 2], name="x")
    y = tf.reduce_sum(x)
    sess = v1.Session()
    with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2,\)"):
        sess.run(y, {x: [1, 2]})
    with pytest.raises(errors.InvalidArgumentError, match="must feed a value for placeholder"):
        sess.run(y)
    with pytest.raises(ValueError):
        sess.run(y, {x: [["a", "b"]]})
    with pytest.raises(TypeError):
        sess.run(None)
    with pytest.raises(TypeError, match="Cannot interpret feed_dict key"):
        sess.run(y, {"nope:0": 1})
    with pytest.raises(TypeError, match="Cannot interpret feed_dict key"):
        sess.run(y, {3: 1})
    other = tf.Graph()
    with other.as_default():
        c = v1.placeholder(tf.float32, [])
    with pytest.raises(ValueError, match="not an element of this graph"):
        sess.run(c)
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(y, {x: [[1, 2]]})


def test_eval_run_and_default_session(g):
    x = v1.placeholder(tf.float32, [])
    y = x * 2.
    with v1.Session() as sess:
        assert v1.get_default_session() is sess
        assert y.eval({x: 3.}) == 6.
        assert y.eval(feed_dict={x: 1.}, session=sess) == 2.
    assert v1.get_default_session() is None
    s = v1.InteractiveSession()
    try:
        assert y.eval({x: 4.}) == 8.
    finally:
        s.close()


def test_fetching_fed_intermediate(g):
    x = v1.placeholder(tf.float32, [2])
    h = x * 2.
    y = h + 1.
    with v1.Session() as sess:      # feeding h cuts the graph there: x is not needed
        np.testing.assert_array_equal(sess.run(y, {h: [5., 6.]}), [6., 7.])


def test_placeholder_with_default(g):
    x = v1.placeholder_with_default(tf.constant([1., 2.]), [None])
    y = x * 2.
    with v1.Session() as sess:
        np.testing.assert_array_equal(sess.run(y), [2., 4.])
        np.testing.assert_array_equal(sess.run(y, {x: [1., 1., 1.]}), [2., 2., 2.])


def test_symbolic_sizes_and_shape(g):
    x = v1.placeholder(tf.float32, [None, 3])
    n = tf.shape(x)[0]
    w = tf.reshape(x, [-1])
    m = tf.reduce_mean(x, axis=0)
    with v1.Session() as sess:
        for rows in (1, 5):
            val = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
            got_n, got_w, got_m = sess.run([n, w, m], {x: val})
            assert got_n == rows
            np.testing.assert_array_equal(got_w, val.ravel())
            np.testing.assert_allclose(got_m, val.mean(0), rtol=1e-6)


def test_set_shape(g):
    x = v1.placeholder(tf.float32, [None, 3])
    x.set_shape([4, 3])
    assert x.shape.as_list() == [4, 3]
    with pytest.raises(ValueError):
        x.set_shape([4, 2])


def test_unknown_rank_placeholder_as_scalar(g):
    lr = v1.placeholder(tf.float32)
    y = lr * 3.
    with v1.Session() as sess:
        assert sess.run(y, {lr: 2.}) == 6.
        with pytest.raises(ValueError, match="unknown shape"):
            sess.run(y, {lr: [1., 2.]})


def test_equality_is_identity_in_a_graph(g):
    x = tf.constant([1., 2.]) * 1.
    v = tf.Variable([1., 2.])
    assert (x == x) is True and (x != x) is False and v in [v] and v == v
    e = tf.equal(x, x)           # elementwise, as in TensorFlow
    with v1.Session() as sess:
        np.testing.assert_array_equal(sess.run(e), [True, True])


def test_cond_follows_open_sizes(g):
    x = v1.placeholder(tf.float32, [None, 3])
    training = v1.placeholder(tf.bool, [])
    y = v1.cond(training, lambda: x * 2., lambda: x - 1.)
    total = tf.reduce_sum(y * y)
    (gx,) = tf.gradients(total, x)
    with v1.Session() as sess:
        for rows, flag in ((1, True), (4, False), (6, True)):
            val = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
            got, grad = sess.run([y, gx], {x: val, training: flag})
            want = val * 2. if flag else val - 1.
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(grad, 2. * want * (2. if flag else 1.))


def test_fetched_constants_are_not_cached_by_identity(g):
    with v1.Session() as sess:
        got = [float(sess.run(tf.constant(float(i)))) for i in range(20)]
    assert got == [float(i) for i in range(20)]


def test_graph_values_are_refused_outside_their_block():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [2])
        y = x * 2.
        w = v1.get_variable("w", [2], initializer=v1.ones_initializer())
    with pytest.raises(AttributeError):
        y.numpy()             # TensorFlow: graph tensors have no numpy()
    with pytest.raises(TypeError):
        float(y[0])
    with pytest.raises(NotImplementedError):
        w.numpy()             # its values live in sessions
    with pytest.raises(NotImplementedError):
        np.asarray(w)


def test_tensors_of_another_graph_are_refused():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        x = v1.placeholder(tf.float32, [2])
    with g2.as_default():
        with pytest.raises(ValueError, match="same graph"):
            _ = x * 2.
    with pytest.raises(TypeError, match="outside that graph"):
        _ = x + 1.            # an eager op on a graph tensor
    with g1.as_default():     # back in its graph, it builds ops again
        y = x * 2.
    with v1.Session(graph=g1) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1., 2.]}), [2., 4.])


def test_graph_scopes_and_graph_def(g):
    with g.name_scope("foo"), g.device("/cpu:0"):
        x = v1.placeholder(tf.float32, [], name="x")
    assert x.name == "foo/x:0" and not g.building_function
    with pytest.raises(NotImplementedError, match="GraphDef"):
        g.as_graph_def()


def test_while_loop_follows_open_sizes_and_guards_bind_only_their_nodes(g):
    x = v1.placeholder(tf.float32, [None, 3])
    _, y = v1.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2. + 1.), [0, x])
    (gx,) = tf.gradients(tf.reduce_sum(y), x)   # its loop gradient follows them too
    gp = tf.random.shuffle(x) * 0. + 2.   # keeps the traced size
    with v1.Session() as sess:
        for rows in (1, 4):
            np.testing.assert_array_equal(sess.run(y, {x: np.ones((rows, 3))}),
                                          np.full((rows, 3), 15.))
            np.testing.assert_array_equal(sess.run(gx, {x: np.ones((rows, 3))}),
                                          np.full((rows, 3), 8.))
        np.testing.assert_array_equal(sess.run(gp, {x: np.ones((2, 3))}), np.full((2, 3), 2.))
        with pytest.raises(errors.InvalidArgumentError, match="random_shuffle"):
            sess.run(gp, {x: np.ones((4, 3))})
