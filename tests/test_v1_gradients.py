"""Gradients in TF1 graphs: tf.gradients outside function, custom_gradient with get_variable
variables, RegisterGradient + gradient_override_map, cond, while_loop, py_func.
Values are closed forms (and the TF 1.x custom_gradient page's: nan, then 1.0)."""
import numpy as np
import pytest

import finegrad as tf

v1 = tf.compat.v1


@pytest.fixture
def g():
    graph = tf.Graph()
    with graph.as_default():
        yield graph


def test_custom_gradient_page_example(g):
    def log1pexp(x):
        return tf.math.log(1 + tf.exp(x))
    x = tf.constant(100.)
    dy = tf.gradients(log1pexp(x), x)  # Will be NaN when evaluated.

    @tf.custom_gradient
    def log1pexp_stable(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad
    dy2 = tf.gradients(log1pexp_stable(x), x)
    with v1.Session() as sess:
        assert np.isnan(sess.run(dy)[0])
        assert sess.run(dy2) == [1.0]


def test_custom_gradient_with_get_variable(g):
    p = v1.placeholder(tf.float32, [None, 2])
    with v1.variable_scope("cg"):
        w = v1.get_variable("w", [2], initializer=v1.constant_initializer(2.))
    seen = {}

    @tf.custom_gradient
    def f(x):
        out = x * w

        def grad(dy, variables=None):
            seen["variables"] = variables
            return dy * w, [tf.reduce_sum(dy * x, axis=0) * 10.]
        return out, grad
    gx, gw = tf.gradients(tf.reduce_sum(f(p)), [p, w])
    assert seen["variables"] == [w]
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        vx, vw = sess.run([gx, gw], {p: [[1., 2.], [3., 4.]]})
    np.testing.assert_array_equal(vx, [[2., 2.], [2., 2.]])
    np.testing.assert_array_equal(vw, [40., 60.])     # the rule's, not the true [4, 6]


def test_custom_gradient_without_variables_argument_is_an_error(g):
    w = v1.get_variable("w", [2], initializer=v1.ones_initializer())

    @tf.custom_gradient
    def f(x):
        return x * w, lambda dy: dy * w
    with pytest.raises(TypeError, match="variables"):
        tf.gradients(tf.reduce_sum(f(tf.constant([1., 2.]))), w)


def test_gradients_arguments(g):
    a = v1.placeholder(tf.float32, [])
    b = a * 2.
    c = b * 3.
    assert tf.gradients(c, [a, v1.placeholder(tf.float32, [])])[1] is None
    g1 = v1.gradients(c, a, grad_ys=tf.constant(2.), colocate_gradients_with_ops=True,
                      aggregation_method=tf.AggregationMethod.ADD_N, gate_gradients=True)
    assert v1.gradients(c, a, stop_gradients=[b]) == [None]
    g3 = v1.gradients(c + b, [a, b], stop_gradients=[b])
    zero = v1.gradients(c, v1.placeholder(tf.float32, [2]), unconnected_gradients="zero")
    with v1.Session() as sess:
        assert sess.run(g1, {a: 1.}) == [12.]
        assert g3[0] is None and sess.run(g3[1], {a: 1.}) == 4.
        np.testing.assert_array_equal(sess.run(zero), [[0., 0.]])


def test_gradients_of_variables_and_second_order(g):
    w = v1.get_variable("w", initializer=np.float32(3.))
    y = w ** 3
    (dw,) = tf.gradients(y, w)
    (d2w,) = tf.gradients(dw, w)
    with v1.Session() as sess:
        sess.run(w.initializer)
        assert sess.run([dw, d2w]) == [27., 18.]


def test_gradient_override_map_straight_through(g):
    @tf.RegisterGradient("V1StraightThrough")
    def _ste(op, grad):
        x = op.inputs[0]
        return tf.where(tf.abs(x) <= 1., grad, tf.zeros_like(grad))
    z = v1.placeholder(tf.float32, [4])
    with g.gradient_override_map({"Sign": "V1StraightThrough"}):
        s = tf.sign(z)
    (gz,) = tf.gradients(tf.reduce_sum(s * 2.), z)
    with v1.Session() as sess:
        sv, gv = sess.run([s, gz], {z: [-2., -0.5, 0.3, 1.5]})
    np.testing.assert_array_equal(sv, [-1., -1., 1., 1.])
    np.testing.assert_array_equal(gv, [0., 2., 2., 0.])


def test_py_func_gradient_through_override_map(g):
    @tf.RegisterGradient("V1PyFuncDouble")
    def _double(op, grad):
        return grad * 2.
    q = v1.placeholder(tf.float32, [])
    with g.gradient_override_map({"PyFunc": "V1PyFuncDouble"}):
        y = v1.py_func(lambda v: v * 2, [q], tf.float32)
    (gq,) = tf.gradients(y, q)
    nf = tf.numpy_function(lambda v: v + 1, [q], tf.float32)
    with v1.Session() as sess:
        assert sess.run([y, gq, nf], {q: 2.}) == [4., 2., 3.]


def test_cond_and_while_loop(g):
    q = v1.placeholder(tf.float32, [])
    cc = v1.cond(q > 0, lambda: q * 2., lambda: q * -3.)
    i, acc = v1.while_loop(lambda i, acc: i < 5, lambda i, acc: (i + 1, acc * q),
                           [0, tf.constant(1.)])
    (gq,) = tf.gradients(cc, q)
    (gw,) = tf.gradients(acc, q)
    with v1.Session() as sess:
        assert sess.run([cc, gq, i, acc, gw], {q: 2.}) == [4., 2., 5, 32., 80.]
        assert sess.run([cc, gq], {q: -1.}) == [3., -3.]


def test_nested_custom_gradient_second_order_in_a_graph(g):
    # StyleGAN's pattern: a custom gradient whose grad_fn has its own custom gradient;
    # TensorFlow 2.21 (tf.compat.v1, graph mode) gives 45, [18, 36], [30, 30]
    @tf.custom_gradient
    def blur(x):
        def grad(dy):
            @tf.custom_gradient
            def inner(dy):
                return dy * 3., lambda ddx: ddx * 5.   # deliberately not 3
            return inner(dy)
        return x * 3., grad
    x = v1.placeholder(tf.float32, [2])
    y = tf.reduce_sum(blur(x) ** 2)
    (gx,) = tf.gradients(y, x)
    (ggx,) = tf.gradients(tf.reduce_sum(gx), x)
    with v1.Session() as sess:
        yv, gv, ggv = sess.run([y, gx, ggx], {x: [1., 2.]})
    assert yv == 45.
    np.testing.assert_array_equal(gv, [18., 36.])
    np.testing.assert_array_equal(ggv, [30., 30.])


@pytest.mark.parametrize("branching", ["cond", "switch_case", "while_loop"])
def test_a_constant_first_used_inside_a_branch_gets_its_gradient(branching):
    """A graph constant whose first use is inside a cond branch or a loop body is one input
    of the whole graph: tf.gradients with respect to it is a tensor (TensorFlow's), not None,
    with the values of d/dx sum(sin(x)) (branch 0) or 2x (branch 1) or 2 * 2x (two trips)."""
    x0 = np.array([0.3, -1.2, 2.0])
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(x0)
        k = tf.compat.v1.placeholder(tf.int32, [])
        if branching == "cond":
            y = tf.cond(k > 0, lambda: x * x, lambda: tf.sin(x))
        elif branching == "switch_case":
            y = tf.switch_case(k, [lambda: tf.sin(x), lambda: x * x])
        else:
            y = tf.while_loop(lambda i, s: i < 2 * k, lambda i, s: (i + 1, s + x * x),
                              [0, tf.zeros_like(x0)])[1]
        dx = tf.gradients(tf.reduce_sum(y), [x])[0]
    assert dx is not None
    with tf.compat.v1.Session(graph=g) as sess:
        got = sess.run(dx, {k: 1})
    want = 2 * 2 * x0 if branching == "while_loop" else 2 * x0
    np.testing.assert_allclose(got, want, rtol=1e-12)
