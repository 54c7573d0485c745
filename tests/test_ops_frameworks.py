"""What each framework's own transformations do with finegrad.ops.custom_gradient: JAX's
jit, grad of grad and vmap; PyTorch's torch.func, second order, forward mode, several outputs;
TensorFlow's tf.function."""
import numpy as np
import pytest

from finegrad import ops
from test_ops_backends import keras_jax_tf_form as log1pexp_rule


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


@pytest.fixture
def jax():
    jax = pytest.importorskip("jax")
    with ops.backend_scope("jax"):
        yield jax


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    with ops.backend_scope("torch"):
        yield torch


def test_jax_grad_of_grad_jit_and_vmap(jax):
    f = log1pexp_rule()
    x = np.array([-2.0, 0.0, 1.5], np.float32)
    second = jax.vmap(jax.grad(jax.grad(f)))(x)
    np.testing.assert_allclose(second, _sigmoid(x) * (1 - _sigmoid(x)), rtol=1e-5)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(f)))(x), _sigmoid(x), rtol=1e-6)


def test_jax_the_rule_is_used_under_jit(jax):
    @ops.custom_gradient
    def fake(x):
        return ops.sin(x), lambda dy: ops.multiply(dy, 7.0)
    assert float(jax.jit(jax.grad(fake))(0.3)) == 7.0


def test_jax_forward_mode_is_jaxs_own_clear_error(jax):
    with pytest.raises(TypeError, match="custom_vjp"):
        jax.jvp(log1pexp_rule(), (1.0,), (1.0,))


def test_torch_func_grad_vmap_and_second_order(torch):
    f = log1pexp_rule()
    x = torch.tensor([-2.0, 0.0, 1.5])
    np.testing.assert_allclose(torch.func.vmap(torch.func.grad(f))(x), _sigmoid(x.numpy()),
                               rtol=1e-6)
    second = torch.func.vmap(torch.func.grad(torch.func.grad(f)))(x)
    s = _sigmoid(x.numpy())
    np.testing.assert_allclose(second, s * (1 - s), rtol=1e-5)
    xr = x.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(f(xr).sum(), xr, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), xr)
    np.testing.assert_allclose(gg, s * (1 - s), rtol=1e-5)


def test_torch_forward_mode_transposes_the_rule(torch):
    f = log1pexp_rule()
    _, tangent = torch.func.jvp(f, (torch.tensor(1.0),), (torch.tensor(2.0),))
    assert np.isclose(float(tangent), 2 * _sigmoid(1.0))
    import torch.autograd.forward_ad as fwd
    with fwd.dual_level():
        out = f(fwd.make_dual(torch.tensor(1.0), torch.tensor(3.0)))
        assert np.isclose(float(fwd.unpack_dual(out).tangent), 3 * _sigmoid(1.0))


def test_torch_several_outputs_and_nested_inputs(torch):
    @ops.custom_gradient
    def f(pair, scale):
        a, b = pair

        def grad(d_prod, d_diff):
            return (ops.multiply(d_prod, b) + d_diff, ops.multiply(d_prod, a) - d_diff), None
        return (ops.multiply(a, b) * scale, a - b), grad
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    prod, diff = f((a, b), 1.0)
    (prod.sum() + 2 * diff.sum()).backward()
    np.testing.assert_allclose(a.grad, [5.0, 6.0])
    np.testing.assert_allclose(b.grad, [-1.0, 0.0])


def test_tensorflow_inside_tf_function():
    tf = pytest.importorskip("tensorflow")
    with ops.backend_scope("tensorflow"):
        f = log1pexp_rule()

        @tf.function
        def second(x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            return g, outer.gradient(g, x)
        g, gg = second(tf.constant(1.5))
    assert np.isclose(float(g), _sigmoid(1.5))
    assert np.isclose(float(gg), _sigmoid(1.5) * (1 - _sigmoid(1.5)))


def test_tensorflow_function_given_the_rule_as_an_argument():
    tf = pytest.importorskip("tensorflow")
    with ops.backend_scope("tensorflow"):
        @tf.function
        def value_and_grad(x, f):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return y, tape.gradient(y, x)
        y, g = value_and_grad(tf.constant(3.), log1pexp_rule())
    assert np.isclose(float(y), np.log1p(np.exp(3.))) and np.isclose(float(g), _sigmoid(3.))


def test_torch_gradient_taken_after_the_scope_closed():
    torch = pytest.importorskip("torch")
    x = torch.tensor(100., requires_grad=True)
    with ops.backend_scope("torch"):
        y = log1pexp_rule()(x)
    y.backward()   # the rule's ops run on the torch backend, where it was called
    assert float(x.grad) == 1.0


def test_jax_opt_in_forward_mode_transposes_the_rule(jax):
    @ops.custom_gradient(forward="transpose")
    def log1pexp(x):
        e = ops.exp(x)

        def grad(upstream):
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))
        return ops.log(1 + e), grad
    _, tangent = jax.jvp(log1pexp, (1.0,), (2.0,))
    assert np.isclose(float(tangent), 2 * _sigmoid(1.0))
    assert float(jax.jit(jax.grad(log1pexp))(100.)) == 1.0   # reverse mode by transposing
    np.testing.assert_allclose(jax.jacfwd(log1pexp)(np.float32(0.5)), _sigmoid(0.5), rtol=1e-6)


def test_jax_opt_in_forward_mode_refuses_a_rule_that_is_not_linear(jax):
    @ops.custom_gradient(forward="transpose")
    def squared_rule(x):
        return ops.sin(x), lambda dy: ops.multiply(dy, dy)
    with pytest.raises(TypeError, match="linear in the upstream gradient"):
        jax.jvp(squared_rule, (1.0,), (1.0,))


def test_an_unknown_forward_option_is_a_value_error():
    with pytest.raises(ValueError, match="forward must be 'none' or 'transpose'"):
        ops.custom_gradient(lambda x: (x, None), forward="yes")


def _with_forward_rule():
    def forward_rule(primals, tangents):
        return ops.multiply(tangents[0], 5.0)   # deliberately not the true derivative

    @ops.custom_gradient(jvp=forward_rule)
    def f(x):
        return ops.sin(x), lambda dy: ops.multiply(dy, ops.cos(x))
    return f


def test_torch_uses_an_explicit_forward_rule(torch):
    _, tangent = torch.func.jvp(_with_forward_rule(), (torch.tensor(1.0),), (torch.tensor(2.0),))
    assert float(tangent) == 10.0


def test_finegrad_uses_an_explicit_forward_rule():
    import finegrad as fg
    x = fg.constant(1.0)
    with fg.autodiff.ForwardAccumulator(x, fg.constant(2.0)) as acc:
        y = _with_forward_rule()(x)
    assert float(acc.jvp(y).numpy()) == 10.0


@pytest.mark.parametrize("name", ["jax", "tensorflow"])
def test_an_explicit_forward_rule_where_the_backend_cannot_pair_it_is_an_error(name):
    pytest.importorskip(name)
    with ops.backend_scope(name):
        with pytest.raises(ValueError, match=f"{name} backend.*explicit jvp=.*finegrad or torch"):
            _with_forward_rule()(ops.convert_to_tensor(1.0))


@pytest.mark.parametrize("rule, why", [
    (lambda x: lambda dy: ops.add(ops.multiply(dy, ops.cos(x)), 1.0), "adds a term"),
    (lambda x: lambda dy: ops.cos(x), "does not depend on the upstream"),
    (lambda x: lambda dy: ops.multiply(dy, dy), "could not transpose")],
    ids=["affine", "ignores-upstream", "quadratic"])
def test_jax_opt_in_forward_mode_is_never_a_silent_wrong_tangent(jax, rule, why):
    @ops.custom_gradient(forward="transpose")
    def f(x):
        return ops.sin(x), rule(x)
    message = f"jax backend.*of .*f to be linear.*{why}.*forward='none'.*jvp="
    for run in (lambda: jax.jvp(f, (1.0,), (1.0,)), lambda: jax.grad(f)(1.0),
                lambda: jax.jit(lambda x: jax.jvp(f, (x,), (1.0,)))(1.0)):
        with pytest.raises(TypeError, match=message):
            run()


def test_jax_opt_in_forward_mode_accepts_zero_and_masked_terms(jax):
    @ops.custom_gradient(forward="transpose")
    def relu_and_const(x, c):
        def grad(dy):   # where() with a zero branch, and a zero gradient for c: linear
            return ops.where(ops.greater(x, 0.0), dy, 0.0), ops.multiply(dy, 0.0)
        return ops.relu(x) + c, grad
    _, tangent = jax.jvp(relu_and_const, (2.0, 1.0), (3.0, 5.0))
    assert float(tangent) == 3.0


@pytest.mark.parametrize("name", ["jax", "torch"])
def test_a_rule_with_variables_where_the_backend_has_none_is_a_clear_error(name):
    pytest.importorskip(name)

    @ops.custom_gradient
    def scale(x):
        return ops.multiply(x, 2.0), lambda dy, variables=None: (ops.multiply(dy, 2.0), [])
    with ops.backend_scope(name):
        with pytest.raises(TypeError, match=f"{name} backend.*scale has a `variables` "
                                            f"parameter.*argument of .*scale"):
            scale(ops.convert_to_tensor(3.0))


def test_tensorflow_rule_gives_gradients_to_the_variables_it_read():
    tf = pytest.importorskip("tensorflow")
    w = tf.Variable(2.0)

    @ops.custom_gradient
    def scale(x):
        def grad(dy, variables=None):   # deliberately 10x and 100x the true gradients
            return ops.multiply(dy, w * 10.0), [ops.multiply(dy, x * 100.0)]
        return ops.multiply(x, w), grad

    @ops.custom_gradient
    def no_variables_param(x):
        return ops.multiply(x, w), lambda dy: ops.multiply(dy, w)

    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = scale(x)
        return tape.gradient(y, [x, w])
    with ops.backend_scope("tensorflow"):
        x = tf.constant(3.0)
        for run in (step, tf.function(step)):
            assert [float(g) for g in run(x)] == [20.0, 300.0]
        with pytest.raises(TypeError, match="tensorflow backend.*no_variables_param reads the "
                                            "variables.*no `variables` parameter"):
            with tf.GradientTape() as tape:
                y = no_variables_param(x)
            tape.gradient(y, w)


def test_tf_function_erases_the_dispatch_layer():
    """Under tf.function the finegrad.ops form traces to the very graph of tf.custom_gradient:
    the same operations in the same order, so the dispatch costs nothing per call."""
    tf = pytest.importorskip("tensorflow")
    with ops.backend_scope("tensorflow"):
        mine = log1pexp_rule()

    @tf.custom_gradient
    def native(x):
        e = tf.exp(x)
        return tf.math.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))

    def graph_ops(f):
        def value_and_grad(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(f(x))
            return y, tape.gradient(y, x)
        with ops.backend_scope("tensorflow"):
            cf = tf.function(value_and_grad).get_concrete_function(tf.constant([1.0, 2.0]))
        return [op.type for op in cf.graph.get_operations()]
    assert graph_ops(mine) == graph_ops(native)


def test_jax_jit_erases_the_dispatch_layer(jax):
    """Under jax.jit the finegrad.ops form lowers to the primitives of a hand-written
    jax.custom_vjp (the jaxpr's equations, nested ones included, match one for one)."""
    jnp = jax.numpy
    with ops.backend_scope("jax"):
        mine = log1pexp_rule()

    @jax.custom_vjp
    def native(x):
        return jnp.log(1 + jnp.exp(x))

    def fwd(x):
        e = jnp.exp(x)
        return jnp.log(1 + e), e
    native.defvjp(fwd, lambda e, dy: (dy * (1 - 1 / (1 + e)),))

    def prims(jaxpr):
        out = []
        for eq in jaxpr.eqns:
            out.append(eq.primitive.name)
            for sub in jax.extend.core.jaxprs_in_params(eq.params):
                out += prims(sub)
        return out
    x = jax.numpy.array([1.0, 2.0])
    with ops.backend_scope("jax"):
        a = jax.make_jaxpr(jax.value_and_grad(lambda x: mine(x).sum()))(x)
    b = jax.make_jaxpr(jax.value_and_grad(lambda x: native(x).sum()))(x)
    assert prims(a.jaxpr) == prims(b.jaxpr)
