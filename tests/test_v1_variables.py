"""TF1 variables: get_variable, variable_scope, initializers, collections, assign ops,
control dependencies (names and exception classes as TensorFlow 2.21's tf.compat.v1 gives)."""
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


def test_get_variable_names_and_collections(g):
    with v1.variable_scope("dense"):
        w = v1.get_variable("w", [2, 3])
        b = v1.get_variable("b", [3], initializer=v1.zeros_initializer())
        t = v1.get_variable("t", [1], trainable=False)
    assert (w.name, b.name, w.op.name, w.initializer.name) == (
        "dense/w:0", "dense/b:0", "dense/w", "dense/w/Assign")
    assert [v.name for v in v1.global_variables()] == ["dense/w:0", "dense/b:0", "dense/t:0"]
    assert v1.trainable_variables() == [w, b]
    assert v1.get_collection(v1.GraphKeys.GLOBAL_VARIABLES, "dense/b") == [b]
    c, c2 = tf.Variable(1.), tf.Variable(2., name="c")
    assert (c.name, c2.name, tf.Variable(1.).name) == ("Variable:0", "c:0", "Variable_1:0")
    assert t not in v1.trainable_variables()


def test_uninitialized_then_initialized(g):
    w = v1.get_variable("w", [2, 3])
    x = v1.placeholder(tf.float32, [None, 2])
    y = tf.matmul(x, w)
    sess = v1.Session()
    with pytest.raises(errors.FailedPreconditionError):
        sess.run(y, {x: [[1., 2.]]})
    sess.run(v1.global_variables_initializer())
    wv = sess.run(w)
    limit = np.sqrt(6. / 5.)          # glorot uniform, get_variable's default
    assert wv.shape == (2, 3) and np.all(np.abs(wv) <= limit) and np.ptp(wv) > 0
    np.testing.assert_allclose(sess.run(y, {x: [[1., 2.]]}), [[1., 2.]] @ wv, rtol=1e-6)
    with pytest.raises(errors.FailedPreconditionError):   # each session has its own values
        v1.Session().run(w)


def test_reuse_rules(g):
    with v1.variable_scope("dense"):
        w = v1.get_variable("w", [2])
    with v1.variable_scope("dense", reuse=True):
        assert v1.get_variable("w") is w
        with v1.variable_scope("inner"):        # reuse is inherited
            with pytest.raises(ValueError, match="does not exist"):
                v1.get_variable("u", [1])
    with v1.variable_scope("dense"):
        with pytest.raises(ValueError, match="already exists, disallowed"):
            v1.get_variable("w", [2])
    with v1.variable_scope("dense", reuse=True):
        with pytest.raises(ValueError, match="Trying to share variable dense/w"):
            v1.get_variable("w", [3])
    with v1.variable_scope("auto", reuse=v1.AUTO_REUSE):
        q = v1.get_variable("q", [1])
    with v1.variable_scope("auto", reuse=v1.AUTO_REUSE):
        assert v1.get_variable("q", [1]) is q
    with v1.variable_scope("rv") as scope:
        a = v1.get_variable("a", [1])
        scope.reuse_variables()
        assert v1.get_variable("a") is a
    with pytest.raises(ValueError):
        v1.get_variable("nos")


def test_scopes_by_name_object_and_default_name(g):
    x = v1.placeholder(tf.float32, [2])
    with v1.variable_scope("outer") as sc:
        z = tf.add(x, 1.)
        assert v1.get_variable_scope() is sc
    with v1.variable_scope(sc):
        z2 = tf.add(x, 1.)
        v = v1.get_variable("v", [1])
    with v1.variable_scope("outer"):
        z3 = tf.add(x, 1.)
    assert (z.name, z2.name, z3.name, v.name) == ("outer/Add:0", "outer/Add_1:0",
                                                  "outer_1/Add:0", "outer/v:0")
    with v1.variable_scope(None, default_name="layer") as l1:
        pass
    with v1.variable_scope(None, default_name="layer") as l2:
        pass
    assert (l1.name, l2.name) == ("layer", "layer_1")
    with v1.variable_scope("init", initializer=v1.constant_initializer(3.)):
        c = v1.get_variable("c", [2])
    with v1.Session() as sess:
        sess.run(c.initializer)
        np.testing.assert_array_equal(sess.run(c), [3., 3.])


def test_constant_initializer_and_dtypes(g):
    a = v1.get_variable("a", initializer=np.array([1., 2.], np.float32))
    i = v1.get_variable("i", [2], dtype=tf.int32)
    with pytest.raises(ValueError, match="do not specify shape"):
        v1.get_variable("bad", [2], initializer=np.array([1., 2.], np.float32))
    with v1.Session() as sess:
        sess.run(v1.variables_initializer([a, i]))
        np.testing.assert_array_equal(sess.run(a), [1., 2.])
        np.testing.assert_array_equal(sess.run(i), [0, 0])


def test_regularizer_collection(g):
    w = v1.get_variable("w", initializer=np.array([1., 2.], np.float32),
                        regularizer=lambda v: tf.reduce_sum(v * v) * 0.5)
    (loss,) = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
    with v1.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(loss) == 2.5


def test_assign_ops_control_dependencies_and_group(g):
    b = v1.get_variable("b", [3], initializer=v1.zeros_initializer())
    a = v1.assign(b, [1., 2., 3.])
    inc = b.assign_add([1., 1., 1.])
    with tf.control_dependencies([inc]):
        r = tf.identity(b)
    plain = tf.identity(b)
    grp = tf.group(inc, name="step")
    noop = tf.no_op()
    with v1.Session() as sess:
        sess.run(b.initializer)
        np.testing.assert_array_equal(sess.run(a), [1., 2., 3.])
        np.testing.assert_array_equal(sess.run(inc), [2., 3., 4.])
        np.testing.assert_array_equal(sess.run(r), [3., 4., 5.])     # runs inc first
        np.testing.assert_array_equal(sess.run(plain), [3., 4., 5.])  # does not
        assert sess.run(grp) is None and grp.name == "step" and grp.type == "NoOp"
        np.testing.assert_array_equal(sess.run(b), [4., 5., 6.])
        assert sess.run(noop) is None
        inc.op.run()
        np.testing.assert_array_equal(b.eval(), [5., 6., 7.])


def test_get_variable_eagerly():
    v = v1.get_variable("eager_w_test", [2], initializer=v1.ones_initializer())
    np.testing.assert_array_equal(v.numpy(), [1., 1.])


def test_where_tf1_and_tf2_meet():
    v = tf.Variable(1.)                      # made eagerly: TensorFlow refuses it in a graph
    with tf.Graph().as_default():
        with pytest.raises(RuntimeError, match="Attempting to capture an EagerTensor"):
            _ = v * 2.

    @tf.function
    def double(x):
        return x * 2.
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [])
        y = double(x)                        # a function called in a graph
        with tf.GradientTape() as tape:      # a tape in a graph records graph ops
            tape.watch(x)
            z = x * x
        dz = tape.gradient(z, x)
        w = v1.get_variable("w", [2], initializer=v1.ones_initializer())
        with v1.Session() as sess:
            assert sess.run([y, dz], {x: 3.}) == [6., 6.]
            sess.run(w.initializer)
            w.load([3., 4.], sess)
            np.testing.assert_array_equal(w.eval(session=sess), [3., 4.])


def test_optimizer_applies_variable_constraints():
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=np.array([1., -1.], np.float32),
                            constraint=lambda t: tf.clip_by_value(t, -0.5, 0.5))
        train = v1.train.GradientDescentOptimizer(1.).minimize(tf.reduce_sum(w * 0.25))
        with v1.Session() as sess:
            sess.run(w.initializer)
            sess.run(train)
            np.testing.assert_array_equal(sess.run(w), [0.5, -0.5])
