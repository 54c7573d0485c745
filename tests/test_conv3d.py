"""3-D convolutions and pools (`finegrad.nn.conv3d`, `conv3d_transpose`, `max_pool3d`,
`avg_pool3d`, and `convolution`/`max_pool`/`avg_pool` on rank-5 inputs) against TensorFlow's
``tf.nn`` (values, gradients, a second-order penalty); closed forms, traces and the errors
without TensorFlow. Their first and second derivatives in both modes are the op table's rows
(tests/op_specs_nn.py); `keras.ops` on each backend is in tests/test_ops_warps.py."""
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


def _value_and_grads(lib, f, *args):
    ts = [lib.constant(a) for a in args]
    with lib.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
        loss = lib.reduce_sum(y * y)
    return [y] + tape.gradient(loss, ts)


def _against_tensorflow(ours, theirs, *args, tol=1e-5):
    tf = pytest.importorskip("tensorflow")
    mine = _value_and_grads(fg, ours, *args)
    ref = _value_and_grads(tf, theirs, *args)
    for a, b in zip(mine, ref, strict=True):
        _close(a, b, tol)


def _five(v):
    """TensorFlow's 3-D conv wants strides/dilations as lists of 5."""
    return [1] + ([v] * 3 if isinstance(v, int) else list(v)) + [1]


CONV_GRID = list(itertools.product(
    [((2, 5, 6, 4, 3), (2, 3, 2, 3, 4)), ((1, 4, 4, 5, 2), (3, 1, 2, 2, 2))],
    [1, 2, [2, 1, 3]], ["SAME", "VALID"], [1, [1, 2, 2]]))


@pytest.mark.parametrize("shapes, strides, padding, dilations", CONV_GRID)
def test_conv3d_matches_tensorflow(shapes, strides, padding, dilations):
    if strides != 1 and dilations != 1:
        pytest.skip("TensorFlow's CPU conv3d takes strides or dilations, not both")
    x, w = _rand(shapes[0], 1), _rand(shapes[1], 2)
    _against_tensorflow(
        lambda a, b: fg.nn.conv3d(a, b, strides, padding, dilations=dilations),
        lambda a, b: __import__("tensorflow").nn.conv3d(a, b, _five(strides), padding,
                                                        dilations=_five(dilations)), x, w)


@pytest.mark.parametrize("out_dhw, strides, padding", [
    ((5, 6, 4), 1, "SAME"), ((5, 6, 4), 2, "SAME"), ((6, 7, 5), 2, "VALID"),
    ((5, 6, 7), [2, 1, 3], "SAME"), ((4, 5, 6), [1, 2, 2], "VALID")])
def test_conv3d_transpose_matches_tensorflow(out_dhw, strides, padding):
    tf = pytest.importorskip("tensorflow")
    w = _rand((2, 3, 2, 3, 4), 3)            # [kd, kh, kw, in_channels, out_channels]
    shape = [2, *out_dhw, 3]
    y = tf.nn.conv3d(_rand(shape, 4), w, _five(strides), padding).numpy()
    _against_tensorflow(
        lambda a, b: fg.nn.conv3d_transpose(a, b, shape, strides, padding),
        lambda a, b: tf.nn.conv3d_transpose(a, b, shape, _five(strides), padding), y, w)


POOL_GRID = list(itertools.product([2, 3, [2, 3, 1]], [1, 2, [2, 1, 3]], ["SAME", "VALID"]))


@pytest.mark.parametrize("ksize, strides, padding", POOL_GRID)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool3d_matches_tensorflow(kind, ksize, strides, padding):
    tf = pytest.importorskip("tensorflow")
    x = _rand((2, 5, 6, 4, 3), 5)            # no ties: the maxima are unique
    ours, theirs = getattr(fg.nn, f"{kind}_pool3d"), getattr(tf.nn, f"{kind}_pool3d")
    _against_tensorflow(lambda a: ours(a, ksize, strides, padding),
                        lambda a: theirs(a, ksize, strides, padding), x)


def test_rank_five_goes_to_the_3d_forms():
    tf = pytest.importorskip("tensorflow")
    x, w = _rand((2, 4, 5, 3, 2), 6), _rand((2, 2, 3, 2, 3), 7)
    _close(fg.nn.convolution(x, w, [1, 2, 1], "SAME"),
           tf.nn.convolution(x, w, [1, 2, 1], "SAME"))
    _close(fg.nn.max_pool(x, 2, 2, "SAME"), tf.nn.max_pool(x, 2, 2, "SAME"))
    _close(fg.nn.avg_pool(x, 3, 1, "VALID"), tf.nn.avg_pool(x, 3, 1, "VALID"))


def test_conv3d_double_backprop_matches_tensorflow():
    """The gradient of an input-gradient penalty, through conv3d and its transpose twice."""
    tf = pytest.importorskip("tensorflow")
    x, w = _rand((2, 4, 5, 4, 2), 8), _rand((2, 3, 2, 2, 3), 9)

    def penalty(lib, a, b):
        with lib.GradientTape() as inner:
            inner.watch(a)
            y = lib.nn.conv3d(a, b, [1, 2, 1, 2, 1], "SAME")
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


def test_closed_forms_and_forward_mode():
    ones = fg.ones([1, 3, 3, 3, 1])
    y = fg.nn.conv3d(ones, fg.ones([2, 2, 2, 1, 1]), 1, "SAME")[0, :, :, :, 0].numpy()
    # the window holds 2 x 2 x 2 ones inside, fewer along each far face
    counts = np.array([2, 2, 1])
    np.testing.assert_array_equal(y, counts[:, None, None] * counts[None, :, None]
                                  * counts[None, None, :])
    x = fg.reshape(fg.range(27.), [1, 3, 3, 3, 1])
    assert fg.nn.max_pool3d(x, 3, 1, "VALID").numpy().ravel().tolist() == [26.0]
    a = fg.nn.avg_pool3d(x, 2, 2, "SAME").numpy().ravel()
    assert a[0] == np.mean([0, 1, 3, 4, 9, 10, 12, 13]) and a[-1] == 26.0   # padding not counted
    # forward mode: the JVP of the linear conv3d is conv3d of the tangent
    w = fg.constant(_rand((2, 2, 2, 1, 2), 10))
    t = fg.constant(_rand((1, 3, 3, 3, 1), 11))
    _, tangent = fg.jvp(lambda v: fg.nn.conv3d(v, w, 1, "SAME"), (x,), (t,))
    _close(tangent, fg.nn.conv3d(t, w, 1, "SAME"))


def test_traced_with_an_open_batch_size():
    w = fg.constant(_rand((2, 2, 2, 2, 3), 12))

    @fg.function(input_signature=[fg.TensorSpec([None, 4, 4, 4, 2], fg.float32)])
    def f(x):
        y = fg.nn.conv3d(x, w, 2, "SAME")
        return fg.nn.max_pool3d(y, 2, 1, "SAME") + fg.nn.avg_pool3d(y, 2, 1, "SAME")

    for n in (1, 3):
        x = _rand((n, 4, 4, 4, 2), 13 + n)
        _close(f(x), f.python_function(fg.constant(x)))
        assert f(x).shape == (n, 2, 2, 2, 3)


def test_errors_name_the_function_and_argument():
    x, w = fg.zeros([1, 4, 4, 4, 2]), fg.zeros([2, 2, 2, 2, 3])
    with pytest.raises(NotImplementedError, match=r"finegrad.nn.conv3d: data_format 'NCDHW'"):
        fg.nn.conv3d(x, w, 1, "SAME", data_format="NCDHW")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv3d: input has 2 channels but "
                                         r"filters expect 3"):
        fg.nn.conv3d(x, fg.zeros([2, 2, 2, 3, 3]), 1, "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv3d: input must have rank 5"):
        fg.nn.conv3d(fg.zeros([1, 4, 4, 2]), w, 1, "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv3d: strides must be an int or a "
                                         r"list of length 1, 3 or 5"):
        fg.nn.conv3d(x, w, [1, 1], "SAME")
    with pytest.raises(TypeError, match=r"finegrad.nn.conv3d: input \(float32\) and filters "
                                        r"\(float64\)"):
        fg.nn.conv3d(x, fg.zeros([2, 2, 2, 2, 3], fg.float64), 1, "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv3d_transpose: a conv3d of "
                                         r"output_shape \[1, 9, 4, 4, 2\] gives"):
        fg.nn.conv3d_transpose(fg.zeros([1, 4, 4, 4, 3]), w, [1, 9, 4, 4, 2], 1, "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.conv3d_transpose: output_shape must"):
        fg.nn.conv3d_transpose(fg.zeros([1, 4, 4, 4, 3]), w, [1, 4, 4, 4], 1, "SAME")
    with pytest.raises(ValueError, match=r"finegrad.nn.max_pool3d: the window"):
        fg.nn.max_pool3d(x, 5, 1, "VALID")
    with pytest.raises(ValueError, match=r"finegrad.nn.avg_pool3d: padding must be 'SAME' or"):
        fg.nn.avg_pool3d(x, 2, 1, [[0, 1]] * 3)
    with pytest.raises(ValueError, match=r"finegrad.nn.convolution: input must have rank 3, "
                                         r"4 or 5"):
        fg.nn.convolution(fg.zeros([1, 2, 2, 2, 2, 1]), w)
