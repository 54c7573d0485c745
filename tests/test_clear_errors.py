"""Inputs TensorFlow accepts, accepted; and errors that name the public function and say
what was expected (issue 22, after its fourteen causes)."""
import numpy as np
import pytest

import finegrad as fg
from finegrad import ops
from finegrad.errors import InvalidArgumentError


# --- accepted as TensorFlow accepts them --------------------------------------------------

def test_linspace_with_integer_bounds_is_float64_as_tensorflow():
    y = fg.linspace(-2, 2, 201)   # TensorFlow's own training-loop guide
    assert y.dtype == fg.float64 and y.shape == (201,)
    np.testing.assert_allclose(y.numpy(), np.linspace(-2., 2., 201))
    assert fg.linspace(fg.constant(0), fg.constant(4), 3).numpy().tolist() == [0., 2., 4.]
    assert fg.linspace(0., 1, 3).dtype == fg.float32   # a number beside a float32 start
    with pytest.raises(TypeError, match="finegrad.linspace: start must be floating"):
        fg.linspace(0, 1., 3)   # TensorFlow refuses this one too


def test_linspace_integer_bounds_traced():
    f = fg.function(lambda n: fg.linspace(0, 10, n))
    assert f(fg.constant(3)).numpy().tolist() == [0., 5., 10.]
    assert f(fg.constant(6)).numpy().tolist() == [0., 2., 4., 6., 8., 10.]


def test_constant_of_a_range():
    assert fg.constant(range(3)).numpy().tolist() == [0, 1, 2]
    assert fg.constant(range(3)).dtype == fg.int32
    assert fg.constant(range(1, 4), fg.float32).numpy().tolist() == [1., 2., 3.]
    assert fg.convert_to_tensor(range(2)).shape == (2,)


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    assert tf.linspace(-2, 2, 5).dtype.name == fg.linspace(-2, 2, 5).dtype.name
    np.testing.assert_array_equal(tf.constant(range(3)).numpy(), fg.constant(range(3)).numpy())


# --- clear errors ---------------------------------------------------------------------------

def test_inverse_of_a_singular_matrix():
    with pytest.raises(InvalidArgumentError, match=r"finegrad.inv: the input is not "
                                                   r"invertible \(Singular matrix"):
        fg.linalg.inv(fg.constant([[1., 2.], [2., 4.]]))
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        fg.function(fg.linalg.inv)(fg.constant([[0., 0.], [0., 0.]]))


def test_errors_without_a_spurious_shapes_prefix():
    with pytest.raises(ValueError) as info:
        fg.pow(fg.constant(2), fg.constant(-1))
    assert "incompatible inputs" not in str(info.value)
    assert str(info.value).startswith("finegrad.pow: integers to negative integer powers")


def test_einsum_size_mismatch_names_the_subscript():
    with pytest.raises(ValueError, match=r"finegrad.einsum: subscript 'j' of 'ij,jk->ik' has "
                                         r"size 3 in operand 0 \(shape \(2, 3\)\) and size 4 in "
                                         r"operand 1 \(shape \(4, 5\)\)"):
        fg.einsum("ij,jk->ik", fg.ones([2, 3]), fg.ones([4, 5]))
    with pytest.raises(ValueError, match="subscript 'i'"):
        fg.einsum("ii->i", fg.ones([2, 3]))
    assert fg.einsum("...j,jk->...k", fg.ones([4, 2, 3]), fg.ones([3, 5])).shape == (4, 2, 5)


def test_hash_of_a_tensor_says_use_ref():
    x = fg.constant([1., 2.])
    for use in (hash, lambda t: {t: 1}, lambda t: {t}):
        with pytest.raises(TypeError, match=r"unhashable.*Instead, use tensor.ref\(\) as the "
                                            r"key"):
            use(x)
    refs = {x.ref(): "x"}
    assert refs[x.ref()] == "x" and x.ref().deref() is x
    assert fg.constant(1.).ref() != fg.constant(1.).ref()


def test_eye_of_a_negative_size():
    with pytest.raises(InvalidArgumentError, match="finegrad.eye: num_rows must be >= 0, "
                                                   "got -1"):
        fg.eye(-1)
    with pytest.raises(InvalidArgumentError, match="num_columns must be >= 0"):
        fg.eye(2, -3)


# --- JAX-named helpers: a scalar output, argnums within the arguments ------------------------

NON_SCALAR = r"the gradient is only defined for functions with a scalar output, and f " \
             r"returned shape \(2,\)"


@pytest.mark.parametrize("helper", ["grad", "value_and_grad"])
def test_gradient_of_a_non_scalar_output_raises(helper):
    x = fg.constant([1., 2.])
    with pytest.raises(TypeError, match=rf"finegrad.{helper}: " + NON_SCALAR):
        getattr(fg, helper)(lambda x: x * x)(x)
    with pytest.raises(TypeError, match=rf"finegrad.{helper}: differentiating with respect "
                                        r"to argnums=1 requires at least 2 positional"):
        getattr(fg, helper)(lambda x: fg.reduce_sum(x), argnums=1)(x)
    assert getattr(fg, helper)(lambda x: fg.reduce_sum(x * x))(x) is not None


def test_hessian_vector_product_of_a_non_scalar_output_raises():
    x = fg.constant([1., 2.])
    with pytest.raises(TypeError, match="finegrad.hessian_vector_product: " + NON_SCALAR):
        fg.hessian_vector_product(lambda x: x * x, x, x)


@pytest.mark.parametrize("backend", ["finegrad", "torch", "tensorflow", "jax"])
def test_ops_grad_of_a_non_scalar_output_raises_on_every_backend(backend):
    if backend != "finegrad":
        pytest.importorskip(backend)
    with ops.backend_scope(backend):
        x = ops.convert_to_tensor([1., 2.])
        with pytest.raises(TypeError, match="[Ss]calar"):
            ops.grad(lambda x: x * x)(x)
        with pytest.raises(TypeError, match=r"finegrad.ops.grad: differentiating with "
                                            r"respect to argnums=1"):
            ops.grad(lambda x: ops.sum(x), argnums=1)(x)
        np.testing.assert_allclose(np.asarray(ops.convert_to_numpy(
            ops.grad(lambda x: ops.sum(x * x))(x))), [2., 4.])


# --- NumPy float64 beside float32, as TensorFlow converts op by op --------------------------

def test_numpy_float64_beside_float32():
    t, a = fg.ones([2, 2]), np.ones((2, 2))
    assert (t + a).dtype == fg.float32 and fg.multiply(t, a).dtype == fg.float32
    assert fg.matmul(t, a).dtype == fg.float32    # b converted with a's dtype, as in TF
    with pytest.raises(InvalidArgumentError, match="finegrad.matmul: a is a NumPy float64 "
                                                   "array and b a float32 tensor"):
        fg.matmul(a, t)                           # TF: a float64, then a mismatch
    assert fg.matmul(a.astype(np.float32), t).dtype == fg.float32


def test_where_mismatch_names_where():
    with pytest.raises(ValueError, match=r"finegrad.where: condition, x and y must broadcast "
                                         r"together, got shapes \(2,\), \(3,\) and \(3,\)"):
        fg.where(fg.constant([True, False]), fg.ones([3]), fg.ones([3]))


@pytest.mark.parametrize("traced", [False, True])
def test_cond_with_a_non_scalar_predicate(traced):
    f = lambda p, x: fg.cond(p, lambda: x, lambda: -x)  # noqa: E731
    if traced:
        f = fg.function(f)
    with pytest.raises(InvalidArgumentError, match=r"finegrad.cond: pred must be a scalar "
                                                   r"\(shape \(\)\), got shape \(2,\)"):
        f(fg.constant([True, False]), fg.constant(1.))


def test_strings_where_numbers_are_expected():
    with pytest.raises(TypeError, match="finegrad.range: start must be a number.*got a string"):
        fg.range("3")
    with pytest.raises(TypeError, match="finegrad.matmul: not defined for string tensors, got "
                                        "a string"):
        fg.matmul("abc", fg.ones([2, 2]))
    with pytest.raises(TypeError, match="finegrad.sort: values must be a real numeric tensor, "
                                        "got a string"):
        fg.sort("abc")


def test_input_signature_accepts_keywords_and_lists():
    f = fg.function(lambda x, y: x * y, input_signature=[fg.TensorSpec([2]),
                                                         fg.TensorSpec([])])
    for call in (lambda: f(fg.constant([1., 2.]), fg.constant(3.)),
                 lambda: f(x=fg.constant([1., 2.]), y=3.),
                 lambda: f([1., 2.], y=fg.constant(3.)),
                 lambda: f([1, 2], 3)):
        assert call().numpy().tolist() == [3., 6.]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="unexpected keyword"):
        f([1., 2.], z=3.)


@pytest.mark.parametrize("mapper", ["map_fn", "vectorized_map"])
def test_ragged_outputs_of_a_map(mapper):
    fn = getattr(fg, mapper)
    with pytest.warns(UserWarning) if mapper == "vectorized_map" else _nothing():
        with pytest.raises(ValueError, match=rf"finegrad.{mapper}: fn returned outputs of "
                                             r"different shapes for different slices"):
            fn(lambda r: fg.range(fg.cast(r, fg.int32)), fg.constant([1., 2.]))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# --- transforms of nothing --------------------------------------------------------------------

@pytest.mark.parametrize("name, shape", [("fft", (0,)), ("ifft", (0,)), ("fft2d", (0, 3)),
                                         ("ifft2d", (2, 0))])
def test_complex_transforms_of_length_0_are_empty(name, shape):
    y = getattr(fg.signal, name)(fg.zeros(shape, fg.complex64))
    assert y.shape == shape and y.dtype == fg.complex64   # TensorFlow's


def test_rfft_of_length_0_is_empty_and_irfft_of_one_coefficient_is_clear():
    assert fg.signal.rfft(fg.zeros([2, 0])).shape == (2, 0)
    with pytest.raises(ValueError, match=r"finegrad.signal.irfft: the signal length would be "
                                         r"0.*n = 1 coefficients.*fft_length"):
        fg.signal.irfft(fg.constant([1 + 0j], fg.complex64))
    np.testing.assert_allclose(fg.signal.irfft(fg.constant([3 + 0j], fg.complex64),
                                               fft_length=[1]).numpy(), [3.])
