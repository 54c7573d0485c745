"""``tf.nn.weighted_moments``, ``sufficient_statistics``, ``normalize_moments``,
``local_response_normalization`` and ``in_top_k``: TensorFlow 2.21's values (recorded;
compared live where it is installed) and derivatives against finite differences (first and
second order, both modes)."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.testing import check_gradients

X = [[1., 2.], [3., 5.]]
W = [[1., 0.], [2., 1.]]
LRN_IN = np.arange(1., 17., dtype=np.float32).reshape(1, 2, 2, 4)


def _values(T):
    x, w = T.constant(X), T.constant(W)
    c, s, ss, _ = T.nn.sufficient_statistics(x, [1], shift=1., keepdims=True)
    return {
        "weighted": [t.numpy().tolist() for t in T.nn.weighted_moments(x, [0], w)],
        "weighted_all": [t.numpy().tolist() for t in T.nn.weighted_moments(
            x, [0, 1], w, keepdims=True)],
        "sufficient": [float(c), s.numpy().tolist(), ss.numpy().tolist()],
        "normalized": [t.numpy().tolist() for t in T.nn.normalize_moments(
            T.constant(2.), T.constant([2., 5.]), T.constant([4., 17.]), 1.)],
        "lrn": T.nn.local_response_normalization(T.constant(LRN_IN), depth_radius=1, bias=2.,
                                                 alpha=.5, beta=.75).numpy().ravel().tolist(),
        "in_top_k": T.nn.in_top_k(T.constant([2, 0]), T.constant([[.1, .5, .5], [0., 1., 2.]]),
                                  1).numpy().tolist(),
    }


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=1e-5)


RECORDED = {
    "weighted": [[2.3333333, 5.], [0.88888884, 0.]], "weighted_all": [[[3.]], [[2.]]],
    "sufficient": [2., [[1.], [6.]], [[1.], [20.]]], "normalized": [[2., 3.5], [1., 2.25]],
    "lrn": [0.32366, 0.3849, 0.36644, 0.53831, 0.36733, 0.28923, 0.27062, 0.3782, 0.30174,
            0.22987, 0.21973, 0.30384, 0.25968, 0.19569, 0.18924, 0.26037],
    "in_top_k": [True, False]}


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_values_as_tensorflow(key):
    got = _values(fg)[key]
    if key == "in_top_k":
        assert got == RECORDED[key]
    elif key in ("weighted", "weighted_all", "sufficient", "normalized"):
        for g, w in zip(got, RECORDED[key], strict=True):
            _close(g, w)
    else:
        np.testing.assert_allclose(got, RECORDED[key], rtol=5e-5)   # (recorded to 5 places)


def test_recorded_values_are_tensorflows():
    tf = pytest.importorskip("tensorflow")
    theirs, ours = _values(tf), _values(fg)
    assert theirs["in_top_k"] == ours["in_top_k"]
    for key in ("weighted", "weighted_all", "sufficient", "normalized"):
        for a, b in zip(theirs[key], ours[key], strict=True):
            _close(a, b)
    np.testing.assert_allclose(theirs["lrn"], ours["lrn"], rtol=1e-5)


def test_derivatives_against_finite_differences():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((3, 4)), rng.uniform(.5, 2., (3, 4))
    check_gradients(lambda a, b: fg.nn.weighted_moments(a, [0], b), [x, w])
    check_gradients(lambda a: fg.nn.normalize_moments(
        *fg.nn.sufficient_statistics(a, [1], shift=.3)[:3], .3), [x])
    image = rng.uniform(.5, 2., (1, 2, 2, 5))
    check_gradients(lambda a: fg.nn.local_response_normalization(
        a, depth_radius=2, bias=1.5, alpha=.3, beta=.6), [image])


def test_lrn_needs_a_4d_input():
    with pytest.raises(ValueError, match="must be 4-D"):
        fg.nn.local_response_normalization(fg.ones((2, 3)))


def _convolutions(T):
    rng = np.random.default_rng(0)
    x = T.constant(rng.standard_normal((1, 5, 5, 2)), T.float32)
    dw = T.constant(rng.standard_normal((3, 3, 2, 2)), T.float32)
    pw = T.constant(rng.standard_normal((1, 1, 4, 3)), T.float32)
    f = T.constant(rng.standard_normal((3, 3, 2, 4)), T.float32)
    x1 = T.constant(rng.standard_normal((2, 4, 3)), T.float32)
    f1 = T.constant(rng.standard_normal((3, 5, 3)), T.float32)
    outs = [T.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME"),
            T.nn.separable_conv2d(x, dw, pw, [1, 2, 2, 1], "VALID"),
            T.nn.atrous_conv2d(x, f, 2, "SAME"),
            T.nn.conv1d_transpose(x1, f1, [2, 8, 5], 2, "SAME")]
    return [(tuple(o.shape), float(T.reduce_sum(o * o))) for o in outs]


CONV_RECORDED = [((1, 5, 5, 3), None), ((1, 2, 2, 3), None), ((1, 5, 5, 4), None),   # (shapes)
                 ((2, 8, 5), 439.1104736328125)]


def test_composed_convolutions_as_tensorflow():
    got = _convolutions(fg)
    assert [g[0] for g in got] == [c[0] for c in CONV_RECORDED]
    assert got[3][1] == pytest.approx(CONV_RECORDED[3][1], rel=1e-5)
    tf = pytest.importorskip("tensorflow")
    for (shape, total), (their_shape, their_total) in zip(got, _convolutions(tf), strict=True):
        assert shape == their_shape and total == pytest.approx(their_total, rel=1e-5)


def test_composed_convolutions_derivatives():
    rng = np.random.default_rng(1)
    x, dw, pw = (rng.standard_normal(s) for s in ((1, 4, 4, 2), (2, 2, 2, 1), (1, 1, 2, 2)))
    check_gradients(lambda a, b, c: fg.nn.separable_conv2d(a, b, c, [1, 1, 1, 1], "SAME"),
                    [x, dw, pw])
    x1, f1 = rng.standard_normal((1, 3, 2)), rng.standard_normal((2, 3, 2))
    check_gradients(lambda a, b: fg.nn.conv1d_transpose(a, b, [1, 6, 3], 2, "SAME"), [x1, f1])
