"""Reproductions of silent wrong answers: each now gives the right answer or a clear error,
eagerly and inside finegrad.function."""
import numpy as np
import pytest

import finegrad as fg


# --- NumPy inputs are copied: mutating the array afterwards changes nothing ---------------

@pytest.mark.parametrize("make", [fg.constant, fg.convert_to_tensor,
                                  lambda a: fg.identity(a), lambda a: a * fg.constant(1.)],
                         ids=["constant", "convert_to_tensor", "identity", "multiply"])
def test_numpy_input_is_copied(make):
    a = np.array([1., 2., 3.], np.float32)
    t = make(a)
    a[:] = 100.
    np.testing.assert_array_equal(t.numpy(), [1., 2., 3.])


def test_numpy_input_is_copied_for_gradients():
    a = np.array([1., 2., 3.], np.float32)
    x = fg.constant([1., 1., 1.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(x * a)
    a[:] = 7.
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [1., 2., 3.])


def test_numpy_input_is_copied_traced():
    a = np.array([1., 2., 3.], np.float32)

    @fg.function
    def f(x):
        return x * fg.constant(a)

    np.testing.assert_array_equal(f(fg.constant(1.)).numpy(), [1., 2., 3.])
    a[:] = 5.
    np.testing.assert_array_equal(f(fg.constant(1.)).numpy(), [1., 2., 3.])


def test_numpy_view_of_tensor_is_read_only():
    t = fg.constant([1., 2.])
    with pytest.raises(ValueError):
        np.asarray(t)[0] = 5.
    np.testing.assert_array_equal(t.numpy(), [1., 2.])
    b = np.array(t)
    b[0] = 5.   # a copy: writable, the tensor unchanged
    np.testing.assert_array_equal(t.numpy(), [1., 2.])


def test_read_only_owned_array_is_taken_without_copy():
    a = np.array([1., 2.])
    a.setflags(write=False)
    assert np.shares_memory(fg.constant(a)._value, a)
    w = np.array([1., 2.])
    view = w[:]
    view.setflags(write=False)  # read-only view of a writable array: still copied
    t = fg.constant(view)
    w[0] = 9.
    assert t.numpy()[0] == 1.


# --- exact gradients where an input is exactly 0 -----------------------------------------

def _cumprod_sum(x):
    return fg.reduce_sum(fg.math.cumprod(x, axis=-1))


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_cumprod_gradient_at_zero(traced):
    def grad(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = _cumprod_sum(x)
        return tape.gradient(y, x)
    g = fg.function(grad) if traced else grad
    np.testing.assert_allclose(g(fg.constant([2., 0., 3.])).numpy(), [1., 8., 0.])
    np.testing.assert_allclose(g(fg.constant([0., 2., 0., 3.])).numpy(), [3., 0., 0., 0.])
    np.testing.assert_allclose(g(fg.constant([[2., 0., 3.], [1., 2., 3.]])).numpy(),
                               [[1., 8., 0.], [9., 4., 2.]])


def test_cumprod_forward_mode_and_second_order_at_zero():
    x = fg.constant([2., 0., 3., 0., 5.], fg.float64)
    fg.testing.check_gradients(_cumprod_sum, [x], order=2, modes=("fwd", "rev"))
    fg.testing.check_gradients(lambda t: fg.math.cumprod(t, exclusive=True, reverse=True),
                               [x], order=2, modes=("fwd", "rev"))
    with fg.autodiff.ForwardAccumulator(x, fg.constant([0., 1., 0., 0., 0.], fg.float64)) as acc:
        y = _cumprod_sum(x)
    assert float(acc.jvp(y)) == 8.


def test_reduce_prod_second_order_at_zero():
    x = fg.constant([2., 0., 3., 0.5], fg.float64)
    fg.testing.check_gradients(fg.reduce_prod, [x], order=2, modes=("fwd", "rev"))
    fg.testing.check_gradients(fg.reduce_prod, [fg.constant([2., 0., 0., 3.], fg.float64)],
                               order=2, modes=("fwd", "rev"))


# --- where(x > 0, sqrt(x), 0.) at x < 0: gradient 0, as TensorFlow -----------------------

@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("op", [fg.sqrt, fg.math.rsqrt, fg.math.reciprocal])
def test_where_branch_not_taken_has_zero_gradient(op, traced):
    def grad(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = fg.reduce_sum(fg.where(x > 0, op(x), 0.))
        return tape.gradient(y, x)
    g = fg.function(grad) if traced else grad
    x = fg.constant([-1., 0., 4.]) if op is fg.sqrt else fg.constant([-1., -0.5, 4.])
    expected = {fg.sqrt: [0., 0., 0.25], fg.math.rsqrt: [0., 0., -1 / 16],
                fg.math.reciprocal: [0., 0., -1 / 16]}[op]
    np.testing.assert_allclose(g(x).numpy(), expected)


def test_where_branch_not_taken_forward_mode():
    x = fg.constant([-1., 4.])
    with fg.autodiff.ForwardAccumulator(x, fg.constant([1., 1.])) as acc:
        y = fg.where(x > 0, fg.sqrt(x), 0.)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [0., 0.25])


def test_where_routes_no_nan_from_an_infinite_cotangent():
    x = fg.constant([1., 2.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.where(fg.constant([True, False]), x, 3.)
    g = tape.gradient(y, x, output_gradients=fg.constant([np.inf, 1.]))
    np.testing.assert_array_equal(g.numpy(), [np.inf, 0.])


def test_where_tangent_of_an_infinite_constant_branch_is_zero():
    x = fg.constant([1., 2.])
    with fg.autodiff.ForwardAccumulator(x, fg.constant([1., 1.])) as acc:
        y = fg.where(fg.constant([True, False]), x, np.inf)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), [1., 0.])


# --- shapes, axes, perm and sizes must be ints: TypeError naming the argument --------------

@pytest.mark.parametrize("call, fn, arg", [
    (lambda: fg.zeros([2.5]), "finegrad.zeros", "shape"),
    (lambda: fg.ones("32"), "finegrad.ones", "shape"),
    (lambda: fg.zeros([True]), "finegrad.zeros", "shape"),
    (lambda: fg.fill([2.5], 1.), "finegrad.fill", "shape"),
    (lambda: fg.constant(1., shape=[2.5]), "finegrad.constant", "shape"),
    (lambda: fg.reshape(fg.ones(6), [2., 3.]), "finegrad.reshape", "shape"),
    (lambda: fg.reshape(fg.ones(6), "23"), "finegrad.reshape", "shape"),
    (lambda: fg.broadcast_to(fg.ones(1), [2.5]), "finegrad.broadcast_to", "shape"),
    (lambda: fg.tile(fg.ones(2), [2.5]), "finegrad.tile", "multiples"),
    (lambda: fg.reduce_sum(fg.ones(3), axis=0.5), "finegrad.reduce_sum", "axis"),
    (lambda: fg.reduce_sum(fg.ones(3), axis="0"), "finegrad.reduce_sum", "axis"),
    (lambda: fg.concat([fg.ones(2)], 0.5), "finegrad.concat", "axis"),
    (lambda: fg.nn.softmax(fg.ones(2), 0.5), "finegrad.softmax", "axis"),
    (lambda: fg.math.cumsum(fg.ones(2), 0.5), "finegrad.cumsum", "axis"),
    (lambda: fg.transpose(fg.ones((2, 3)), [1., 0.]), "finegrad.transpose", "perm"),
    (lambda: fg.split(fg.ones(4), 2.0), "finegrad.split", "num_or_size_splits"),
    (lambda: fg.eye(2.5), "finegrad.eye", "num_rows"),
    (lambda: fg.gather(fg.ones(3), [0.5]), "finegrad.gather", "indices"),
])
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_non_integer_shapes_axes_and_indices_are_type_errors(call, fn, arg, traced):
    run = fg.function(call) if traced else call
    with pytest.raises(TypeError, match=f"{fn}: {arg} must be"):
        run()


def test_integer_like_shapes_still_work():
    assert fg.zeros([fg.constant(2), np.int64(3)]).shape == (2, 3)
    assert fg.zeros(fg.TensorShape([2, 3])).shape == (2, 3)
    assert fg.reduce_sum(fg.ones((2, 3)), axis=fg.constant(1)).shape == (2,)


# --- tensors kept past a finegrad.function trace are out of scope ---------------------------

def test_tensor_escaping_a_trace_into_a_global_is_refused():
    kept = []

    @fg.function
    def leaky(x):
        y = x * 2.
        kept.append(y)
        return y

    np.testing.assert_allclose(leaky(fg.constant(1.)).numpy(), 2.)
    np.testing.assert_allclose(leaky(fg.constant(5.)).numpy(), 10.)   # the graph, no retrace
    (y,) = kept
    for use in (lambda: y + 1., lambda: y.numpy(), lambda: fg.exp(y), lambda: float(y),
                lambda: np.asarray(y), lambda: fg.reduce_sum(y), lambda: y.shape):
        with pytest.raises(TypeError, match="'leaky'.*out of scope"):
            use()
    assert "out of scope" in repr(y)

    @fg.function
    def other(x):
        return x + y

    with pytest.raises(TypeError, match="'leaky'.*out of scope"):
        other(fg.constant(1.))


def test_tensor_escaping_a_trace_into_an_attribute_is_refused():
    class Model:
        @fg.function
        def __call__(self, x):
            self.hidden = fg.tanh(x)
            return self.hidden * 3.

    m = Model()
    m(fg.constant([0.5]))
    with pytest.raises(TypeError, match="out of scope"):
        with fg.GradientTape() as tape:
            tape.watch(m.hidden)
            fg.reduce_sum(m.hidden)


@fg.custom_gradient
def _log1pexp_times3(x):
    """log(1 + e^x) with a deliberately different gradient: 3 * sigmoid(x)."""
    e = fg.exp(x)

    def grad(dy):
        return dy * 3. * (1. - 1. / (1. + e))
    return fg.math.log(1. + e), grad


def _escape_in_custom(kept):
    @fg.function
    def leaky(x):
        y = _log1pexp_times3(x) * 2.
        kept.append(y)
        return y
    return leaky


def _escape_in_cond(kept):
    @fg.function
    def leaky(x):
        def true_fn():
            y = _log1pexp_times3(x) * 2.
            kept.append(y)
            return y
        return fg.cond(x > -10., true_fn, lambda: x * 0.)
    return leaky


def _escape_in_while(kept):
    @fg.function
    def leaky(x):
        def body(v, i):
            kept.append(v * 1.)
            return v + _log1pexp_times3(x) * 2. / 3., i + 1
        return fg.while_loop(lambda v, i: i < 3, body, [x * 0., 0])[0]
    return leaky


@pytest.mark.parametrize("make", [_escape_in_custom, _escape_in_cond, _escape_in_while],
                         ids=["custom_gradient", "cond", "while_loop"])
def test_tensor_escaping_a_trace_with_custom_gradient_or_control_flow_is_refused(make):
    kept = []
    leaky = make(kept)
    for v in (1., -0.5, 2.):     # the trace's value, then the graph's with other values
        x = fg.constant(v)
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = leaky(x)
        sig = 1. / (1. + np.exp(-v))
        np.testing.assert_allclose(y.numpy(), 2. * np.log1p(np.exp(v)), rtol=1e-6)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), 6. * sig, rtol=1e-6)
        with fg.autodiff.ForwardAccumulator(x, fg.constant(1.)) as acc:
            y = leaky(x)
        np.testing.assert_allclose(acc.jvp(y).numpy(), 6. * sig, rtol=1e-6)
        assert kept
        for k in kept:
            with pytest.raises(TypeError, match="'leaky'.*out of scope"):
                k + 1.
            with pytest.raises(TypeError, match="'leaky'.*out of scope"):
                k.numpy()


def test_tensors_from_outside_a_trace_stay_usable():
    c = fg.constant(3.)
    v = fg.Variable(2.)

    @fg.function
    def f(x):
        return x * c + v

    f(fg.constant(1.))
    assert float(c) == 3. and float(v.read_value()) == 2.
    x = fg.constant(4.)
    f(x)
    assert float(x) == 4.


# --- integer division by zero: TensorFlow's InvalidArgumentError ----------------------------

@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("op, name", [(lambda a, b: a // b, "floordiv"),
                                      (lambda a, b: a % b, "floormod"),
                                      (fg.math.floordiv, "floordiv"),
                                      (lambda a, b: (a * 2) // (b - 1) + 1, "floordiv")])
def test_integer_division_by_zero_raises(op, name, traced):
    run = fg.function(op) if traced else op
    np.testing.assert_array_equal(run(fg.constant([7, 8]), fg.constant([2, 3])).numpy(),
                                  op(fg.constant([7, 8]), fg.constant([2, 3])).numpy())
    with pytest.raises(fg.errors.InvalidArgumentError, match=f"finegrad.{name}: integer "
                                                           f"division by zero"):
        run(fg.constant([7, 8]), fg.constant([0, 1]))   # b - 1 holds a zero too


def test_integer_true_division_by_zero_is_float_inf():
    out = fg.constant([1, 2]) / fg.constant([0, 1])
    assert out.dtype == fg.float64
    np.testing.assert_array_equal(out.numpy(), [np.inf, 2.])
    np.testing.assert_array_equal((fg.constant([1., -1.]) // 0.).numpy(), [np.inf, -np.inf])


# --- variables created inside finegrad.function: TensorFlow's rule ----------------------------

def test_variable_created_once_in_a_method_is_fine():
    class Model:
        def __init__(self):
            self.w = None

        @fg.function
        def __call__(self, x):
            if self.w is None:
                self.w = fg.Variable(fg.ones((2,)))
            return fg.reduce_sum(self.w * x)

    m = Model()
    assert float(m(fg.constant([1., 2.]))) == 3.
    assert float(m(fg.constant([[1., 2.]]))) == 3.   # retraced, creates nothing
    m2 = Model()
    assert float(m2(fg.constant([1., 1.]))) == 2.    # another instance: its own first trace


def test_variable_initialized_from_a_traced_tensor_is_refused():
    @fg.function(input_signature=[fg.TensorSpec([3])])
    def f(x):
        v = fg.Variable(x * 2.)
        return v.read_value()

    with pytest.raises(ValueError, match="from a traced tensor"):
        f(fg.constant([1., 2., 3.]))


# --- errors and conversions -------------------------------------------------------------------

@fg.custom_gradient
def _scaled(x, n=1, opts=None):
    def grad(dy):
        return dy * n
    return x * n, grad


@fg.custom_gradient
def _weighted(x, w=None):
    def grad(dy):
        return dy * w, dy * x
    return x * w, grad


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_custom_gradient_keyword_python_values_are_not_inputs(traced):
    def grads(x, w):
        with fg.GradientTape() as tape:
            tape.watch([x, w])
            y = _scaled(x, n=3, opts={"mode": 2, "scale": 1.5}) + _weighted(x, w=w)
        return tape.gradient(y, [x, w])
    run = fg.function(grads) if traced else grads
    gx, gw = run(fg.constant(2.), fg.constant(5.))
    assert float(gx) == 3. + 5. and float(gw) == 2.


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_numpy_operand_takes_the_tensor_dtype(traced):
    def f(x):
        return (x * np.array([1., 2.]), np.array([1., 2.]) + x,
                fg.matmul(fg.reshape(x, (1, 2)), np.ones((2, 2))))
    run = fg.function(f) if traced else f
    outs = run(fg.constant([3., 4.]))
    for o in outs:
        assert o.dtype == fg.float32
    np.testing.assert_allclose(outs[0].numpy(), [3., 8.])
    np.testing.assert_allclose(outs[2].numpy(), [[7., 7.]])


def test_numpy_operand_conversion_never_loses_values():
    with pytest.raises(TypeError, match="finegrad.add: cannot convert a NumPy array of "
                                        "float64 to int32.*fraction"):
        fg.constant([1]) + np.array([1.5])
    with pytest.raises(TypeError, match="outside the range of int32"):
        fg.constant([1]) + np.array([2 ** 40])
    with pytest.raises(TypeError, match="imaginary part"):
        fg.constant([1.]) + np.array([1j])
    assert (fg.constant([1]) + np.array([2.])).dtype == fg.int32
    with pytest.raises(TypeError, match="float32 and float64"):   # two tensors: no conversion
        fg.constant([1.]) + fg.constant([1.], fg.float64)


def test_variable_takes_numpy_values_in_its_dtype():
    v = fg.Variable([1., 2.])
    v.assign(np.array([3., 4.]))
    assert v.dtype == fg.float32
    np.testing.assert_array_equal(v.numpy(), [3., 4.])
    np.testing.assert_allclose((v * np.array([1., 2.])).numpy(), [3., 8.])
    with pytest.raises(TypeError, match="fraction"):
        fg.Variable([1, 2]).assign(np.array([1.5, 2.]))


@pytest.mark.parametrize("target", [None, "pair", [None]], ids=["None", "(y, 3.)", "[None]"])
def test_gradient_of_a_non_tensor_target_is_a_type_error(target):
    x = fg.constant(1.)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.
    with pytest.raises(TypeError, match="GradientTape.gradient: target must be a tensor"):
        tape.gradient((y, 3.) if target == "pair" else target, x)


def test_output_gradients_of_a_wrong_dtype_blame_the_tape():
    x = fg.constant([1., 2.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.
    with pytest.raises(TypeError, match=r"GradientTape.gradient: output_gradients\[0\] has "
                                        r"dtype float64 but its target has dtype float32"):
        tape.gradient(y, x, output_gradients=fg.constant([1., 1.], fg.float64))


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_reductions_and_softmax_over_empty_tensors_follow_tensorflow(traced):
    def f(e, e2, ei):
        return (fg.reduce_sum(e), fg.reduce_mean(e), fg.reduce_max(e), fg.reduce_min(e),
                fg.reduce_prod(e), fg.reduce_logsumexp(e), fg.reduce_max(e2, axis=1),
                fg.reduce_max(ei), fg.reduce_min(ei), fg.nn.softmax(e2), fg.nn.log_softmax(e2))
    run = fg.function(f) if traced else f
    out = run(fg.zeros([0]), fg.zeros([2, 0]), fg.zeros([0], fg.int32))
    want = [0., np.nan, -np.inf, np.inf, 1., -np.inf, [-np.inf, -np.inf],
            np.iinfo(np.int32).min, np.iinfo(np.int32).max]
    for got, w in zip(out[:9], want, strict=True):
        np.testing.assert_array_equal(got.numpy(), w)
    assert out[9].shape == (2, 0) and out[10].shape == (2, 0)
    x = fg.zeros([0])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_max(x) + fg.reduce_sum(fg.nn.softmax(x))
    assert tape.gradient(y, x).shape == (0,)


@pytest.mark.parametrize("call, fn, dtype", [
    (lambda: fg.constant(2 ** 70), "finegrad.constant", "int64"),
    (lambda: fg.constant(2 ** 40, fg.int32), "finegrad.constant", "int32"),
    (lambda: fg.constant([2 ** 40], fg.int32), "finegrad.constant", "int32"),
    (lambda: fg.constant(1) + 2 ** 40, "finegrad.add", "int32"),
    (lambda: fg.constant([1]) * 10 ** 30, "finegrad.multiply", "int32"),
    (lambda: fg.constant(1.) + 10 ** 400, "finegrad.add", "float32"),
    (lambda: fg.Variable(1).assign(2 ** 40), "finegrad.Variable.assign", "int32"),
])
def test_integers_out_of_range_are_value_errors_not_overflow(call, fn, dtype):
    with pytest.raises(ValueError, match=f"{fn}.*out of the range of {dtype}"):
        call()


def test_sequence_with_a_huge_integer_is_a_value_error():
    with pytest.raises(ValueError, match="finegrad.constant: .*out of the range of int64"):
        fg.constant([1, 2 ** 70])


def test_custom_gradient_returning_two_outputs_without_grad_fn_says_so():
    @fg.custom_gradient
    def f(x):
        return x * 2., 3.

    with pytest.raises(TypeError, match="f must return \\(outputs, grad_fn\\); the second "
                                        "element is not callable but float 3.0"):
        f(fg.constant(1.))


def test_concrete_function_from_a_signature_does_not_fail_on_made_up_values():
    @fg.function(input_signature=[fg.TensorSpec([3]), fg.TensorSpec([], fg.int32)])
    def pick(x, i):
        return fg.gather(x, i - 1)

    pick.get_concrete_function()   # traced with made-up zeros: i - 1 = -1 must not fail
    assert float(pick(fg.constant([1., 2., 3.]), fg.constant(2))) == 2.
    with pytest.raises(fg.errors.InvalidArgumentError,
                       match=r"finegrad.gather: indices = -1 is not in \[0, 3\)"):
        pick(fg.constant([1., 2., 3.]), fg.constant(0))


def test_compiled_gather_checks_each_call_indices():
    @fg.function
    def pick(x, i):
        return fg.gather(x, i)

    assert pick(fg.constant([1., 2.]), fg.constant([1])).numpy()[0] == 2.
    with pytest.raises(fg.errors.InvalidArgumentError,
                       match=r"finegrad.gather: indices\[0\] = -1 is not in \[0, 2\)"):
        pick(fg.constant([1., 2.]), fg.constant([-1]))   # the same graph: no silent wrap


def test_tensor_spec_none_is_an_unknown_shape():
    spec = fg.TensorSpec(None)
    assert spec.shape.rank is None
    assert spec.is_compatible_with(fg.zeros((2, 3))) and spec.is_compatible_with(fg.zeros(()))
    assert not fg.TensorSpec(()).is_compatible_with(fg.zeros((2,)))

    @fg.function(input_signature=[fg.TensorSpec(None)])
    def f(x):
        return fg.reduce_sum(x * 2.)

    assert float(f(fg.ones((2, 3)))) == 12. and float(f(fg.constant(1.))) == 2.
    with pytest.raises(ValueError, match="unknown"):
        f.get_concrete_function()


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_while_loop_takes_namedtuples_and_dicts(traced):
    import collections
    pair = collections.namedtuple("Pair", "j k")

    def tf_doc_example(i0, j0, k0):   # TensorFlow's while_loop docstring example
        return fg.while_loop(lambda i, p: i < 10,
                             lambda i, p: (i + 1, pair(p.j + p.k, p.j - p.k)),
                             (i0, pair(j0, k0)))

    def with_dict(i0, a0):
        return fg.while_loop(lambda d: d["i"] < 3,
                             lambda d: {"i": d["i"] + 1, "a": d["a"] * 2.},
                             {"i": i0, "a": a0})

    run1 = fg.function(tf_doc_example) if traced else tf_doc_example
    run2 = fg.function(with_dict) if traced else with_dict
    i, p = run1(fg.constant(0), fg.constant(1), fg.constant(2))
    assert isinstance(p, pair) and int(i) == 10 and (int(p.j), int(p.k)) == (32, 64)
    d = run2(fg.constant(0), fg.constant(1.))
    assert int(d["i"]) == 3 and float(d["a"]) == 8.


# --- TensorFlow habits ------------------------------------------------------------------------

def test_format_and_shape_printing_as_tensorflow():
    loss = fg.constant(0.123456)
    assert f"{loss:.4f}" == "0.1235" and f"{fg.constant(3):d}" == "3"
    assert str(fg.zeros((2, 3)).shape) == "(2, 3)" and str(fg.zeros((2,)).shape) == "(2,)"
    assert str(fg.TensorShape([None, 3])) == "(None, 3)"
    assert repr(fg.zeros((2, 3)).shape) == "TensorShape([2, 3])"
    with pytest.raises(TypeError):
        f"{fg.zeros(2):.2f}"


def test_bfloat16_is_a_clear_type_error():
    for use in (lambda: fg.bfloat16, lambda: fg.as_dtype("bfloat16"),
                lambda: fg.constant(1., "bfloat16"), lambda: fg.cast(fg.ones(2), "bfloat16")):
        with pytest.raises(TypeError, match="bfloat16 is not supported"):
            use()
    assert not hasattr(fg, "bfloat16")


def test_variable_names_and_module_as_tensorflow():
    assert fg.Variable(1., name="w").name == "w:0"
    assert fg.Variable(1., name="w:1").name == "w:1"

    class Dense(fg.Module):
        def __init__(self):
            super().__init__()
            self.w = fg.Variable(fg.ones((2, 2)), name="w")
            self.b = fg.Variable(fg.zeros((2,)), name="b", trainable=False)

    class Net(fg.Module):
        def __init__(self):
            super().__init__(name="net")
            self.layers = [Dense(), Dense()]
            self.shared = self.layers[0].w   # held twice: listed once

    net = Net()
    assert net.name == "net" and Dense().name == "dense"
    assert len(net.variables) == 4 and len(net.trainable_variables) == 2
    assert len(net.non_trainable_variables) == 2 and len(net.submodules) == 2
    x = fg.ones((1, 2))
    with fg.GradientTape() as tape:
        y = fg.reduce_sum(fg.matmul(x, net.layers[0].w) + net.layers[0].b)
    grads = tape.gradient(y, net.trainable_variables)
    assert grads[0] is not None and grads[1] is None


def test_tensor_and_variable_repr_as_tensorflow():
    assert repr(fg.constant([1., 2.])) == ("<finegrad.Tensor: shape=(2,), dtype=float32, "
                                          "numpy=array([1., 2.], dtype=float32)>")
    assert repr(fg.constant(3)) == "<finegrad.Tensor: shape=(), dtype=int32, numpy=3>"
    assert repr(fg.constant([[1, 2], [3, 4]])).endswith(
        "numpy=\narray([[1, 2],\n       [3, 4]], dtype=int32)>")
    assert repr(fg.Variable([1., 2.], name="w")) == (
        "<finegrad.Variable 'w:0' shape=(2,) dtype=float32, "
        "numpy=array([1., 2.], dtype=float32)>")


def test_sliced_variable_assignment():
    v = fg.Variable([1., 2., 3.])
    v[0].assign(5.)
    v[1:].assign(np.array([7., 8.]))
    np.testing.assert_array_equal(v.numpy(), [5., 7., 8.])
    w = fg.Variable(np.zeros((2, 3), np.float32))
    w[:, 1].assign([1., 2.])
    np.testing.assert_array_equal(w.numpy(), [[0., 1., 0.], [0., 2., 0.]])
    assert not hasattr(fg.constant(1.), "assign")
    with pytest.raises(ValueError, match="slice has shape"):
        v[0:2].assign([1., 2., 3.])
    with pytest.raises(TypeError, match="float64"):
        v[0].assign(fg.constant(1., fg.float64))
    with fg.GradientTape() as tape:
        y = v[0] * 3.
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [3., 0., 0.])

    @fg.function
    def f():
        v[0].assign(1.)
        return v.read_value()

    np.testing.assert_array_equal(f().numpy(), [1., 7., 8.])   # traced: tests/test_variables.py


def test_graph_gradients_check_ys_and_grad_ys():
    @fg.function
    def wrong_dtype(x):
        return fg.gradients(x * 2., x, grad_ys=fg.constant([1., 1.], fg.float64))

    @fg.function
    def none_target(x):
        return fg.gradients([x * 2., None], x)

    with pytest.raises(TypeError, match=r"finegrad.gradients: grad_ys\[0\] has dtype float64"):
        wrong_dtype(fg.constant([1., 2.]))
    with pytest.raises(TypeError, match="finegrad.gradients: ys must be tensors"):
        none_target(fg.constant([1., 2.]))
