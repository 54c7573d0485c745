"""Tensors and dtypes, and what bad input gets.

Expected values are TensorFlow 2's documented behaviour: Python float -> float32, int -> int32,
NumPy arrays keep their dtype, Python scalars take the other operand's dtype, and mixing
float32 with float64 tensors is an error.
"""
import numpy as np
import pytest

import finegrad as tf
from finegrad.testing import check_gradients


# --- constant / convert_to_tensor and dtype defaults ------------------------------------------

@pytest.mark.parametrize("value, dtype", [
    (1.5, tf.float32), (2, tf.int32), (True, tf.bool), ([1., 2.], tf.float32),
    ([[1, 2], [3, 4]], tf.int32), ([1, 2.5], tf.float32), (2 ** 40, tf.int64),
    (np.ones(2), tf.float64), (np.ones(2, np.float16), tf.float16),
    (np.arange(3, dtype=np.int64), tf.int64), (np.float64(1.), tf.float64),
    (np.array([True, False]), tf.bool),
])
def test_constant_default_dtypes(value, dtype):
    assert tf.constant(value).dtype == dtype
    assert tf.convert_to_tensor(value).dtype == dtype


def test_constant_dtype_and_shape_arguments():
    t = tf.constant(1, dtype=tf.float64)
    assert t.dtype == tf.float64 and t.numpy() == 1.0
    t = tf.constant(0., shape=(2, 3))
    assert t.shape == (2, 3) and t.dtype == tf.float32
    np.testing.assert_array_equal(t.numpy(), np.zeros((2, 3), np.float32))
    t = tf.constant([1, 2, 3, 4], shape=[2, 2])
    np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"finegrad\.constant.*\(3,\).*\(2, 2\)"):
        tf.constant([1, 2, 3], shape=(2, 2))


def test_convert_to_tensor_keeps_tensors_and_checks_dtype():
    x = tf.constant([1., 2.])
    assert tf.convert_to_tensor(x) is x
    with pytest.raises(TypeError, match="float64.*float32"):
        tf.convert_to_tensor(x, dtype=tf.float64)
    assert tf.convert_to_tensor(3, dtype=tf.float32).dtype == tf.float32


@pytest.mark.parametrize("bad, typename", [(object(), "object"),
                                           (None, "NoneType"), ({"a": 1}, "dict")])
def test_constant_of_non_numeric_is_type_error_naming_type(bad, typename):
    with pytest.raises(TypeError, match=rf"finegrad\.constant.*\b{typename}\b"):
        tf.constant(bad)
    with pytest.raises(TypeError, match=rf"\b{typename}\b"):
        tf.convert_to_tensor(bad)


def test_constant_of_mixed_strings_and_numbers_is_type_error():
    with pytest.raises(TypeError, match=r"finegrad\.constant"):
        tf.constant(["a", 1])


def test_empty_lists_with_the_string_dtype_are_empty_string_tensors():
    # (as tf.constant([], tf.string): shape (0,), and [[], []] shape (2, 0))
    assert tf.constant([], tf.string).shape == (0,)
    t = tf.constant([[], []], dtype=tf.string)
    assert t.shape == (2, 0) and t.dtype == tf.string and t.numpy().dtype == object
    with pytest.raises(TypeError, match=r"finegrad\.constant"):
        tf.constant([[], [1]], tf.string)


def test_python_float_to_int_dtype_refuses_to_truncate():
    with pytest.raises(TypeError, match="fraction"):
        tf.constant(1.5, dtype=tf.int32)


# --- mixing dtypes ----------------------------------------------------------------------------

@pytest.mark.parametrize("dt", [tf.float16, tf.float32, tf.float64, tf.int32, tf.int64])
def test_python_scalars_take_the_other_operands_dtype(dt):
    x = tf.constant([1, 2], dtype=dt)
    for y in (x + 1, 1 + x, x * 2, 2 - x, x ** 2):
        assert y.dtype == dt
    if dt.is_floating:
        assert (x + 0.5).dtype == dt and (0.5 * x).dtype == dt
        np.testing.assert_allclose((x / 2).numpy(), [0.5, 1.0])


def test_python_float_beside_int_tensor_is_type_error():
    with pytest.raises(TypeError, match=r"finegrad\.multiply.*2\.5.*int32"):
        tf.constant([1, 2]) * 2.5


def test_float32_plus_float64_is_type_error_naming_both():
    a, b = tf.constant(1.), tf.constant(np.float64(1.))
    for op in (lambda: a + b, lambda: b * a, lambda: tf.matmul(tf.ones((1, 1)),
                                                             tf.ones((1, 1), tf.float64))):
        with pytest.raises(TypeError, match=r"float32.*float64|float64.*float32"):
            op()
    with pytest.raises(TypeError, match=r"finegrad\.add.*float32.*float64"):
        a + b


def test_int32_plus_int64_is_type_error():
    with pytest.raises(TypeError, match="int32.*int64"):
        tf.constant([1]) + tf.constant(np.array([1], np.int64))


def test_integer_true_division_gives_float64_as_in_tensorflow():
    y = tf.constant([1, 2]) / tf.constant([2, 2])
    assert y.dtype == tf.float64
    np.testing.assert_array_equal(y.numpy(), [0.5, 1.0])


# --- shapes -----------------------------------------------------------------------------------

def test_incompatible_shapes_are_value_error_naming_op_and_shapes():
    with pytest.raises(ValueError, match=r"finegrad\.add.*\(2,\).*\(3,\)"):
        tf.constant([1., 2.]) + tf.constant([1., 2., 3.])
    with pytest.raises(ValueError, match=r"finegrad\.multiply.*\(2, 3\).*\(2,\)"):
        tf.ones((2, 3)) * tf.ones((2,))
    with pytest.raises(ValueError, match=r"matmul.*\(1, 2\).*\(1, 2\)"):
        tf.ones((1, 2)) @ tf.ones((1, 2))


def test_broadcasting_follows_numpy():
    y = tf.ones((2, 1)) + tf.constant([1., 2., 3.])
    assert y.shape == (2, 3)
    np.testing.assert_array_equal(y.numpy(), [[2., 3., 4.]] * 2)


# --- operators --------------------------------------------------------------------------------

A = np.array([[1.5, -2.], [3., 4.25]], np.float32)
B = np.array([[2., 0.5], [-1., 3.]], np.float32)


@pytest.mark.parametrize("op", [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
    lambda a, b: a // b, lambda a, b: a % b, lambda a, b: abs(a) ** b, lambda a, b: a @ b,
    lambda a, b: -a, lambda a, b: abs(a), lambda a, b: a < b, lambda a, b: a <= b,
    lambda a, b: a > b, lambda a, b: a >= b, lambda a, b: a == b, lambda a, b: a != b,
    lambda a, b: 2. * a - b / 4., lambda a, b: 1. / a, lambda a, b: 2. ** b,
    lambda a, b: 7. % a, lambda a, b: 7. // a,
])
def test_operators_match_numpy(op):
    got = op(tf.constant(A), tf.constant(B))
    want = op(A, B)
    assert isinstance(got, tf.Tensor)
    assert got.numpy().dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_floordiv_and_mod_follow_python_sign_convention():
    x = tf.constant([7, -7])
    np.testing.assert_array_equal((x // 2).numpy(), [3, -4])
    np.testing.assert_array_equal((x % 3).numpy(), [1, 2])
    assert (x % 3).dtype == tf.int32


def test_comparisons_return_bool_and_eq_with_none():
    x = tf.constant([1., 3.])
    assert (x < 2.).dtype == tf.bool
    np.testing.assert_array_equal((x == 1.).numpy(), [True, False])
    assert (x == None) is False  # noqa: E711  (TensorFlow 2 returns False for None)
    assert (x != None) is True  # noqa: E711


def test_numpy_array_on_the_left_defers_to_tensor():
    y = np.ones(2) + tf.constant([1., 2.], tf.float64)
    assert isinstance(y, tf.Tensor)
    np.testing.assert_array_equal(y.numpy(), [2., 3.])


@pytest.mark.parametrize("index", [
    1, -1, (0, 1), slice(None, None, -1), (slice(None), 0), (Ellipsis, 1),
    (slice(0, None, 2),), (None, 1), (1, slice(None, None, -1)),
])
def test_indexing_and_slicing_match_numpy(index):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(tf.constant(a)[index].numpy(), a[index])


def test_indexing_with_integer_tensor():
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(tf.constant(a)[tf.constant(2)].numpy(), a[2])


def test_operators_and_slicing_are_differentiable():
    x = tf.constant([1., 2., 3., 4.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(x[::2] * 3.) + (x[1] ** 2) - x[-1] / 2.
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [3., 4., 3., -0.5])


@pytest.mark.parametrize("f", [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
    lambda a, b: abs(a) ** b, lambda a, b: a @ b, lambda a, b: -a[0, ::-1] * abs(b[:, 1]),
    lambda a, b: a % 1.7,
])
def test_operator_gradients_against_finite_differences(f):
    a = np.array([[1.3, -0.7], [0.4, 2.2]])
    b = np.array([[0.9, 1.6], [-1.2, 0.8]])
    check_gradients(f, [a, b], order=2)


# --- creation functions -----------------------------------------------------------------------

def test_zeros_ones_fill():
    z = tf.zeros([2, 3])
    assert z.dtype == tf.float32 and z.shape == (2, 3) and not z.numpy().any()
    o = tf.ones((2,), dtype=tf.int32)
    assert o.dtype == tf.int32 and o.numpy().tolist() == [1, 1]
    f = tf.fill([2, 2], 3.)
    assert f.dtype == tf.float32 and f.numpy().tolist() == [[3., 3.], [3., 3.]]
    assert tf.fill([3], 7).dtype == tf.int32


def test_zeros_like_ones_like_keep_dtype_and_shape():
    x = tf.constant([[1, 2]])
    assert tf.zeros_like(x).dtype == tf.int32 and tf.zeros_like(x).shape == (1, 2)
    y = tf.ones_like(tf.constant([1., 2.], tf.float64))
    assert y.dtype == tf.float64 and y.numpy().tolist() == [1., 1.]


def test_range_and_linspace():
    r = tf.range(5)
    assert r.dtype == tf.int32 and r.numpy().tolist() == [0, 1, 2, 3, 4]
    assert tf.range(1, 10, 3).numpy().tolist() == [1, 4, 7]
    rf = tf.range(0., 1., 0.25)
    assert rf.dtype == tf.float32 and rf.numpy().tolist() == [0., 0.25, 0.5, 0.75]
    ls = tf.linspace(0., 1., 5)
    np.testing.assert_allclose(ls.numpy(), [0., .25, .5, .75, 1.])
    assert ls.dtype == tf.float32


def test_eye_cast_identity():
    e = tf.eye(2, 3)
    assert e.dtype == tf.float32
    np.testing.assert_array_equal(e.numpy(), np.eye(2, 3))
    c = tf.cast(tf.constant([1.7, -1.7]), tf.int32)
    assert c.dtype == tf.int32 and c.numpy().tolist() == [1, -1]  # truncation, as in TF
    c64 = tf.cast(tf.constant([1, 2]), tf.float64)
    assert c64.dtype == tf.float64
    x = tf.constant([1., 2.])
    i = tf.identity(x)
    assert i.dtype == x.dtype and i.numpy().tolist() == [1., 2.]


def test_cast_and_identity_pass_gradients():
    x = tf.constant([1., 2.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.cast(tf.identity(x), tf.float64) * 3.)
    g = t.gradient(y, x)
    assert g.dtype == tf.float32
    np.testing.assert_array_equal(g.numpy(), [3., 3.])


# --- properties -------------------------------------------------------------------------------

def test_shape_dtype_ndim_numpy_array():
    x = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    assert x.shape == (2, 3) and x.shape.as_list() == [2, 3] and x.shape.rank == 2
    assert x.dtype == tf.float32 and x.dtype == "float32" and x.dtype.is_floating
    assert x.ndim == 2
    n = x.numpy()
    assert isinstance(n, np.ndarray) and n.dtype == np.float32
    n[0, 0] = 100.  # a copy: the tensor is immutable
    assert x.numpy()[0, 0] == 1.
    a = np.asarray(x)
    assert a.dtype == np.float32 and a.tolist() == [[1., 2., 3.], [4., 5., 6.]]
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    s = tf.constant(2.5)
    assert s.shape == () and s.ndim == 0 and s.numpy() == np.float32(2.5)
    assert isinstance(s.numpy(), np.float32) and float(s) == 2.5


def test_tensors_are_unhashable_but_have_refs():
    x = tf.constant(1.)
    with pytest.raises(TypeError):
        hash(x)
    assert {x.ref(): 1}[x.ref()] == 1 and x.ref().deref() is x
