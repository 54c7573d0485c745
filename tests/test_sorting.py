"""argmax, argmin, sort, argsort and top_k: values against NumPy and TensorFlow, gradients
routed through the sorting indices, errors naming the function and argument."""
import numpy as np
import pytest

import finegrad as fg

RNG = np.random.default_rng(1)


def test_argmax_argmin_default_axis_0_ties_and_nan():
    x = RNG.integers(0, 4, size=(5, 3))
    np.testing.assert_array_equal(fg.math.argmax(fg.constant(x)).numpy(), np.argmax(x, 0))
    np.testing.assert_array_equal(fg.argmin(fg.constant(x), axis=-1).numpy(), np.argmin(x, 1))
    assert fg.argmax(fg.constant([1, 1])).dtype == fg.int64
    assert fg.argmax(fg.constant([1, 1]), output_type=fg.int32).dtype == fg.int32
    # TensorFlow's kernel skips NaN while another value is there
    assert int(fg.argmax(fg.constant([np.nan, 1.0, 0.5]))) == 1
    assert int(fg.argmin(fg.constant([np.nan, 1.0, 0.5]))) == 2
    assert int(fg.argmax(fg.constant([True, False]))) == 0


def test_argmax_has_no_gradient():
    x = fg.constant([1.0, 3.0])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.cast(fg.argmax(x), fg.float32)
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("call, match", [
    (lambda: fg.argmax(fg.constant([1.0]), axis=1), "finegrad.argmax: axis 1"),
    (lambda: fg.argmin(fg.constant(1.0)), "finegrad.argmin: input must have rank"),
    (lambda: fg.sort(fg.constant([1.0]), direction="UP"), "finegrad.sort: direction"),
    (lambda: fg.math.top_k(fg.constant([1.0, 2.0]), k=3), r"finegrad.top_k: k must be in \[0, 2\]"),
    (lambda: fg.math.top_k(fg.constant([1.0]), k=-1), "finegrad.top_k: k must"),
])
def test_bad_arguments_are_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_wrong_dtypes_are_type_errors():
    with pytest.raises(TypeError, match="finegrad.argmax: output_type"):
        fg.argmax(fg.constant([1.0]), output_type=fg.float32)
    with pytest.raises(TypeError, match="finegrad.sort: values must be a real"):
        fg.sort(fg.constant([1 + 2j]))


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
def test_sort_and_argsort_match_numpy(axis, direction):
    x = RNG.integers(0, 5, size=(4, 6)).astype(np.float64)
    want_idx = np.argsort(x, axis=axis, kind="stable")
    if direction == "DESCENDING":
        flipped = np.flip(x, axis)
        want_idx = x.shape[axis] - 1 - np.flip(np.argsort(flipped, axis=axis, kind="stable"),
                                               axis)
    got = fg.argsort(fg.constant(x), axis=axis, direction=direction).numpy()
    np.testing.assert_array_equal(got, want_idx)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(fg.sort(fg.constant(x), axis=axis, direction=direction),
                                  np.take_along_axis(x, want_idx, axis))


def test_nan_sorts_as_the_largest():
    x = fg.constant([1.0, np.nan, -np.inf, 0.0])
    np.testing.assert_array_equal(fg.sort(x).numpy(), [-np.inf, 0.0, 1.0, np.nan])
    np.testing.assert_array_equal(fg.sort(x, direction="DESCENDING").numpy(),
                                  [np.nan, 1.0, 0.0, -np.inf])


def test_sort_gradient_routes_the_upstream_back():
    x = fg.constant([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], fg.float64)
    w = fg.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], fg.float64)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(fg.sort(x) * w)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[3, 1, 2], [4, 6, 5]])


def test_top_k_values_indices_and_gradient():
    x = fg.constant([[1.0, 3.0, 2.0, 3.0], [4.0, 0.0, 5.0, -1.0]], fg.float64)
    with fg.GradientTape() as tape:
        tape.watch(x)
        out = fg.math.top_k(x, k=2)
        y = fg.reduce_sum(out.values * fg.constant([[1.0, 2.0]], fg.float64))
    assert out._fields == ("values", "indices")
    np.testing.assert_array_equal(out.indices.numpy(), [[1, 3], [2, 0]])
    np.testing.assert_array_equal(out.values.numpy(), [[3, 3], [5, 4]])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0, 1, 0, 2], [2, 0, 1, 0]])
    assert fg.nn.top_k(x, 0).values.shape == (2, 0)


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = RNG.integers(0, 6, size=(3, 7)).astype(np.float32)
    for axis in (0, 1):
        np.testing.assert_array_equal(fg.argmax(fg.constant(x), axis).numpy(),
                                      tf.math.argmax(x, axis).numpy())
        np.testing.assert_array_equal(fg.argmin(fg.constant(x), axis).numpy(),
                                      tf.math.argmin(x, axis).numpy())
        for d in ("ASCENDING", "DESCENDING"):
            np.testing.assert_array_equal(fg.sort(fg.constant(x), axis, d).numpy(),
                                          tf.sort(x, axis, d).numpy())
            np.testing.assert_array_equal(fg.argsort(fg.constant(x), axis, d).numpy(),
                                          tf.argsort(x, axis, d, stable=True).numpy())
    got, want = fg.math.top_k(fg.constant(x), 4), tf.math.top_k(x, 4)
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
    np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())


def test_batched_gather_along_the_axis_after_the_batch_axes():
    """sort and top_k gather with every leading axis a batch axis (one fancy index, no loop
    over the rows): values against NumPy, and a Jacobian (cotangents with batch axes)."""
    x = fg.constant(RNG.uniform(-1, 1, (2, 3, 4)))
    np.testing.assert_array_equal(fg.sort(x).numpy(), np.sort(x.numpy(), -1))
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.math.top_k(x, 2).values
    jac = tape.jacobian(y, x).numpy()          # shape (2, 3, 2) + (2, 3, 4)
    idx = np.argsort(-x.numpy(), -1, kind="stable")[..., :2]
    want = np.zeros((2, 3, 2, 2, 3, 4))
    for i, j, k in np.ndindex(2, 3, 2):
        want[i, j, k, i, j, idx[i, j, k]] = 1
    np.testing.assert_array_equal(jac, want)
