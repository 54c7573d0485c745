"""Scans of a scalar and reductions of bools (issue 22, causes 11 and 12): TensorFlow 2.21
refuses both (a scan axis out of range for rank 0; no bool kernel for sums, products, means,
extrema and scans), where finegrad gave a shape (1,) or a logical or. Now errors naming the
function, eagerly and inside finegrad.function; NumPy-like counts come from a cast."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

SCANS = {"cumsum": fg.math.cumsum, "cumprod": fg.math.cumprod,
         "cumulative_logsumexp": fg.math.cumulative_logsumexp}
SCAN_OPTIONS = [{}, {"exclusive": True}, {"reverse": True}, {"axis": -1},
                {"exclusive": True, "reverse": True}]


@pytest.mark.parametrize("name", sorted(SCANS))
@pytest.mark.parametrize("options", SCAN_OPTIONS, ids=str)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_scan_of_a_scalar_is_an_error(name, options, traced):
    def fn(x):
        return SCANS[name](x, **options)
    if traced:
        fn = fg.function(fn)
    with pytest.raises(InvalidArgumentError, match=rf"{name}: a scan needs a tensor of rank "
                                                   r">= 1.*scalar"):
        fn(fg.constant(3.))


@pytest.mark.parametrize("name", sorted(SCANS))
def test_scan_of_a_vector_keeps_its_shape(name):
    x = fg.constant([1., 2., 3.])
    for options in SCAN_OPTIONS:
        assert SCANS[name](x, **options).shape == (3,)
    y = fg.function(lambda x: SCANS[name](x))(fg.constant([[1., 2.]]))
    assert y.shape == (1, 2)


def test_scans_match_tensorflow_on_a_scalar():
    tf = pytest.importorskip("tensorflow")
    for name in SCANS:
        with pytest.raises(tf.errors.InvalidArgumentError):
            getattr(tf.math, name)(tf.constant(3.))


BOOL_REDUCTIONS = {"reduce_sum": fg.reduce_sum, "reduce_prod": fg.reduce_prod,
                   "reduce_mean": fg.reduce_mean, "reduce_max": fg.reduce_max,
                   "reduce_min": fg.reduce_min, "cumsum": fg.math.cumsum,
                   "cumprod": fg.math.cumprod, "math.reduce_sum": fg.math.reduce_sum}


@pytest.mark.parametrize("name", sorted(BOOL_REDUCTIONS))
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_bool_reductions_are_type_errors(name, traced):
    fn = BOOL_REDUCTIONS[name]
    if traced:
        fn = fg.function(fn)
    op = name.split(".")[-1]
    with pytest.raises(TypeError, match=rf"finegrad.{op}: not defined for bool tensors.*cast"):
        fn(fg.constant([True, False, True]))


def test_bool_reductions_with_axis_and_in_vectorized_map():
    b = fg.constant([[True, False], [True, True]])
    with pytest.raises(TypeError, match="reduce_sum: not defined for bool"):
        fg.reduce_sum(b, axis=1)
    with pytest.raises(TypeError, match="reduce_sum: not defined for bool"):
        fg.vectorized_map(fg.reduce_sum, b)


def test_counting_and_logical_reductions_still_work():
    b = fg.constant([[True, False], [True, True]])
    assert fg.reduce_sum(fg.cast(b, fg.int32)).numpy() == 3
    np.testing.assert_array_equal(fg.math.cumsum(fg.cast(b, fg.int32), axis=1).numpy(),
                                  [[1, 1], [1, 2]])
    assert bool(fg.reduce_any(b)) and not bool(fg.reduce_all(b))
    assert fg.math.count_nonzero(b).numpy() == 3


def test_bool_reductions_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    b = tf.constant([True, False, True])
    for name in ("reduce_sum", "reduce_prod", "reduce_mean", "reduce_max", "reduce_min",
                 "cumsum", "cumprod"):
        with pytest.raises((tf.errors.InvalidArgumentError, TypeError)):
            getattr(tf.math, name)(b)


@pytest.mark.parametrize("way", ["add", "operator", "add_n", "traced"])
def test_adding_bools_is_a_type_error(way):
    b = fg.constant([True, False])
    run = {"add": lambda: fg.add(b, b), "operator": lambda: b + b,
           "add_n": lambda: fg.add_n([b, b]),
           "traced": lambda: fg.function(lambda t: t + t)(b)}[way]
    with pytest.raises(TypeError, match="finegrad.add: not defined for bool tensors"):
        run()   # TensorFlow: no bool kernel for Add (NumPy: a logical or)
    assert (b & b).numpy().tolist() == [True, False]   # the logical ops stay
    assert (b * b).numpy().tolist() == [True, False]   # TF's bool * is logical_and too
