"""Variable: the mutable API, dtype/shape errors, and how tapes see reads."""
import numpy as np
import pytest

import finegrad as tf


def test_construction_and_properties():
    v = tf.Variable([1., 2.], name="w")
    assert v.name == "w:0" and v.trainable
    assert v.dtype == tf.float32 and v.shape == (2,) and v.ndim == 1
    np.testing.assert_array_equal(v.numpy(), [1., 2.])
    assert tf.Variable(3).dtype == tf.int32
    assert tf.Variable(np.ones(2)).dtype == tf.float64
    assert tf.Variable(1, dtype=tf.float64).dtype == tf.float64
    assert tf.Variable(tf.constant([1., 2.]), dtype=tf.float64).dtype == tf.float64
    assert tf.Variable(lambda: tf.zeros((2, 2))).shape == (2, 2)
    assert not tf.Variable(1., trainable=False).trainable
    with pytest.raises(TypeError, match=r"finegrad\.Variable.*str"):
        tf.Variable("abc")


def test_assign_family_returns_variable_and_updates():
    v = tf.Variable([1., 2.])
    assert v.assign([3., 4.]) is v
    np.testing.assert_array_equal(v.numpy(), [3., 4.])
    v.assign_add([1., 1.])
    np.testing.assert_array_equal(v.numpy(), [4., 5.])
    v.assign_sub(tf.constant([0.5, 0.5]))
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
    assert v.dtype == tf.float32
    s = tf.Variable(1.)
    s.assign_add(2.)
    s.assign_sub(0.5)
    assert s.numpy() == 2.5


def test_python_values_take_the_variable_dtype():
    v = tf.Variable([1., 2.])
    v.assign([3, 4])  # Python ints into a float variable, as in TensorFlow
    assert v.dtype == tf.float32 and v.numpy().tolist() == [3., 4.]
    i = tf.Variable(1)
    i.assign(2.0)
    assert i.dtype == tf.int32 and i.numpy() == 2


def test_assign_refuses_to_drop_a_fraction():
    i = tf.Variable(1)
    with pytest.raises(TypeError, match="1.5"):
        i.assign(1.5)
    assert i.numpy() == 1
    iv = tf.Variable([1, 2])
    with pytest.raises(TypeError, match="fraction"):
        iv.assign([1.5, 2.])


def test_assign_dtype_errors_name_both_dtypes():
    v = tf.Variable([1., 2.], name="w")
    with pytest.raises(TypeError, match=r"Variable\.assign.*'w:0'.*float32.*float64"):
        v.assign(tf.constant(np.array([1., 2.])))
    with pytest.raises(TypeError, match=r"Variable\.assign_add.*float32.*int32"):
        v.assign_add(tf.constant([1, 2]))
    with pytest.raises(TypeError, match=r"Variable\.assign\b.*str"):
        v.assign("ab")
    np.testing.assert_array_equal(v.numpy(), [1., 2.])


def test_assign_shape_errors_name_both_shapes():
    v = tf.Variable([1., 2.], name="w")
    with pytest.raises(ValueError, match=r"Variable\.assign.*'w:0'.*\(2,\).*\(3,\)"):
        v.assign([1., 2., 3.])
    with pytest.raises(ValueError, match=r"Variable\.assign_sub.*\(2,\).*\(2, 1\)"):
        v.assign_sub(tf.ones((2, 1)))
    np.testing.assert_array_equal(v.numpy(), [1., 2.])


def test_read_value_is_a_snapshot():
    v = tf.Variable([1., 2.])
    r = v.read_value()
    n = v.numpy()
    v.assign([5., 6.])
    assert isinstance(r, tf.Tensor)
    np.testing.assert_array_equal(r.numpy(), [1., 2.])
    np.testing.assert_array_equal(n, [1., 2.])
    n2 = v.numpy()
    n2[0] = 100.  # numpy() is a copy
    assert v.numpy()[0] == 5.


def test_operators_on_variables():
    v = tf.Variable([1., 2.])
    for got, want in [(v + 1., [2., 3.]), (1. + v, [2., 3.]), (v - 1., [0., 1.]),
                      (3. - v, [2., 1.]), (v * 2., [2., 4.]), (2. * v, [2., 4.]),
                      (v / 2., [.5, 1.]), (2. / v, [2., 1.]), (v ** 2, [1., 4.]),
                      (-v, [-1., -2.]), (abs(-v), [1., 2.]), (v // 2., [0., 1.]),
                      (v % 2., [1., 0.]), (v + v, [2., 4.]), (v[1], 2.), (v[::-1], [2., 1.])]:
        assert isinstance(got, tf.Tensor)
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal((v < 1.5).numpy(), [True, False])
    np.testing.assert_array_equal((v == 2.).numpy(), [False, True])
    m = tf.Variable([[1., 2.], [3., 4.]])
    np.testing.assert_array_equal((m @ m).numpy(), [[7., 10.], [15., 22.]])
    np.testing.assert_array_equal(np.asarray(m), [[1., 2.], [3., 4.]])
    assert tf.add(v, 1.).numpy().tolist() == [2., 3.]
    assert tf.convert_to_tensor(v).numpy().tolist() == [1., 2.]


def test_variable_mixed_dtype_op_is_type_error():
    v = tf.Variable([1., 2.])
    with pytest.raises(TypeError, match="float32.*float64|float64.*float32"):
        v + tf.constant(np.array([1., 2.]))


def test_tape_watches_trainable_variables_when_read():
    v = tf.Variable(3.)
    with tf.GradientTape() as t:
        y = v * v
    assert t.watched_variables() == (v,)
    assert t.gradient(y, v).numpy() == 6.


def test_variable_not_read_inside_tape_is_not_watched():
    v = tf.Variable(3.)
    r = v * 1.  # read before the tape
    with tf.GradientTape() as t:
        y = r * 2.
    assert t.watched_variables() == ()
    assert t.gradient(y, v) is None


def test_non_trainable_variable_not_watched_unless_asked():
    v = tf.Variable(3., trainable=False)
    with tf.GradientTape() as t:
        y = v * v
    assert t.watched_variables() == ()
    assert t.gradient(y, v) is None
    with tf.GradientTape() as t:
        t.watch(v)
        y = v * v
    assert t.gradient(y, v).numpy() == 6.


def test_gradient_sums_over_reads():
    v = tf.Variable(3.)
    with tf.GradientTape() as t:
        a = v * 2.
        b = v.read_value() ** 2
        c = tf.convert_to_tensor(v)
        y = a + b + c
    assert t.gradient(y, v).numpy() == 2. + 6. + 1.


def test_gradient_through_assign_sees_each_read_value():
    v = tf.Variable(3.)
    with tf.GradientTape() as t:
        y = v * v        # 2 * 3
        v.assign(10.)
        z = v * v        # 2 * 10
        total = y + z
    assert t.gradient(total, v).numpy() == 26.


def test_gradient_wrt_variable_structure_and_unconnected():
    v, w, u = tf.Variable([1., 2.]), tf.Variable(3.), tf.Variable(5.)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(v * w)
    g = t.gradient(y, {"v": v, "rest": (w, u)},
                   unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(g["v"].numpy(), [3., 3.])
    assert g["rest"][0].numpy() == 3. and g["rest"][1].numpy() == 0.


def test_integer_variable_gets_no_gradient():
    i = tf.Variable(2)
    with tf.GradientTape() as t:
        y = tf.cast(i, tf.float32) * 3.
    assert t.gradient(y, i) is None


def test_nested_tapes_on_variable():
    v = tf.Variable(2.)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = v ** 3
        g = inner.gradient(y, v)
    assert g.numpy() == 12.
    assert outer.gradient(g, v).numpy() == 12.


def test_training_step_updates_value():
    w = tf.Variable([1., -1.])
    x = tf.constant([2., 3.])
    for _ in range(3):
        with tf.GradientTape() as t:
            loss = tf.reduce_sum((w * x - 1.) ** 2)
        w.assign_sub(0.01 * t.gradient(loss, w))
    # closed form of three gradient steps on each coordinate: w <- w - 0.02 x (w x - 1)
    want = np.array([1., -1.])
    for _ in range(3):
        want = want - 0.02 * np.array([2., 3.]) * (want * [2., 3.] - 1.)
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-6)


# --- sliced assignment, v[key].assign(value): eagerly and inside finegrad.function -------------

def _slice_program(v, x):
    v[0].assign(x)
    v[1, 1:3].assign([7., 8.])
    v[:, 0].assign(v[:, 0] * 2.)        # reads the value as it stands after the writes above
    v[..., 2].assign(tf.constant(-1.))  # broadcast to the slice
    v[np.array([1, 1])].assign(x * 3.)  # an index array (repeated: the last write wins)
    return v.read_value() * 1.


def test_sliced_assignment_traced_matches_eager():
    start = np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)
    for x in ([9., 9., 9.], [1., 2., 3.]):
        expected = start.copy()
        expected[0] = x
        expected[1, 1:3] = [7., 8.]
        expected[:, 0] *= 2.
        expected[..., 2] = -1.
        expected[[1, 1]] = np.multiply(x, 3.)
        for run in (_slice_program, tf.function(_slice_program)):
            v = tf.Variable(start)
            x_t = tf.constant(x)
            with tf.GradientTape() as tape:     # replayed under a tape: the same writes
                tape.watch(x_t)
                out = run(v, x_t)
            np.testing.assert_array_equal(out.numpy(), expected)
            np.testing.assert_array_equal(v.numpy(), expected)
            v.assign(start)
            np.testing.assert_array_equal(run(v, x_t).numpy(), expected)   # compiled graph
            np.testing.assert_array_equal(v.numpy(), expected)


def test_sliced_assignment_in_traced_control_flow():
    v = tf.Variable([0., 0., 0.])

    @tf.function
    def f(x):
        tf.cond(x > 0., lambda: v[0].assign(x), lambda: v[2].assign(x))

        def body(i):
            v[1].assign(v[1] + x)
            return (i + 1,)
        tf.while_loop(lambda i: i < 3, body, (tf.constant(0),))
        return v.read_value() * 1.

    np.testing.assert_array_equal(f(tf.constant(2.)).numpy(), [2., 6., 0.])
    np.testing.assert_array_equal(f(tf.constant(-1.)).numpy(), [2., 3., -1.])
    np.testing.assert_array_equal(v.numpy(), [2., 3., -1.])


def test_variable_assigned_in_a_traced_loop_is_read_each_iteration():
    v = tf.Variable(1.)

    def run(x):   # the loop's condition and body read the value the last iteration wrote
        return tf.while_loop(lambda i: v < 20., lambda i: (v.assign(v * x), i + 1)[1:],
                             (tf.constant(0),), maximum_iterations=50)[0]

    for x, n, final in ((2., 5, 32.), (3., 3, 27.)):
        for f in (run, tf.function(run)):
            v.assign(1.)
            assert int(f(tf.constant(x))) == n
            assert float(v.numpy()) == final


def test_sliced_assignment_traced_checks_like_eager():
    v = tf.Variable([1., 2., 3.])

    @tf.function
    def wrong_shape(x):
        v[0:2].assign(x)

    @tf.function
    def wrong_dtype(x):
        v[0].assign(x)

    with pytest.raises(ValueError, match="slice has shape"):
        wrong_shape(tf.constant([1., 2., 3.]))
    with pytest.raises(TypeError, match="float64"):
        wrong_dtype(tf.constant(1., tf.float64))
    np.testing.assert_array_equal(v.numpy(), [1., 2., 3.])
