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
