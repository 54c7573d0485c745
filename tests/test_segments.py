"""segment_* and unsorted_segment_*: values against NumPy loops and TensorFlow, TensorFlow's
gradients (ties, zeros), errors naming the function and argument."""
import numpy as np
import pytest

import finegrad as fg

KINDS = ("sum", "mean", "max", "min", "prod")
RNG = np.random.default_rng(2)


def _reference(kind, data, ids, num, empty):
    """A loop over the segments (empty ones get ``empty``)."""
    out = []
    for s in range(num):
        rows = data[ids == s]
        if not len(rows):
            out.append(np.full(data.shape[1:], empty[kind], data.dtype))
        else:
            out.append({"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min,
                        "prod": np.prod}[kind](rows, axis=0))
    return np.array(out, data.dtype).reshape((num,) + data.shape[1:])


@pytest.mark.parametrize("kind", KINDS)
def test_sorted_segments_match_a_loop(kind):
    data = RNG.uniform(-2, 2, (6, 3))
    ids = np.array([0, 0, 2, 2, 2, 4])
    got = getattr(fg.math, f"segment_{kind}")(fg.constant(data), ids).numpy()
    empty = dict(sum=0, mean=0, max=0, min=0, prod=1)
    np.testing.assert_allclose(got, _reference(kind, data, ids, 5, empty), rtol=1e-14)


@pytest.mark.parametrize("kind", KINDS)
def test_unsorted_segments_match_a_loop(kind):
    data = RNG.uniform(-2, 2, (2, 3, 2)).astype(np.float32)
    ids = np.array([[3, 0, -1], [0, 3, 1]])
    got = getattr(fg.math, f"unsorted_segment_{kind}")(fg.constant(data), ids, 5).numpy()
    big = np.finfo(np.float32).max
    empty = dict(sum=0, mean=0, max=-big, min=big, prod=1)
    flat, fids = data.reshape(6, 2), ids.reshape(6)
    np.testing.assert_allclose(got, _reference(kind, flat, fids, 5, empty), rtol=1e-6)


def test_integer_data_and_integer_mean():
    got = fg.math.segment_mean(fg.constant([1, 2, 4]), [0, 0, 1]).numpy()
    np.testing.assert_array_equal(got, [1, 4])
    got = fg.math.unsorted_segment_min(fg.constant([1, 2]), [0, 0], 2).numpy()
    np.testing.assert_array_equal(got, [1, np.iinfo(np.int32).max])


def _grad(f, x):
    x = fg.constant(x, fg.float64)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(f(x) * fg.constant([1.0, 10.0], fg.float64))
    return tape.gradient(y, x).numpy()


def test_max_gradient_splits_among_ties():
    d = [1.0, 3.0, 3.0, 2.0]
    for f in (lambda x: fg.math.segment_max(x, [0, 0, 0, 1]),
              lambda x: fg.math.unsorted_segment_max(x, [0, 0, 0, 1], 2)):
        np.testing.assert_array_equal(_grad(f, d), [0, 0.5, 0.5, 10])
    np.testing.assert_array_equal(
        _grad(lambda x: fg.math.segment_min(x, [0, 0, 1, 1]), [1.0, 1.0, 2.0, 5.0]),
        [0.5, 0.5, 10, 0])


def test_prod_gradient_with_zeros():
    """The product of the other entries: exact at a single zero, 0 beside two zeros."""
    d = [2.0, 0.0, 3.0, 0.0, 0.0, 5.0]
    g = _grad(lambda x: fg.math.segment_prod(x, [0, 0, 0, 1, 1, 1]), d)
    np.testing.assert_array_equal(g, [0, 6, 0, 0, 0, 0])
    f = lambda x: fg.math.segment_prod(x, [0, 0, 0, 1])  # noqa: E731
    fg.testing.check_gradients(f, [[2.0, 0.0, 3.0, 0.5]])
    # beside two zeros each first derivative is 0 (TensorFlow's values), and the second
    # derivatives keep the product that skips both zeros (d^2 / dx0 dx1 is 3 here;
    # TensorFlow's rule gives 0)
    fg.testing.check_gradients(f, [[0.0, 0.0, 3.0, 0.5]], order=2)


def _hessian(f, d, traced=False):
    def hess(x):
        with fg.GradientTape() as outer:
            outer.watch(x)
            with fg.GradientTape() as inner:
                inner.watch(x)
                y = fg.reduce_sum(f(x))
            g = inner.gradient(y, x)
        return g, outer.jacobian(g, x)
    g, h = (fg.function(hess) if traced else hess)(fg.constant(d, fg.float64))
    return g.numpy(), h.numpy()


@pytest.mark.parametrize("traced", [False, True])
def test_prod_second_derivatives_beside_several_zeros(traced):
    # segment 0 = [0, 2, 0, 3] (two zeros), segment 1 = [5], segment 2 = three zeros
    d = [0.0, 2.0, 0.0, 3.0, 5.0, 0.0, 0.0, 0.0]
    ids = [0, 0, 0, 0, 1, 2, 2, 2]
    want_h = np.zeros((8, 8))
    want_h[0, 2] = want_h[2, 0] = 6.0    # the product of the others: 2 * 3
    g, h = _hessian(lambda x: fg.math.segment_prod(x, ids), d, traced)
    np.testing.assert_array_equal(g, [0, 0, 0, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(h, want_h)
    # the same rows reversed, unsorted ids
    g, h = _hessian(lambda x: fg.math.unsorted_segment_prod(x, ids[::-1], 3), d[::-1], traced)
    np.testing.assert_array_equal(g, [0, 0, 0, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(h, want_h[::-1, ::-1])
    # third order beside three zeros: d^3 / dx5 dx6 dx7 of the product is 1
    x = fg.constant([0.0, 0.0, 0.0], fg.float64)
    with fg.GradientTape() as t3:
        t3.watch(x)
        with fg.GradientTape() as t2:
            t2.watch(x)
            with fg.GradientTape() as t1:
                t1.watch(x)
                y = fg.math.segment_prod(x, [0, 0, 0])
            g1 = t1.gradient(y, x)
        h = t2.jacobian(g1, x)
    third = t3.jacobian(h, x).numpy()
    np.testing.assert_array_equal(third[0, 1, 2], 1.0)
    np.testing.assert_array_equal(third[0, 0, 0], 0.0)


def test_gradients_of_sum_and_mean_gather_the_upstream():
    g = _grad(lambda x: fg.math.unsorted_segment_mean(x, [1, -1, 1, 0], 2), [1.0, 2, 3, 4])
    np.testing.assert_array_equal(g, [5, 0, 5, 1])
    g = _grad(lambda x: fg.math.segment_sum(x, [0, 1, 1]), [1.0, 2, 3])
    np.testing.assert_array_equal(g, [1, 10, 10])


@pytest.mark.parametrize("call, err, match", [
    (lambda: fg.math.segment_sum(fg.constant([1.0, 2.0]), [1, 0]), ValueError,
     "finegrad.segment_sum: segment_ids must be sorted"),
    (lambda: fg.math.segment_max(fg.constant([1.0, 2.0]), [-1, 0]), ValueError,
     "finegrad.segment_max: segment_ids must not be negative"),
    (lambda: fg.math.segment_min(fg.constant([1.0, 2.0]), [0]), ValueError,
     "finegrad.segment_min: segment_ids must be a vector as long"),
    (lambda: fg.math.unsorted_segment_sum(fg.constant([1.0, 2.0]), [5, 0], 2), ValueError,
     r"finegrad.unsorted_segment_sum: segment_ids must be < num_segments \(2\)"),
    (lambda: fg.math.unsorted_segment_prod(fg.constant([1.0, 2.0]), [[0, 1]], 2), ValueError,
     "finegrad.unsorted_segment_prod: segment_ids' shape"),
    (lambda: fg.math.unsorted_segment_mean(fg.constant([1.0]), [0], -1), ValueError,
     "finegrad.unsorted_segment_mean: num_segments must be >= 0"),
    (lambda: fg.math.segment_sum(fg.constant([1.0]), [0.0]), TypeError,
     "finegrad.segment_sum: segment_ids must be an integer"),
    (lambda: fg.math.segment_sum(fg.constant([True]), [0]), TypeError,
     "finegrad.segment_sum: data must be a real numeric"),
])
def test_bad_ids_name_the_function(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    data = RNG.integers(0, 3, (6, 2)).astype(np.float32)   # ties on purpose
    ids = np.array([0, 0, 1, 1, 1, 3])
    uids = np.array([3, 0, -1, 0, 3, 1])
    for kind in KINDS:
        seg, useg = f"segment_{kind}", f"unsorted_segment_{kind}"
        x, tx = fg.constant(data), tf.constant(data)
        with fg.GradientTape(persistent=True) as tape, \
                tf.GradientTape(persistent=True) as ttape:
            tape.watch(x)
            ttape.watch(tx)
            got = [getattr(fg.math, seg)(x, ids), getattr(fg.math, useg)(x, uids, 5)]
            want = [getattr(tf.math, seg)(tx, ids), getattr(tf.math, useg)(tx, uids, 5)]
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
            np.testing.assert_allclose(tape.gradient(a, x).numpy(),
                                       ttape.gradient(b, tx).numpy(), rtol=1e-6)
