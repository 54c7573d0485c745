"""Graph listings and the compiled executor: printing, dead code
removal, common subexpressions, constant folding, freeing and in-place ufuncs."""
import numpy as np
import pytest

import finegrad as tf
from finegrad._src.ops.math import reductions as reduce_ops
from finegrad._src.graph.compile.pipeline import compiled as compiled_form


def _prims(graph):
    return [n.prim.name for n in graph.nodes]


def _compiled_nodes(f, *args):
    return _prims(compiled_form(f.get_concrete_function(*args).graph).graph)


# --- printing ---------------------------------------------------------------------------------

def test_small_function_listing_exact():
    @tf.function
    def f(x):
        return tf.reduce_sum(x * 2.)
    g = f.get_concrete_function(tf.constant([1., 2., 3.])).graph
    assert str(g) == (
        "def f(x: float32[3]):\n"
        "  %0 = multiply(x, 2.0)                           # float32[3]\n"
        "  %1 = reduce_sum(%0, axis=(0,), keepdims=False)  # float32[]\n"
        "  return %1")


def test_listing_two_arguments_and_several_outputs():
    @tf.function
    def f(x, y):
        s = tf.sin(x)
        return s * 2., tf.reduce_mean(y)
    g = f.get_concrete_function(tf.zeros((2, 3)), tf.zeros((2, 3), tf.float64) + 0.).graph
    text = str(g)
    lines = text.split("\n")
    assert lines[0] == "def f(x: float32[2,3], y: float64[2,3]):"
    assert lines[-1].startswith("  return ")
    ops = lines[1:-1]
    assert ops[0].startswith("  %0 = sin(x)") and ops[0].endswith("# float32[2,3]")
    assert all(" = " in line and "  # " in line for line in ops)
    assert len(ops) == len(g.nodes)


def test_listing_of_gradient_shows_vjp_ops():
    @tf.function
    def f(x):
        return tf.gradients(tf.reduce_sum(tf.sin(x)), x)[0]
    g = f.get_concrete_function(tf.constant([0.1, 0.2])).graph
    text = str(g)
    assert text.startswith("def f(x: float32[2]):\n  %0 = sin(x)")
    assert "cos(x)" in text                   # sin's VJP
    assert "broadcast_to" in text             # reduce_sum's VJP
    ret = text.split("\n")[-1]
    assert ret.startswith("  return %")
    np.testing.assert_allclose(f(tf.constant([0.1, 0.2])).numpy(), np.cos([0.1, 0.2]),
                               rtol=1e-6)


def test_listing_shows_variables_and_assigns():
    v = tf.Variable([1., 2.], name="v")

    @tf.function
    def f(x):
        v.assign_add(x)
        return v * 2.
    text = str(f.get_concrete_function(tf.constant([0., 0.])).graph)
    assert "assign_variable(x" in text and "read_variable(" in text
    assert "mode=assign_add" in text


def test_distinct_array_constants_have_distinct_names():
    a = tf.constant([1., 2.])
    b = tf.constant([3., 4.])

    @tf.function
    def f(x):
        return x * a + b
    text = str(f.get_concrete_function(tf.constant([0., 0.])).graph)
    mul, add = text.split("\n")[1:3]
    name_a = mul.split("multiply(x, ")[1].split(")")[0]
    name_b = add.split(", ")[1].split(")")[0]
    assert name_a != name_b


# --- simplification -----------------------------------------------------------------------------

def test_dead_code_removed_and_not_executed(monkeypatch):
    calls = []
    impl = reduce_ops.reduce_max_p.impl

    def counting(*a, **k):
        calls.append(1)
        return impl(*a, **k)
    monkeypatch.setattr(reduce_ops.reduce_max_p, "impl", counting)

    @tf.function
    def f(x):
        unused = tf.reduce_max(x) + tf.exp(x)   # noqa: F841
        return x * 2.
    x = tf.constant([1., 2.])
    traced_calls = len(calls)           # tracing runs the Python body (eager values)
    np.testing.assert_array_equal(f(x).numpy(), [2., 4.])
    traced_calls = len(calls)
    assert traced_calls <= 1
    for _ in range(3):
        np.testing.assert_array_equal(f(x).numpy(), [2., 4.])
    assert len(calls) == traced_calls
    assert _compiled_nodes(f, x) == ["multiply"]
    # the recorded graph still lists it (printing shows what was traced)
    assert "reduce_max" in _prims(f.get_concrete_function(x).graph)


def test_used_op_is_executed_per_call(monkeypatch):
    calls = []
    impl = reduce_ops.reduce_max_p.impl

    def counting(*a, **k):
        calls.append(1)
        return impl(*a, **k)
    monkeypatch.setattr(reduce_ops.reduce_max_p, "impl", counting)

    @tf.function
    def f(x):
        return tf.reduce_max(x) * 2.
    f(tf.constant([1., 5.]))
    n = len(calls)
    assert f(tf.constant([7., 5.])).numpy() == np.float32(14.)
    assert len(calls) == n + 1


def test_common_subexpressions_merged():
    @tf.function
    def f(x, y):
        return x * y + x * y
    x, y = tf.constant([1., 2.]), tf.constant([3., 4.])
    assert _prims(f.get_concrete_function(x, y).graph).count("multiply") == 2
    assert _compiled_nodes(f, x, y) == ["multiply", "add"]
    np.testing.assert_array_equal(f(x, y).numpy(), [6., 16.])


def test_cse_respects_params():
    @tf.function
    def f(x):
        return tf.reduce_sum(x, axis=0) + tf.reduce_sum(x, axis=1) + tf.reduce_sum(x, axis=0)
    x = tf.constant(np.arange(4, dtype=np.float32).reshape(2, 2))
    nodes = _compiled_nodes(f, x)
    assert nodes.count("reduce_sum") == 2
    np.testing.assert_array_equal(f(x).numpy(), [2 * 2. + 1., 2 * 4. + 5.])


def test_constants_folded():
    @tf.function
    def f(x):
        c = tf.exp(tf.constant([0., 1.])) * 2. + tf.constant(1.)
        return x + c
    x = tf.constant([1., 1.])
    assert _compiled_nodes(f, x) == ["add"]
    g = compiled_form(f.get_concrete_function(x).graph).graph
    folded = [np.asarray(v) for v in g.consts.values()]
    assert len(folded) == 1
    np.testing.assert_allclose(folded[0], np.exp([0., 1.]) * 2. + 1., rtol=1e-6)
    _ = f(x)
    np.testing.assert_allclose(f(x).numpy(), 1. + np.exp([0., 1.]) * 2. + 1., rtol=1e-6)


def test_effects_not_merged_or_removed():
    v = tf.Variable(0.)

    @tf.function
    def f():
        v.assign_add(1.)
        v.assign_add(1.)
        a = v.read_value()
        v.assign_add(1.)
        b = v.read_value()
        return a, b
    a, b = f()
    assert (a.numpy(), b.numpy(), v.numpy()) == (2., 3., 3.)
    nodes = _prims(compiled_form(f.get_concrete_function().graph).graph)
    assert nodes.count("assign_variable") == 3
    a, b = f()
    assert (a.numpy(), b.numpy(), v.numpy()) == (5., 6., 6.)


def test_unused_assign_is_kept():
    v = tf.Variable(0.)

    @tf.function
    def f(x):
        v.assign(x * 3.)
        return x
    f(tf.constant(2.))
    assert v.numpy() == np.float32(6.)


def test_gradient_graph_simplified_to_constant():
    @tf.function
    def f(x):
        return tf.gradients(tf.reduce_sum(x * 2.), x)[0]
    x = tf.constant([1., 2., 3.])
    assert _compiled_nodes(f, x) == []
    np.testing.assert_array_equal(f(x).numpy(), [2., 2., 2.])


# --- execution: freeing and in-place ufuncs ---------------------------------------------------

def test_inplace_chain_identical_to_eager_and_input_untouched():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1000).astype(np.float32)
    keep = a.copy()

    def chain(x):
        y = tf.exp(x)
        y = y + 1.
        y = tf.math.log(y)
        y = y * x - tf.sin(y)
        return tf.sqrt(tf.square(y) + 1.)
    f = tf.function(chain)
    x = tf.constant(a)
    eager = chain(x).numpy()
    for _ in range(3):
        out = f(x).numpy()
        np.testing.assert_array_equal(out, eager)
        np.testing.assert_array_equal(a, keep)
        np.testing.assert_array_equal(x.numpy(), keep)
    # passing the NumPy array itself
    np.testing.assert_array_equal(f(a).numpy(), eager)
    np.testing.assert_array_equal(a, keep)


def test_outputs_of_one_call_not_overwritten_by_next():
    @tf.function
    def f(x):
        a = tf.exp(x)
        b = a * 2.
        return a, b + 1.
    x1 = tf.constant(np.linspace(0, 1, 100).astype(np.float32))
    x2 = tf.constant(np.linspace(2, 3, 100).astype(np.float32))
    a1, b1 = f(x1)
    a1v, b1v = a1.numpy().copy(), b1.numpy().copy()
    a2, b2 = f(x2)
    np.testing.assert_array_equal(a1.numpy(), a1v)
    np.testing.assert_array_equal(b1.numpy(), b1v)
    np.testing.assert_array_equal(a2.numpy(), np.exp(x2.numpy()))


@pytest.mark.parametrize("view", ["reshape", "slice", "transpose", "identity", "squeeze"])
def test_views_of_recycled_buffers_stay_valid(view):
    def make_view(a):
        if view == "reshape":
            return tf.reshape(a, (2, 3))
        if view == "slice":
            return a[1:]
        if view == "transpose":
            return tf.transpose(tf.reshape(a, (2, 3)))
        if view == "squeeze":
            return tf.squeeze(tf.expand_dims(a, 0), 0)
        return tf.identity(a)

    def fn(x):
        a = tf.exp(x)
        b = make_view(a)
        c = a * 2.           # a dies here: must not be written over while b lives
        d = tf.sin(c) + 1.
        return b, d
    f = tf.function(fn)
    x = tf.constant(np.arange(6, dtype=np.float32) / 3)
    be, de = fn(x)
    for _ in range(2):
        b, d = f(x)
        np.testing.assert_array_equal(b.numpy(), be.numpy())
        np.testing.assert_array_equal(d.numpy(), de.numpy())


def test_broadcasting_and_dtypes_in_compiled_ufuncs():
    def fn(x, y, z):
        a = tf.exp(x) + y              # (3, 4) + (4,)
        b = a * tf.cast(z, tf.float32)
        c = tf.maximum(b, 0.5) - tf.minimum(b, 0.25)
        return tf.math.log1p(tf.square(c)), tf.math.expm1(-c), tf.tanh(-c)
    f = tf.function(fn)
    rng = np.random.default_rng(1)
    args = (tf.constant(rng.standard_normal((3, 4)).astype(np.float32)),
            tf.constant(rng.standard_normal(4).astype(np.float32)),
            tf.constant(rng.standard_normal((3, 1))))
    for e, t in zip(fn(*args), f(*args), strict=True):
        assert e.dtype == t.dtype and e.shape == t.shape
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_float64_and_scalars_traced_identical():
    def fn(x):
        y = x
        for _ in range(20):
            y = tf.sin(y) * 0.9 + tf.cos(y) * 0.1 - 0.01
        return y
    f = tf.function(fn)
    for x in (tf.constant(0.3, tf.float64), tf.constant([[0.1, 0.2]], tf.float64),
              tf.constant(0.7)):
        e, t = fn(x), f(x)
        assert e.dtype == t.dtype
        np.testing.assert_array_equal(np.asarray(e.numpy()), np.asarray(t.numpy()))


def test_returned_buffers_are_recycled_only_once_dropped():
    f = tf.function(lambda x: tf.exp(x) * 2.)
    x = tf.constant(np.ones(300_000, np.float32))
    a = f(x)
    b = f(x)                       # a is still held: b must not share its memory
    assert not np.shares_memory(a._value, b._value)
    kept = a.numpy()
    view = np.asarray(b)           # a view the caller keeps also holds the buffer
    del a, b
    c = f(x)
    assert not np.shares_memory(c._value, view)
    np.testing.assert_array_equal(view, kept)
    np.testing.assert_array_equal(c.numpy(), kept)


def test_matmul_writes_into_recycled_buffers_and_spares_held_results():
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.standard_normal((64, 64)).astype(np.float32))

    def step(x):
        with tf.GradientTape() as tape:
            h = tf.tanh(tf.matmul(x, w))
            loss = tf.reduce_sum(tf.matmul(h, w))
        return tape.gradient(loss, w)
    f = tf.function(step)
    x1, x2 = (tf.constant(rng.standard_normal((32, 64)).astype(np.float32)) for _ in range(2))
    g1 = f(x1)
    kept = g1.numpy().copy()
    assert "matmul(" in f.get_concrete_function(x1).compiled_source and \
        "out=pool" in f.get_concrete_function(x1).compiled_source
    for _ in range(3):   # later calls recycle buffers, never the one the caller holds
        g2 = f(x2)
        assert not np.shares_memory(g1._value, g2._value)
        np.testing.assert_array_equal(g1.numpy(), kept)
        np.testing.assert_allclose(g2.numpy(), step(x2).numpy(), rtol=1e-6)
        np.testing.assert_array_equal(f(x1).numpy(), kept)


def test_uniform_constant_arrays_become_scalars():
    """A gradient seed broadcast to a whole array (a folded constant of ones) is read as one
    scalar by the kernels it feeds: same values to the bit, no array constant kept."""
    x = tf.constant(np.linspace(-1., 1., 300, dtype=np.float32))

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * x * 3.)
        return tape.gradient(y, x)

    compiled = compiled_form(f.get_concrete_function(x).graph)
    assert all(np.ndim(v) == 0 for v in compiled.graph.consts.values())
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x * 3.)
    np.testing.assert_array_equal(f(x).numpy(), tape.gradient(y, x).numpy())


def test_compiled_source_is_one_function_with_dels():
    @tf.function
    def f(x):
        return tf.exp(x) * tf.tanh(x) + 1.

    concrete = f.get_concrete_function(tf.constant([0.5, 1.5]))
    src = concrete.compiled_source
    assert src.startswith("def f(args, outer, pool, escaped, *")
    assert "del " in src and "exp(" in src and "tanh(" in src
    x = np.array([0.5, 1.5], np.float32)
    np.testing.assert_array_equal(f(tf.constant(x)).numpy(), np.exp(x) * np.tanh(x) + 1)


def test_scalar_steps_are_numpy_scalar_arithmetic_with_eager_values():
    """On scalars, kernels whose spelling is plain arithmetic (tanh's gradient among them)
    run as Python arithmetic on NumPy scalars: the same values as eager, to the bit."""
    def chain(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(5):
                y = tf.tanh(y * 1.5 + 0.25) - y / 3.
        return y, tape.gradient(y, x)

    x = tf.constant(0.3)
    f = tf.function(chain)
    src = f.get_concrete_function(x).compiled_source
    assert "tanh_grad(" not in src and " * (1 - " in src, src
    for got, want in zip(f(x), chain(x), strict=True):
        assert got.numpy().dtype == want.numpy().dtype == np.float32
        assert got.numpy() == want.numpy()
