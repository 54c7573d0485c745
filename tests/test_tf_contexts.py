"""TensorFlow 2's graph-era context names (device, init_scope, inside_function,
get_current_name_scope, group, tuple) and the top-level initializer classes, against the
installed TensorFlow where it is there."""
import json

import numpy as np
import pytest

import finegrad as fg


def _tf():
    return pytest.importorskip("tensorflow")


# --- device ------------------------------------------------------------------------------------

GOOD_DEVICES = ["/cpu:0", "/GPU:0", "/job:localhost/replica:0/task:0/device:CPU:0", "", None,
                "cpu:0", "/device:GPU:*", "/gpu:*"]
BAD_DEVICES = [(3, ValueError), ("/foo:0", ValueError), ("garbage", ValueError),
               ("/cpu:0/gpu:1", ValueError), (b"/cpu:0", ValueError),
               (lambda op: "/cpu:0", RuntimeError)]


@pytest.mark.parametrize("name", GOOD_DEVICES)
def test_device_accepts_tensorflow_device_strings(name):
    with fg.device(name) as d:
        y = fg.constant(2.) * 3.
    assert d is None and float(y) == 6.


@pytest.mark.parametrize("name,error", BAD_DEVICES)
def test_device_refuses_what_tensorflow_refuses(name, error):
    with pytest.raises(error, match="finegrad.device"):
        fg.device(name)
    tf = _tf()
    with pytest.raises(error):
        with tf.device(name):
            pass


def test_device_inside_function():
    @fg.function
    def f(x):
        with fg.device("/GPU:0"):
            return x * 2.
    assert float(f(fg.constant(3.))) == 6.


# --- init_scope, inside_function, get_current_name_scope -------------------------------------

def test_init_scope_lifts_out_of_a_trace_like_tensorflow():
    seen = []

    @fg.function
    def f(x):
        seen.append(("in", fg.inside_function(), fg.executing_eagerly()))
        with fg.init_scope():
            seen.append(("init", fg.inside_function(), fg.executing_eagerly()))
            c = fg.constant(2.) * 3.
        return x * c

    assert float(f(fg.constant(1.))) == 6. and float(f(fg.constant(2.))) == 12.
    assert seen == [("in", True, False), ("init", True, True)]   # traced once
    assert not fg.inside_function()
    tf = _tf()
    tf_seen = []

    @tf.function
    def g(x):
        tf_seen.append(("in", tf.inside_function(), tf.executing_eagerly()))
        with tf.init_scope():
            tf_seen.append(("init", tf.inside_function(), tf.executing_eagerly()))
        return x
    g(tf.constant(1.))
    assert tf_seen == seen


def test_init_scope_values_are_graph_constants_computed_once():
    v = fg.Variable(1.)
    calls = []

    @fg.function
    def f(x):
        v.assign(5.)
        with fg.init_scope():
            calls.append(float(v.read_value()))   # the value before the call, as TensorFlow
            c = v.read_value() * 10.
        return x + c
    assert float(f(fg.constant(1.))) == 11.
    v.assign(2.)
    assert float(f(fg.constant(1.))) == 11. and calls == [1.]   # c is a constant of the graph


def test_init_scope_refuses_traced_tensors():
    @fg.function
    def f(x):
        y = x * 2.
        with fg.init_scope():
            return y + 1.
    with pytest.raises(TypeError, match="finegrad.init_scope: add was given a tensor"):
        f(fg.constant(1.))

    @fg.function
    def g(x):
        with fg.init_scope():
            return float(x)
    with pytest.raises(TypeError, match="traced tensor"):
        g(fg.constant(1.))


def test_init_scope_in_a_cond_branch_refuses_the_outer_trace_tensors():
    @fg.function
    def f(x):
        def branch():
            with fg.init_scope():
                return x + 1.
        return fg.cond(x > 0, branch, lambda: x)
    with pytest.raises(TypeError, match="finegrad.init_scope"):
        f(fg.constant(1.))


def test_init_scope_pauses_tapes():
    x = fg.constant(3.)
    with fg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with fg.init_scope():
            y = x * x
        z = x * x
    assert tape.gradient(y, x) is None and float(tape.gradient(z, x)) == 6.
    tf = _tf()
    tx = tf.constant(3.)
    with tf.GradientTape(persistent=True) as ttape:
        ttape.watch(tx)
        with tf.init_scope():
            ty = tx * tx
    assert ttape.gradient(ty, tx) is None


def test_variables_created_in_init_scope_follow_the_function_rule():
    made = []

    @fg.function
    def f(x):
        with fg.init_scope():
            made.append(fg.Variable(2.))
        return x * made[-1]
    # as in TensorFlow: the first call traces twice, and the second trace creates one more
    with pytest.raises(ValueError, match="singleton Variables created on the first trace"):
        f(fg.constant(1.))


def test_get_current_name_scope_follows_name_scope():
    tf = _tf()
    for lib in (fg, tf):
        got = [lib.get_current_name_scope()]
        with lib.name_scope("a"):
            with lib.name_scope("b"):
                got.append(lib.get_current_name_scope())
            with lib.name_scope("c/"):
                got.append(lib.get_current_name_scope())
            got.append(lib.get_current_name_scope())
        got.append(lib.get_current_name_scope())
        assert got == ["", "a/b", "c", "a", ""]


def test_a_trace_starts_at_the_root_name_scope_like_tensorflow():
    tf = _tf()
    def scopes_seen(lib):
        seen = []

        @lib.function
        def f(x):
            seen.append(lib.get_current_name_scope())
            with lib.name_scope("in"):
                seen.append(lib.get_current_name_scope())
            return x
        with lib.name_scope("outer"):
            f(lib.constant(1.))
            seen.append(lib.get_current_name_scope())
        return seen
    assert scopes_seen(fg) == scopes_seen(tf) == ["", "in", "outer"]


def test_init_scope_keeps_the_name_scope():
    @fg.function
    def f(x):
        with fg.name_scope("q"):
            with fg.init_scope():
                return x, fg.get_current_name_scope()
    assert f(fg.constant(1.))[1] == "q"


# --- group and tuple ---------------------------------------------------------------------------

def test_group_returns_none_like_eager_tensorflow():
    tf = _tf()
    a = fg.constant(1.)
    assert fg.group(a, [a * 2.], name="g") is None and fg.group() is None
    assert tf.group(tf.constant(1.)) is None
    with pytest.raises(TypeError, match="finegrad.group: unknown keyword arguments"):
        fg.group(a, control_inputs=[a])


def test_tuple_returns_the_tensors():
    tf = _tf()
    ts = (fg.constant(1.), None, fg.constant([2., 3.]))
    assert fg.tuple(ts) is ts
    got = tf.tuple((tf.constant(1.), None, tf.constant([2., 3.])))
    assert type(got) is tuple and got[1] is None

    @fg.function
    def f(x):
        a, b = fg.tuple([x, x * 2.], control_inputs=[x])
        return a + b
    assert float(f(fg.constant(1.))) == 3.
    with pytest.raises(TypeError, match="finegrad.tuple: tensors must be a list or tuple"):
        fg.tuple(fg.constant([1., 2.]))
    with pytest.raises(TypeError, match="finegrad.tuple: control_inputs"):
        fg.tuple([fg.constant(1.)], control_inputs=fg.constant(1.))


# --- initializers ------------------------------------------------------------------------------

def _pairs(tf):
    return [(fg.constant_initializer(2.5), tf.constant_initializer(2.5), [2, 3], None),
            (fg.constant_initializer([1, 2, 3, 4]), tf.constant_initializer([1, 2, 3, 4]),
             [2, 2], None),
            (fg.constant_initializer(np.arange(4.)), tf.constant_initializer(np.arange(4.)),
             [4], "float32"),
            (fg.zeros_initializer(), tf.zeros_initializer(), [2, 3], "int64"),
            (fg.ones_initializer(), tf.ones_initializer(), [3], "float64"),
            (fg.ones_initializer(), tf.ones_initializer(), [2], "bool"),
            (fg.random_uniform_initializer(0, 10, seed=1),
             tf.random_uniform_initializer(0, 10, seed=1), [5], "int32"),
            (fg.random_uniform_initializer(-1., 2., seed=7),
             tf.random_uniform_initializer(-1., 2., seed=7), [3, 4], "float32"),
            (fg.random_normal_initializer(1., 2., seed=3),
             tf.random_normal_initializer(1., 2., seed=3), [2, 3], "float64"),
            (fg.random_normal_initializer(seed=5), tf.random_normal_initializer(seed=5),
             [4, 5], "float32")]


def test_initializers_match_tensorflow():
    tf = _tf()
    for ours, theirs, shape, dtype in _pairs(tf):
        args = (shape,) if dtype is None else (shape, getattr(fg, dtype))
        targs = (shape,) if dtype is None else (shape, getattr(tf, dtype))
        got, want = ours(*args), theirs(*targs).numpy()
        assert got.dtype.name == want.dtype.name and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-7)
        as_json = lambda c: json.dumps(c, default=np.ndarray.tolist)  # noqa: E731
        assert as_json(ours.get_config()) == as_json(theirs.get_config())
        again = type(ours).from_config(ours.get_config())
        np.testing.assert_array_equal(again(*args).numpy(), got.numpy())


def test_seeded_initializers_repeat_and_unseeded_do_not():
    for make in (fg.random_normal_initializer, fg.random_uniform_initializer):
        seeded = make(seed=11)
        np.testing.assert_array_equal(seeded([50]).numpy(), seeded([50]).numpy())
        free = make()
        assert not np.array_equal(free([50]).numpy(), free([50]).numpy())
    draws = fg.random_normal_initializer(3., 0.5)([20000]).numpy()
    assert abs(draws.mean() - 3.) < 0.02 and abs(draws.std() - 0.5) < 0.02


def test_initializers_inside_function_and_as_variable_values():
    init = fg.random_normal_initializer(seed=2)

    @fg.function
    def f(x):
        return x + init([3])
    np.testing.assert_allclose(f(fg.zeros([3])).numpy(), init([3]).numpy())
    v = fg.Variable(fg.constant_initializer(0.5)([2]))
    np.testing.assert_array_equal(v.numpy(), [0.5, 0.5])


def test_initializer_errors():
    with pytest.raises(TypeError, match="finegrad.constant_initializer: value must be"):
        fg.constant_initializer({"a": 1})
    with pytest.raises(ValueError, match="finegrad.constant_initializer: a value of 3 elements"):
        fg.constant_initializer([1., 2., 3.])([2, 2])
    with pytest.raises(ValueError, match="support_partition"):
        fg.constant_initializer(1.)([2], partition_shape=[2])
    with pytest.raises(TypeError, match="finegrad.zeros_initializer: unknown keyword"):
        fg.zeros_initializer()([2], foo=1)
    with pytest.raises(ValueError, match="finegrad.zeros_initializer: dtype must be numeric"):
        fg.zeros_initializer()([2], fg.string)
    with pytest.raises(ValueError, match="finegrad.random_normal_initializer: dtype must be "
                                         "floating point, got int32"):
        fg.random_normal_initializer()([2], fg.int32)
    with pytest.raises(ValueError, match="finegrad.random_uniform_initializer: dtype must be"):
        fg.random_uniform_initializer()([2], fg.bool)
    np.testing.assert_array_equal(fg.ones_initializer()([9], partition_shape=[2]).numpy(),
                                  [1., 1.])
    tf = _tf()
    with pytest.raises(ValueError):
        tf.random_normal_initializer()([2], tf.int32)
    with pytest.raises(TypeError):
        tf.constant_initializer({"a": 1})
