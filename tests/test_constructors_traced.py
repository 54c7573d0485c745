"""Constructors whose result depends on a tensor's value stay correct under tapes and traces."""
import numpy as np
import pytest

import finegrad as tf


def test_fill_is_differentiable_in_its_value():
    v = tf.constant(2.)
    with tf.GradientTape() as t:
        t.watch(v)
        y = tf.reduce_sum(tf.fill((2, 3), v) * tf.constant([[1., 2., 3.]] * 2))
    assert t.gradient(y, v).numpy() == 12.


def test_fill_value_is_not_baked_into_a_graph():
    f = tf.function(lambda x: tf.fill((2,), x) * 2.)
    assert f(tf.constant(3.)).numpy().tolist() == [6., 6.]
    assert f(tf.constant(4.)).numpy().tolist() == [8., 8.]
    assert f.experimental_get_tracing_count() == 1


def test_linspace_gradients_and_values_match_numpy():
    a, b = tf.constant(0.5, tf.float64), tf.constant(2., tf.float64)
    with tf.GradientTape(persistent=True) as t:
        t.watch([a, b])
        y = tf.linspace(a, b, 7)
    np.testing.assert_allclose(y.numpy(), np.linspace(0.5, 2., 7), rtol=0, atol=1e-15)
    assert y.numpy()[-1] == 2.
    w = np.arange(7) / 6
    assert t.gradient(y, a).numpy() == pytest.approx(np.sum(1 - w))
    assert t.gradient(y, b).numpy() == pytest.approx(np.sum(w))


def test_linspace_bounds_are_not_baked_into_a_graph():
    f = tf.function(lambda a: tf.linspace(a, a + 1., 3))
    assert f(tf.constant(0.)).numpy().tolist() == [0., 0.5, 1.]
    assert f(tf.constant(2.)).numpy().tolist() == [2., 2.5, 3.]


def test_range_of_a_traced_tensor_follows_its_value():
    f = tf.function(lambda n: tf.range(n))   # TensorFlow accepts it: each call's own value
    assert f(tf.constant(3)).numpy().tolist() == [0, 1, 2]
    assert f(tf.constant(4)).numpy().tolist() == [0, 1, 2, 3]
    assert tf.range(tf.constant(3)).numpy().tolist() == [0, 1, 2]   # eagerly it is fine


def test_sparse_labels_are_graph_inputs_not_baked_values():
    f = tf.function(lambda labels, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x))
    x = tf.constant([[0., 1., 2.]])
    eager = [tf.nn.sparse_softmax_cross_entropy_with_logits([k], x).numpy() for k in (0, 2)]
    traced = [f(tf.constant([k]), x).numpy() for k in (0, 2)]
    np.testing.assert_allclose(traced, eager, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_value_dependent_structure_in_a_trace_follows_each_call():
    # TensorFlow computes an index or a shape given as a tensor: each call gets its own
    f = tf.function(lambda x, i: x[i])
    x = tf.constant([1., 2.])
    assert [float(f(x, tf.constant(i))) for i in (1, 0, 1)] == [2., 1., 2.]
    g = tf.function(lambda x, s: tf.reshape(x, s))
    assert g(x, tf.constant([2, 1])).shape == (2, 1)
    assert g(x, tf.constant([1, 2])).shape == (1, 2)
    # one-argument where: TensorFlow computes the coordinates in the graph, so does finegrad
    w = tf.function(lambda c: tf.where(c))
    assert w(tf.constant([True, False])).numpy().tolist() == [[0]]
    assert w(tf.constant([False, True])).numpy().tolist() == [[1]]
    # the same calls are fine eagerly
    assert tf.constant([1., 2.])[tf.constant(1)].numpy() == 2.
