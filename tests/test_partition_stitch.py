"""``tf.dynamic_partition``, ``tf.dynamic_stitch`` and the fixed-width histograms: TensorFlow
2.21's values and gradients (recorded; compared live where it is installed), in functions
with value-dependent sizes, and the errors."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

D = [[1., 2.], [3., 4.], [5., 6.]]


def _values(T):
    parts = T.dynamic_partition(T.constant(D), T.constant([1, 0, 1]), 3)
    x = T.Variable(D)
    with T.GradientTape() as tape:
        a, b = T.dynamic_partition(x, T.constant([1, 0, 1]), 2)
        y = T.reduce_sum(a * 2.) + T.reduce_sum(b * b)
    v, w = T.Variable([1., 2.]), T.Variable([3., 4.])
    with T.GradientTape() as tape2:
        z = T.dynamic_stitch([[0, 1], [3, 2]], [v, w])
        y2 = T.reduce_sum(z * T.constant([1., 2., 3., 4.]))
    return {"parts": [p.numpy().tolist() for p in parts],
            "partition_grad": tape.gradient(y, x).numpy().tolist(),
            "stitch": T.dynamic_stitch([[0, 2], [1, 2]], [[1., 2.], [3., 4.]]).numpy().tolist(),
            "stitch_rows": T.dynamic_stitch([T.constant(1), [0, 3]], [
                T.constant([7., 7.]), [[1., 1.], [2., 2.]]]).numpy().tolist(),
            "stitch_grad": [g.numpy().tolist() for g in tape2.gradient(y2, [v, w])]}


RECORDED = {"parts": [[[3., 4.]], [[1., 2.], [5., 6.]], []],
            "partition_grad": [[2., 4.], [2., 2.], [10., 12.]],
            "stitch": [1., 3., 4.], "stitch_rows": [[1., 1.], [7., 7.], [0., 0.], [2., 2.]],
            "stitch_grad": [[1., 2.], [4., 3.]]}


def test_values_and_gradients_as_tensorflow():
    assert _values(fg) == RECORDED


def test_recorded_values_are_tensorflows():
    tf = pytest.importorskip("tensorflow")
    assert _values(tf) == RECORDED


def test_value_dependent_sizes_inside_a_function():
    f = fg.function(lambda x, p: [t * 2. for t in fg.dynamic_partition(x, p, 2)])
    a, b = f(fg.constant([1., 2., 3.]), fg.constant([0, 1, 0]))
    np.testing.assert_array_equal(a.numpy(), [2., 6.])
    np.testing.assert_array_equal(b.numpy(), [4.])
    a, b = f(fg.constant([1., 2., 3.]), fg.constant([1, 1, 0]))
    np.testing.assert_array_equal(a.numpy(), [6.])
    np.testing.assert_array_equal(b.numpy(), [2., 4.])


def test_errors():
    with pytest.raises(InvalidArgumentError, match=r"partitions\[1\] = 5 is not in \[0, 2\)"):
        fg.dynamic_partition(fg.constant(D), fg.constant([0, 5, 1]), 2)
    with pytest.raises(ValueError, match="must be a prefix"):
        fg.dynamic_partition(fg.constant(D), fg.constant([0, 1]), 2)
    with pytest.raises(InvalidArgumentError, match="must be >= 0"):
        fg.dynamic_stitch([[0, -1]], [[1., 2.]])


def _histograms(T):
    v = T.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0, 4.999])
    return [T.histogram_fixed_width(v, [0.0, 5.0], nbins=5).numpy().tolist(),
            T.histogram_fixed_width_bins(v, [0.0, 5.0], nbins=5).numpy().tolist(),
            T.histogram_fixed_width(T.constant([1, 2, 3]), [0, 4], nbins=2).numpy().tolist(),
            T.histogram_fixed_width_bins(T.constant([[1., 2.], [3., 9.]]), [0., 4.],
                                         nbins=4).numpy().tolist()]


HISTOGRAMS = [[2, 1, 1, 0, 3], [0, 0, 1, 2, 4, 4, 4], [1, 2], [[1, 2], [3, 3]]]


def test_histograms_as_tensorflow():
    assert _histograms(fg) == HISTOGRAMS
    f = fg.function(lambda x: fg.histogram_fixed_width(x, [0., 1.], 4))
    assert f(fg.constant([.1, .3, .3, .9])).numpy().tolist() == [1, 2, 0, 1]
    with pytest.raises(InvalidArgumentError, match="must not contain NaN"):
        fg.histogram_fixed_width(fg.constant([np.nan]), [0., 1.], 2)
    with pytest.raises(InvalidArgumentError, match="value_range"):
        fg.histogram_fixed_width(fg.constant([1.]), [1., 0.], 2)
    tf = pytest.importorskip("tensorflow")
    assert _histograms(tf) == HISTOGRAMS
