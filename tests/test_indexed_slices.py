"""Sparse gradients: a variable or tensor used through `gather` / `nn.embedding_lookup` along
axis 0 gets an IndexedSlices gradient where TensorFlow 2.21 gives one (each case recorded from
TF on the same program), dense ones elsewhere; IndexedSlices convert, scale and update
variables as in TensorFlow, and travel out of traced functions."""
import numpy as np
import pytest

import finegrad as tf

ROWS = [[1., 2.], [3., 4.], [5., 6.]]


def _grad(f, src_is_var=True, **kw):
    v = tf.Variable(ROWS) if src_is_var else tf.constant(ROWS)
    with tf.GradientTape() as tape:
        if not src_is_var:
            tape.watch(v)
        y = f(v)
    return tape.gradient(y, v, **kw)


@pytest.mark.parametrize("name, f, sparse, dense", [
    ("gather of a variable", lambda v: tf.reduce_sum(tf.gather(v, [0, 2, 0])), True,
     [[2., 2.], [0., 0.], [1., 1.]]),
    ("embedding_lookup", lambda v: tf.reduce_sum(tf.nn.embedding_lookup(v, [1])), True,
     [[0., 0.], [1., 1.], [0., 0.]]),
    ("two gathers (concatenated)",
     lambda v: tf.reduce_sum(tf.gather(v, [0])) + tf.reduce_sum(tf.gather(v, [1])), True,
     [[1., 1.], [1., 1.], [0., 0.]]),
    ("2-D indices", lambda v: tf.reduce_sum(tf.gather(v, [[0, 1]])), True,
     [[1., 1.], [1., 1.], [0., 0.]]),
    ("a gather and a dense use", lambda v: tf.reduce_sum(tf.gather(v, [0])) + tf.reduce_sum(v),
     False, [[2., 2.], [1., 1.], [1., 1.]]),
    ("gather along axis 1", lambda v: tf.reduce_sum(tf.gather(v, [0], axis=1)), False,
     [[1., 0.], [1., 0.], [1., 0.]]),
    ("through a product", lambda v: tf.reduce_sum(tf.gather(v * 2., [0])), False,
     [[2., 2.], [0., 0.], [0., 0.]]),
    ("segment sums (TF's kernels: dense)",
     lambda v: tf.reduce_sum(tf.math.unsorted_segment_mean(v, [1, -1, 0], 2)), False,
     [[1., 1.], [0., 0.], [1., 1.]]),
])
def test_which_gradients_are_sparse_is_tensorflows(name, f, sparse, dense):
    g = _grad(f)
    assert isinstance(g, tf.IndexedSlices) is sparse
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), dense)


def test_the_slices_are_tensorflows():
    g = _grad(lambda v: tf.reduce_sum(tf.gather(v, [0, 2, 0])))
    assert g.indices.numpy().tolist() == [0, 2, 0]
    assert g.values.numpy().tolist() == [[1., 1.]] * 3
    assert g.dense_shape.numpy().tolist() == [3, 2] and g.shape == (3, 2)
    assert g.dtype == tf.float32
    watched = _grad(lambda x: tf.reduce_sum(tf.gather(x, [0, 2])), src_is_var=False)
    assert isinstance(watched, tf.IndexedSlices)      # TF: a watched constant too
    zero = _grad(lambda v: tf.reduce_sum(tf.gather(v, [0])),
                 unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert isinstance(zero, tf.IndexedSlices)


def test_second_order_through_a_sparse_gradient():
    v = tf.Variable(ROWS)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.gather(v, [0]) ** 3)
        z = tf.reduce_sum(tf.convert_to_tensor(inner.gradient(y, v)))
    g = outer.gradient(z, v)
    assert isinstance(g, tf.IndexedSlices)                     # TF: IndexedSlices, [[6, 12]]
    np.testing.assert_array_equal(g.values.numpy(), [[6., 12.]])


def test_what_an_indexed_slices_supports_is_tensorflows():
    s = tf.IndexedSlices(tf.constant([[1., 1.]]), tf.constant([1]), tf.constant([3, 2]))
    assert isinstance(-s, tf.IndexedSlices)
    scaled = tf.math.scalar_mul(3., s)
    assert isinstance(scaled, tf.IndexedSlices) and scaled.values.numpy().tolist() == [[3., 3.]]
    with pytest.raises(TypeError):
        s + s                                             # TF: unsupported operand types
    np.testing.assert_array_equal(tf.math.unsorted_segment_sum(s.values, s.indices, 3).numpy(),
                                  tf.convert_to_tensor(s).numpy())
    np.testing.assert_array_equal(tf.multiply(2., s).numpy(), [[0., 0.], [2., 2.], [0., 0.]])
    v = tf.Variable(ROWS)
    v.assign_sub(s)
    np.testing.assert_array_equal(v.numpy(), [[1., 2.], [2., 3.], [5., 6.]])
    v.scatter_sub(s)
    np.testing.assert_array_equal(v.numpy(), [[1., 2.], [1., 2.], [5., 6.]])
    assert tf.nest.flatten(s) == [s]
    assert len(tf.nest.flatten(s, expand_composites=True)) == 3


def test_sparse_gradients_leave_traced_functions():
    v = tf.Variable(ROWS)

    @tf.function
    def step(ids):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(v, ids) ** 2)
        return tape.gradient(y, v)

    g = step(tf.constant([2, 0]))
    assert isinstance(g, tf.IndexedSlices)
    assert g.indices.numpy().tolist() == [2, 0]
    np.testing.assert_array_equal(g.values.numpy(), [[10., 12.], [2., 4.]])
    g = step(tf.constant([1, 1]))                           # the same graph, other values
    np.testing.assert_array_equal(g.values.numpy(), [[6., 8.], [6., 8.]])


def test_functional_helpers_and_jacobians_stay_dense():
    x = tf.constant([1., 2., 3.])
    g = tf.grad(lambda x: tf.reduce_sum(tf.gather(x, [0, 0])))(x)
    assert isinstance(g, tf.Tensor) and g.numpy().tolist() == [2., 0., 0.]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.gather(x, [2, 0])
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), [[0., 0., 1.], [1., 0., 0.]])
    tf.testing.check_gradients(lambda x: tf.gather(x, [2, 0, 2]), [np.array([1., 2., 3.])])
