"""tf.random.split and fold_in (bit for bit against the installed TensorFlow), and the
tf.debugging names assert_integer, assert_rank_in, assert_same_float_dtype,
is_numeric_tensor and enable_check_numerics / disable_check_numerics."""
import threading

import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError


def _tf():
    return pytest.importorskip("tensorflow")


# --- random.split and random.fold_in -----------------------------------------------------------

SEEDS = [([1, 2], "int32"), ([0, 0], "int32"), ([-5, 2**31 - 1], "int32"),
         ([1, 2], "int64"), ([2**40, -3], "int64")]


@pytest.mark.parametrize("seed,dtype", SEEDS)
@pytest.mark.parametrize("num", [1, 2, 5])
def test_split_matches_tensorflow(seed, dtype, num):
    tf = _tf()
    got = fg.random.split(fg.constant(seed, getattr(fg, dtype)), num)
    want = tf.random.split(tf.constant(seed, getattr(tf, dtype)), num).numpy()
    assert got.dtype.name == dtype and got.shape == (num, 2)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("seed,dtype", SEEDS)
@pytest.mark.parametrize("data,data_dtype", [(3, "int32"), (-7, "int64"), (2**35, "int64")])
def test_fold_in_matches_tensorflow(seed, dtype, data, data_dtype):
    tf = _tf()
    got = fg.random.fold_in(fg.constant(seed, getattr(fg, dtype)),
                            fg.constant(data, getattr(fg, data_dtype)))
    want = tf.random.fold_in(tf.constant(seed, getattr(tf, dtype)),
                             tf.constant(data, getattr(tf, data_dtype))).numpy()
    assert got.dtype.name == data_dtype
    np.testing.assert_array_equal(got.numpy(), want)


def test_split_and_fold_in_traced_and_with_python_seeds():
    @fg.function
    def f(seed):
        return fg.random.split(seed, 3), fg.random.fold_in(seed, 4)
    for seed in ([1, 2], [9, -1]):
        s, r = f(fg.constant(seed))
        np.testing.assert_array_equal(s.numpy(), fg.random.split(seed, 3).numpy())
        np.testing.assert_array_equal(r.numpy(), fg.random.fold_in(seed, 4).numpy())
    assert fg.random.split([1, 2], fg.constant(2)).shape == (2, 2)
    # new seeds feed the stateless ops
    a = fg.random.stateless_normal([3], seed=fg.random.split([1, 2])[0])
    assert a.shape == (3,)


def test_split_and_fold_in_errors():
    with pytest.raises(ValueError, match="finegrad.random.split: seed must be an integer "
                                         "tensor of shape"):
        fg.random.split([1, 2, 3])
    with pytest.raises(ValueError, match="finegrad.random.split: seed must be int32 or int64"):
        fg.random.split(fg.constant([1, 2], fg.int16))
    with pytest.raises(ValueError, match="finegrad.random.split: num must be a positive"):
        fg.random.split([1, 2], 0)
    with pytest.raises(TypeError, match="finegrad.random.split"):
        fg.random.split([1, 2], 2.5)
    with pytest.raises(ValueError, match="finegrad.random.fold_in: data must be an int32 or "
                                         "int64 scalar, got float32"):
        fg.random.fold_in([1, 2], 1.5)
    with pytest.raises(ValueError, match="finegrad.random.fold_in: data must be"):
        fg.random.fold_in([1, 2], [1, 2])


# --- static dtype and rank checks ----------------------------------------------------------------

def test_assert_integer_and_rank_in_against_tensorflow():
    tf = _tf()
    for lib in (fg, tf):
        assert lib.debugging.assert_integer(lib.constant([1, 2])) is None
        assert lib.debugging.assert_rank_in(lib.constant([1.]), (1, 2)) is None
        with pytest.raises(TypeError):
            lib.debugging.assert_integer(lib.constant(1.))
        with pytest.raises(ValueError):
            lib.debugging.assert_rank_in(lib.constant([1.]), [0, 2])
    with pytest.raises(TypeError, match="assert_integer: expected x to be of an integer dtype, "
                                        "got float32"):
        fg.debugging.assert_integer(fg.constant(1.))
    with pytest.raises(ValueError, match=r"assert_rank_in: tensor must have rank in \(0, 2\); "
                                         r"received rank 1"):
        fg.debugging.assert_rank_in(fg.constant([1.]), [0, 2])
    with pytest.raises(TypeError, match="assert_rank_in: ranks must be a list or tuple"):
        fg.debugging.assert_rank_in(fg.constant([1.]), 1)


def test_static_checks_inside_function():
    @fg.function
    def f(x):
        fg.debugging.assert_integer(x)
        fg.debugging.assert_rank_in(x, [1])
        return x * 2
    np.testing.assert_array_equal(f(fg.constant([1, 2])).numpy(), [2, 4])
    with pytest.raises(TypeError, match="assert_integer"):
        f(fg.constant([1.]))


def test_assert_same_float_dtype_against_tensorflow():
    tf = _tf()
    cases = [(lambda L: ([L.constant(1.), None, L.constant([2.])],), "float32"),
             (lambda L: (None, None), "float32"),
             (lambda L: ([L.constant(1., L.float64)], L.float64), "float64"),
             (lambda L: ([], L.float16), "float16"),
             (lambda L: ([L.constant(1.), L.constant(1., L.float64)],), ValueError),
             (lambda L: ([L.constant(1)],), ValueError),
             (lambda L: ([L.constant(1.)], L.float64), ValueError),
             (lambda L: (None, L.int32), ValueError)]
    for make, want in cases:
        for lib in (fg, tf):
            if want is ValueError:
                with pytest.raises(ValueError):
                    lib.debugging.assert_same_float_dtype(*make(lib))
            else:
                assert lib.debugging.assert_same_float_dtype(*make(lib)).name == want
    with pytest.raises(ValueError, match="finegrad.debugging.assert_same_float_dtype: expected "
                                         "a floating point dtype, got int32"):
        fg.debugging.assert_same_float_dtype([fg.constant(1)])


def test_is_numeric_tensor_against_tensorflow():
    tf = _tf()
    for make in (lambda L: L.constant(1.), lambda L: L.constant(1, L.uint8),
                 lambda L: L.constant(True), lambda L: L.constant("s"),
                 lambda L: L.Variable(1.), lambda L: np.ones(2), lambda L: 3,
                 lambda L: L.constant(1 + 2j)):
        assert fg.debugging.is_numeric_tensor(make(fg)) == \
            tf.debugging.is_numeric_tensor(make(tf))


# --- check numerics ----------------------------------------------------------------------------

@pytest.fixture
def check_numerics():
    fg.debugging.enable_check_numerics()
    try:
        yield
    finally:
        fg.debugging.disable_check_numerics()


def test_check_numerics_raises_on_the_op_that_makes_a_nan_or_inf(check_numerics):
    with pytest.raises(InvalidArgumentError, match="op 'log'.*-Inf elements: 1"):
        fg.math.log(fg.constant([0., 1.]))
    with pytest.raises(InvalidArgumentError, match="NaN elements: 1"):
        fg.sqrt(fg.constant([-1., 4.], fg.float64))
    np.testing.assert_allclose(fg.math.log(fg.constant([1., 2.])).numpy(), np.log([1., 2.]))
    np.testing.assert_array_equal(fg.constant([1, 0]) // 1, [1, 0])   # integers: not checked
    fg.debugging.enable_check_numerics()   # again: no second check
    fg.debugging.disable_check_numerics()
    assert float(fg.math.log(fg.constant(0.))) == -np.inf


def test_check_numerics_in_functions_and_gradients(check_numerics):
    @fg.function
    def f(x):
        return fg.math.log(x)
    assert float(f(fg.constant(1.))) == 0.
    with pytest.raises(InvalidArgumentError, match="op 'log'"):
        f(fg.constant(0.))
    x = fg.constant(0.)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.sqrt(x + 1.) * 0.   # finite forward, finite gradient
    assert float(tape.gradient(y, x)) == 0.
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.sqrt(x)
    with pytest.raises(InvalidArgumentError):   # the gradient 0.5 / sqrt(0) is inf
        tape.gradient(y, x)


def test_check_numerics_matches_tensorflow_on_producing_ops():
    tf = _tf()
    tf.debugging.enable_check_numerics()
    try:
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.math.log(tf.constant([0., 1.]))
    finally:
        tf.debugging.disable_check_numerics()
    fg.debugging.enable_check_numerics()
    try:
        with pytest.raises(InvalidArgumentError):
            fg.math.log(fg.constant([0., 1.]))
    finally:
        fg.debugging.disable_check_numerics()


def test_check_numerics_is_per_thread(check_numerics):
    got = []
    t = threading.Thread(target=lambda: got.append(float(fg.math.log(fg.constant(0.)))))
    t.start()
    t.join()
    assert got == [-np.inf]
