"""What a custom gradient's function may return, on every backend (issue 22's list of unclear
errors): TensorFlow's ``(grads, [])`` when no variable was read, a warning for a rule that
returns None everywhere, Python-number keywords as settings, and clear messages."""
import warnings

import numpy as np
import pytest

import finegrad as fg
from finegrad import ops

BACKENDS = ["finegrad", "jax", "torch", "tensorflow"]


def _grad(fn, x):
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


def test_variables_pair_without_variables_is_accepted():
    x = fg.constant(2.)

    @fg.custom_gradient
    def f(x):
        return x * x, lambda dy, variables=None: (dy * 2. * x, [])

    @fg.custom_gradient
    def two(x, y):
        return x * y, lambda dy, variables=None: ((dy * y, dy * x), ())

    assert float(_grad(f, x)) == 4.
    assert float(_grad(lambda x: two(x, fg.constant(3.)), x)) == 3.


def test_variables_pair_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = tf.constant(2.)

    @tf.custom_gradient
    def f(x):
        return x * x, lambda dy, variables=None: (dy * 2. * x, [])

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(tape.gradient(y, x)) == 4.   # finegrad: test above, the same 4.


@pytest.mark.parametrize("two_inputs", [False, True])
def test_rule_returning_none_everywhere_warns_once(two_inputs):
    @fg.custom_gradient
    def forgot(x, y):
        def grad(dy):
            dy * y          # the return of a tuple forgotten: (None, None) is meant
            return None, None
        return x * y, grad

    @fg.custom_gradient
    def forgot_one(x):
        def grad(dy):
            dy * 2.
        return x * 2., grad

    fn = (lambda x: forgot(x, fg.constant(3.))) if two_inputs else forgot_one
    name = "forgot" if two_inputs else "forgot_one"
    with pytest.warns(UserWarning, match=rf"gradient function of .*{name} returned None for "
                                         r"every input \(a forgotten `return`\?\)"):
        assert _grad(fn, fg.constant(1.)) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _grad(fn, fg.constant(1.))   # once


def test_recompute_grad_with_a_python_keyword():
    blk = fg.recompute_grad(lambda x, scale=1.: x * x * scale)
    assert float(_grad(lambda x: blk(x, scale=3.), fg.constant(2.))) == 12.
    w = fg.constant(5.)
    assert float(_grad(lambda x: blk(x, scale=w), fg.constant(2.))) == 20.


@pytest.mark.parametrize("backend", BACKENDS)
def test_ops_custom_gradient_with_a_number_keyword(backend):
    if backend != "finegrad":
        pytest.importorskip(backend)

    @ops.custom_gradient
    def scaled(x, scale=1.):
        return x * scale, lambda dy: dy * scale

    with ops.backend_scope(backend):
        g = ops.grad(lambda x: scaled(x, scale=3.))(ops.convert_to_tensor(2.))
        assert float(np.asarray(ops.convert_to_numpy(g))) == 3.


@pytest.mark.parametrize("backend", BACKENDS)
def test_ops_custom_gradient_second_element_not_callable(backend):
    if backend != "finegrad":
        pytest.importorskip(backend)

    @ops.custom_gradient
    def bad(x):
        return x, 3.

    with ops.backend_scope(backend):
        with pytest.raises(TypeError, match=r"bad must return \(outputs, grad\), and the "
                                            r"second element is not callable: got float"):
            ops.grad(lambda x: bad(x))(ops.convert_to_tensor(2.))


def test_torch_add_converts_numpy_as_the_other_backends():
    torch = pytest.importorskip("torch")
    with ops.backend_scope("torch"):
        y = ops.add(torch.ones(2), np.ones(2))
        assert y.dtype == torch.float32 and y.tolist() == [2., 2.]
        assert ops.add(np.ones(2), torch.ones(2)).dtype == torch.float32
    with ops.backend_scope("finegrad"):
        assert ops.add(fg.ones([2]), np.ones(2)).dtype == fg.float32
