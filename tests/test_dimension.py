"""Dimension (tf.compat.v1.Dimension) and TensorShape.dims against TensorFlow: unknown sizes
propagate through arithmetic, comparisons with an unknown size are None, `/` is refused."""
import pickle

import pytest

import finegrad as fg

D = fg.compat.v1.Dimension

CASES = {
    "lt": lambda d: d(3) < 4, "lt_unknown": lambda d: d(None) < 4,
    "ge": lambda d: d(3) >= d(3), "rgt": lambda d: 4 > d(3),
    "floordiv": lambda d: d(7) // 2, "rfloordiv": lambda d: 7 // d(2), "rmod": lambda d: 7 % d(2),
    "mul_none": lambda d: d(3) * None, "rmul_none": lambda d: None * d(3),
    "add": lambda d: d(3) + 4, "radd_unknown": lambda d: 2 + d(None),
    "eq": lambda d: d(3) == 3, "eq_unknown": lambda d: d(None) == 3,
    "eq_other": lambda d: d(2) == "a", "ne": lambda d: d(2) != 3,
    "merge": lambda d: d(None).merge_with(4), "compatible": lambda d: d(None).is_compatible_with(2),
}


def _plain(v):
    return ("D", v.value) if type(v).__name__ == "Dimension" else v


@pytest.mark.parametrize("name", sorted(CASES))
def test_dimension_matches_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    assert _plain(CASES[name](D)) == _plain(CASES[name](tf.compat.v1.Dimension))


def test_errors_as_tensorflow():
    with pytest.raises(TypeError, match="please use // instead"):
        D(7) / 2
    with pytest.raises(ValueError, match="not compatible"):
        D(3).assert_is_compatible_with(4)
    with pytest.raises(ValueError, match=">= 0"):
        D(2) - 5
    with pytest.raises(TypeError, match="finegrad.Dimension"):
        D(2.0)


def test_tensor_shape_dims_and_helpers():
    shape = fg.TensorShape([2, None])
    assert [d.value for d in shape.dims] == [2, None]
    assert all(isinstance(d, D) for d in shape.dims)
    assert shape[0] == 2 and isinstance(shape[0], int)   # TF2: indexing gives ints
    assert fg.compat.dimension_at_index(shape, 1).value is None
    assert fg.compat.v1.dimension_at_index(shape, 0) == 2
    assert fg.compat.dimension_value(D(4)) == 4
    assert pickle.loads(pickle.dumps(D(3))) == 3


def test_dims_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    ours, theirs = fg.TensorShape([2, None]).dims, tf.TensorShape([2, None]).dims
    assert [d.value for d in ours] == [d.value for d in theirs]
    assert type(theirs[0]).__name__ == type(ours[0]).__name__ == "Dimension"
