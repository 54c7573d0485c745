"""Causes found by a round of hostile inputs (bad dtypes, empty shapes, nan/inf) compared
with TensorFlow 2.21 in eager, finegrad.function and TF1 graphs: each a test here."""
import numpy as np
import pytest

import finegrad as fg

v1 = fg.compat.v1


def test_a_failed_graph_block_does_not_leave_its_graph_recording():
    """An error while a TF1 graph's block was left (here: a string placeholder's ones_like,
    which crashed while the graph hid its tensors) left the graph as the current recorder,
    so every later eager op was recorded into it and `.numpy()` refused its results."""
    class Boom(Exception):
        pass

    g = fg.Graph()
    with pytest.raises(Boom), g.as_default():
        v1.placeholder(fg.float32, [2])
        raise Boom()
    assert fg.round(fg.constant([1.4, 2.6])).numpy().tolist() == [1., 3.]
    with pytest.raises(TypeError, match="ones_like: not defined for string tensors"), \
            fg.Graph().as_default():
        fg.ones_like(v1.placeholder(fg.string, ()))
    assert fg.round(fg.constant([1.4])).numpy().tolist() == [1.]
    assert fg.function(lambda x: x + 1)(fg.constant(1.)).numpy() == 2.


def test_leaving_a_graph_that_fails_still_restores_eager_mode(monkeypatch):
    g = fg.Graph()

    def broken_leave():
        raise RuntimeError("leave failed")
    monkeypatch.setattr(g._recorder, "leave", broken_leave)
    with pytest.raises(RuntimeError, match="leave failed"), g.as_default():
        fg.add(v1.placeholder(fg.float32, [2]), 1.)
    assert fg.round(fg.constant([2.6])).numpy().tolist() == [3.]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
def test_string_zeros_like_and_ones_like(traced):
    def run(f, x):
        return (fg.function(f) if traced else f)(fg.constant(x))
    r = run(fg.zeros_like, "ab")
    assert r.dtype == fg.string and r.numpy() == b""
    assert run(fg.zeros_like, ["a", "b"]).numpy().tolist() == [b"", b""]
    with pytest.raises(TypeError, match="finegrad.ones_like: not defined for string tensors"):
        run(fg.ones_like, "ab")


def test_tensorflow_agrees_on_strings():
    tf = pytest.importorskip("tensorflow")
    assert tf.zeros_like(tf.constant(["a", "b"])).numpy().tolist() == [b"", b""]
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        tf.ones_like(tf.constant("a"))


def test_cumulative_logsumexp_of_nan_is_nan_in_every_mode():
    # (TensorFlow 2.21 gives -inf for a nan input on an axis of size 1)
    x = np.array([[-3.19, np.nan, -2.02]])
    expected = [[-3.19, np.nan, -2.02]]
    np.testing.assert_array_equal(fg.math.cumulative_logsumexp(fg.constant(x)).numpy(), expected)
    with fg.Graph().as_default():
        p = v1.placeholder(fg.float64, x.shape)
        y = fg.math.cumulative_logsumexp(p)
        with v1.Session() as s:
            np.testing.assert_array_equal(s.run(y, {p: x}), expected)


def test_variables_are_unhashable_but_have_refs_as_in_tensorflow():
    v = fg.Variable([1., 2.])
    with pytest.raises(TypeError, match=r"Variable is unhashable.*use variable.ref\(\) as the "
                                        r"key"):
        hash(v)
    with pytest.raises(TypeError, match="Variable is unhashable"):
        {v: 1}.get(v)
    refs = {v.ref(): "v"}
    assert refs[v.ref()] == "v" and v.ref().deref() is v
    assert fg.Variable(1.).ref() != v.ref()
    with fg.Graph().as_default():   # TF1 graphs key feeds and collections by identity
        w = fg.Variable(1.)
        assert {w: 1}[w] == 1


def test_tensorflow_variables_are_unhashable_too():
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(TypeError, match="Variable is unhashable"):
        hash(tf.Variable(1.))


# --- silent wrong values found by the round (TensorFlow 2.21's values, recorded) ------------

X = np.array([[1 + 2j, -3 + 0.5j, 2 - 1j], [0.5 - 0.5j, 4 + 1j, -1 - 2j]], np.complex64)
Y = np.array([2 - 1j, 1 + 1j, -0.5 + 3j], np.complex64)
COMPLEX_CASES = {   # name: (finegrad call, TensorFlow 2.21's dtype and value)
    "reduce_variance": (lambda m, x: m.math.reduce_variance(x), ("float32", 6.6181)),
    "reduce_variance(axis=1)": (lambda m, x: m.math.reduce_variance(x, axis=1),
                                ("float32", [6.1667, 5.8889])),
    "reduce_std(axis=0)": (lambda m, x: m.math.reduce_std(x, axis=0),
                           ("float32", [1.2748, 3.5089, 1.5811])),
    "reduce_euclidean_norm(axis=1)": (lambda m, x: m.math.reduce_euclidean_norm(x, axis=1),
                                      ("complex64", [4.3875, 4.7434])),
    "squared_difference": (lambda m, x: m.math.squared_difference(x, Y),
                           ("complex64", [[10, 16.25, 22.25], [2.5, 9, 25.25]])),
    "moments variance": (lambda m, x: m.nn.moments(x, [0])[1],
                         ("complex64", [1.625, 12.3125, 2.5])),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_CASES))
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
def test_complex_statistics_use_the_modulus(name, traced):
    """These computed (x - m)^2 instead of |x - m|^2 for complex x: a complex 'variance'."""
    f, (dtype, expected) = COMPLEX_CASES[name]
    run = fg.function(lambda x: f(fg, x)) if traced else (lambda x: f(fg, x))
    r = run(fg.constant(X))
    assert r.dtype.name == dtype
    np.testing.assert_allclose(r.numpy(), expected, rtol=1e-4)


def test_complex_statistics_match_tensorflow_live():
    tf = pytest.importorskip("tensorflow")
    for name, (f, _) in COMPLEX_CASES.items():
        ours, theirs = f(fg, fg.constant(X)), f(tf, tf.constant(X))
        assert ours.dtype.name == theirs.dtype.name, name
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, err_msg=name)


INT_MEANS = [(np.array([[0, 0, 1], [3, -5, -7]], np.int8), -1),   # -8 / 6 toward zero
             (np.full((2, 3), 100, np.int8), 100),                 # no int8 wrap-around
             (np.array([-1, -2, -4], np.int32), -2), (np.array([250, 250], np.uint8), 250),
             (np.array([-7, 0], np.int64), -3)]


@pytest.mark.parametrize("x, expected", INT_MEANS, ids=str)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
def test_integer_mean_rounds_toward_zero_without_overflow(x, expected, traced):
    f = fg.function(fg.reduce_mean) if traced else fg.reduce_mean
    r = f(fg.constant(x))
    assert r.dtype.as_numpy_dtype == x.dtype and int(r.numpy()) == expected


def test_integer_mean_under_none_dims():
    f = fg.function(fg.reduce_mean, input_signature=[fg.TensorSpec([None], fg.int32)])
    assert int(f(fg.constant([-1, -2, -4]))) == -2 and int(f(fg.constant([-7, 0]))) == -3


def test_integer_mean_matches_tensorflow_live():
    tf = pytest.importorskip("tensorflow")
    for x, _ in INT_MEANS:
        assert int(fg.reduce_mean(fg.constant(x))) == int(tf.reduce_mean(tf.constant(x)))


def test_count_nonzero_of_strings_in_a_tf1_graph_counts_the_fed_value():
    """It counted the placeholder's made-up (empty) strings: 0 whatever was fed."""
    x = np.array([b"ab", b"", b"c"] * 2, object).reshape(2, 3)
    assert int(fg.math.count_nonzero(fg.constant(x))) == 4
    with fg.Graph().as_default():
        p = v1.placeholder(fg.string, (2, 3))
        y = fg.math.count_nonzero(p, axis=0)
        with v1.Session() as s:
            assert s.run(y, {p: x}).tolist() == [2, 0, 2]


# (the operator ``*`` of bools is a logical and in TensorFlow too: tested with the bool reductions)
BOOL_ARITHMETIC = {"multiply": lambda a, b: fg.multiply(a, b), "divide": lambda a, b: a / b,
                   "floordiv": lambda a, b: a // b, "floormod": lambda a, b: a % b,
                   "pow": lambda a, b: a ** b}


@pytest.mark.parametrize("name", sorted(BOOL_ARITHMETIC))
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
def test_bool_arithmetic_is_refused_as_in_tensorflow(name, traced):
    """NumPy gave int8 for //, % and **, float64 with inf for /, a logical and for multiply."""
    f = BOOL_ARITHMETIC[name]
    run = fg.function(f) if traced else f
    with pytest.raises(TypeError, match=rf"finegrad\.{name}: not defined for bool tensors"):
        run(fg.constant([True, False]), fg.constant([True, True]))


@pytest.mark.parametrize("fn", ["reduce_variance", "reduce_std"])
def test_integer_variance_is_refused_as_in_tensorflow(fn):
    with pytest.raises(TypeError, match=rf"finegrad.math.{fn}: x must be real or complex"):
        getattr(fg.math, fn)(fg.constant([1, 2, 4]))


def test_bincount_of_a_huge_value_is_a_clear_out_of_memory_error():
    """A value of 2**31 - 1 made NumPy allocate 16 GiB (the fuzz process was killed)."""
    with pytest.raises(fg.errors.ResourceExhaustedError,
                       match="finegrad.bincount: the counts would have 2147483648 entries"):
        fg.math.bincount(fg.constant([2 ** 31 - 1, 3]))
    assert fg.math.bincount(fg.constant([2 ** 31 - 1, 3]), maxlength=5).numpy().tolist() == \
        [0, 0, 0, 1, 0]
