"""reverse, roll, pad, repeat and one_hot against NumPy, eagerly and inside finegrad.function."""
import numpy as np
import pytest

import finegrad as fg

X = np.arange(12.0).reshape(3, 4)


def both(fn, *args):
    """``fn(*args)`` eagerly and traced; both must agree."""
    eager = fn(*args).numpy()
    traced = fg.function(fn)(*args).numpy()
    np.testing.assert_array_equal(eager, traced)
    return eager


@pytest.mark.parametrize("axis", [[0], [1], [0, 1], [-1], []])
def test_reverse(axis):
    got = both(lambda x: fg.reverse(x, axis), fg.constant(X))
    np.testing.assert_array_equal(got, np.flip(X, axis=tuple(axis)) if axis else X)


@pytest.mark.parametrize("shift,axis", [(1, 0), (-1, 1), (5, 1), ([1, 2], [0, 1]),
                                        ([1, 1], [1, 1]), (0, 0)])
def test_roll(shift, axis):
    got = both(lambda x: fg.roll(x, shift, axis), fg.constant(X))
    np.testing.assert_array_equal(got, np.roll(X, shift, axis))


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "reflect"])
@pytest.mark.parametrize("paddings", [[[1, 2], [0, 3]], [[2, 2], [3, 3]], [[0, 0], [0, 0]],
                                      [[0, 1], [1, 0]]])
def test_pad(mode, paddings):
    got = both(lambda x: fg.pad(x, paddings, mode=mode, constant_values=7.0), fg.constant(X))
    m = mode.lower()
    extra = dict(constant_values=7.0) if m == "constant" else {}
    np.testing.assert_array_equal(got, np.pad(X, paddings, mode=m, **extra))


def test_pad_errors():
    with pytest.raises(ValueError, match="finegrad.pad"):
        fg.pad(fg.constant(X), [[3, 0], [0, 0]], mode="REFLECT")
    with pytest.raises(ValueError, match="finegrad.pad"):
        fg.pad(fg.constant(X), [[1, 0]])
    with pytest.raises(ValueError, match="finegrad.pad"):
        fg.pad(fg.constant(X), [[1, 0], [0, 0]], mode="WRAP")
    with pytest.raises(ValueError, match="finegrad.pad"):
        fg.pad(fg.constant(X), [[-1, 0], [0, 0]])


def test_pad_gradient_counts_copies():
    x = fg.constant(X)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(fg.pad(x, [[1, 1], [2, 2]], mode="SYMMETRIC"))
    counts = np.pad(np.ones_like(X), [[1, 1], [2, 2]], mode="symmetric")
    # each input element's gradient is the number of its copies in the output
    expected = np.array([[1.0 + (i in (0, 2)) for _ in range(4)] for i in range(3)]) * 2
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), expected)
    assert counts.sum() == expected.sum()


@pytest.mark.parametrize("repeats,axis", [(2, None), (2, 0), ([1, 0, 2], 0), ([1, 2, 0, 3], 1),
                                          (3, -1)])
def test_repeat(repeats, axis):
    got = both(lambda x: fg.repeat(x, repeats, axis=axis), fg.constant(X))
    np.testing.assert_array_equal(got, np.repeat(X, repeats, axis=axis))


def test_repeat_errors():
    with pytest.raises(ValueError, match="finegrad.repeat"):
        fg.repeat(fg.constant(X), [1, 2], axis=0)
    with pytest.raises(ValueError, match="finegrad.repeat"):
        fg.repeat(fg.constant(X), -1, axis=0)


@pytest.mark.parametrize("axis", [None, -1, 0, 1])
def test_one_hot(axis):
    ind = np.array([[0, 3], [2, -1]])
    got = both(lambda i: fg.one_hot(i, 3, on_value=5.0, off_value=-1.0, axis=axis),
               fg.constant(ind))
    expected = np.where(ind[..., None] == np.arange(3), 5.0, -1.0)
    if axis not in (None, -1):
        expected = np.moveaxis(expected, -1, axis)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.float32


def test_one_hot_dtype_and_errors():
    assert fg.one_hot([1], 2, dtype=fg.int32).numpy().tolist() == [[0, 1]]
    with pytest.raises(TypeError, match="finegrad.one_hot"):
        fg.one_hot(fg.constant([1.0]), 2)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_meshgrid(indexing, n):
    vals = [np.arange(k + 2.0) * (k + 1) for k in range(n)]
    got = fg.meshgrid(*[fg.constant(v) for v in vals], indexing=indexing)
    traced = fg.function(lambda *a: fg.meshgrid(*a, indexing=indexing))(*vals)
    for g, t, e in zip(got, traced, np.meshgrid(*vals, indexing=indexing), strict=True):
        np.testing.assert_array_equal(g.numpy(), e)
        np.testing.assert_array_equal(t.numpy(), e)


def test_meshgrid_gradient():
    x, y = fg.constant([1.0, 2.0, 3.0]), fg.constant([4.0, 5.0])
    with fg.GradientTape() as tape:
        tape.watch([x, y])
        a, b = fg.meshgrid(x, y)
        z = fg.reduce_sum(a * b)
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_allclose(gx.numpy(), [9.0, 9.0, 9.0])
    np.testing.assert_allclose(gy.numpy(), [6.0, 6.0])
    with pytest.raises(ValueError, match="finegrad.meshgrid"):
        fg.meshgrid(x, indexing="ji")


def test_repeat_with_traced_repeats_follows_each_call_not_a_baked_value():
    @fg.function
    def f(x, r):
        return fg.repeat(x, r)
    x = fg.constant([1., 2.])   # TensorFlow computes traced repeats: each call its own
    assert f(x, fg.constant([1, 2])).numpy().tolist() == [1., 2., 2.]
    assert f(x, fg.constant([3, 0])).numpy().tolist() == [1., 1., 1.]
