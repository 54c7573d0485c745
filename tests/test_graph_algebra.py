"""The algebraic rewrites of `graph/compile/algebra.py`: each happens where it should (seen in the
compiled source) and gives the values of the unrewritten ops run eagerly, to the bit (the
one exception, documented: a folded scalar factor where ``c1 * x`` is subnormal)."""
import numpy as np
import pytest

import finegrad as tf
from finegrad._src.graph.compile import jit
from test_graph_rewrite import rosenbrock_hvp

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -3e38, 1e300, -1.7e308, 2.5e-300]


def _data(dtype, n=64, seed=0):
    x = np.random.default_rng(seed).standard_normal(n) * 10
    x[:len(SPECIAL)] = SPECIAL
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def _bitwise(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def _same_as_eager(f, *xs):
    g = tf.function(f)
    got, want = g(*xs), f(*xs)
    for a, b in zip(tf.nest.flatten(got), tf.nest.flatten(want), strict=True):
        _bitwise(np.atleast_1d(a.numpy()), np.atleast_1d(b.numpy()))
    return g.get_concrete_function(*xs).compiled_source


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int32])
def test_commuted_operands_merge(dtype):
    """x * 2 and 2 * x (and y + x, x + y) are computed once."""
    def f(x, y):
        return x * 2 + y * (2 * x), (x + y) * (y + x)
    x = tf.constant(_data(np.float64).astype(dtype) if dtype != np.int32 else
                    np.arange(-5, 5, dtype=dtype))
    y = tf.constant(x.numpy()[::-1].copy())
    with np.errstate(all="ignore"):
        src = _same_as_eager(f, x, y)
    assert src.count("= multiply(") == 3 and src.count("= add(") == 2, src


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scalar_factors_fold_where_exact(dtype):
    """(x * 3) * 2 is x * 6 and (x * 0.5) * -4 is x * -2, to the bit on normal values,
    infinities, nan, signed zeros and values that overflow; two factors neither a power of
    two, or an outer factor below 1, are left."""
    x = tf.constant(_data(dtype))
    folded = {"(x * 3.) * 2.": lambda x: (x * 3.) * 2.,
              "-4. * (x * 0.5)": lambda x: -4. * (x * 0.5),
              "(x * 1e37) * 8.": lambda x: (x * 1e37) * 8.}
    for name, f in folded.items():
        with np.errstate(all="ignore"):
            src = _same_as_eager(f, x)
        assert src.count("= multiply(") == 1, (name, src)
    kept = {"(x * 3.) * 0.5": lambda x: (x * 3.) * 0.5,
            "(x * 3.) * 5.": lambda x: (x * 3.) * 5.,
            "(x * 0.1) * 3.": lambda x: (x * 0.1) * 3.,
            "(x * 2.) * 0.3": lambda x: (x * 2.) * 0.3,
            "y = x * 3. read twice": lambda x: ((x * 3.) * 2., x * 3.)}
    for name, f in kept.items():
        with np.errstate(all="ignore"):
            src = _same_as_eager(f, x)
        assert src.count("= multiply(") == 2, (name, src)


def test_folded_factor_on_subnormals_is_rounded_once():
    """Where c1 * x is subnormal the folded product is the exactly rounded one: within one
    subnormal step times |c2| of the twice-rounded product eager computes."""
    x = np.array([3e-309, -7.1e-310, 1e-320, 2.2e-308])
    g = tf.function(lambda x: (x * 3.) * 2.)
    got = g(tf.constant(x)).numpy()
    np.testing.assert_array_equal(got, x * 6.)
    np.testing.assert_allclose(got, (x * 3.) * 2., rtol=0, atol=2 * 5e-324)


def test_traced_hessian_vector_product_passes(monkeypatch):
    """The Rosenbrock HVP (bench g4): 12 elementwise passes (16 before these rewrites, with
    2x computed twice and -200 x then * 2), two slices read in place; the eager values.
    (NumPy's ufuncs: with numba installed, the chain is compiled instead, tests/test_jit.py.)"""
    monkeypatch.setattr(jit, "enabled", lambda: False)
    rng = np.random.default_rng(4)
    x, v = (tf.constant(rng.standard_normal(10 ** 5)) for _ in range(2))
    src = _same_as_eager(rosenbrock_hvp, x, v)
    ops = ("square(", "multiply(", "subtract(", "add(")
    assert sum(src.count(f"= {op}") for op in ops) == 12, src
    assert src.count("= strided_slice_view(") == 2 and src.count("= strided_slice_copy(") == 2


def test_identities_are_dropped_and_x_plus_zero_kept():
    """x * 1, 1 * x, x / 1, x - 0 and x + (-0) are x to the bit; x + 0 is not (-0 + 0 is
    +0) and stays, as does a product with ones that broadcasts x to a larger shape."""
    x = tf.constant(_data(np.float32))
    ones = tf.ones((3, 64))

    def f(x):
        return ((x * 1.) * 2. - 0.) / 1. + (-0.), 1. * x, x + 0., x * ones, \
            tf.cast(x, tf.int32) * 1, x * 0., x * -0., x - -0., x / -1.
    src = _same_as_eager(f, x)
    # x * 2., x * ones, the integer product, x * 0. and x * -0. are left
    assert src.count("= multiply(") == 5 and src.count("= add(") == 1, src
    assert src.count("= subtract(") == 1 and src.count("= divide(") == 1, src
