"""Convolutions against TensorFlow (values, gradients, second order) over a grid of strides,
paddings, dilations and odd shapes; closed forms and the errors without TensorFlow."""
import itertools

import numpy as np
import pytest

import finegrad as fg


def _rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _close(a, b, tol=1e-5):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    assert np.abs(a - b).max() <= tol * max(1.0, np.abs(b).max())


def _fg_value_and_grads(f, *args):
    ts = [fg.constant(a) for a in args]
    with fg.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
        loss = fg.reduce_sum(y * y)
    return [y] + tape.gradient(loss, ts)


def _tf_value_and_grads(tf, f, *args):
    ts = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
        loss = tf.reduce_sum(y * y)
    return [y] + tape.gradient(loss, ts)


GRID = list(itertools.product(
    [((2, 5, 7, 3), (3, 2, 3, 4)), ((1, 6, 6, 2), (2, 2, 2, 3)), ((2, 7, 5, 1), (3, 3, 1, 2))],
    [1, 2, 3, [2, 1]], ["SAME", "VALID"], [1, 2, [1, 2]]))


@pytest.mark.parametrize("shapes, strides, padding, dilations", GRID)
def test_conv2d_matches_tensorflow(shapes, strides, padding, dilations):
    tf = pytest.importorskip("tensorflow")
    x, w = _rand(shapes[0], 1), _rand(shapes[1], 2)
    kw = dict(strides=strides, padding=padding, dilations=dilations)
    ours = _fg_value_and_grads(lambda a, b: fg.nn.conv2d(a, b, **kw), x, w)
    theirs = _tf_value_and_grads(tf, lambda a, b: tf.nn.conv2d(a, b, **kw), x, w)
    for a, b in zip(ours, theirs, strict=True):
        _close(a, b)


def test_conv2d_explicit_padding_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x, w = _rand((2, 5, 6, 2), 3), _rand((3, 2, 2, 3), 4)
    pads = [[0, 0], [2, 1], [0, 3], [0, 0]]
    ours = _fg_value_and_grads(lambda a, b: fg.nn.conv2d(a, b, 2, pads), x, w)
    theirs = _tf_value_and_grads(tf, lambda a, b: tf.nn.conv2d(a, b, 2, pads), x, w)
    for a, b in zip(ours, theirs, strict=True):
        _close(a, b)


@pytest.mark.parametrize("stride, padding, dilation", [(1, "SAME", 1), (2, "VALID", 1),
                                                       (1, "SAME", 2), (3, "SAME", 1)])
def test_conv1d_matches_tensorflow(stride, padding, dilation):
    tf = pytest.importorskip("tensorflow")
    x, w = _rand((2, 9, 3), 5), _rand((3, 3, 2), 6)
    kw = dict(stride=stride, padding=padding, dilations=dilation)
    ours = _fg_value_and_grads(lambda a, b: fg.nn.conv1d(a, b, **kw), x, w)
    theirs = _tf_value_and_grads(tf, lambda a, b: tf.nn.conv1d(a, b, **kw), x, w)
    for a, b in zip(ours, theirs, strict=True):
        _close(a, b)


@pytest.mark.parametrize("out_hw, strides, padding", [((5, 7), 2, "SAME"), ((6, 6), 2, "SAME"),
                                                      ((7, 8), 2, "VALID"), ((5, 5), 1, "SAME"),
                                                      ((9, 7), [3, 2], "VALID")])
def test_conv2d_transpose_matches_tensorflow(out_hw, strides, padding):
    tf = pytest.importorskip("tensorflow")
    w = _rand((3, 2, 2, 4), 7)
    in_hw = fg.nn.conv2d(fg.zeros((1,) + out_hw + (2,)), w, strides, padding).shape[1:3]
    x = _rand((2,) + tuple(in_hw) + (4,), 8)
    shape = [2, *out_hw, 2]
    ours = _fg_value_and_grads(lambda a, b: fg.nn.conv2d_transpose(a, b, shape, strides,
                                                                   padding), x, w)
    theirs = _tf_value_and_grads(tf, lambda a, b: tf.nn.conv2d_transpose(a, b, shape, strides,
                                                                         padding), x, w)
    for a, b in zip(ours, theirs, strict=True):
        _close(a, b)


@pytest.mark.parametrize("strides, padding, dilations", [([1, 1, 1, 1], "SAME", None),
                                                         ([1, 2, 2, 1], "VALID", None),
                                                         ([1, 1, 1, 1], "SAME", [2, 2])])
def test_depthwise_conv2d_matches_tensorflow(strides, padding, dilations):
    tf = pytest.importorskip("tensorflow")
    x, w = _rand((2, 6, 5, 3), 9), _rand((3, 3, 3, 2), 10)
    kw = dict(strides=strides, padding=padding, dilations=dilations)
    ours = _fg_value_and_grads(lambda a, b: fg.nn.depthwise_conv2d(a, b, **kw), x, w)
    theirs = _tf_value_and_grads(tf, lambda a, b: tf.nn.depthwise_conv2d(a, b, **kw), x, w)
    for a, b in zip(ours, theirs, strict=True):
        _close(a, b)


def test_conv2d_double_backprop_matches_tensorflow():
    """The gradient of a gradient norm (the input-gradient penalty), through conv2d twice."""
    tf = pytest.importorskip("tensorflow")
    x, w = _rand((2, 5, 5, 2), 11), _rand((3, 3, 2, 3), 12)

    def penalty(lib, a, b):
        with lib.GradientTape() as inner:
            inner.watch(a)
            y = lib.nn.conv2d(a, b, 2, "SAME")
            s = lib.reduce_sum(lib.tanh(y))
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


def test_conv2d_closed_form_and_traced():
    x = fg.reshape(fg.range(16.), [1, 4, 4, 1])
    w = fg.ones([2, 2, 1, 1])
    y = fg.nn.conv2d(x, w, 2, "VALID")[0, :, :, 0].numpy()
    assert y.tolist() == [[10., 18.], [42., 50.]]
    f = fg.function(lambda a, b: fg.nn.conv2d(a, b, 1, "SAME"))
    _close(f(x, w), fg.nn.conv2d(x, w, 1, "SAME"))
    batched = fg.function(lambda a: fg.nn.conv2d(a, w, 1, "SAME"),
                          input_signature=[fg.TensorSpec([None, 4, 4, 1])])
    assert batched(fg.zeros([3, 4, 4, 1])).shape == (3, 4, 4, 1)
    assert batched(fg.zeros([5, 4, 4, 1])).shape == (5, 4, 4, 1)


def test_conv_errors_name_the_function_and_argument():
    x, w = fg.zeros([1, 4, 4, 2]), fg.zeros([3, 3, 2, 1])
    with pytest.raises(NotImplementedError, match=r"finegrad.nn.conv2d: data_format 'NCHW'"):
        fg.nn.conv2d(x, w, 1, "SAME", data_format="NCHW")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv2d: padding"):
        fg.nn.conv2d(x, w, 1, "FULL")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv2d: strides"):
        fg.nn.conv2d(x, w, [1, 1, 1], "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv2d: strides .* batch and channel"):
        fg.nn.conv2d(x, w, [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv2d: input has 2 channels"):
        fg.nn.conv2d(x, fg.zeros([3, 3, 3, 1]), 1, "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv2d: input must have rank 4"):
        fg.nn.conv2d(fg.zeros([4, 4, 2]), w, 1, "SAME")
    with pytest.raises(TypeError, match=r"finegrad.nn.conv2d: input must be floating"):
        fg.nn.conv2d(fg.zeros([1, 4, 4, 2], fg.int32), w, 1, "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv2d: the window"):
        fg.nn.conv2d(fg.zeros([1, 2, 2, 2]), w, 1, "VALID")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv2d_transpose: a conv2d of"):
        fg.nn.conv2d_transpose(fg.zeros([1, 3, 3, 1]), w, [1, 4, 4, 2], 1, "SAME")
    with pytest.raises(NotImplementedError, match=r"finegrad.nn.conv1d: data_format"):
        fg.nn.conv1d(fg.zeros([1, 4, 2]), fg.zeros([3, 2, 1]), 1, "SAME", data_format="NCW")


def test_small_cnn_trains_the_same_traced_and_eager():
    """conv2d -> relu -> max_pool2d -> conv2d -> avg_pool2d -> dense: one traced training
    step gives the eager step's loss and gradients."""
    rng = np.random.default_rng(0)
    params = [fg.Variable(rng.standard_normal(s).astype(np.float32) * 0.3)
              for s in ((3, 3, 2, 4), (3, 3, 4, 4), (4, 3))]
    x = fg.constant(rng.standard_normal((2, 8, 7, 2)).astype(np.float32))
    labels = fg.constant([0, 2])

    def step(x):
        with fg.GradientTape() as tape:
            h = fg.nn.max_pool2d(fg.nn.relu(fg.nn.conv2d(x, params[0], 1, "SAME")), 2, 2, "SAME")
            h = fg.nn.avg_pool2d(fg.nn.conv2d(h, params[1], 1, "VALID"), 2, 2, "VALID")
            logits = fg.reshape(h, [2, 4]) @ params[2]
            loss = fg.reduce_mean(fg.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
        return loss, tape.gradient(loss, params)

    eager = step(x)
    traced = fg.function(step)(x)
    _close(traced[0], eager[0])
    for a, b in zip(traced[1], eager[1], strict=True):
        _close(a, b)
