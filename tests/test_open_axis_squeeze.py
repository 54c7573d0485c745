"""squeeze of an open (None) axis inside finegrad.function: each call squeezes the axes its
own sizes make 1, as TensorFlow decides when the graph runs (issue 22, cause 10)."""
import warnings

import numpy as np
import pytest

import finegrad as fg


def _shapes(f, shapes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (a new size that breaks a guard: traced again)
        return [tuple(f(fg.ones(s)).shape) for s in shapes]


# what TensorFlow 2.21 gives for the same calls (tf.function with the same input_signature)
CASES = [
    ([None, 3], [(2, 3), (1, 3), (2, 3), (1, 3)], [(2, 3), (3,), (2, 3), (3,)]),
    ([None, None], [(2, 3), (1, 3), (2, 1), (1, 1)], [(2, 3), (3,), (2,), ()]),
    ([None, 1], [(1, 1), (4, 1)], [(), (4,)]),
]


@pytest.mark.parametrize("spec, shapes, want", CASES)
def test_squeeze_of_open_axes_follows_each_call(spec, shapes, want):
    f = fg.function(fg.squeeze, input_signature=[fg.TensorSpec(spec)])
    assert _shapes(f, shapes) == want


@pytest.mark.parametrize("spec, shapes, want", CASES)
def test_squeeze_inside_other_ops_and_gradient(spec, shapes, want):
    @fg.function(input_signature=[fg.TensorSpec(spec)])
    def f(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = fg.squeeze(x * 2.) + 1.
            total = fg.reduce_sum(y)
        return y, tape.gradient(total, x)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s, w in zip(shapes, want, strict=True):
            y, g = f(fg.ones(s))
            assert tuple(y.shape) == w and tuple(g.shape) == s
            np.testing.assert_array_equal(g.numpy(), np.full(s, 2., np.float32))


def test_squeeze_in_vectorized_map_of_open_axis():
    f = fg.function(lambda x: fg.vectorized_map(fg.squeeze, x),
                    input_signature=[fg.TensorSpec([2, None, 3])])
    assert _shapes(f, [(2, 2, 3), (2, 1, 3)]) == [(2, 2, 3), (2, 3)]


def test_explicit_axis_of_open_size_checks_each_call():
    f = fg.function(lambda x: fg.squeeze(x, axis=0), input_signature=[fg.TensorSpec([None, 3])])
    assert tuple(f(fg.ones([1, 3])).shape) == (3,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="cannot squeeze axis 0 of size 2"):
            f(fg.ones([2, 3]))   # TensorFlow: InvalidArgumentError, "expected a dimension of 1"


def test_matches_tensorflow_live():
    tf = pytest.importorskip("tensorflow")
    for spec, shapes, _ in CASES:
        g = tf.function(tf.squeeze, input_signature=[tf.TensorSpec(spec)])
        want = [tuple(g(tf.ones(s)).shape) for s in shapes]
        assert _shapes(fg.function(fg.squeeze, input_signature=[fg.TensorSpec(spec)]),
                       shapes) == want
