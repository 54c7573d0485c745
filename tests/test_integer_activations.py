"""Integer inputs that TensorFlow 2.21 accepts and finegrad used to refuse: ``square``,
``nn.relu``, ``nn.relu6``, ``nn.leaky_relu`` (cast to float32 first) and one-argument ``where``
of a numeric condition. Values and dtypes were recorded from TF 2.21 (compared live when it is
installed); integer inputs get no gradient (None), as in TensorFlow."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32"]
OPS = {"square": lambda m: m.square, "relu": lambda m: m.nn.relu,
       "relu6": lambda m: m.nn.relu6, "leaky_relu": lambda m: m.nn.leaky_relu}
# op -> (values for [-3, 0, 2] signed, for [0, 2, 7] unsigned, result dtype or None: same)
EXPECTED = {"square": ([9, 0, 4], [0, 4, 49], None),
            "relu": ([0, 0, 2], [0, 2, 7], None),
            "relu6": ([0, 0, 2], [0, 2, 6], None),
            "leaky_relu": ([-0.6, 0.0, 2.0], [0.0, 2.0, 7.0], "float32")}


def _input(m, dt):
    return m.constant([0, 2, 7] if dt.startswith("u") else [-3, 0, 2], dtype=getattr(m, dt))


@pytest.mark.parametrize("dt", SIGNED + UNSIGNED)
@pytest.mark.parametrize("op", sorted(OPS))
def test_integer_activation_values_and_dtype(op, dt):
    signed, unsigned, out_dt = EXPECTED[op]
    y = OPS[op](fg)(_input(fg, dt))
    assert y.dtype == getattr(fg, out_dt or dt)
    np.testing.assert_allclose(y.numpy(), unsigned if dt.startswith("u") else signed,
                               rtol=1e-6)
    traced = fg.function(OPS[op](fg))(_input(fg, dt))
    assert traced.dtype == y.dtype and np.array_equal(traced.numpy(), y.numpy())


@pytest.mark.parametrize("dt", SIGNED + UNSIGNED)
@pytest.mark.parametrize("op", sorted(OPS))
def test_integer_activation_live_against_tf(op, dt):
    tf = pytest.importorskip("tensorflow")
    theirs = OPS[op](tf)(_input(tf, dt))
    ours = OPS[op](fg)(_input(fg, dt))
    assert ours.dtype.name == theirs.dtype.name
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_square_wraps_like_tf_and_bool_is_refused():
    assert fg.square(fg.constant([100], fg.int8)).numpy().tolist() == [16]   # TF: 16
    with pytest.raises(TypeError, match="finegrad.square: expected a floating"):
        fg.square(fg.constant([True]))
    with pytest.raises(TypeError, match="finegrad.relu"):
        fg.nn.relu(fg.constant([True]))


@pytest.mark.parametrize("op", sorted(OPS))
def test_integer_inputs_get_no_gradient_floats_unchanged(op):
    x = fg.constant([-3, 0, 2])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = OPS[op](fg)(x)
    assert tape.gradient(y, x) is None                       # TF 2.21: None
    xf = fg.constant([-3., 0.5, 2.])
    with fg.GradientTape() as tape:
        tape.watch(xf)
        yf = OPS[op](fg)(xf)
    expected = {"square": [-6., 1., 4.], "relu": [0., 1., 1.], "relu6": [0., 1., 1.],
                "leaky_relu": [0.2, 1., 1.]}[op]
    np.testing.assert_allclose(tape.gradient(yf, xf).numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("cond", [[1, 0, 2], [1.5, 0., -0.5], [0, 3]])
def test_one_argument_where_of_a_numeric_condition(cond):
    expected = [[i] for i, v in enumerate(cond) if v != 0]
    got = fg.where(fg.constant(cond))
    assert got.dtype == fg.int64 and got.numpy().tolist() == expected
    assert fg.function(fg.where)(fg.constant(cond)).numpy().tolist() == expected
    u = fg.where(fg.constant([1, 0], fg.uint8))
    assert u.numpy().tolist() == [[0]]                       # TF 2.21: [[0]]


def test_where_errors_follow_tf():
    with pytest.raises(InvalidArgumentError, match="finegrad.where: with x and y, condition "
                                                   "must be bool .*got int32"):
        fg.where(fg.constant([1, 0]), 1., 2.)
    with pytest.raises(InvalidArgumentError, match="finegrad.where: condition must be a bool "
                                                   "or numeric tensor, got string"):
        fg.where(fg.constant([b"a"]))


def test_where_live_against_tf():
    tf = pytest.importorskip("tensorflow")
    c = [[1.5, 0.], [0., -1.]]
    assert fg.where(fg.constant(c)).numpy().tolist() == tf.where(tf.constant(c)).numpy().tolist()
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.where(tf.constant([1, 0]), 1., 2.)


@pytest.mark.parametrize("dt", SIGNED + ["float32"])
def test_crelu_and_abs_of_bool(dt):
    x = fg.constant([[-1, 2]], dtype=getattr(fg, dt))
    y = fg.nn.crelu(x)
    assert y.dtype == x.dtype and y.numpy().tolist() == [[0, 2, 1, 0]]      # TF 2.21
    assert fg.nn.crelu(x, axis=0).numpy().tolist() == [[0, 2], [1, 0]]
    with pytest.raises(TypeError, match="finegrad.abs: not defined for inputs of dtype bool"):
        fg.abs(fg.constant([True]))
    with pytest.raises(TypeError, match="finegrad.abs"):
        fg.abs([True, False])


def test_crelu_gradient_matches_tf():
    x = fg.constant([[-1., 2.]])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(fg.nn.crelu(x) * fg.constant([[1., 2., 3., 4.]]))
    assert tape.gradient(y, x).numpy().tolist() == [[-3., 2.]]              # TF 2.21
