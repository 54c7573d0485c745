"""finegrad.slice and finegrad.strided_slice against the installed TensorFlow: values,
gradients (eager and inside finegrad.function) and the exceptions for bad bounds."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

from compare_tf import value_and_vjp

X = np.arange(24.).reshape(2, 3, 4)

SLICES = [([0, 0, 0], [-1, -1, -1]), ([1, 1, 2], [1, 2, 2]), ([0, 2, 0], [2, 1, -1]),
          ([0, 3, 0], [2, 0, 4])]
STRIDED = [  # begin, end, strides, masks (begin, end, ellipsis, new_axis, shrink)
    ([0, 0, 0], [2, 3, 4], [1, 1, 1], (0, 0, 0, 0, 0)),
    ([1, -1, 3], [2, -4, 0], [1, -1, -2], (0, 0, 0, 0, 0)),
    ([0, 1], [0, 3], [1, 1], (0, 0, 1, 0, 0)),
    ([1, 0, 2], [2, 0, 0], [1, 1, -1], (0, 0b100, 0, 0b010, 0b001)),
    ([-1, 0, 1], [0, 0, 3], [1, 1, 2], (0b010, 0b010, 0, 0, 0b001)),
    ([0, 5, -10], [0, 100, 10], [1, 1, 3], (1, 1, 0, 0, 0)),
    ([0, 0], [0, 0], [1, 1], (0, 0, 0b01, 0b10, 0)),
    ([2, 1], [0, 0], [-1, -1], (0, 0b11, 0, 0, 0)),
]


def _tf():
    return pytest.importorskip("tensorflow")


@pytest.mark.parametrize("begin,size", SLICES)
def test_slice_matches_tensorflow(begin, size):
    tf = _tf()
    y, g = value_and_vjp(fg, lambda x: fg.slice(x, begin, size), X)
    ty, tg = value_and_vjp(tf, lambda x: tf.slice(x, begin, size), X)
    np.testing.assert_array_equal(y, ty)
    np.testing.assert_array_equal(g, tg)
    traced = fg.function(lambda x: fg.slice(x, fg.constant(begin), size))
    np.testing.assert_array_equal(traced(fg.constant(X)).numpy(), ty)


@pytest.mark.parametrize("begin,end,strides,masks", STRIDED)
def test_strided_slice_matches_tensorflow(begin, end, strides, masks):
    tf = _tf()
    kw = dict(zip(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                   "shrink_axis_mask"), masks, strict=True))
    y, g = value_and_vjp(fg, lambda x: fg.strided_slice(x, begin, end, strides, **kw), X)
    ty, tg = value_and_vjp(tf, lambda x: tf.strided_slice(x, begin, end, strides, **kw), X)
    assert y.shape == ty.shape
    np.testing.assert_array_equal(y, ty)
    np.testing.assert_array_equal(g, tg)

    @fg.function
    def f(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            s = fg.reduce_sum(fg.strided_slice(x, begin, end, strides, **kw) ** 2)
        return tape.gradient(s, x)
    tx = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(tx)
        s = tf.reduce_sum(tf.strided_slice(tx, begin, end, strides, **kw) ** 2)
    want = tape.gradient(s, tx).numpy()
    np.testing.assert_allclose(f(fg.constant(X)).numpy(), want)


def test_strided_slice_default_strides_and_ints():
    x = fg.constant(np.arange(5))
    np.testing.assert_array_equal(fg.strided_slice(x, [1], [4]).numpy(), [1, 2, 3])
    assert fg.strided_slice(x, [2], [3], shrink_axis_mask=1).numpy() == 2


def test_slice_errors_match_tensorflow():
    tf = _tf()
    x, tx = fg.constant(X), tf.constant(X)
    for begin, size in (([0, 0, 0], [3, 1, 1]), ([0, 0, 5], [1, 1, -1]), ([0, -1, 0],
                                                                         [1, 1, 1])):
        with pytest.raises(InvalidArgumentError, match="finegrad.slice: expected 0 <= begin"):
            fg.slice(x, begin, size)
        with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
            tf.slice(tx, begin, size)
    with pytest.raises(ValueError, match="finegrad.slice: begin and size must have one entry"):
        fg.slice(x, [0, 0], [1, 1])
    with pytest.raises(TypeError, match="finegrad.slice: begin must be integers"):
        fg.slice(x, [0., 0., 0.], [1, 1, 1])


def test_strided_slice_errors():
    tf = _tf()
    x, tx = fg.constant(X), tf.constant(X)
    with pytest.raises(ValueError, match="finegrad.strided_slice: strides must be non-zero"):
        fg.strided_slice(x, [0], [1], [0])
    with pytest.raises(ValueError, match="the same length"):
        fg.strided_slice(x, [0, 0], [1], [1])
    with pytest.raises(ValueError, match="at most one bit"):
        fg.strided_slice(x, [0, 0], [1, 1], [1, 1], ellipsis_mask=3)
    with pytest.raises(InvalidArgumentError, match="finegrad.strided_slice"):
        fg.strided_slice(x, [5], [6], [1], shrink_axis_mask=1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.strided_slice(tx, [5], [6], [1], shrink_axis_mask=1)
    # a traced begin is computed, as in TensorFlow: each call slices at its own
    f = fg.function(lambda x, b: fg.slice(x, b, [1, 1, 1]))
    for b in ([0, 0, 0], [1, 0, 1]):
        np.testing.assert_array_equal(f(x, fg.constant(b)).numpy(),
                                      tf.slice(tx, b, [1, 1, 1]).numpy())
