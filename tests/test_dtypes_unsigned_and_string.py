"""The unsigned dtypes uint16/32/64 and string: conversion, arithmetic, comparisons, casts,
no gradients, and strings through custom_gradient and finegrad.function, against TensorFlow
(when installed) and NumPy."""
import numpy as np
import pytest

import finegrad as fg


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_unsigned_arithmetic_and_comparisons(name):
    dt = getattr(fg, name)
    a = fg.constant([1, 2, 7], dt)
    assert a.dtype == dt and a.numpy().dtype == np.dtype(name)
    np.testing.assert_array_equal((a + 1).numpy(), np.array([2, 3, 8], name))
    np.testing.assert_array_equal((a * a).numpy(), np.array([1, 4, 49], name))
    np.testing.assert_array_equal((a // 2).numpy(), np.array([0, 1, 3], name))
    np.testing.assert_array_equal((a > 1).numpy(), [False, True, True])
    assert dt.is_integer and dt.is_unsigned and not dt.is_differentiable
    assert dt.min == 0 and dt.max == np.iinfo(name).max
    assert fg.as_dtype(name) is dt
    np.testing.assert_array_equal(fg.cast(fg.constant([1.7, 3.2]), dt).numpy(), [1, 3])
    with pytest.raises(TypeError, match="subtract.*different dtypes"):
        a - fg.constant([1, 1, 1])
    with pytest.raises(ValueError):
        fg.constant([-1], dt)       # out of range, as TensorFlow refuses it


def test_unsigned_has_no_gradient():
    x = fg.constant([1., 2.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.cast(fg.cast(x, fg.uint32), fg.float32)
    assert tape.gradient(y, x) is None


def test_unsigned_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for name in ("uint16", "uint32", "uint64"):
        a, b = np.array([5, 9], name), np.array([2, 3], name)
        for op in ("add", "multiply", "maximum", "floordiv"):
            ours, theirs = getattr(fg.math, op)(a, b), getattr(tf.math, op)(a, b)
            assert ours.dtype.name == theirs.dtype.name
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert getattr(fg, name).max == getattr(tf, name).max


def test_string_tensors_hold_bytes_as_tensorflow():
    s = fg.constant(["a", "bé"])
    assert s.dtype == fg.string and s.dtype.name == "string" and s.shape == (2,)
    np.testing.assert_array_equal(s.numpy(), np.array([b"a", "bé".encode()], object))
    assert fg.constant("x").numpy() == b"x" and fg.constant(b"x").shape == ()
    assert fg.constant([["a"], ["b"]]).shape == (2, 1)
    np.testing.assert_array_equal((s == "a").numpy(), [True, False])
    np.testing.assert_array_equal((s != s).numpy(), [False, False])
    np.testing.assert_array_equal(fg.reshape(s, [2, 1]).numpy(), [[b"a"], ["bé".encode()]])
    assert fg.identity(s)[0].numpy() == b"a" and fg.gather(s, 1).numpy() == "bé".encode()
    np.testing.assert_array_equal(fg.concat([s, s], 0).numpy()[2:], s.numpy())
    assert fg.stack([s, s]).shape == (2, 2)
    np.testing.assert_array_equal((s + s).numpy(), [b"aa", "bébé".encode()])  # TF concatenates
    np.testing.assert_array_equal(fg.zeros([2], fg.string).numpy(), [b"", b""])
    assert fg.as_dtype("string") is fg.string and not fg.string.is_differentiable


def test_string_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for value in (["a", "bé"], "x", [[b"a", b"b"]], np.array(["ab", "c"])):
        ours, theirs = fg.constant(value), tf.constant(value)
        assert ours.shape == tuple(theirs.shape)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert fg.string.name == tf.string.name


def test_string_errors_name_the_op():
    s = fg.constant(["a", "b"])
    for f, op in ((lambda: s * s, "multiply"), (lambda: s - s, "subtract"),
                  (lambda: fg.exp(s), "exp"), (lambda: fg.reduce_sum(s), "reduce_sum"),
                  (lambda: fg.reduce_max(s), "reduce_max"), (lambda: s + 1, "add"),
                  (lambda: fg.cast(s, fg.float32), "cast"), (lambda: -s, "negative")):
        with pytest.raises(TypeError, match=f"finegrad.{op}"):
            f()
    with pytest.raises(TypeError, match="finegrad.constant.*string"):
        fg.constant(1, fg.string)


def test_string_through_custom_gradient_and_function():
    x, s = fg.constant([1., 2.]), fg.constant(["a", "b"])

    @fg.custom_gradient
    def f(x, s):
        def grad(dy):
            return dy * 3, None
        return fg.where(s == "a", x * 2, x), grad
    with fg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(s)
        y = f(x, s)
    gx, gs = tape.gradient(y, [x, s])
    np.testing.assert_array_equal(gx.numpy(), [3., 3.])
    assert gs is None

    @fg.function
    def g(x, s):
        return fg.where(s == "a", x, -x), fg.concat([s, fg.constant(["c"])], 0)
    for names, want in ((["a", "b"], [1., -2.]), (["b", "a"], [-1., 2.])):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y, t = g(x, fg.constant(names))
        np.testing.assert_array_equal(y.numpy(), want)
        np.testing.assert_array_equal(t.numpy(), [n.encode() for n in names] + [b"c"])
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.sign(want))
    assert g.experimental_get_tracing_count() == 1
    first = fg.function(lambda s: s[0], input_signature=[fg.TensorSpec([None], fg.string)])
    assert first(fg.constant(["q", "r", "s"])).numpy() == b"q"
