"""The TensorFlow names of ops/math/counts_and_casts.py and finegrad.dtypes: values, gradients
and errors against the installed TensorFlow, and closed forms where it is absent."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

from compare_tf import value_and_grads


def _tf():
    return pytest.importorskip("tensorflow")


_F32 = np.float32
GRAD_CASES = {
    "realdiv": (lambda lib, x, y: lib.realdiv(x, y), [[1.5, -2.0, 3.0], [2.0, 0.5, -4.0]]),
    "realdiv(broadcast)": (lambda lib, x, y: lib.realdiv(x, y), [[[1.0, 2.0], [3.0, 4.0]],
                                                                [0.5, -2.0]]),
    "scalar_mul": (lambda lib, s, x: lib.scalar_mul(s, x), [3.0, [[1.0, -2.0], [0.5, 4.0]]]),
    "math.scalar_mul": (lambda lib, s, x: lib.math.scalar_mul(s, x), [-1.5, [1.0, 2.0]]),
    "nextafter": (lambda lib, x, y: lib.math.nextafter(x, y), [[1.0, 0.0, -2.0], [2.0, -1.0, 5.0]]),
    "nextafter(broadcast)": (lambda lib, x, y: lib.math.nextafter(x, y), [[1.0, 0.0], 0.5]),
    "saturate_cast(float16)": (lambda lib, x: lib.cast(lib.saturate_cast(x, lib.float16),
                                                       lib.float32), [[1e10, 3.0, -1e6, 0.25]]),
    "accumulate_n": (lambda lib, x, y: lib.math.accumulate_n([x, y, x]), [[1.0, 2.0], [3.0, 4.0]]),
    "unsorted_segment_sqrt_n": (lambda lib, x: lib.math.unsorted_segment_sqrt_n(
        x, [0, 2, 0, -1, 0], 4), [np.arange(10.0).reshape(5, 2) - 3]),
    "unsorted_segment_sqrt_n(2-D ids)": (lambda lib, x: lib.math.unsorted_segment_sqrt_n(
        x, [[1, 0], [1, 1]], 3), [np.arange(12.0).reshape(2, 2, 3) / 5]),
    "math.softsign": (lambda lib, x: lib.math.softsign(x), [[-2.0, 0.0, 0.5]]),
    "approx_max_k": (lambda lib, x: lib.math.approx_max_k(x, 2).values,
                     [[[3.0, 1.0, 4.0, 1.5, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]]]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_values_and_gradients_match_tensorflow(name):
    tf = _tf()
    fn, args = GRAD_CASES[name]
    args = [np.asarray(a, _F32) for a in args]
    got, want = value_and_grads(fg, fn, *args), value_and_grads(tf, fn, *args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=0)


def test_top_level_aliases_are_the_math_objects():
    assert fg.acos is fg.math.acos and fg.asin is fg.math.asin and fg.atan is fg.math.atan
    assert fg.math.scalar_mul is fg.scalar_mul
    np.testing.assert_allclose(fg.acos(fg.constant([0.5])).numpy(), np.arccos([0.5]), rtol=1e-6)


SATURATE_CASES = [
    ([1e10, -1e10, 3.7, -3.7], "float32", "int32"),
    ([1e10, -1e10, 3.7, 255.5, -0.5], "float32", "uint8"),
    ([1e10, -1e10, 2.5], "float64", "int16"),
    ([1e300, -1e300, 1.5], "float64", "float32"),
    ([1e10, -7.0], "float32", "float16"),
    ([300, -5, 7], "int32", "uint8"),
    ([2 ** 40, -2 ** 40, 3], "int64", "int32"),
    ([2 ** 40, -2 ** 40, 3], "int64", "float16"),
    ([70000, -3], "int32", "uint16"),
    ([1e10, -2.0], "float32", "complex64"),
    ([1.5 + 2j, 1e300 - 1e300j], "complex128", "float32"),
    ([1.5 + 2j, -3 - 4j], "complex64", "complex128"),
    ([1e300 + 1e300j, -1e300 + 2j, 1 - 2j], "complex128", "complex64"),
]


@pytest.mark.parametrize("values,src,dst", SATURATE_CASES)
def test_saturate_cast_matches_tensorflow(values, src, dst):
    tf = _tf()
    x = np.asarray(values, src)
    got = fg.saturate_cast(fg.constant(x), getattr(fg, dst))
    want = tf.saturate_cast(tf.constant(x), getattr(tf, dst))
    assert got.dtype.name == want.dtype.name
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert fg.dtypes.saturate_cast is fg.saturate_cast


def test_saturate_cast_where_tensorflows_clamp_overflows():
    # TensorFlow compares the bounds after rounding them into the input dtype; finegrad exactly
    big = np.float32(2.0 ** 63)   # the nearest float32 to int64's max is one past it
    got = fg.saturate_cast(fg.constant([np.inf, -np.inf, 1e30], fg.float32), fg.int64).numpy()
    np.testing.assert_array_equal(got, [int(np.nextafter(big, 0)), -2 ** 63,
                                        int(np.nextafter(big, 0))])
    got = fg.saturate_cast(fg.constant([2 ** 63 - 1, -5], fg.int64), fg.uint64).numpy()
    np.testing.assert_array_equal(got, np.array([2 ** 63 - 1, 0], np.uint64))
    got = fg.saturate_cast(fg.constant([2 ** 64 - 1], fg.uint64), fg.int64).numpy()
    np.testing.assert_array_equal(got, [2 ** 63 - 1])
    got = fg.saturate_cast(fg.constant([1e300 + 1e300j], fg.complex128), fg.complex64).numpy()
    big32 = np.finfo(np.float32).max
    assert got.dtype == np.complex64 and got[0] == complex(big32, big32)


def test_saturate_cast_bad_input():
    with pytest.raises(TypeError, match=r"finegrad\.saturate_cast: value must be numeric, "
                                        r"got bool"):
        fg.saturate_cast(fg.constant([True]), fg.float32)
    with pytest.raises(TypeError, match=r"finegrad\.saturate_cast: dtype must be numeric"):
        fg.saturate_cast(fg.constant([1.0]), fg.bool)


def test_truncatemod_matches_tensorflow():
    tf = _tf()
    for x, y, dt in (([7, -7, 7, -7], [3, 3, -3, -3], np.int32),
                     ([7, -7, 5], [3, 3, 5], np.int64),
                     ([7.5, -7.5, 2.0, -0.0], [2.0, 2.0, -3.0, 1.0], np.float32),
                     ([7.5, -7.5, np.inf, 1.0], [2.0, 0.0, 2.0, np.inf], np.float64)):
        x, y = np.asarray(x, dt), np.asarray(y, dt)
        got, want = fg.truncatemod(fg.constant(x), fg.constant(y)), tf.truncatemod(x, y)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))


def test_truncatemod_has_no_gradient_and_checks_its_input():
    x = fg.constant([7.0, -7.0])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.truncatemod(x, 3.0)
    assert tape.gradient(y, x) is None
    with pytest.raises(InvalidArgumentError, match=r"finegrad\.truncatemod: integer division"):
        fg.truncatemod(fg.constant([7]), 0)
    with pytest.raises(TypeError, match=r"finegrad\.truncatemod: expected integer or real"):
        fg.truncatemod(fg.constant([True]), fg.constant([True]))


def test_realdiv_and_nextafter_bad_input():
    with pytest.raises(TypeError, match=r"finegrad\.realdiv: x must be a floating or complex "
                                        r"tensor, got int32"):
        fg.realdiv(fg.constant([7]), fg.constant([2]))
    with pytest.raises(TypeError, match=r"finegrad\.realdiv: x and y must have one dtype"):
        fg.realdiv(fg.constant([1.0]), fg.constant([2.0], fg.float64))
    with pytest.raises(TypeError, match=r"finegrad\.math\.nextafter: x must be a floating "
                                        r"tensor, got int32"):
        fg.math.nextafter(fg.constant([1]), fg.constant([2]))
    with pytest.raises(TypeError, match=r"finegrad\.math\.nextafter: x must be float32"):
        fg.math.nextafter(fg.constant([1.0], fg.float16), fg.constant([2.0], fg.float16))
    np.testing.assert_array_equal(fg.realdiv(fg.constant([1.0, -1.0]), 0.0).numpy(),
                                  [np.inf, -np.inf])


def test_nextafter_values_float64():
    x, y = np.array([1.0, 0.0, np.inf, 3.0]), np.array([2.0, -1.0, 0.0, 3.0])
    np.testing.assert_array_equal(fg.math.nextafter(fg.constant(x), fg.constant(y)).numpy(),
                                  np.nextafter(x, y))


def test_scalar_mul_bad_input():
    with pytest.raises(ValueError, match=r"finegrad\.scalar_mul: scalar must be 0-D, got "
                                         r"shape \[2\]"):
        fg.scalar_mul(fg.constant([1.0, 2.0]), fg.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"finegrad\.scalar_mul: scalar must have x's dtype "
                                        r"float32, got float64"):
        fg.scalar_mul(fg.constant(2.0, fg.float64), fg.constant([1.0]))
    assert fg.scalar_mul(2, fg.constant([1, 2])).numpy().tolist() == [2, 4]


COUNT_CASES = [
    ([[0, 1, 0], [1, 1, 0]], {}),
    ([[0, 1, 0], [1, 1, 0]], dict(axis=0)),
    ([[0.0, 1e-30, 0.0], [1.0, -0.0, np.nan]], dict(axis=1, keepdims=True)),
    ([[True, False], [True, True]], dict(axis=[0, 1], dtype="int32")),
    ([[0, 2], [3, 0]], dict(axis=-1, dtype="float32")),
]


@pytest.mark.parametrize("value,kwargs", COUNT_CASES)
def test_count_nonzero_matches_tensorflow(value, kwargs):
    tf = _tf()
    got = fg.math.count_nonzero(fg.constant(value), **kwargs)
    want = tf.math.count_nonzero(tf.constant(value), **kwargs)
    assert got.dtype.name == want.dtype.name
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_count_nonzero_bad_input():
    with pytest.raises(ValueError, match=r"finegrad\.math\.count_nonzero: axis 5 is out of "
                                         r"range for a tensor of rank 1"):
        fg.math.count_nonzero(fg.constant([1, 2]), axis=5)
    with pytest.raises(TypeError, match=r"finegrad\.math\.count_nonzero: dtype must be a dtype"
                                        r" .* got 'foo'"):
        fg.math.count_nonzero(fg.constant([1, 2]), dtype="foo")
    with pytest.raises(TypeError, match=r"finegrad\.saturate_cast: dtype must be a dtype"):
        fg.saturate_cast(fg.constant([1.0]), "foo")


def test_count_nonzero_strings():
    assert int(fg.math.count_nonzero(fg.constant(["", "a", "  ", ""]))) == 2


@pytest.mark.parametrize("value", [[0, 1, 0, 2], [[0.0, 1.0]], [True, False, False], [1.0],
                                   np.zeros((2, 3), np.float64)])
def test_zero_fraction_matches_tensorflow(value):
    tf = _tf()
    got, want = fg.math.zero_fraction(fg.constant(value)), tf.math.zero_fraction(value)
    assert got.dtype == fg.float32 and fg.nn.zero_fraction is fg.math.zero_fraction
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-7)
    assert np.isnan(fg.math.zero_fraction(fg.zeros([0])).numpy())


@pytest.mark.parametrize("value", [[1, 2, 2], [1, 2, 3], [3, 2], [], [5], [[1, 2], [3, 4]],
                                   [[1, 2], [2, 4]], [1.0, np.nan], [-np.inf, 0.0, np.inf]])
def test_order_checks_match_tensorflow(value):
    tf = _tf()
    for name in ("is_non_decreasing", "is_strictly_increasing"):
        got = getattr(fg.math, name)(fg.constant(value, fg.float32))
        want = getattr(tf.math, name)(tf.constant(value, tf.float32))
        assert got.dtype == fg.bool and bool(got) == bool(want), (name, value)


def test_order_checks_bad_input():
    with pytest.raises(TypeError, match=r"finegrad\.math\.is_non_decreasing: x must be a real "
                                        r"numeric tensor, got bool"):
        fg.math.is_non_decreasing([True, False])
    with pytest.raises(TypeError, match=r"finegrad\.math\.is_strictly_increasing: .* got string"):
        fg.math.is_strictly_increasing(["a", "b"])


@pytest.mark.parametrize("perm,dtype", [([2, 0, 1], "int32"), ([3, 4, 0, 2, 1], "int64"),
                                        ([0], "int32"), ([], "int32")])
def test_invert_permutation_matches_tensorflow(perm, dtype):
    tf = _tf()
    got = fg.math.invert_permutation(fg.constant(perm, getattr(fg, dtype)))
    want = tf.math.invert_permutation(tf.constant(perm, getattr(tf, dtype)))
    assert got.dtype.name == want.dtype.name
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_invert_permutation_bad_input():
    with pytest.raises(InvalidArgumentError, match=r"finegrad\.math\.invert_permutation: x must "
                                                   r"be a permutation, got 0 repeated"):
        fg.math.invert_permutation([2, 0, 0])
    with pytest.raises(InvalidArgumentError, match=r"must hold values in \[0, 2\), got 5"):
        fg.math.invert_permutation([5, 0])
    with pytest.raises(InvalidArgumentError, match=r"x must be 1-D, got shape \[1, 2\]"):
        fg.math.invert_permutation([[1, 0]])
    with pytest.raises(TypeError, match=r"x must be int32 or int64, got float32"):
        fg.math.invert_permutation([1.0, 0.0])


def test_invert_permutation_traced():
    f = fg.function(fg.math.invert_permutation)
    np.testing.assert_array_equal(f(fg.constant([1, 2, 0])).numpy(), [2, 0, 1])


def test_accumulate_n_bad_input():
    a, b = fg.constant([1.0, 2.0]), fg.constant([3.0, 4.0, 5.0])
    with pytest.raises(ValueError, match=r"finegrad\.math\.accumulate_n: inputs must have one "
                                         r"shape"):
        fg.math.accumulate_n([a, b])
    with pytest.raises(ValueError, match=r"accumulate_n: shape is \[3\] but the inputs have "
                                         r"shape \[2\]"):
        fg.math.accumulate_n([a], shape=[3])
    with pytest.raises(TypeError, match=r"accumulate_n: tensor_dtype is float64 but the inputs "
                                        r"are float32"):
        fg.math.accumulate_n([a], tensor_dtype=fg.float64)
    with pytest.raises(TypeError, match=r"accumulate_n: inputs must have one dtype"):
        fg.math.accumulate_n([a, fg.constant([1.0, 2.0], fg.float64)])
    with pytest.raises(ValueError, match=r"accumulate_n: inputs must be a non-empty list"):
        fg.math.accumulate_n([])


def test_dtypes_module():
    tf = _tf()
    names = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
             "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "string", "half",
             "double")
    for n in names:
        assert getattr(fg.dtypes, n) is getattr(fg, n), n
        assert getattr(fg.dtypes, n).name == getattr(tf.dtypes, n).name, n
    assert fg.dtypes.DType is fg.DType and fg.dtypes.as_dtype is fg.as_dtype
    assert fg.dtypes.cast is fg.cast and fg.dtypes.complex is fg.complex
    assert fg.dtypes.as_dtype("float64") is fg.float64
    z = fg.dtypes.complex(fg.constant([1.0]), fg.constant([2.0]))
    assert z.dtype is fg.dtypes.complex64 and z.numpy()[0] == 1 + 2j
    with pytest.raises(TypeError, match=r"finegrad\.dtypes\.bfloat16: bfloat16 is not supported"):
        fg.dtypes.bfloat16   # noqa: B018
    assert not hasattr(fg.dtypes, "bfloat16")


NEW_NAMES = ("acos", "asin", "atan", "realdiv", "truncatemod", "scalar_mul", "saturate_cast",
             "dtypes.as_dtype", "dtypes.cast", "dtypes.saturate_cast", "dtypes.complex",
             "math.count_nonzero", "math.is_non_decreasing", "math.is_strictly_increasing",
             "math.invert_permutation", "math.zero_fraction", "nn.zero_fraction",
             "math.accumulate_n", "math.nextafter", "math.scalar_mul", "linalg.normalize",
             "linalg.cross", "linalg.set_diag", "linalg.tensor_diag", "linalg.tensor_diag_part",
             "linalg.matrix_rank", "math.in_top_k", "math.unsorted_segment_sqrt_n",
             "math.softsign", "math.approx_max_k", "math.approx_min_k",
             "linalg.tridiagonal_matmul")


@pytest.mark.parametrize("dotted", NEW_NAMES)
def test_parameter_names_are_tensorflows(dotted):
    import inspect
    tf = _tf()

    def resolve(module):
        for part in dotted.split("."):
            module = getattr(module, part)
        return module

    def names(fn):
        return tuple(p.name for p in inspect.signature(fn).parameters.values()
                     if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))

    want = names(resolve(tf))
    assert names(resolve(fg))[:len(want)] == want


_P = [[0.1, 0.5, 0.5, 0.2], [np.nan, 1.0, 2.0, 3.0], [1.0, np.inf, 0.0, 0.0],
      [0.3, 0.2, 0.1, 0.0], [-1.0, -1.0, -1.0, -1.0]]


@pytest.mark.parametrize("targets,k", [([1, 2, 0, 0, 3], 1), ([3, 1, 1, 1, 0], 2),
                                       ([2, 0, 2, 2, 1], 1), ([5, 1, 0, -1, 2], 1),
                                       ([1, 2, 0, 3, 3], 0), ([0, 3, 0, 3, 3], 4),
                                       ([2, 3, 0, 2, 0], 3)])
def test_in_top_k_matches_tensorflow(targets, k):
    tf = _tf()
    p = np.asarray(_P, np.float32)
    for dt in ("int32", "int64"):
        got = fg.math.in_top_k(fg.constant(targets, getattr(fg, dt)), fg.constant(p), k)
        want = tf.math.in_top_k(tf.constant(targets, getattr(tf, dt)), p, k)
        assert got.dtype == fg.bool
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_in_top_k_bad_input():
    p = fg.constant(np.asarray(_P, np.float32))
    with pytest.raises(TypeError, match=r"finegrad\.math\.in_top_k: predictions must be "
                                        r"float32, got float64"):
        fg.math.in_top_k([0] * 5, fg.cast(p, fg.float64), 1)
    with pytest.raises(TypeError, match=r"in_top_k: targets must be int32 or int64, got float32"):
        fg.math.in_top_k([0.0] * 5, p, 1)
    with pytest.raises(ValueError, match=r"in_top_k: predictions must be \[batch, classes\] "
                                         r"and targets \[batch\], got shapes \[5, 4\] and \[3\]"):
        fg.math.in_top_k([0, 1, 2], p, 1)


def test_unsorted_segment_sqrt_n_bad_input():
    with pytest.raises(TypeError, match=r"finegrad\.unsorted_segment_sqrt_n: data must be a "
                                        r"floating tensor, got int32"):
        fg.math.unsorted_segment_sqrt_n(fg.constant([1, 2]), [0, 1], 2)
    with pytest.raises(InvalidArgumentError, match=r"unsorted_segment_sqrt_n: segment_ids must "
                                                   r"be < num_segments \(2\), got 2"):
        fg.math.unsorted_segment_sqrt_n(fg.constant([1.0, 2.0]), [0, 2], 2)
    assert fg.math.softsign is fg.nn.softsign


@pytest.mark.parametrize("dtype", ["float16", "float32"])   # TensorFlow's kernel dtypes
def test_approx_max_k_matches_tensorflow(dtype):
    tf = _tf()
    x = np.array([[3, 1, 4, 1, 5, 9, 2, 6], [5, 3, 5, 8, 9, 7, 9, 3]], dtype)
    for k in (0, 1, 3, 8):
        got, want = fg.math.approx_max_k(fg.constant(x), k), tf.math.approx_max_k(x, k)
        np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
        np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
        assert got.indices.dtype == fg.int32 and got.values.dtype.name == dtype


def test_approx_k_other_axes_and_min_closed_forms():
    x = np.array([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0], [2.0, 6.0, 4.0], [1.0, 0.0, 4.0]])
    got = fg.math.approx_min_k(fg.constant(x), 2, reduction_dimension=0)
    order = np.argsort(x, axis=0, kind="stable")[:2]
    np.testing.assert_array_equal(got.indices.numpy(), order)
    np.testing.assert_array_equal(got.values.numpy(), np.take_along_axis(x, order, 0))
    got = fg.math.approx_max_k(fg.constant(x), 1, reduction_dimension=0)
    np.testing.assert_array_equal(got.indices.numpy(), [[0, 2, 1]])
    v = fg.constant(x)
    with fg.GradientTape() as tape:
        tape.watch(v)
        low = fg.math.approx_min_k(v, 2).values
    g = tape.gradient(low, v).numpy()
    want = np.zeros_like(x)
    np.put_along_axis(want, np.argsort(x, axis=1, kind="stable")[:, :2], 1.0, axis=1)
    np.testing.assert_array_equal(g, want)


def test_approx_k_bad_input():
    with pytest.raises(ValueError, match=r"finegrad\.math\.approx_max_k: k must be in \[0, 3\] "
                                         r".* got 4"):
        fg.math.approx_max_k(fg.constant([3.0, 1.0, 4.0]), 4)
    with pytest.raises(ValueError, match=r"approx_min_k: operand must have rank >= 1"):
        fg.math.approx_min_k(fg.constant(3.0), 1)
    with pytest.raises(TypeError, match=r"approx_min_k: operand must be a floating tensor, "
                                        r"got int32"):
        fg.math.approx_min_k(fg.constant([1, 2]), 1)
