"""The rules docs/backends.md's "Same rules on every backend" table states, on each backend:
a None gradient is zeros, float32 + float64 is float64 (Keras's promotion), an integer
argument of grad is a TypeError, value_and_grad of a non-scalar function is a TypeError."""
import numpy as np
import pytest

from finegrad import ops

BACKENDS = ["finegrad", "jax", "torch", "tensorflow"]


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param != "finegrad":
        pytest.importorskip(request.param)
    with ops.backend_scope(request.param):
        yield request.param


def test_a_none_gradient_from_a_rule_is_zeros(backend):
    @ops.custom_gradient
    def f(x, y):
        return ops.multiply(x, y), lambda dy: (None, dy)
    gx, gy = ops.grad(lambda x, y: ops.sum(f(x, y)), argnums=(0, 1))(
        ops.convert_to_tensor([1., 2.]), ops.convert_to_tensor([3., 4.]))
    np.testing.assert_array_equal(ops.convert_to_numpy(gx), [0., 0.])
    np.testing.assert_array_equal(ops.convert_to_numpy(gy), [1., 1.])
    assert ops.dtype(gx) == "float32"


def test_an_unused_argument_has_a_zero_gradient(backend):
    g = ops.grad(lambda x, y: ops.sum(x), argnums=1)(ops.convert_to_tensor([1.]),
                                                      ops.convert_to_tensor([2., 3.]))
    np.testing.assert_array_equal(ops.convert_to_numpy(g), [0., 0.])


def test_float32_plus_float64_is_float64(backend):
    want = "float32" if backend == "jax" and not _jax_x64() else "float64"
    x32 = ops.convert_to_tensor(np.ones(2, np.float32))
    x64 = np.ones(2, np.float64)
    assert ops.dtype(ops.add(x32, x64)) == want
    assert ops.dtype(ops.multiply(x64, x32)) == want
    assert ops.result_type("float32", "float64") == "float64"


def _jax_x64():
    import jax
    return bool(jax.config.read("jax_enable_x64"))


def test_int32_plus_float32_is_float32_and_comparisons_promote(backend):
    i = ops.convert_to_tensor(np.array([1, 2], np.int32))
    assert ops.dtype(ops.add(i, np.float32(1.5))) == "float32"
    np.testing.assert_array_equal(ops.convert_to_numpy(ops.add(i, 1.5)), [2.5, 3.5])
    np.testing.assert_array_equal(ops.convert_to_numpy(ops.equal(i, [1.5, 2.0])),
                                  [False, True])
    assert ops.dtype(ops.add(i, 1)) == "int32"


def test_the_gradient_of_an_integer_argument_is_a_type_error(backend):
    with pytest.raises(TypeError, match=rf"value_and_grad \({backend} backend\): argument 0 "
                                        rf"is int32; gradients are taken with respect to "
                                        rf"floating point"):
        ops.grad(lambda x: ops.sum(x))(ops.convert_to_tensor([1, 2]))


def test_value_and_grad_of_a_non_scalar_function_is_a_type_error(backend):
    with pytest.raises(TypeError, match=r"only defined for functions with a scalar output, "
                                        r"and f returned shape \(2,\)"):
        ops.value_and_grad(lambda x: ops.multiply(x, 2.))(ops.convert_to_tensor([1., 2.]))


def test_numpy_inputs_are_accepted_everywhere(backend):
    x = np.array([0.5, 1.5], np.float32)
    np.testing.assert_allclose(ops.convert_to_numpy(ops.exp(x)), np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(ops.add(x, x)), 2 * x)
    value, g = ops.value_and_grad(lambda v: ops.sum(ops.square(v)))(x)
    np.testing.assert_allclose(ops.convert_to_numpy(g), 2 * x)


def test_int8_products_accumulate_in_int32_as_keras(backend):
    # Keras 3: matmul and einsum of int8 tensors give int32 (no int8 overflow)
    a = np.full((2, 3), 100, np.int8)
    out = ops.matmul(a, a.T)
    assert ops.dtype(out) == "int32"
    np.testing.assert_array_equal(_np_value(out), np.full((2, 2), 30000))
    assert ops.dtype(ops.einsum("ij,kj->ik", a, a)) == "int32"


def _np_value(x):
    return np.asarray(ops.convert_to_numpy(x))


def test_keras_int8_dense_inputs_gradient_pattern(backend):
    # Keras's int8 Dense: the rule returns a gradient for the float inputs only (None for the
    # int8 kernel and the scale); the kernel is dequantized in the rule
    kernel = np.array([[1, -2], [3, 4], [-5, 6]], np.int8)
    scale = np.float32(0.5)

    @ops.custom_gradient
    def matmul_with_inputs_gradient(inputs, kernel, kernel_scale):
        def grad_fn(*args, upstream=None):
            if upstream is None:
                (upstream,) = args
            float_kernel = ops.divide(ops.cast(kernel, "float32"), kernel_scale)
            return ops.matmul(upstream, ops.transpose(float_kernel)), None, None
        x = ops.matmul(inputs, ops.cast(kernel, "float32"))
        return ops.divide(x, kernel_scale), grad_fn

    x = ops.convert_to_tensor(np.array([[0.5, -1.0, 2.0]], np.float32))
    g = ops.grad(lambda v: ops.sum(matmul_with_inputs_gradient(
        v, ops.convert_to_tensor(kernel), ops.convert_to_tensor(scale))))(x)
    np.testing.assert_allclose(_np_value(g), (kernel.astype(np.float32) / 0.5).sum(1)[None])
