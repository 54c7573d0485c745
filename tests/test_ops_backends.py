"""finegrad.ops on its four backends: the same user code, checked against finegrad's own
engine and finite differences. A backend whose framework is not installed is skipped."""
import numpy as np
import pytest

from finegrad import ops

BACKENDS = ["finegrad", "jax", "torch", "tensorflow"]


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param != "finegrad":
        pytest.importorskip(request.param, reason=f"{request.param} is not installed "
                                                  f"(pip install finegrad[{request.param}])")
    with ops.backend_scope(request.param):
        yield request.param


def native_value_and_grad(name, f, *args):
    """The value of ``f`` and its gradient in its first argument, by the framework's own API."""
    if name == "jax":
        import jax
        return jax.value_and_grad(f)(*args)
    if name == "torch":
        import torch
        args = [a.detach().requires_grad_(True) for a in args]
        y = f(*args)
        return y, torch.autograd.grad(y, args[0])[0]
    if name == "tensorflow":
        import tensorflow as tf
        with tf.GradientTape() as tape:
            tape.watch(args[0])
            y = f(*args)
        return y, tape.gradient(y, args[0])
    import finegrad as fg
    with fg.GradientTape() as tape:
        tape.watch(args[0])
        y = f(*args)
    return y, tape.gradient(y, args[0])


def compiled(name, fn):
    """``fn`` under the backend's compiler (jax.jit, tf.function, finegrad.function)."""
    if name == "jax":
        import jax
        return jax.jit(fn)
    if name == "tensorflow":
        import tensorflow as tf
        return tf.function(fn)
    if name == "finegrad":
        import finegrad as fg
        return fg.function(fn)
    return fn


def is_native(name, x):
    root = {"finegrad": "finegrad", "jax": "jax", "torch": "torch",
            "tensorflow": "tensorflow"}[name]
    return type(x).__module__.partition(".")[0] in ({root, "jaxlib"} if name == "jax" else {root})


# --- Keras 3's three documented examples, unchanged but for `from finegrad import ops` ------

def keras_both_forms():
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(*args, upstream=None):
            if upstream is None:
                (upstream,) = args
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))

        return ops.log(1 + e), grad
    return log1pexp


def keras_jax_tf_form():
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(upstream):
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))

        return ops.log(1 + e), grad
    return log1pexp


def keras_torch_form():
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(*args, upstream):
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))

        return ops.log(1 + e), grad
    return log1pexp


KERAS_EXAMPLES = [keras_both_forms, keras_jax_tf_form, keras_torch_form]


@pytest.mark.parametrize("example", KERAS_EXAMPLES, ids=lambda e: e.__name__)
def test_keras_examples_give_one_at_100(backend, example):
    log1pexp = example()
    x = ops.convert_to_tensor(100.)
    y, g = native_value_and_grad(backend, log1pexp, x)
    assert is_native(backend, y) and is_native(backend, g)
    assert ops.convert_to_numpy(g).dtype == np.float32
    assert ops.convert_to_numpy(g) == 1.0
    assert ops.convert_to_numpy(ops.grad(log1pexp)(x)) == 1.0


@pytest.mark.parametrize("example", KERAS_EXAMPLES, ids=lambda e: e.__name__)
def test_keras_examples_compiled(backend, example):
    if backend == "torch":
        pytest.skip("PyTorch runs eagerly (torch.compile is not part of the contract)")
    log1pexp = example()
    step = compiled(backend, lambda x: native_value_and_grad(backend, log1pexp, x)[1])
    g = step(ops.convert_to_tensor(100.))
    assert is_native(backend, g) and ops.convert_to_numpy(g) == 1.0


# --- several outputs and a dict input --------------------------------------------------------

def two_outputs():
    @ops.custom_gradient
    def f(d):
        a, b = d["a"], d["b"]
        ab = ops.multiply(a, b)

        def grad(d_prod, d_sum):
            # deliberately not the true gradient of `a` (2x), so the rule is seen to be used
            return {"a": ops.multiply(2.0, ops.add(ops.multiply(d_prod, b), d_sum)),
                    "b": ops.add(ops.multiply(d_prod, a), d_sum)}
        return (ab, ops.add(a, b)), grad
    return f


def loss_of_two_outputs(a, b):
    prod, total = two_outputs()({"a": a, "b": b})
    return ops.sum(ops.multiply(prod, prod)) + ops.sum(ops.sin(total))


def test_two_outputs_and_a_dict_input_same_gradients_everywhere(backend):
    a0, b0 = np.array([0.5, -1.0, 2.0], np.float32), np.array([1.5, 0.25, -0.75], np.float32)
    a, b = ops.convert_to_tensor(a0), ops.convert_to_tensor(b0)
    value, (ga, gb) = ops.value_and_grad(loss_of_two_outputs, argnums=(0, 1))(a, b)
    d_prod, d_sum = 2 * a0 * b0, np.cos(a0 + b0)
    np.testing.assert_allclose(ops.convert_to_numpy(ga), 2 * (d_prod * b0 + d_sum), rtol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(gb), d_prod * a0 + d_sum, rtol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(value),
                               np.sum((a0 * b0) ** 2) + np.sum(np.sin(a0 + b0)), rtol=1e-5)


def test_gradients_match_finegrad_and_finite_differences(backend):
    @ops.custom_gradient
    def softplus(x):
        def grad(dy):
            return ops.multiply(dy, ops.sigmoid(x))
        return ops.log1p(ops.exp(x)), grad

    # JAX computes in float32 unless x64 is enabled process-wide: check it in float32
    dtype, eps, rtol = ("float32", 1e-2, 1e-3) if backend == "jax" else ("float64", 1e-6, 1e-6)

    def loss(x):
        return ops.sum(ops.multiply(softplus(x), ops.convert_to_tensor([1., 2., 3.], dtype)))
    x0 = np.array([-1.0, 0.5, 2.0])
    g = ops.convert_to_numpy(ops.grad(loss)(ops.convert_to_tensor(x0, dtype)))
    with ops.backend_scope("finegrad"):
        g_fg = ops.convert_to_numpy(ops.grad(loss)(ops.convert_to_tensor(x0, dtype)))
    fd = []
    for i in range(3):
        e = np.zeros(3)
        e[i] = eps
        plus = ops.convert_to_numpy(loss(ops.convert_to_tensor(x0 + e, dtype)))
        minus = ops.convert_to_numpy(loss(ops.convert_to_tensor(x0 - e, dtype)))
        fd.append((plus - minus) / (2 * eps))
    np.testing.assert_allclose(g, g_fg, rtol=rtol * 1e-3)
    np.testing.assert_allclose(g, fd, rtol=rtol)


# --- finegrad's checks of what grad returns, on every backend -------------------------------

def test_wrong_number_of_gradients_names_the_function(backend):
    @ops.custom_gradient
    def doubled(x):
        return ops.multiply(x, 2.0), lambda dy: (dy, dy)
    with pytest.raises(ValueError, match=r"doubled returned 2 gradients for 1 inputs \(x\)"):
        ops.grad(doubled)(ops.convert_to_tensor(1.))


def test_wrong_shape_names_the_function_and_parameter(backend):
    @ops.custom_gradient
    def scaled(x, scale):
        def grad(dy):
            return ops.sum(dy), None
        return ops.multiply(x, scale), grad
    with pytest.raises(ValueError, match=r"gradient function of .*scaled returned a gradient "
                                         r"of shape \(\) for x, which has shape \(2,\)"):
        ops.grad(lambda x: ops.sum(scaled(x, 3.0)))(ops.convert_to_tensor([1., 2.]))


def test_wrong_dtype_names_the_function_and_parameter(backend):
    @ops.custom_gradient
    def ident(x):
        return ops.multiply(x, 1.0), lambda dy: ops.cast(dy, "float16")
    with pytest.raises(TypeError, match=r"ident returned a float16 gradient for x, which is "
                                        r"float32"):
        ops.grad(ident)(ops.convert_to_tensor(1.))


def test_grad_with_args_and_upstream_sees_the_arguments(backend):
    seen = []

    @ops.custom_gradient
    def scaled(x, y):
        def grad(*args, upstream):
            seen.append(len(args))
            return ops.multiply(upstream, args[1]), ops.multiply(upstream, args[0])
        return ops.multiply(x, y), grad
    g = ops.grad(scaled, argnums=(0, 1))(ops.convert_to_tensor(2.), ops.convert_to_tensor(5.))
    assert [float(ops.convert_to_numpy(t)) for t in g] == [5.0, 2.0] and seen == [2]


def test_one_gradient_per_leaf_of_a_nested_input(backend):
    @ops.custom_gradient
    def total(pair):
        return ops.add(pair[0], pair[1]), lambda dy: [ops.multiply(dy, 3.0), dy]
    g = ops.grad(lambda a, b: total([a, b]), argnums=(0, 1))(ops.convert_to_tensor(1.),
                                                            ops.convert_to_tensor(1.))
    assert [float(ops.convert_to_numpy(t)) for t in g] == [3.0, 1.0]


# --- the guide: its op table and its training loop -------------------------------------------

def test_one_training_loop_converges_on_every_backend(backend):
    log1pexp = keras_jax_tf_form()

    def loss(w, x, y):
        return ops.mean(log1pexp(ops.negative(ops.multiply(y, ops.matmul(x, w)))))
    x = ops.convert_to_tensor([[1., 2.], [2., -1.], [-1., -2.], [-2., 1.]])
    y = ops.convert_to_tensor([1., 1., -1., -1.])
    w = ops.zeros((2,))
    step = ops.value_and_grad(loss)
    for _ in range(50):
        value, g = step(w, x, y)
        w = ops.subtract(w, ops.multiply(0.5, g))
        if backend == "torch":
            w = w.detach()
    assert float(ops.convert_to_numpy(value)) < 0.05


X = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]], np.float32)
Y = np.array([[1.0, 2.0, 0.5], [-1.0, 0.5, 3.0]], np.float32)
POSITIVE = np.abs(X) + 0.5
CALLS = {
    "abs": lambda t: ops.abs(t(X)), "exp": lambda t: ops.exp(t(X)),
    "log": lambda t: ops.log(t(POSITIVE)), "log1p": lambda t: ops.log1p(t(POSITIVE)),
    "expm1": lambda t: ops.expm1(t(X)), "sqrt": lambda t: ops.sqrt(t(POSITIVE)),
    "square": lambda t: ops.square(t(X)), "sin": lambda t: ops.sin(t(X)),
    "cos": lambda t: ops.cos(t(X)), "tan": lambda t: ops.tan(t(X)),
    "tanh": lambda t: ops.tanh(t(X)), "sign": lambda t: ops.sign(t(X)),
    "negative": lambda t: ops.negative(t(X)), "floor": lambda t: ops.floor(t(X)),
    "sigmoid": lambda t: ops.sigmoid(t(X)), "softplus": lambda t: ops.softplus(t(X)),
    "relu": lambda t: ops.relu(t(X)), "stop_gradient": lambda t: ops.stop_gradient(t(X)),
    "add": lambda t: ops.add(1, t(X)), "subtract": lambda t: ops.subtract(t(X), t(Y)),
    "multiply": lambda t: ops.multiply(t(X), 2.0), "divide": lambda t: ops.divide(t(X), t(Y)),
    "power": lambda t: ops.power(t(POSITIVE), t(Y)), "maximum": lambda t: ops.maximum(t(X), t(Y)),
    "minimum": lambda t: ops.minimum(t(X), t(Y)), "equal": lambda t: ops.equal(t(X), t(X)),
    "not_equal": lambda t: ops.not_equal(t(X), t(Y)), "less": lambda t: ops.less(t(X), t(Y)),
    "less_equal": lambda t: ops.less_equal(t(X), t(Y)),
    "greater": lambda t: ops.greater(t(X), t(Y)),
    "greater_equal": lambda t: ops.greater_equal(t(X), t(Y)),
    "matmul": lambda t: ops.matmul(t(X), ops.transpose(t(Y))),
    "matmul_vector": lambda t: ops.matmul(t(X), t(Y[0])),
    "sum": lambda t: ops.sum(t(X), axis=1, keepdims=True), "sum_all": lambda t: ops.sum(t(X)),
    "mean": lambda t: ops.mean(t(X), axis=0), "max": lambda t: ops.max(t(X), axis=(0, 1)),
    "min": lambda t: ops.min(t(X), axis=1, keepdims=True), "prod": lambda t: ops.prod(t(X)),
    "prod_axis": lambda t: ops.prod(t(X), axis=1),
    "logsumexp": lambda t: ops.logsumexp(t(X), axis=-1),
    "einsum": lambda t: ops.einsum("ij,kj->ik", t(X), t(Y)),
    "reshape": lambda t: ops.reshape(t(X), (3, -1)), "transpose": lambda t: ops.transpose(t(X)),
    "expand_dims": lambda t: ops.expand_dims(t(X), 1),
    "squeeze": lambda t: ops.squeeze(ops.expand_dims(t(X), 0)),
    "concatenate": lambda t: ops.concatenate([t(X), t(Y)], axis=1),
    "stack": lambda t: ops.stack([t(X), t(Y)], axis=1),
    "where": lambda t: ops.where(ops.greater(t(X), 0.0), t(X), t(Y)),
    "clip": lambda t: ops.clip(t(X), -1.0, 1.0), "softmax": lambda t: ops.softmax(t(X)),
    "log_softmax": lambda t: ops.log_softmax(t(X), axis=0),
    "cast": lambda t: ops.cast(t(X), "int32"), "shape": lambda t: np.array(ops.shape(t(X))),
    "zeros": lambda t: ops.zeros((2, 3)), "ones": lambda t: ops.ones((2,), "int32"),
}


@pytest.mark.parametrize("op", sorted(CALLS))
def test_every_op_gives_finegrads_value(backend, op):
    got = ops.convert_to_numpy(CALLS[op](ops.convert_to_tensor))
    with ops.backend_scope("finegrad"):
        want = ops.convert_to_numpy(CALLS[op](ops.convert_to_tensor))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


def test_wrong_number_of_gradients_is_caught_when_compiled_too(backend):
    if backend == "torch":
        pytest.skip("PyTorch runs eagerly")

    @ops.custom_gradient
    def doubled(x):
        return ops.multiply(x, 2.0), lambda dy: (dy, dy)
    step = compiled(backend, lambda x: native_value_and_grad(backend, doubled, x)[1])
    with pytest.raises(ValueError, match=r"doubled returned 2 gradients for 1 inputs"):
        step(ops.convert_to_tensor(1.))
