"""Max and average pooling against TensorFlow (values, gradients, ties, second order) over
odd shapes, window sizes, strides and paddings; closed forms and errors without it."""
import itertools

import numpy as np
import pytest

import finegrad as fg

from test_conv import _close, _fg_value_and_grads, _rand, _tf_value_and_grads

GRID = list(itertools.product([(2, 5, 7, 3), (1, 6, 6, 2)], [1, 2, 3, [3, 2]], [1, 2, [2, 3]],
                              ["SAME", "VALID"]))


@pytest.mark.parametrize("shape, ksize, strides, padding", GRID)
@pytest.mark.parametrize("op", ["max_pool2d", "avg_pool2d"])
def test_pool2d_matches_tensorflow(op, shape, ksize, strides, padding):
    tf = pytest.importorskip("tensorflow")
    x = _rand(shape, 1)
    ours = _fg_value_and_grads(lambda a: getattr(fg.nn, op)(a, ksize, strides, padding), x)
    theirs = _tf_value_and_grads(tf, lambda a: getattr(tf.nn, op)(a, ksize, strides, padding),
                                 x)
    for a, b in zip(ours, theirs, strict=True):
        _close(a, b)


@pytest.mark.parametrize("ksize, strides, padding", [(2, 1, "VALID"), (3, 2, "SAME"),
                                                     (2, 2, "SAME"), ([3, 2], 1, "SAME")])
def test_max_pool_ties_go_to_the_first_maximum_as_in_tensorflow(ksize, strides, padding):
    tf = pytest.importorskip("tensorflow")
    x = np.random.default_rng(2).integers(0, 3, (2, 6, 5, 2)).astype(np.float32)
    ct = _rand(fg.nn.max_pool2d(x, ksize, strides, padding).shape, 3)
    ours = fg.vjp(lambda a: fg.nn.max_pool2d(a, ksize, strides, padding), fg.constant(x))[1](
        fg.constant(ct))[0]
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.nn.max_pool2d(xt, ksize, strides, padding)
    _close(ours, tape.gradient(y, xt, output_gradients=tf.constant(ct)))


@pytest.mark.parametrize("op", ["max_pool1d", "avg_pool1d"])
def test_pool1d_matches_tensorflow(op):
    tf = pytest.importorskip("tensorflow")
    x = _rand((2, 9, 3), 4)
    for args in [(2, 2, "VALID"), (3, 2, "SAME"), (3, 1, "SAME")]:
        ours = _fg_value_and_grads(lambda a, args=args: getattr(fg.nn, op)(a, *args), x)
        theirs = _tf_value_and_grads(tf, lambda a, args=args: getattr(tf.nn, op)(a, *args), x)
        for a, b in zip(ours, theirs, strict=True):
            _close(a, b)


@pytest.mark.parametrize("op", ["max_pool2d", "avg_pool2d"])
def test_pool_second_order_matches_tensorflow(op):
    """The gradient of an input-gradient penalty through conv2d and a pool."""
    tf = pytest.importorskip("tensorflow")
    x, w = _rand((2, 6, 5, 2), 5), _rand((3, 3, 2, 3), 6)

    def penalty(lib, a, b):
        with lib.GradientTape() as inner:
            inner.watch(a)
            y = getattr(lib.nn, op)(lib.tanh(lib.nn.conv2d(a, b, 1, "SAME")), 2, 2, "SAME")
            s = lib.reduce_sum(y * y)
        g = inner.gradient(s, a)
        return lib.reduce_sum(g * g)

    results = []
    for lib in (fg, tf):
        a, b = lib.constant(x), lib.constant(w)
        with lib.GradientTape() as outer:
            outer.watch([a, b])
            p = penalty(lib, a, b)
        results.append([p] + outer.gradient(p, [a, b]))
    for a, b in zip(*results, strict=True):
        _close(a, b, 1e-4)


def test_pools_closed_forms_traced_and_nan():
    x = fg.reshape(fg.range(16.), [1, 4, 4, 1])
    f = fg.function(lambda a: (fg.nn.max_pool2d(a, 2, 2, "VALID"), fg.nn.avg_pool(a, 2, 2,
                                                                                    "VALID")))
    m, a = f(x)
    assert m.numpy().ravel().tolist() == [5., 7., 13., 15.]
    assert a.numpy().ravel().tolist() == [2.5, 4.5, 10.5, 12.5]
    y = fg.nn.max_pool2d(fg.constant([[[[1.], [np.nan]], [[0.], [2.]]]]), 2, 1, "VALID")
    assert np.isnan(y.numpy()).all()     # NaN is kept, as IEEE
    s = fg.nn.avg_pool2d(fg.ones([1, 3, 3, 1]) * 3., 3, 1, "SAME").numpy()
    assert (s == 3).all()                # padding does not count in the mean


def test_pool_errors_name_the_function_and_argument():
    x = fg.zeros([1, 4, 4, 2])
    with pytest.raises(NotImplementedError, match=r"finegrad.nn.max_pool2d: data_format"):
        fg.nn.max_pool2d(x, 2, 2, "SAME", data_format="NCHW")
    with pytest.raises(ValueError, match=r"finegrad.nn.avg_pool2d: ksize"):
        fg.nn.avg_pool2d(x, [2, 2, 2], 2, "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.max_pool2d: padding"):
        fg.nn.max_pool2d(x, 2, 2, "same-ish")
    with pytest.raises(ValueError, match=r"finegrad.nn.avg_pool2d: padding must be"):
        fg.nn.avg_pool2d(x, 2, 2, [[0, 1], [0, 1]])
    with pytest.raises(ValueError, match=r"finegrad.nn.max_pool: input must have rank 3, 4 or 5"):
        fg.nn.max_pool(fg.zeros([4, 4]), 2, 2, "SAME")
    with pytest.raises(TypeError, match=r"finegrad.nn.max_pool2d: input must be floating"):
        fg.nn.max_pool2d(fg.zeros([1, 4, 4, 2], fg.int32), 2, 2, "SAME")
