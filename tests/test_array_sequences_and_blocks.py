"""shape_n, sequence_mask, searchsorted, unique_with_counts, unravel_index,
reverse_sequence, parallel_stack, broadcast_static_shape, broadcast_dynamic_shape and
nn.space_to_depth / nn.depth_to_space against the installed TensorFlow: values, gradients
of the differentiable ones, traced calls and the exceptions for bad input."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

from compare_tf import value_and_vjp


def _tf():
    return pytest.importorskip("tensorflow")


def test_shape_n():
    tf = _tf()
    for out_type in ("int32", "int64"):
        got = fg.shape_n([fg.zeros([2, 3]), fg.zeros([])], getattr(fg, out_type))
        want = tf.shape_n([tf.zeros([2, 3]), tf.zeros([])], getattr(tf, out_type))
        for g, w in zip(got, want, strict=True):
            assert g.dtype.name == out_type
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    with pytest.raises(TypeError, match="finegrad.shape_n: input must be a list"):
        fg.shape_n(fg.zeros([2]))


@pytest.mark.parametrize("lengths,maxlen,dtype", [
    ([1, 3, 2], 5, None), ([[1], [2]], None, None), ([1, 2], None, "float32"),
    ([0, 4], 2, "int32"), ([], 3, None)])
def test_sequence_mask(lengths, maxlen, dtype):
    tf = _tf()
    kw = {} if dtype is None else {"dtype": getattr(tf, dtype)}
    want = tf.sequence_mask(tf.constant(lengths, tf.int32), maxlen, **kw).numpy()
    kw = {} if dtype is None else {"dtype": getattr(fg, dtype)}
    got = fg.sequence_mask(fg.constant(lengths, fg.int32), maxlen, **kw)
    assert got.numpy().dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)
    f = fg.function(lambda n: fg.sequence_mask(n, 6))
    if lengths and maxlen is not None:
        np.testing.assert_array_equal(f(fg.constant(lengths)).numpy(),
                                      tf.sequence_mask(lengths, 6).numpy())


def test_sequence_mask_errors():
    with pytest.raises(TypeError, match="finegrad.sequence_mask: lengths must be integers"):
        fg.sequence_mask([1.5])
    with pytest.raises(ValueError, match="finegrad.sequence_mask: maxlen must be a scalar"):
        fg.sequence_mask([1], [2, 3])
    # a traced maxlen=None (the largest length) is computed per call, as in TensorFlow
    f = fg.function(lambda n: fg.sequence_mask(n))
    assert f(fg.constant([1, 2])).shape == (2, 2) and f(fg.constant([1, 3])).shape == (2, 3)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("out_type", ["int32", "int64"])
def test_searchsorted(side, out_type):
    tf = _tf()
    cases = [([1., 2., 2., 3.], [2., 0., 5., 2.5]),
             ([[1, 3, 5], [2, 4, 6]], [[3, 0], [7, 2]]),
             (np.sort(np.random.default_rng(0).normal(size=(2, 3, 5)), -1),
              np.random.default_rng(1).normal(size=(2, 3, 4)))]
    for s, v in cases:
        got = fg.searchsorted(fg.constant(s), fg.constant(v), side, getattr(fg, out_type))
        want = tf.searchsorted(tf.constant(s), tf.constant(v), side,
                               out_type=getattr(tf, out_type))
        assert got.dtype.name == out_type
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        traced = fg.function(lambda a, b: fg.searchsorted(a, b, side, getattr(fg, out_type)))
        np.testing.assert_array_equal(traced(fg.constant(s), fg.constant(v)).numpy(),
                                      want.numpy())


def test_searchsorted_errors_and_no_gradient():
    with pytest.raises(ValueError, match="finegrad.searchsorted: side must be"):
        fg.searchsorted([1.], [1.], side="middle")
    with pytest.raises(ValueError, match="the same leading axes"):
        fg.searchsorted(fg.zeros([2, 3]), fg.zeros([3, 3]))
    with pytest.raises(TypeError, match="finegrad.searchsorted: sorted_sequence and values"):
        fg.searchsorted(fg.constant([1., 2.]), fg.constant([1]))
    with pytest.raises(TypeError, match="output_type must be"):
        fg.searchsorted([1.], [1.], out_type=fg.float32)
    x = fg.constant([1., 2.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.searchsorted(x, fg.constant([1.5]))
    assert tape.gradient(y, x) is None


def test_unique_with_counts():
    tf = _tf()
    for x, out_idx in (([1, 1, 2, 4, 4, 4, 7, 8, 8], "int32"), ([3., 1., 3.], "int64"),
                       ([], "int32")):
        got = fg.unique_with_counts(fg.constant(x, fg.float32 if x == [] else None),
                                    getattr(fg, out_idx))
        want = tf.unique_with_counts(tf.constant(x, tf.float32 if x == [] else None),
                                     getattr(tf, out_idx))
        for g, w in zip(got, want, strict=True):
            assert g.numpy().dtype == w.numpy().dtype
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert fg.unique_with_counts([5, 5]).count.numpy().tolist() == [2]


def test_unravel_index():
    tf = _tf()
    for idx, dims in (([22, 41, 37], [7, 6]), (5, [2, 3]), ([0, 23], [2, 3, 4]),
                      (np.array([1, 2], np.int64), np.array([3, 1], np.int64))):
        got = fg.unravel_index(fg.constant(idx), dims)
        want = tf.unravel_index(tf.constant(idx), dims)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    traced = fg.function(lambda i: fg.unravel_index(i, [7, 6]))
    np.testing.assert_array_equal(traced(fg.constant([22, 41])).numpy(), [[3, 6], [4, 5]])
    with pytest.raises(InvalidArgumentError, match="finegrad.unravel_index: indices must be"):
        fg.unravel_index([6], [2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.unravel_index([6], [2, 3])
    with pytest.raises(InvalidArgumentError, match="indices must be a scalar or a vector"):
        fg.unravel_index([[1]], [2, 3])
    with pytest.raises(TypeError, match="finegrad.unravel_index: indices must be integers"):
        fg.unravel_index([1.], [2, 3])
    with pytest.raises(ValueError, match="dims must be a 1-D vector of positive sizes"):
        fg.unravel_index([1], [2, 0])


@pytest.mark.parametrize("shape,lengths,seq_axis,batch_axis", [
    ((2, 3), [2, 3], 1, 0), ((3, 2, 4), [1, 0], 2, 1), ((4, 3, 2), [4, 2, 3], 0, 1),
    ((2, 5), [0, 5], 1, 0)])
def test_reverse_sequence(shape, lengths, seq_axis, batch_axis):
    tf = _tf()
    x = np.random.default_rng(0).normal(size=shape)
    y, g = value_and_vjp(fg, lambda t: fg.reverse_sequence(t, lengths, seq_axis, batch_axis), x)
    ty, tg = value_and_vjp(tf, lambda t: tf.reverse_sequence(t, lengths, seq_axis, batch_axis), x)
    np.testing.assert_array_equal(y, ty)
    np.testing.assert_array_equal(g, tg)
    traced = fg.function(lambda t: fg.reverse_sequence(t, lengths, seq_axis, batch_axis))
    np.testing.assert_array_equal(traced(fg.constant(x)).numpy(), ty)


def test_reverse_sequence_errors():
    x = fg.zeros([2, 3])
    with pytest.raises(InvalidArgumentError, match="finegrad.reverse_sequence: needs seq_"):
        fg.reverse_sequence(x, [1, 4], 1)
    with pytest.raises(InvalidArgumentError, match="one length"):
        fg.reverse_sequence(x, [1, 2, 3], 1)
    with pytest.raises(InvalidArgumentError, match="seq_axis and batch_axis must be axes"):
        fg.reverse_sequence(x, [1, 2], 2)
    with pytest.raises(InvalidArgumentError, match="negative ones are refused"):
        fg.reverse_sequence(x, [1, 2], -1)
    tf = _tf()
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.reverse_sequence(tf.zeros([2, 3]), [1, 2], -1)
    with pytest.raises(TypeError, match="seq_lengths must be integers"):
        fg.reverse_sequence(x, [1., 2.], 1)


def test_parallel_stack():
    tf = _tf()
    with pytest.raises(RuntimeError, match="finegrad.parallel_stack: not compatible with eager"):
        fg.parallel_stack([fg.constant(1.)])
    with pytest.raises(RuntimeError):
        tf.parallel_stack([tf.constant(1.)])

    @fg.function
    def f(a):
        with fg.GradientTape() as tape:
            tape.watch(a)
            s = fg.parallel_stack([a, a * 2.])
            y = fg.reduce_sum(s * s)
        return s, tape.gradient(y, a)
    s, g = f(fg.constant([1., 2.]))
    np.testing.assert_array_equal(s.numpy(), [[1., 2.], [2., 4.]])
    np.testing.assert_allclose(g.numpy(), [10., 20.])


def test_broadcast_shapes():
    tf = _tf()
    for a, b in (([2, 1], [3]), ([None, 1], [3]), ([], [4, 1]), ([1, None], [5, 1]),
                 ([None], [1]), ([None], [4])):
        got = fg.broadcast_static_shape(fg.TensorShape(a), fg.TensorShape(b))
        want = tf.broadcast_static_shape(tf.TensorShape(a), tf.TensorShape(b))
        assert got.as_list() == want.as_list()
    with pytest.raises(ValueError, match="finegrad.broadcast_static_shape: incompatible"):
        fg.broadcast_static_shape(fg.TensorShape([2]), fg.TensorShape([3]))
    for a, b, dt in (([2, 1], [3], "int32"), ([4, 1, 2], [3, 1], "int64"), ([], [2], "int32")):
        got = fg.broadcast_dynamic_shape(fg.constant(a, getattr(fg, dt)),
                                         fg.constant(b, getattr(fg, dt)))
        want = tf.broadcast_dynamic_shape(tf.constant(a, getattr(tf, dt)),
                                          tf.constant(b, getattr(tf, dt)))
        assert got.dtype.name == dt
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(InvalidArgumentError, match="finegrad.broadcast_dynamic_shape"):
        fg.broadcast_dynamic_shape([2], [3])
    with pytest.raises(TypeError, match="shape_x must be integers"):
        fg.broadcast_dynamic_shape([2.], [3])


@pytest.mark.parametrize("shape,bs", [((2, 4, 6, 3), 2), ((1, 3, 3, 2), 3)])
def test_space_to_depth_and_back(shape, bs):
    tf = _tf()
    x = np.random.default_rng(0).normal(size=shape)
    y, g = value_and_vjp(fg, lambda t: fg.nn.space_to_depth(t, bs), x)
    ty, tg = value_and_vjp(tf, lambda t: tf.nn.space_to_depth(t, bs), x)
    np.testing.assert_array_equal(y, ty)
    np.testing.assert_array_equal(g, tg)
    z, gz = value_and_vjp(fg, lambda t: fg.nn.depth_to_space(t, bs), y)
    tz, tgz = value_and_vjp(tf, lambda t: tf.nn.depth_to_space(t, bs), ty)
    np.testing.assert_array_equal(z, tz)
    np.testing.assert_array_equal(gz, tgz)
    np.testing.assert_array_equal(z, x)
    traced = fg.function(lambda t: fg.nn.depth_to_space(fg.nn.space_to_depth(t, bs), bs))
    np.testing.assert_array_equal(traced(fg.constant(x)).numpy(), x)


def test_depth_errors():
    with pytest.raises(ValueError, match="finegrad.nn.space_to_depth: height and width"):
        fg.nn.space_to_depth(fg.zeros([1, 3, 4, 1]), 2)
    with pytest.raises(ValueError, match="finegrad.nn.depth_to_space: the channels"):
        fg.nn.depth_to_space(fg.zeros([1, 1, 1, 3]), 2)
    with pytest.raises(ValueError, match="block_size must be at least 2"):
        fg.nn.depth_to_space(fg.zeros([1, 1, 1, 4]), 1)
    with pytest.raises(ValueError, match="input must be 4-D"):
        fg.nn.space_to_depth(fg.zeros([2, 2]), 2)
    with pytest.raises(NotImplementedError, match="NHWC"):
        fg.nn.space_to_depth(fg.zeros([1, 1, 2, 2]), 2, data_format="NCHW")
