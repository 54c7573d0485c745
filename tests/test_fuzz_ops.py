"""Property-based tests of the ops: random shapes, dtypes, values, zeros and kinks.

Hypothesis draws the inputs; `fuzz_settings` holds the profiles. In CI (the default profile
``ci``) each test tries a small fixed number of examples; by hand,
``HYPOTHESIS_PROFILE=long python3 -m pytest tests/test_fuzz_ops.py`` tries many more, at
random. What is checked:

- elementwise ops on random shapes (0-d, empty, broadcasting pairs) and dtypes give NumPy's
  values, shape and dtype; their gradients match finite differences (float64) and are
  zeros shaped like the input on empty tensors;
- every row of the op table (tests/op_specs.py), at random points of its domain, passes
  `finegrad.testing.check_gradients`;
- at exact zeros and ties the gradients are the documented subgradients, in both modes;
- random calls with random (often invalid) shapes, axes, perms and dtypes either give
  NumPy's answer or raise TypeError/ValueError/IndexError naming the ``finegrad.`` function.
"""
import zlib

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import fuzz_settings  # noqa: F401 - registers and loads the hypothesis profile
import finegrad as fg
from finegrad.testing import check_gradients
from op_specs import SPECS

ERRORS = (TypeError, ValueError, IndexError)

# ---- strategies ------------------------------------------------------------------------------

dims = st.integers(0, 3)
shapes = st.lists(dims, min_size=0, max_size=3).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)
float_dtypes = st.sampled_from([np.float32, np.float64])
seeds = st.integers(0, 2 ** 32 - 1)


@st.composite
def broadcast_pairs(draw, nonempty=False):
    """Two shapes that broadcast together (each axis of one is the other's or 1, or absent)."""
    base = draw(nonempty_shapes if nonempty else shapes)
    def part(s):
        s = tuple(1 if draw(st.booleans()) and not draw(st.booleans()) else d for d in s)
        return s[draw(st.integers(0, len(s))):]
    return part(base), part(base)


def _values(rng, shape, lo, hi, dtype, zeros=False):
    x = rng.uniform(lo, hi, size=shape)
    if zeros and x.size:
        x[rng.random(shape) < 0.3] = 0.0
    return np.asarray(x, dtype)


# ---- elementwise ops against NumPy -----------------------------------------------------------

# (finegrad op, NumPy reference, input range): ranges keep each op inside its real domain
UNARY = [
    (fg.exp, np.exp, (-3, 3)), (fg.math.expm1, np.expm1, (-3, 3)),
    (fg.math.log, np.log, (0.2, 3)), (fg.math.log1p, np.log1p, (-0.5, 3)),
    (fg.sqrt, np.sqrt, (0.2, 3)), (fg.math.rsqrt, lambda x: 1 / np.sqrt(x), (0.2, 3)),
    (fg.sin, np.sin, (-3, 3)), (fg.cos, np.cos, (-3, 3)), (fg.tan, np.tan, (-1.2, 1.2)),
    (fg.tanh, np.tanh, (-3, 3)), (fg.math.sinh, np.sinh, (-3, 3)),
    (fg.math.cosh, np.cosh, (-3, 3)), (fg.math.asin, np.arcsin, (-0.9, 0.9)),
    (fg.math.acos, np.arccos, (-0.9, 0.9)), (fg.math.atan, np.arctan, (-3, 3)),
    (fg.sigmoid, lambda x: 1 / (1 + np.exp(-x)), (-5, 5)), (fg.square, np.square, (-3, 3)),
    (fg.negative, np.negative, (-3, 3)), (fg.abs, np.abs, (-3, 3)),
]
BINARY = [
    (fg.add, np.add, (-3, 3), (-3, 3)), (fg.subtract, np.subtract, (-3, 3), (-3, 3)),
    (fg.multiply, np.multiply, (-3, 3), (-3, 3)), (fg.divide, np.divide, (-3, 3), (0.5, 3)),
    (fg.maximum, np.maximum, (-3, 3), (-3, 3)), (fg.minimum, np.minimum, (-3, 3), (-3, 3)),
    (fg.pow, np.power, (0.5, 2), (-2, 2)),
]


def _tol(dtype):
    return dict(rtol=2e-6, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)


@given(op=st.sampled_from(UNARY), shape=shapes, dtype=float_dtypes, seed=seeds)
def test_unary_values_match_numpy(op, shape, dtype, seed):
    f, ref, (lo, hi) = op
    x = _values(np.random.default_rng(seed), shape, lo, hi, dtype)
    out = f(fg.constant(x))
    want = np.asarray(ref(x), dtype)
    assert out.shape == want.shape and out.numpy().dtype == want.dtype, f.__name__
    np.testing.assert_allclose(out.numpy(), want, **_tol(dtype), err_msg=f.__name__)


@given(op=st.sampled_from(BINARY), pair=broadcast_pairs(), dtype=float_dtypes, seed=seeds,
       scalar=st.sampled_from([None, 0, 1]))
def test_binary_values_match_numpy(op, pair, dtype, seed, scalar):
    """Broadcasting pairs of tensors, and a tensor with a Python number (which takes the
    tensor's dtype, as in TensorFlow)."""
    f, ref, (lo1, hi1), (lo2, hi2) = op
    rng = np.random.default_rng(seed)
    x, y = _values(rng, pair[0], lo1, hi1, dtype), _values(rng, pair[1], lo2, hi2, dtype)
    if scalar is None:
        out, want = f(fg.constant(x), fg.constant(y)), ref(x, y)
    else:   # a Python float in the second domain, on one side
        py = float(rng.uniform(lo2, hi2))
        out, want = f(fg.constant(x), py), ref(x, dtype(py))
    want = np.asarray(want, dtype)
    assert out.shape == want.shape and out.numpy().dtype == want.dtype, f.__name__
    np.testing.assert_allclose(out.numpy(), want, **_tol(dtype), err_msg=f.__name__)


@given(op=st.sampled_from(UNARY), shape=nonempty_shapes, seed=seeds)
def test_unary_gradients_match_finite_differences(op, shape, seed):
    f, _, (lo, hi) = op
    if f is fg.abs:
        lo = 0.2   # away from the kink (tested below)
    x = _values(np.random.default_rng(seed), shape, lo, hi, np.float64)
    check_gradients(f, [x], order=1, seed=seed % 1000)


@given(op=st.sampled_from(BINARY), pair=broadcast_pairs(nonempty=True), seed=seeds)
def test_binary_gradients_match_finite_differences(op, pair, seed):
    f, _, (lo1, hi1), (lo2, hi2) = op
    rng = np.random.default_rng(seed)
    x, y = _values(rng, pair[0], lo1, hi1, np.float64), _values(rng, pair[1], lo2, hi2, np.float64)
    if f in (fg.maximum, fg.minimum):
        assume(np.all(np.abs(np.subtract(x, y)) > 1e-3))   # ties are tested below
    check_gradients(f, [x, y], order=1, seed=seed % 1000)


@given(op=st.sampled_from(UNARY + [(f, r, a) for f, r, a, _ in BINARY]),
       shape=st.tuples(shapes, st.integers(0, 3)).map(lambda p: p[0][:p[1]] + (0,) + p[0][p[1]:]),
       dtype=float_dtypes)
def test_gradients_on_empty_tensors_are_empty_zeros(op, shape, dtype):
    f = op[0]
    x = fg.constant(np.zeros(shape, dtype))
    args = [x] if len(op) == 3 and op in UNARY else [x, x]
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(f(*args))
    g = tape.gradient(y, x)
    assert g.shape == shape and g.dtype == dtype, f.__name__
    assert float(y) == 0.0


# ---- complex inputs ----------------------------------------------------------------------------

COMPLEX_UNARY = [(f, ref, dom) for f, ref, dom in UNARY
                 if f not in (fg.math.asin, fg.math.acos, fg.math.atan)]


@given(op=st.sampled_from(COMPLEX_UNARY), shape=shapes, seed=seeds,
       dtype=st.sampled_from([np.complex64, np.complex128]))
def test_complex_values_match_numpy(op, shape, dtype, seed):
    f, ref, (lo, hi) = op
    rng = np.random.default_rng(seed)
    z = np.asarray(rng.uniform(lo, hi, shape) + 1j * rng.uniform(-1, 1, shape), dtype)
    out = f(fg.constant(z))
    want = ref(z)
    assert out.shape == want.shape and out.numpy().dtype == want.dtype, f.__name__
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5 if dtype == np.complex64 else 1e-12,
                               atol=1e-6 if dtype == np.complex64 else 1e-12, err_msg=f.__name__)


# (op, real-part range per argument); abs away from its kink at 0
COMPLEX_GRAD = ([(f, [(0.2, hi) if f is fg.abs else (lo, hi)]) for f, _, (lo, hi) in COMPLEX_UNARY]
                + [(f, [d1, d2]) for f, _, d1, d2 in BINARY if f not in (fg.maximum, fg.minimum)])


@given(op=st.sampled_from(COMPLEX_GRAD), shape=nonempty_shapes, seed=seeds)
def test_complex_gradients_match_finite_differences(op, shape, seed):
    """TensorFlow's convention, checked by check_gradients' complex mode."""
    f, domains = op
    rng = np.random.default_rng(seed)
    args = [rng.uniform(lo, hi, shape) + 1j * rng.uniform(-1, 1, shape) for lo, hi in domains]
    check_gradients(f, args, order=1, seed=seed % 1000)


# ---- the op table at random points ----------------------------------------------------------

CASES = [(spec, shapes_) for spec in SPECS for shapes_ in spec.cases()]


@given(case=st.sampled_from(CASES), seed=seeds)
def test_op_table_at_random_points(case, seed):
    spec, shapes_ = case
    args = spec.make_args(shapes_, seed=seed)

    def f(*xs):
        return spec(*xs)
    f.__qualname__ = f"{spec.label}@seed={seed}"
    check_gradients(f, args, order=1, seed=zlib.crc32(spec.label.encode()) + seed % 1000)


# ---- zeros and kinks: the documented subgradients --------------------------------------------

def _rev_and_fwd(f, xs):
    xs = [fg.constant(x) for x in xs]
    rev = fg.grad(lambda *a: fg.reduce_sum(f(*a)), argnums=tuple(range(len(xs))))(*xs)
    fwd = [fg.jvp(f, xs, [fg.ones_like(x) if j == i else fg.zeros_like(x)
                          for j, x in enumerate(xs)])[1].numpy() for i in range(len(xs))]
    return [g.numpy() for g in rev], fwd


@given(shape=nonempty_shapes, seed=seeds)
def test_abs_and_relu_at_zeros(shape, seed):
    """abs and relu take subgradient 0 at exactly 0 (TensorFlow's choices)."""
    x = _values(np.random.default_rng(seed), shape, -2, 2, np.float64, zeros=True)
    for f, want in ((fg.abs, np.sign(x)), (fg.nn.relu, (x > 0).astype(np.float64))):
        rev, fwd = _rev_and_fwd(f, [x])
        np.testing.assert_array_equal(rev[0], want, err_msg=f.__name__)
        np.testing.assert_array_equal(fwd[0], want, err_msg=f.__name__)


@given(shape=nonempty_shapes, seed=seeds)
def test_maximum_minimum_ties(shape, seed):
    """Ties send the whole gradient to the first argument, in both modes."""
    rng = np.random.default_rng(seed)
    x = np.round(_values(rng, shape, -2, 2, np.float64))
    y = np.round(_values(rng, shape, -2, 2, np.float64))    # integers: many ties
    for f, first in ((fg.maximum, x >= y), (fg.minimum, x <= y)):
        rev, fwd = _rev_and_fwd(f, [x, y])
        first = first.astype(np.float64)
        for got in (rev, fwd):
            np.testing.assert_array_equal(got[0], first, err_msg=f.__name__)
            np.testing.assert_array_equal(got[1], 1 - first, err_msg=f.__name__)


@given(shape=nonempty_shapes, seed=seeds)
def test_reduce_prod_with_zeros_is_exact(shape, seed):
    """The gradient of a product is the product of the others, zeros included (no 0/0)."""
    x = _values(np.random.default_rng(seed), shape, -2, 2, np.float64, zeros=True)
    g = fg.grad(fg.reduce_prod)(fg.constant(x)).numpy()
    flat = x.ravel()
    want = [np.prod(np.delete(flat, i)) for i in range(flat.size)]
    np.testing.assert_allclose(g.ravel(), want, rtol=1e-12, atol=1e-300)


# silent wrong answers found by this suite: plain cases (no search) that keep them fixed

@pytest.mark.parametrize("n, seed", [(2, 0), (3, 1), (5, 7)])
def test_cumprod_with_zeros_is_exact(n, seed):
    x = _values(np.random.default_rng(seed), (n,), -2, 2, np.float64)
    x[seed % n] = 0.0
    g = fg.grad(lambda t: fg.reduce_sum(fg.math.cumprod(t)))(fg.constant(x)).numpy()
    want = [sum(np.prod(np.delete(x[:k + 1], i)) for k in range(i, n)) for i in range(n)]
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-300)


# ---- random (often invalid) calls: NumPy's answer or a clear error ---------------------------

def _check_or_clear_error(call, ref, *arrays):
    """``call(*tensors)`` equals ``ref()`` (NumPy), or raises a documented error naming
    finegrad; eagerly and inside a `finegrad.function` trace of ``call``."""
    try:
        want = ref()
    except Exception:   # NumPy refuses: finegrad must refuse clearly
        want = None
    for mode in ("eager", "traced"):
        fn = call if mode == "eager" else fg.function(call)
        try:
            got = fn(*[fg.constant(a) for a in arrays])
        except ERRORS as e:
            assert "finegrad." in str(e), f"{mode}: an error that names no function: {e!r}"
            continue
        assert want is not None, f"{mode}: finegrad accepted what NumPy refuses: {got!r}"
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, err_msg=mode)
        assert got.shape == np.shape(want), mode


axes = st.integers(-4, 4)


@given(shape=shapes, axis=st.one_of(st.none(), axes, st.lists(axes, max_size=3)),
       op=st.sampled_from([(fg.reduce_sum, np.sum), (fg.reduce_mean, np.mean),
                           (fg.reduce_max, np.max), (fg.reduce_min, np.min),
                           (fg.reduce_prod, np.prod)]),
       keepdims=st.booleans())
def test_reductions_random_axes(shape, axis, op, keepdims):
    f, ref = op
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7 - 1
    if isinstance(axis, list) and len(set(a % max(len(shape), 1) for a in axis)) != len(axis):
        axis = axis[:1]   # NumPy refuses repeated axes; that is tested elsewhere
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    if 0 in shape and f in (fg.reduce_mean, fg.reduce_max, fg.reduce_min):
        return   # empty reductions: TensorFlow's results (nan, -inf, inf) differ from NumPy's
    _check_or_clear_error(lambda t: f(t, axis=axis, keepdims=keepdims),
                          lambda: ref(x, axis=np_axis, keepdims=keepdims), x)


@given(shape=shapes, target=st.lists(st.integers(-1, 6), max_size=4))
def test_reshape_random_targets(shape, target):
    x = np.zeros(shape, np.float32)
    assume(target.count(-1) <= 1)
    _check_or_clear_error(lambda t: fg.reshape(t, target), lambda: np.reshape(x, target), x)


@given(shape=shapes, data=st.data())
def test_transpose_random_perms(shape, data):
    """Perms of the right or wrong length, with repeated entries, each entry an axis."""
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    perm = data.draw(st.lists(st.integers(0, max(len(shape) - 1, 0)), max_size=4))
    _check_or_clear_error(lambda t: fg.transpose(t, perm), lambda: np.transpose(x, perm), x)


@pytest.mark.parametrize("shape, perm", [((3,), [1]), ((2, 3), [2, 1]), ((2, 3, 1), [0, 2, 4])])
def test_transpose_refuses_out_of_range_perms(shape, perm):
    with pytest.raises(ValueError, match=r"finegrad\.transpose"):
        fg.transpose(fg.zeros(shape), perm)


@st.composite
def basic_indices(draw, ndim):
    """A NumPy basic index: ints (in or out of range), slices with any step, newaxis, ...."""
    def one():
        return draw(st.one_of(
            st.integers(-4, 4),
            st.builds(slice, st.none() | st.integers(-4, 4), st.none() | st.integers(-4, 4),
                      st.none() | st.integers(-3, 3).filter(bool)),
            st.just(None)))
    items = [one() for _ in range(draw(st.integers(0, ndim + 1)))]
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    return tuple(items) if draw(st.booleans()) or len(items) != 1 else items[0]


@given(shape=shapes, data=st.data())
def test_getitem_values_and_gradients(shape, data):
    """Basic indexing gives NumPy's values or a clear error; its gradient puts the
    cotangent where the elements came from."""
    idx = data.draw(basic_indices(len(shape)))
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) + 1
    _check_or_clear_error(lambda t: t[idx], lambda: x[idx], x)
    try:
        want = x[idx]
    except (IndexError, ValueError, TypeError):
        return
    w = np.random.default_rng(0).uniform(size=np.shape(want))
    xt = fg.constant(x)
    with fg.GradientTape() as tape:
        tape.watch(xt)
        y = fg.reduce_sum(xt[idx] * w)
    g = np.zeros_like(x)
    g[idx] += w
    np.testing.assert_allclose(tape.gradient(y, xt).numpy(), g, rtol=1e-12)


@given(op=st.sampled_from(UNARY), shape=shapes, seed=seeds, imag=st.booleans())
def test_traced_values_and_gradients_match_eager(op, shape, seed, imag):
    """The same op in a `finegrad.function` graph: equal values and gradients (for real and,
    where the op takes them, complex inputs)."""
    f = op[0]
    x = _values(np.random.default_rng(seed), shape, *op[2], np.float64)
    if imag and op in COMPLEX_UNARY:
        x = x + 1j * _values(np.random.default_rng(seed + 1), shape, -1, 1, np.float64)
    x = fg.constant(x)

    def value_and_grad(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = fg.reduce_sum(f(x))
        return y, tape.gradient(y, x)
    for got, want in zip(fg.function(value_and_grad)(x), value_and_grad(x), strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


@given(a=shapes, b=shapes, op=st.sampled_from([(fg.add, np.add), (fg.multiply, np.multiply),
                                                (fg.maximum, np.maximum)]))
def test_binary_random_shapes(a, b, op):
    x, y = np.ones(a, np.float32), np.full(b, 2.0, np.float32)
    _check_or_clear_error(op[0], lambda: op[1](x, y), x, y)


@given(a=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple),
       b=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))
def test_matmul_random_shapes(a, b):
    x, y = np.ones(a, np.float32), np.ones(b, np.float32)
    _check_or_clear_error(fg.matmul, lambda: np.matmul(x, y), x, y)


@given(a=shapes, b=shapes, axis=axes)
def test_concat_random_shapes(a, b, axis):
    x, y = np.ones(a, np.float32), np.zeros(b, np.float32)
    assume(len(a) > 0 or len(b) > 0)
    _check_or_clear_error(lambda t, u: fg.concat([t, u], axis),
                          lambda: np.concatenate([x, y], axis), x, y)


@given(n=st.integers(1, 4), idx=st.lists(st.integers(0, 6), max_size=4))
def test_gather_random_indices(n, idx):
    """Indices in and out of range (negative ones: TensorFlow refuses, NumPy wraps)."""
    x = np.arange(n, dtype=np.float32)
    _check_or_clear_error(lambda t: fg.gather(t, idx), lambda: x[np.asarray(idx, np.intp)], x)


@given(d1=st.sampled_from([np.float32, np.float64, np.int32]),
       d2=st.sampled_from([np.float32, np.float64, np.int32]),
       op=st.sampled_from([fg.add, fg.multiply, fg.subtract, fg.maximum]))
def test_mixed_dtypes_are_a_type_error(d1, d2, op):
    """Two tensors of different dtypes are a TypeError naming the op (TensorFlow's rule)."""
    x, y = fg.constant(np.ones(2, d1)), fg.constant(np.ones(2, d2))
    if d1 == d2:
        assert op(x, y).dtype == d1
        return
    with pytest.raises(TypeError, match=rf"finegrad\.{op.__name__}"):
        op(x, y)


# (square takes integers as TensorFlow's does: tests/test_integer_activations.py)
FLOAT_ONLY = [op for op in UNARY[:-2] if op[0] is not fg.square]


@given(op=st.sampled_from(FLOAT_ONLY), dtype=st.sampled_from([np.int32, np.int64, np.bool_]))
def test_float_only_ops_refuse_integers(op, dtype):
    with pytest.raises(TypeError, match=r"finegrad\."):
        op[0](fg.constant(np.ones(2, dtype)))


def test_square_refuses_bools_as_tensorflow():
    with pytest.raises(TypeError, match=r"finegrad\.square"):
        fg.square(fg.constant([True, False]))


@pytest.mark.parametrize("x", [-3, 0, 5])
def test_integer_division_by_zero_is_an_error(x):
    with pytest.raises(ERRORS + (ArithmeticError,), match=r"finegrad\."):
        fg.math.floordiv(fg.constant([x]), fg.constant([0]))
