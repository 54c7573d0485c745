"""unique, bincount, confusion_matrix and polyval: values against NumPy and TensorFlow,
gradients, errors naming the function and argument."""
import numpy as np
import pytest

import finegrad as fg

RNG = np.random.default_rng(3)


def test_unique_keeps_the_first_occurrence_order():
    x = RNG.integers(0, 6, 30)
    y, idx = fg.unique(fg.constant(x))
    _, first = np.unique(x, return_index=True)
    np.testing.assert_array_equal(y.numpy(), x[np.sort(first)])
    np.testing.assert_array_equal(y.numpy()[idx.numpy()], x)
    assert idx.dtype == fg.int32 and fg.unique(fg.constant(x), fg.int64).idx.dtype == fg.int64
    nan = fg.unique(fg.constant([np.nan, np.nan, 1.0]))
    assert nan.y.shape == (3,)        # each NaN is its own value, as in TensorFlow


def test_unique_has_no_gradient_and_refuses_matrices():
    x = fg.constant([1.0, 2.0, 1.0])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.unique(x).y
    assert tape.gradient(y, x) is None
    with pytest.raises(ValueError, match="finegrad.unique: x must be a vector"):
        fg.unique(fg.constant([[1, 2]]))


def test_bincount_lengths_weights_and_dtypes():
    a = RNG.integers(0, 7, (3, 5))
    np.testing.assert_array_equal(fg.math.bincount(fg.constant(a)).numpy(),
                                  np.bincount(a.reshape(-1)))
    got = fg.math.bincount(fg.constant([1, 1, 3]), minlength=6).numpy()
    np.testing.assert_array_equal(got, [0, 2, 0, 1, 0, 0])
    np.testing.assert_array_equal(fg.math.bincount(fg.constant([1, 1, 3]), maxlength=2), [0, 2])
    w = fg.math.bincount(fg.constant([0, 2, 2]), weights=fg.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(w.numpy(), [1.0, 0.0, 5.0])
    assert w.dtype == fg.float32
    assert fg.math.bincount(fg.constant([1]), dtype=fg.float32).dtype == fg.float32
    assert fg.math.bincount(fg.constant([], fg.int32)).shape == (0,)
    with pytest.raises(ValueError, match="finegrad.bincount: arr must be non-negative"):
        fg.math.bincount(fg.constant([-1, 2]))
    with pytest.raises(TypeError, match="finegrad.bincount: arr must be an integer"):
        fg.math.bincount(fg.constant([1.0]))


def test_confusion_matrix_counts_and_weight_gradient():
    labels, preds = RNG.integers(0, 4, 40), RNG.integers(0, 4, 40)
    want = np.zeros((4, 4), np.int32)
    np.add.at(want, (labels, preds), 1)
    np.testing.assert_array_equal(fg.math.confusion_matrix(labels, preds).numpy(), want)
    np.testing.assert_array_equal(fg.math.confusion_matrix([0], [1], num_classes=3).numpy(),
                                  [[0, 1, 0], [0, 0, 0], [0, 0, 0]])
    w = fg.constant([1.0, 2.0, 3.0])
    with fg.GradientTape() as tape:
        tape.watch(w)
        c = fg.math.confusion_matrix([0, 1, 1], [1, 1, 0], weights=w, dtype=fg.float32)
        y = fg.reduce_sum(c * fg.constant([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(c.numpy(), [[0, 1], [3, 2]])
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [2, 4, 3])


@pytest.mark.parametrize("labels, preds, kw, match", [
    ([0, 3], [1, 1], dict(num_classes=2), r"labels must be < num_classes \(2\)"),
    ([0, -1], [1, 1], {}, "labels must be non-negative"),
    ([0, 1], [1], {}, "labels and predictions must have one size"),
])
def test_confusion_matrix_errors(labels, preds, kw, match):
    with pytest.raises(ValueError, match="finegrad.confusion_matrix: " + match):
        fg.math.confusion_matrix(labels, preds, **kw)


def test_polyval_horner_and_gradients():
    x = np.linspace(-2, 2, 7)
    c = [1.5, -2.0, 0.5, 3.0]
    np.testing.assert_allclose(fg.math.polyval(c, fg.constant(x)).numpy(), np.polyval(c, x))
    xt = fg.constant(x)
    ct = [fg.constant(v, fg.float64) for v in c]
    with fg.GradientTape(persistent=True) as tape:
        tape.watch([xt] + ct)
        y = fg.math.polyval(ct, xt)
    np.testing.assert_allclose(tape.gradient(y, xt).numpy(), np.polyval(np.polyder(c), x))
    np.testing.assert_allclose(tape.gradient(y, ct[0]).numpy(), np.sum(x ** 3))
    np.testing.assert_array_equal(fg.math.polyval([], fg.constant([1.0, 2.0])).numpy(), [0, 0])
    with pytest.raises(TypeError, match="finegrad.polyval: coeffs must be a list"):
        fg.math.polyval(fg.constant([1.0]), 2.0)


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = RNG.integers(0, 5, 20).astype(np.int32)
    got, want = fg.unique(fg.constant(x)), tf.unique(x)
    np.testing.assert_array_equal(got.y.numpy(), want.y.numpy())
    np.testing.assert_array_equal(got.idx.numpy(), want.idx.numpy())
    for kw in ({}, dict(minlength=9), dict(maxlength=3)):
        np.testing.assert_array_equal(fg.math.bincount(fg.constant(x), **kw).numpy(),
                                      tf.math.bincount(x, **kw).numpy())
    p = RNG.integers(0, 5, 20)
    np.testing.assert_array_equal(fg.math.confusion_matrix(x, p).numpy(),
                                  tf.math.confusion_matrix(x, p).numpy())
    np.testing.assert_allclose(fg.math.polyval([1.0, 2.0, 3.0], fg.constant(2.0)).numpy(),
                               tf.math.polyval([1.0, 2.0, 3.0], 2.0).numpy())
