"""tf.bitcast: values, shapes and errors as TensorFlow 2.21 gives them (recorded from TF)."""
import numpy as np
import pytest

import finegrad as tf


def test_values_and_shapes_are_tensorflows():
    x = tf.constant([1., 2.])
    assert tf.bitcast(x, tf.int32).numpy().tolist() == [1065353216, 1073741824]
    assert tf.bitcast(x, tf.uint8).shape == (2, 4)
    assert tf.bitcast(tf.constant([[1, 2]], tf.int16), tf.int32).numpy().tolist() == [131073]
    assert tf.bitcast(tf.constant(1.0, tf.float64), tf.int32).shape == (2,)
    np.testing.assert_array_equal(tf.bitcast(tf.constant([1 + 2j], tf.complex64), tf.float32)
                                  .numpy(), [[1., 2.]])
    back = tf.bitcast(tf.bitcast(x, tf.uint8), tf.float32)
    np.testing.assert_array_equal(back.numpy(), x.numpy())


def test_traced_shapes_follow_the_element_sizes():
    f = tf.function(lambda x: tf.bitcast(x, tf.uint16))
    assert f(tf.constant([1., 2., 3.])).shape == (3, 2)
    g = tf.function(lambda x: tf.bitcast(x, tf.float64),
                    input_signature=[tf.TensorSpec([None, 2], tf.int32)])
    assert g(tf.constant([[0, 1072693248], [0, 0]])).numpy().tolist() == [1.0, 0.0]


def test_errors_and_no_gradient_are_tensorflows():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot bitcast"):
        tf.bitcast(tf.constant([1, 2, 3], tf.int16), tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot bitcast"):
        tf.bitcast(tf.constant(1, tf.int16), tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.bitcast(tf.constant([True]), tf.int8)
    x = tf.constant([1., 2.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.cast(tf.bitcast(x, tf.int32), tf.float32))
    assert tape.gradient(y, x) is None                          # TF: None
