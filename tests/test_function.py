"""finegrad.function and finegrad.gradients.

TensorFlow is not installed: references are closed forms, finite differences
(finegrad.testing.check_gradients) and eager finegrad (the Python function run untraced)."""
import gc
import io
import contextlib
import weakref

import numpy as np
import pytest

import finegrad as tf

from seed_examples import log1pexp, plain_log1pexp


def _np(x):
    return None if x is None else np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _assert_same(a, b):
    """Identical values (bitwise, NaNs equal), shapes and dtypes."""
    a, b = _np(a), _np(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    np.testing.assert_array_equal(a, b)


# --- the decorator ----------------------------------------------------------------------------

def test_decorator_without_arguments():
    @tf.function
    def f(x):
        return tf.reduce_sum(x * x)
    assert isinstance(f, tf.function(lambda x: x).__class__)
    assert f(tf.constant([1., 2.])).numpy() == np.float32(5.)
    assert f(tf.constant([3., 4.])).numpy() == np.float32(25.)
    assert f.experimental_get_tracing_count() == 1
    assert f.__name__ == "f"


def test_decorator_with_input_signature():
    @tf.function(input_signature=[tf.TensorSpec((None,), tf.float32)])
    def f(x):
        return x * 2.
    np.testing.assert_array_equal(f(tf.constant([1., 2.])).numpy(), [2., 4.])
    # one graph serves every size of the None dimension, as in TensorFlow
    np.testing.assert_array_equal(f(tf.constant([1., 2., 3.])).numpy(), [2., 4., 6.])
    assert f(tf.constant([1., 2.])).dtype == tf.float32
    c = f.get_concrete_function()
    np.testing.assert_array_equal(c(tf.constant([5.])).numpy(), [10.])
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_mismatch_is_type_error():
    @tf.function(input_signature=[tf.TensorSpec((None,), tf.float32)])
    def f(x):
        return x * 2.
    with pytest.raises(TypeError, match="input_signature"):
        f(tf.constant([[1., 2.]]))          # wrong rank
    with pytest.raises(TypeError, match="float64"):
        f(tf.constant([1., 2.], tf.float64))  # wrong dtype
    with pytest.raises(TypeError, match="input_signature"):
        f(tf.constant([1.]), tf.constant([1.]))  # wrong number of arguments

    @tf.function(input_signature=[tf.TensorSpec((2, 3), tf.int32)])
    def g(x):
        return x + 1
    with pytest.raises(TypeError, match=r"\(2, 4\)"):
        g(tf.zeros((2, 4), tf.int32))
    np.testing.assert_array_equal(g(tf.zeros((2, 3), tf.int32)).numpy(), np.ones((2, 3)))


def test_tensorspec():
    s = tf.TensorSpec((None, 3), tf.float32)
    assert s.is_compatible_with(tf.zeros((5, 3)))
    assert not s.is_compatible_with(tf.zeros((5, 4)))
    assert not s.is_compatible_with(tf.zeros((5, 3), tf.float64))
    assert not s.is_compatible_with(tf.zeros((3,)))
    assert s == tf.TensorSpec([None, 3])
    assert hash(s) == hash(tf.TensorSpec([None, 3], tf.float32))
    assert s != tf.TensorSpec((None, 3), tf.float64)


class _Scaler:
    def __init__(self, k):
        self.k = k
        self.traces = 0

    @tf.function
    def __call__(self, x):
        self.traces += 1
        return x * self.k


def test_methods_two_instances_traced_per_instance():
    a, b = _Scaler(2.), _Scaler(3.)
    x = tf.constant([1., 2.])
    np.testing.assert_array_equal(a(x).numpy(), [2., 4.])
    np.testing.assert_array_equal(b(x).numpy(), [3., 6.])
    np.testing.assert_array_equal(a(x).numpy(), [2., 4.])
    np.testing.assert_array_equal(b(tf.constant([1., 1.])).numpy(), [3., 3.])
    assert (a.traces, b.traces) == (1, 1)
    b(tf.constant([1., 1., 1.]))          # new shape: b retraces, a does not
    assert (a.traces, b.traces) == (1, 2)
    # self attributes are read at trace time (Python values): the graph keeps them
    a.k = 10.
    np.testing.assert_array_equal(a(x).numpy(), [2., 4.])


class _Dense:
    def __init__(self, w):
        self.w = tf.Variable(w)

    @tf.function
    def __call__(self, x):
        return tf.matmul(x, self.w)


def test_methods_with_variable_attributes():
    a = _Dense(np.eye(2, dtype=np.float32))
    b = _Dense(2 * np.eye(2, dtype=np.float32))
    x = tf.constant([[1., 2.]])
    np.testing.assert_array_equal(a(x).numpy(), [[1., 2.]])
    np.testing.assert_array_equal(b(x).numpy(), [[2., 4.]])
    a.w.assign([[0., 1.], [1., 0.]])      # variables are read by reference
    np.testing.assert_array_equal(a(x).numpy(), [[2., 1.]])
    np.testing.assert_array_equal(b(x).numpy(), [[2., 4.]])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(b(x))
    np.testing.assert_array_equal(t.gradient(y, b.w).numpy(), [[1., 1.], [2., 2.]])


def test_method_does_not_keep_instances_alive():
    s = _Scaler(2.)
    s(tf.constant(1.))
    r = weakref.ref(s)
    del s
    gc.collect()
    assert r() is None


# --- tracing ----------------------------------------------------------------------------------

def test_tracing_count_grows_only_on_new_signatures():
    @tf.function
    def f(x, n=1, flag=False):
        return x * n if not flag else x - n
    count = f.experimental_get_tracing_count
    f(tf.constant([1., 2.]))
    assert count() == 1
    for _ in range(5):
        f(tf.constant([3., 4.]))
    assert count() == 1
    f(tf.constant([1., 2., 3.]))                # new shape
    assert count() == 2
    f(tf.constant([1., 2.], tf.float64))        # new dtype
    assert count() == 3
    f(tf.constant([1., 2.]), 2)                 # new Python value
    assert count() == 4
    r = f(tf.constant([1., 2.]), 3)
    assert count() == 5
    np.testing.assert_array_equal(r.numpy(), [3., 6.])
    f(tf.constant([1., 2.]), 3)
    f(tf.constant([5., 2.]), n=3)               # same value, as keyword: may retrace once
    c = count()
    f(tf.constant([5., 2.]), n=3)
    assert count() == c
    np.testing.assert_array_equal(f(tf.constant([1., 2.]), 2, True).numpy(), [-1., 0.])
    assert count() == c + 1
    np.testing.assert_array_equal(f(tf.constant([7., 8.]), 2, True).numpy(), [5., 6.])
    assert count() == c + 1


def test_python_side_effects_at_trace_time_only():
    log = []

    @tf.function
    def f(x):
        log.append(1)
        print("tracing f")
        return x + 1.

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for v in (1., 2., 3.):
            assert f(tf.constant(v)).numpy() == np.float32(v + 1.)
    assert log == [1]
    assert buf.getvalue() == "tracing f\n"
    with contextlib.redirect_stdout(buf):
        f(tf.constant([1., 2.]))
    assert log == [1, 1]
    assert buf.getvalue() == "tracing f\ntracing f\n"


def test_python_loop_and_if_on_python_values_unroll():
    @tf.function
    def f(x, n):
        for i in range(n):
            if i % 2 == 0:
                x = x * 2.
            else:
                x = x + 1.
        return x
    assert f(tf.constant(1.), 3).numpy() == np.float32((1 * 2 + 1) * 2)
    assert f(tf.constant(1.), 4).numpy() == np.float32(((1 * 2 + 1) * 2) + 1)
    assert len(f.get_concrete_function(tf.constant(1.), 4).graph.nodes) == 4


def test_get_concrete_function():
    @tf.function
    def f(x):
        return tf.sin(x) * 2.
    c = f.get_concrete_function(tf.TensorSpec((3,), tf.float32))
    assert f.experimental_get_tracing_count() == 1
    assert c is f.get_concrete_function(tf.constant([1., 2., 3.]))
    assert f.experimental_get_tracing_count() == 1
    x = tf.constant([0.1, 0.2, 0.3])
    _assert_same(c(x), tf.sin(x) * 2.)
    _assert_same(f(x), c(x))
    assert f.experimental_get_tracing_count() == 1
    assert f.python_function(x).numpy().tolist() == c(x).numpy().tolist()


def test_python_if_on_traced_tensor_names_cond():
    @tf.function
    def f(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(TypeError, match=r"finegrad\.cond"):
        f(tf.constant(1.))

    @tf.function
    def g(x):
        while tf.reduce_sum(x) > 0:
            x = x - 1.
        return x
    with pytest.raises(TypeError, match=r"finegrad\.(cond|while_loop)"):
        g(tf.constant([1., 2.]))


def test_numpy_on_traced_tensor_is_type_error():
    @tf.function
    def f(x):
        return tf.constant(x.numpy() * 2)
    with pytest.raises(TypeError, match="traced tensor"):
        f(tf.constant(1.))

    @tf.function
    def g(x):
        return float(x)
    with pytest.raises(TypeError, match="traced tensor"):
        g(tf.constant(1.))


def test_captured_eager_tensor_and_constants_are_fine():
    c = tf.constant([1., 2.])

    @tf.function
    def f(x):
        if c.numpy()[0] > 0:           # a captured eager tensor has a value
            return x + c
        return x - c
    np.testing.assert_array_equal(f(tf.constant([1., 1.])).numpy(), [2., 3.])


def test_nested_structures_in_and_out():
    @tf.function
    def f(d, pair):
        a, b = pair
        return {"s": d["x"] + a, "p": (a * b, 3)}
    out = f({"x": tf.constant(1.)}, (tf.constant(2.), tf.constant(5.)))
    assert set(out) == {"s", "p"}
    assert out["s"].numpy() == np.float32(3.)
    assert out["p"][0].numpy() == np.float32(10.)
    assert out["p"][1] == 3


def test_numpy_array_arguments():
    @tf.function
    def f(x):
        return x * 2.
    a = np.array([1., 2.], np.float32)
    r = f(a)
    assert isinstance(r, tf.Tensor)
    np.testing.assert_array_equal(r.numpy(), [2., 4.])
    r = f(np.array([3., 4.], np.float32))
    np.testing.assert_array_equal(r.numpy(), [6., 8.])
    assert f.experimental_get_tracing_count() == 1


# --- traced == eager ----------------------------------------------------------------------------

def _eager_and_traced(model, args, sources):
    """Values and gradients (w.r.t. ``sources``: tensors among args, or variables) of the
    eager Python function and of the traced one, under an eager tape."""
    traced = tf.function(model)
    res = []
    for fn in (model, traced, traced):     # the second traced call runs the cached graph
        with tf.GradientTape() as t:
            for s in sources:
                if isinstance(s, tf.Tensor):
                    t.watch(s)
            y = fn(*args)
        res.append((y, t.gradient(y, sources)))
    plain = traced(*args)                  # no tape: the compiled executor
    return res, plain


def _check_models_agree(model, args, sources):
    res, plain = _eager_and_traced(model, args, sources)
    (y0, g0) = res[0]
    for y, g in res[1:]:
        _assert_same(y, y0)
        for a, b in zip(g, g0, strict=True):
            _assert_same(a, b)
    _assert_same(plain, y0)


def test_mlp_softmax_cross_entropy_traced_equals_eager():
    rng = np.random.default_rng(0)
    w1 = tf.Variable(rng.standard_normal((4, 8)).astype(np.float32))
    b1 = tf.Variable(np.zeros(8, np.float32))
    w2 = tf.Variable(rng.standard_normal((8, 3)).astype(np.float32))
    b2 = tf.Variable(np.full(3, 0.1, np.float32))
    x = tf.constant(rng.standard_normal((5, 4)).astype(np.float32))
    labels = tf.constant(np.eye(3, dtype=np.float32)[[0, 1, 2, 1, 0]])

    def model(x, labels):
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(h, w2) + b2
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels,
                                                                       logits=logits))
    _check_models_agree(model, (x, labels), [w1, b1, w2, b2])


def test_mlp_training_steps_traced_equals_eager():
    rng = np.random.default_rng(1)
    init = [rng.standard_normal((3, 5)).astype(np.float32),
            rng.standard_normal((5, 2)).astype(np.float32)]
    x = tf.constant(rng.standard_normal((7, 3)).astype(np.float32))
    y = tf.constant(np.array([0, 1, 1, 0, 1, 0, 0], np.int32))

    def make():
        ws = [tf.Variable(w) for w in init]

        def step(x, y):
            with tf.GradientTape() as t:
                logits = tf.matmul(tf.tanh(tf.matmul(x, ws[0])), ws[1])
                loss = tf.reduce_mean(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            gs = t.gradient(loss, ws)
            for w, g in zip(ws, gs, strict=True):
                w.assign_sub(0.1 * g)
            return loss
        return ws, step
    ws_e, step_e = make()
    ws_t, step_t = make()
    step_t = tf.function(step_t)
    for _ in range(4):
        _assert_same(step_t(x, y), step_e(x, y))
    for a, b in zip(ws_e, ws_t, strict=True):
        _assert_same(a.read_value(), b.read_value())
    assert step_t.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("custom", [False, True])
def test_log1pexp_traced_equals_eager(custom):
    fn = log1pexp if custom else plain_log1pexp
    x = tf.constant([-3., 0., 2., 30., 100.])
    _check_models_agree(lambda x: tf.reduce_sum(fn(x)), (x,), [x])


def test_elementwise_chain_traced_equals_eager():
    x = tf.constant(np.linspace(-2., 2., 11).astype(np.float32))

    def model(x):
        y = x
        for _ in range(5):
            y = tf.sin(y) * 1.5 + tf.tanh(y) - tf.exp(-y * y) / 3.
        return tf.reduce_sum(y * tf.sigmoid(x))
    _check_models_agree(model, (x,), [x])


def test_reduce_reshape_matmul_gather_slice_mix_traced_equals_eager():
    rng = np.random.default_rng(2)
    x = tf.constant(rng.standard_normal((4, 6)).astype(np.float32))
    w = tf.Variable(rng.standard_normal((3, 2)).astype(np.float32))
    idx = tf.constant([2, 0, 2, 1])

    def model(x):
        a = tf.reshape(x, (8, 3))
        b = tf.matmul(a, w)                       # (8, 2)
        c = tf.gather(b, idx)                     # (4, 2)
        d = c[1:, :] * tf.reduce_max(x, axis=1, keepdims=True)[:3]
        e = tf.transpose(tf.concat([d, c[:3]], axis=1))
        return tf.reduce_sum(e * e) + tf.reduce_mean(tf.square(x[:, ::2]))
    _check_models_agree(model, (x,), [x, w])


def test_traced_gradients_match_finite_differences():
    @tf.function
    def f(x, y):
        return tf.reduce_sum(tf.sin(x) * y + x * x * tf.exp(-y))
    tf.testing.check_gradients(f, [tf.constant([0.3, -0.7]), tf.constant([1.1, 0.4])])


# --- tf.gradients inside a trace --------------------------------------------------------------

def test_documented_log1pexp_gradients_check():
    @tf.function
    def d_plain(x):
        return tf.gradients(plain_log1pexp(x), x)[0]

    @tf.function
    def d_custom(x):
        y = log1pexp(x)
        dy = tf.gradients(y, x)
        return dy[0]
    x = tf.constant(100.)
    assert x.dtype == tf.float32
    assert np.isnan(d_plain(x).numpy())
    assert d_custom(x).numpy() == np.float32(1.0)
    assert d_custom(tf.constant(0.)).numpy() == np.float32(0.5)


def test_gradients_returns_list_and_matches_closed_form():
    @tf.function
    def f(x):
        return tf.gradients(x ** 3, x)
    g = f(tf.constant([1., 2., -3.]))
    assert isinstance(g, list) and len(g) == 1
    np.testing.assert_allclose(g[0].numpy(), [3., 12., 27.], rtol=1e-6)


def test_gradients_grad_ys_scaling():
    @tf.function
    def f(x, gy):
        return tf.gradients(tf.sin(x), x, grad_ys=gy)[0]
    x = tf.constant([0.5, 1.5])
    np.testing.assert_allclose(f(x, tf.constant([2., -3.])).numpy(),
                               np.cos([0.5, 1.5]).astype(np.float32) * [2., -3.], rtol=1e-6)

    @tf.function
    def g(x):
        return tf.gradients([x * 2., x * x], x, grad_ys=[tf.constant(10.), None])[0]
    assert g(tf.constant(3.)).numpy() == np.float32(20. + 6.)

    @tf.function
    def bad(x):
        return tf.gradients([x, x], x, grad_ys=[tf.constant(1.)])
    with pytest.raises(ValueError, match="grad_ys"):
        bad(tf.constant(1.))


def test_gradients_sums_over_ys_and_several_xs():
    @tf.function
    def f(x, y):
        return tf.gradients([x * y, x * x, tf.sin(y)], [x, y])
    gx, gy = f(tf.constant(2.), tf.constant(0.5))
    assert gx.numpy() == np.float32(0.5 + 4.)
    np.testing.assert_allclose(gy.numpy(), 2. + np.cos(0.5), rtol=1e-6)


def test_gradients_stop_gradients_partial_derivatives():
    @tf.function
    def f(x):
        a = x * 2.
        b = a + x
        return (tf.gradients(b, x, stop_gradients=[a])[0], tf.gradients(b, x)[0],
                tf.gradients(b, [a, x], stop_gradients=[a]))
    partial, total, (ga, gx) = f(tf.constant(3.))
    assert partial.numpy() == np.float32(1.)
    assert total.numpy() == np.float32(3.)
    assert ga.numpy() == np.float32(1.) and gx.numpy() == np.float32(1.)


def test_gradients_integer_tensors_get_none_and_unconnected_zero():
    @tf.function
    def f(x, n):
        y = x * tf.cast(n, tf.float32)
        z = tf.constant(4.)
        return (tf.gradients(y, [x, n]), tf.gradients(y, z),
                tf.gradients(y, [z, n], unconnected_gradients=tf.UnconnectedGradients.ZERO),
                tf.gradients(y, z, unconnected_gradients="zero"))
    (gx, gn), (gz,), (gz0, gn0), (gz1,) = f(tf.constant(2.), tf.constant(3))
    assert gx.numpy() == np.float32(3.)
    assert gn is None
    assert gz is None
    assert gz0.numpy() == np.float32(0.) and gz0.dtype == tf.float32
    assert gz1.numpy() == np.float32(0.)
    assert gn0 is None or gn0.numpy() == 0


def test_gradients_with_respect_to_variable():
    w = tf.Variable(3.)

    @tf.function
    def f(x):
        return tf.gradients(w * x, w)[0]
    assert f(tf.constant(2.)).numpy() == np.float32(2.)


def test_gradients_outside_trace_is_runtime_error():
    x = tf.constant(1.)
    with pytest.raises(RuntimeError, match="GradientTape"):
        tf.gradients(x * x, x)
    with pytest.raises(RuntimeError, match="function"):
        tf.gradients([x], [x])


def test_gradients_second_order_inside():
    @tf.function
    def f(x):
        g = tf.gradients(tf.sin(x) * x, x)[0]
        return tf.gradients(g, x)[0]
    x = 0.7
    assert np.isclose(f(tf.constant(x)).numpy(), 2 * np.cos(x) - x * np.sin(x), rtol=1e-6)


def test_gradient_tape_inside_traced_function():
    w = tf.Variable([1., -2.])

    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(w * tf.exp(x))
        gx, gw = t.gradient(y, [x, w])
        return y, gx, gw
    x = tf.constant([0., 1.])
    y, gx, gw = f(x)
    np.testing.assert_allclose(gx.numpy(), [1., -2. * np.e], rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), [1., np.e], rtol=1e-6)
    w.assign([3., 3.])
    y, gx, gw = f(x)
    np.testing.assert_allclose(gx.numpy(), [3., 3. * np.e], rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_nested_tapes_inside_traced_function():
    @tf.function
    def f(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x ** 3
            g = t1.gradient(y, x)
        return g, t2.gradient(g, x)
    g, h = f(tf.constant(2.))
    assert g.numpy() == np.float32(12.) and h.numpy() == np.float32(12.)


# --- odds and ends ----------------------------------------------------------------------------

def test_nested_functions_values_and_gradients():
    @tf.function
    def inner(x):
        return tf.sin(x) * 2.

    @tf.function
    def outer(x):
        return inner(x) + inner(x * 2.)
    x = tf.constant(0.3)
    with tf.GradientTape() as t:
        t.watch(x)
        y = outer(x)
    np.testing.assert_allclose(y.numpy(), 2 * np.sin(.3) + 2 * np.sin(.6), rtol=1e-6)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 2 * np.cos(.3) + 4 * np.cos(.6),
                               rtol=1e-6)
    assert outer.experimental_get_tracing_count() == 1


def test_outside_tape_over_function_calling_gradients():
    @tf.function
    def d(x):
        return tf.gradients(tf.sin(x) * x, x)[0]
    x = tf.constant(0.3)
    with tf.GradientTape() as t:
        t.watch(x)
        g = d(x)
    np.testing.assert_allclose(g.numpy(), np.cos(.3) * .3 + np.sin(.3), rtol=1e-6)
    np.testing.assert_allclose(t.gradient(g, x).numpy(), 2 * np.cos(.3) - .3 * np.sin(.3),
                               rtol=1e-6)


def test_keywords_flags_none_and_jacobian():
    f = tf.function(lambda x, y=1.: x * y)
    assert f(tf.constant(2.), y=tf.constant(3.)).numpy() == np.float32(6.)
    assert f(tf.constant(2.)).numpy() == np.float32(2.)
    g = tf.function(reduce_retracing=True, jit_compile=True)(lambda x: x * 2.)
    assert g(tf.constant(2.)).numpy() == np.float32(4.)
    assert tf.function(lambda x: None)(tf.constant(1.)) is None
    h = tf.function(lambda x: x * x)
    x = tf.constant([1., 2.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = h(x)
    np.testing.assert_array_equal(t.jacobian(y, x).numpy(), [[2., 0.], [0., 4.]])
    n = tf.function(lambda n: n * 2)(tf.constant(3))
    assert n.dtype == tf.int32 and n.numpy() == 6


def test_assign_then_read_gradients_match_eager():
    w = tf.Variable(1.)

    def fn(x):
        w.assign(x)
        return w * w
    f = tf.function(fn)
    x = tf.constant(0.3)
    res = []
    for fun in (fn, f):
        with tf.GradientTape() as t:
            t.watch(x)
            y = fun(x)
        res.append((y, *t.gradient(y, [x, w])))
    (ye, gxe, gwe), (yt, gxt, gwt) = res
    _assert_same(yt, ye)
    assert gxe is None and gxt is None         # assign is not differentiable
    _assert_same(gwt, gwe)


def test_assigning_a_variable_in_a_trace_reads_it_when_the_graph_runs():
    v, m = tf.Variable(0.), tf.Variable(1.)

    @tf.function
    def f():
        m.assign(m + 1.)
        v.assign_add(m)     # the value m has now, at every call, not at trace time
    f()
    f()
    assert float(v) == 5. and float(m) == 3.
