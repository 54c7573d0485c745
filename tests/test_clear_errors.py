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
