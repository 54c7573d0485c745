"""TensorFlow's API names that need no op: tf.nest, name scopes, control dependencies,
tf.print, executing_eagerly, is_tensor, tf.debugging, tf.errors, tf.compat.v1, TensorShape and
Dimension, newaxis, identity_n and ensure_shape, with TensorFlow's values and errors.
"""
import collections
import io

import numpy as np
import pytest

import finegrad as tf
from finegrad.testing import check_gradients

Point = collections.namedtuple("Point", ["x", "y"])


# ---- nest -----------------------------------------------------------------------------------

def test_nest_flatten_orders_dicts_by_key_and_keeps_none_as_a_leaf():
    s = {"b": [1, (2, None)], "a": Point(3, {"z": 4, "y": 5})}
    assert tf.nest.flatten(s) == [3, 5, 4, 1, 2, None]
    assert tf.nest.flatten("abc") == ["abc"] and tf.nest.flatten(None) == [None]
    assert tf.nest.flatten(s, expand_composites=True) == tf.nest.flatten(s)


def test_nest_pack_sequence_as_rebuilds_types_and_checks_counts():
    s = {"b": [0, (0, 0)], "a": Point(0, 0)}
    out = tf.nest.pack_sequence_as(s, [1, 2, 3, 4, 5])
    assert out == {"b": [3, (4, 5)], "a": Point(1, 2)} and type(out["a"]) is Point
    assert tf.nest.pack_sequence_as(7, [8]) == 8
    with pytest.raises(ValueError, match="5 leaves, but flat_sequence has 4"):
        tf.nest.pack_sequence_as(s, [1, 2, 3, 4])
    with pytest.raises(TypeError, match="list or tuple"):
        tf.nest.pack_sequence_as(s, 3)


def test_nest_map_structure_over_several_structures():
    a, b = [1, {"k": 2}], [10, {"k": 20}]
    assert tf.nest.map_structure(lambda u, v: u * v, a, b) == [10, {"k": 40}]
    t = tf.nest.map_structure(lambda v: tf.constant(v) * 2, Point(1., 2.))
    assert isinstance(t, Point) and float(t.y) == 4.
    with pytest.raises(ValueError, match="same nested structure"):
        tf.nest.map_structure(lambda u, v: u, [1, 2], [1])
    with pytest.raises(TypeError, match="sequence type"):
        tf.nest.map_structure(lambda u, v: u, [1, 2], (1, 2))
    assert tf.nest.map_structure(lambda u, v: u + v, [1, 2], (1, 2), check_types=False) == [2, 4]
    with pytest.raises(ValueError, match="at least one structure"):
        tf.nest.map_structure(lambda: 0)
    with pytest.raises(ValueError, match="keyword"):
        tf.nest.map_structure(lambda u: u, [1], bad=1)


def test_nest_assert_same_structure_and_is_nested():
    tf.nest.assert_same_structure({"a": [1, 2]}, {"a": [3, 4]})
    with pytest.raises(ValueError, match="keys"):
        tf.nest.assert_same_structure({"a": 1}, {"b": 1})
    with pytest.raises(ValueError):
        tf.nest.assert_same_structure([1, [2]], [1, 2])
    with pytest.raises(TypeError):
        tf.nest.assert_same_structure(Point(1, 2), (1, 2))
    assert tf.nest.is_nested(Point(1, 2)) and tf.nest.is_nested({}) and not tf.nest.is_nested(1)
    assert not tf.nest.is_nested(tf.constant([1.]))


# ---- scopes, control, eager ----------------------------------------------------------------

def test_name_scope_nests_and_restores():
    with tf.name_scope("a") as a:
        with tf.name_scope("b") as b:
            with tf.name_scope("abs/") as c:
                pass
        with tf.name_scope("d") as d:
            pass
    assert (a, b, c, d) == ("a/", "a/b/", "abs/", "a/d/")
    with tf.name_scope("e") as e:
        assert e == "e/" and tf.name_scope("e").name == "e"
    with pytest.raises(ValueError, match="string"):
        tf.name_scope(3)
    with tf.compat.v1.name_scope(None, "dflt", values=[1]) as s:
        assert s == "dflt/"


def test_control_dependencies_no_op_and_executing_eagerly():
    x = tf.constant(2.)
    with tf.control_dependencies([tf.no_op(), x]):
        y = x * 3
    with tf.control_dependencies(None):
        pass
    assert float(y) == 6. and tf.no_op(name="n") is None
    seen = []

    @tf.function
    def f(x):
        seen.append(tf.executing_eagerly())
        with tf.control_dependencies([tf.debugging.assert_positive(x)]):
            return tf.identity(x) * 2.
    assert tf.executing_eagerly() and float(f(tf.constant(1.))) == 2. and seen == [False]
    assert tf.compat.v1.executing_eagerly_outside_functions() is True
    assert tf.compat.v1.executing_eagerly()


def test_is_tensor():
    assert tf.is_tensor(tf.constant(1)) and tf.is_tensor(tf.Variable(1.))
    assert not tf.is_tensor(np.ones(2)) and not tf.is_tensor(1.0) and not tf.is_tensor([1])


# ---- print ----------------------------------------------------------------------------------

def test_print_formats_values_as_tensorflow():
    buf = io.StringIO()
    tf.print("v", tf.constant([1., 2.5]), tf.constant(3), tf.range(10), output_stream=buf)
    tf.print(tf.constant([[1, 2], [3, 4]]), output_stream=buf, sep="|", end="!\n")
    tf.print(tf.range(8), summarize=-1, output_stream=buf)
    tf.print(tf.Variable(1.5), [tf.constant(1.), "s"], output_stream=buf)
    assert buf.getvalue().splitlines() == [
        "v [1 2.5] 3 [0 1 2 ... 7 8 9]", "[[1 2]", " [3 4]]!", "[0 1 2 3 4 5 6 7]",
        "1.5 [1, s]"]


def test_print_defaults_to_stderr_and_accepts_a_function(capsys):
    tf.print(tf.constant(1.))
    assert capsys.readouterr().err == "1\n"
    got = []
    tf.print("a", tf.constant(2), output_stream=got.append)
    assert got == ["a 2"]


def test_print_inside_a_function_prints_at_each_call_only():
    """tf.print in a graph prints when the graph runs (each call, none for the trace), as
    TensorFlow's PrintV2 op; values, nested structures and Python objects as eagerly."""
    got = []

    @tf.function
    def f(x):
        tf.print("x =", x, {"sq": x * x}, [1, "s"], output_stream=got.append)
        return x + 1.
    f(tf.constant([1., 2.]))
    f(tf.constant([3., 4.]))
    assert got == ["x = [1 2] {'sq': [1 4]} [1, s]", "x = [3 4] {'sq': [9 16]} [1, s]"]
    sig = tf.function(lambda x: tf.print("n", tf.shape(x), output_stream=got.append) or x,
                      input_signature=[tf.TensorSpec([None])])
    sig(tf.ones(3))
    assert got[-1] == "n [3]" and len(got) == 3   # (nothing for the trace's made-up values)


def test_print_in_a_tf1_graph_is_an_operation_that_runs_when_depended_on():
    v1 = tf.compat.v1
    got = []
    with tf.Graph().as_default():
        p = v1.placeholder(tf.float32, [None])
        op = tf.print("fed", p, output_stream=got.append)
        assert isinstance(op, v1.Operation)
        with v1.control_dependencies([op]):
            y = tf.identity(p)
        with v1.Session() as sess:
            sess.run(p * 3., {p: [5.]})
            assert got == []   # (nothing depends on it)
            sess.run(y, {p: [5.]})
            assert got == ["fed [5]"]


# ---- debugging and errors -------------------------------------------------------------------

FAILING = [
    lambda: tf.debugging.assert_equal(tf.constant([1, 2]), [1, 3]),
    lambda: tf.assert_equal(1, 2),
    lambda: tf.debugging.assert_none_equal(tf.constant([1, 2]), 2),
    lambda: tf.debugging.assert_less(tf.constant([1., 2.]), 2.),
    lambda: tf.assert_less(tf.constant(1.), 1.),
    lambda: tf.debugging.assert_less_equal(tf.constant(3.), 2.),
    lambda: tf.debugging.assert_greater(tf.constant([1., 2.]), 1.),
    lambda: tf.assert_greater(tf.constant(0.), 0.),
    lambda: tf.debugging.assert_greater_equal(tf.constant(1.), 2.),
    lambda: tf.debugging.assert_positive(tf.constant([1., 0.])),
    lambda: tf.debugging.assert_non_negative(tf.constant([-1e-3])),
    lambda: tf.debugging.assert_negative(tf.constant([0.])),
    lambda: tf.debugging.assert_non_positive(tf.constant([1.])),
    lambda: tf.debugging.assert_near(tf.constant(1.), 1.001),
    lambda: tf.debugging.check_numerics(tf.constant([1., np.nan]), "bad"),
    lambda: tf.debugging.check_numerics(tf.constant([np.inf]), "bad"),
    lambda: tf.debugging.Assert(tf.constant(False), ["msg", tf.constant([1, 2])]),
    lambda: tf.Assert(False, ["x"]),
    lambda: tf.ensure_shape(tf.zeros((2, 3)), [2, 4]),
    lambda: tf.ensure_shape(tf.zeros((2, 3)), [None]),
]


@pytest.mark.parametrize("k", range(len(FAILING)))
def test_failed_value_checks_raise_invalid_argument(k):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        FAILING[k]()
    assert isinstance(info.value, ValueError) and isinstance(info.value, tf.errors.OpError)


def test_passing_checks_return_none_or_their_input():
    x = tf.constant([1., 2.])
    assert tf.debugging.assert_equal(x, x) is None
    assert tf.debugging.assert_near(x, x + 1e-7) is None
    assert tf.debugging.assert_near(x, x + 0.01, atol=0.1) is None
    checked = tf.debugging.check_numerics(x, "m")   # (a new tensor, as TF 2.21 gives)
    assert checked is not x and checked.numpy().tolist() == [1., 2.]
    assert tf.ensure_shape(x, [2]) is x and tf.ensure_shape(x, tf.TensorShape([None])) is x
    assert tf.debugging.Assert(tf.constant(True), [x]) is None


def test_message_appears_in_the_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="my message"):
        tf.debugging.assert_positive(tf.constant(-1.), message="my message")
    with pytest.raises(tf.errors.InvalidArgumentError, match="grads : Tensor had NaN"):
        tf.debugging.check_numerics(tf.constant(np.nan), "grads")


def test_static_checks_raise_value_and_type_errors():
    x = tf.zeros((4, 3))
    tf.debugging.assert_rank(x, 2)
    tf.assert_rank(x, 2)
    tf.debugging.assert_rank_at_least(x, 1)
    tf.debugging.assert_scalar(tf.constant(1.))
    tf.debugging.assert_type(x, tf.float32)
    tf.debugging.assert_shapes([(x, ("N", "D")), (tf.zeros((3,)), ("D",)),
                                (tf.zeros((5, 4, 3)), ("...", "N", 3))])
    with pytest.raises(ValueError, match="rank 1"):
        tf.debugging.assert_rank(x, 1)
    with pytest.raises(ValueError):
        tf.debugging.assert_rank_at_least(x, 3)
    with pytest.raises(ValueError):
        tf.debugging.assert_scalar(x)
    with pytest.raises(TypeError, match="float64"):
        tf.debugging.assert_type(x, tf.float64)
    with pytest.raises(ValueError):
        tf.debugging.assert_shapes([(x, ("N", "D")), (tf.zeros((4,)), ("D",))])
    with pytest.raises(ValueError):
        tf.debugging.assert_shapes([(x, ("N",))])


def test_value_checks_run_at_each_call_of_a_trace_and_static_ones_at_the_trace():
    # (TensorFlow's Assert op runs inside a tf.function: a failed check raises at the call)
    @tf.function
    def f(x):
        tf.debugging.assert_positive(x)
        tf.debugging.assert_rank(x, 1)
        return tf.debugging.check_numerics(x, "x") * 2.
    assert f(tf.constant([1.])).numpy().tolist() == [2.]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"x > 0"):
        f(tf.constant([-1.]))
    with pytest.raises(ValueError):
        f(tf.constant([[1.]]))


def test_checks_pass_gradients_through():
    check_gradients(lambda x: tf.debugging.check_numerics(x, "m") ** 2, [np.array([1., 2.])])
    check_gradients(lambda x: tf.ensure_shape(x, [None]) ** 2, [np.array([1., 2.])])
    check_gradients(lambda x, y: tf.identity_n([x * y, y])[0], [np.array(1.5), np.array(2.)])


def test_identity_n():
    a, b = tf.identity_n(input=[tf.constant(1.), [2, 3]], name="i")
    assert float(a) == 1. and b.numpy().tolist() == [2, 3] and b.dtype == tf.int32


def test_errors_take_tensorflows_arguments():
    e = tf.errors.InvalidArgumentError(None, None, "msg")
    assert str(e) == "msg" and e.message == "msg" and e.op is None
    assert issubclass(tf.errors.NotFoundError, tf.errors.OpError)
    assert issubclass(tf.errors.UnimplementedError, NotImplementedError)
    assert issubclass(tf.errors.OutOfRangeError, tf.errors.OpError)


# ---- compat.v1 ------------------------------------------------------------------------------

def test_compat_v1_gradients_and_friends():
    @tf.function
    def f(x):
        return tf.compat.v1.gradients(x * x, x)[0]
    assert float(f(tf.constant(3.))) == 6.
    assert tf.compat.v1.custom_gradient is tf.custom_gradient
    assert tf.compat.v1.GradientTape is tf.GradientTape
    assert tf.compat.v1.enable_eager_execution() is None
    assert tf.compat.v1.enable_v2_behavior() is None
    assert tf.compat.v1.Dimension(4).value == 4


# ---- TensorShape and Dimension ---------------------------------------------------------------

def test_tensor_shape_behaviours():
    s = tf.zeros((2, 3, 4)).shape
    assert isinstance(s, tf.TensorShape) and s == [2, 3, 4] and s == (2, 3, 4) and s != [2, 3]
    assert s.as_list() == [2, 3, 4] and s.rank == 3 and s.ndims == 3 and s.num_elements() == 24
    assert s[0] == 2 and type(s[0]) is int and s[-1] == 4
    assert s[1:] == [3, 4] and isinstance(s[1:], tf.TensorShape) and s[:0] == []
    assert s.is_fully_defined() and [d.value for d in s.dims] == [2, 3, 4]
    assert s.concatenate([5]) == [2, 3, 4, 5] and s + [5] == [2, 3, 4, 5]
    assert (1,) + s == [1, 2, 3, 4] and isinstance((1,) + s, tf.TensorShape)
    assert hash(s) == hash((2, 3, 4)) and {s: 1}[(2, 3, 4)] == 1
    assert s != "abc" and not (s == None)  # noqa: E711 (TensorShape's __eq__ with None)


def test_tensor_shape_with_unknown_sizes():
    s = tf.TensorShape([None, 3])
    assert s.as_list() == [None, 3] and not s.is_fully_defined() and s.num_elements() is None
    assert s.is_compatible_with([5, 3]) and not s.is_compatible_with([5, 4])
    assert not s.is_compatible_with([5, 3, 1])
    assert s.merge_with([5, None]) == [5, 3]
    with pytest.raises(ValueError):
        s.merge_with([5, 4])
    assert tf.TensorShape([2, 3]).most_specific_compatible_shape([2, 4]) == [2, None]
    assert s.with_rank(2) is s and s.with_rank_at_least(1) is s
    with pytest.raises(ValueError):
        s.with_rank(3)
    with pytest.raises(ValueError):
        s.assert_is_compatible_with([1])
    assert tf.TensorShape([tf.compat.v1.Dimension(2), None]) == [2, None]
    assert tf.TensorShape(3) == [3] and tf.TensorShape([]) == [] and tf.TensorShape(()).rank == 0
    assert repr(s) == "TensorShape([None, 3])"


def test_shape_of_traced_tensor_with_open_size():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        s = x.shape
        assert s[0] is None and s[1:] == [3] and s.as_list() == [None, 3]
        assert tf.compat.dimension_value(s[0]) is None
        return x * 2.
    assert f(tf.ones((2, 3))).shape == [2, 3]


def test_dimension():
    D = tf.compat.v1.Dimension
    assert D(3) == 3 and D(3) != 4 and (D(None) == 3) is None
    assert (D(3) + 1).value == 4 and (2 * D(3)).value == 6 and (D(None) + 1).value is None
    assert (7 - D(3)).value == 4 and (D(7) // 2).value == 3 and (D(7) % 4).value == 3
    assert int(D(5)) == 5 and list(range(D(2))) == [0, 1]
    assert D(3).merge_with(None).value == 3 and D(None).is_compatible_with(4)
    with pytest.raises(ValueError):
        D(3).merge_with(4)
    with pytest.raises(ValueError):
        D(-1)
    with pytest.raises(TypeError):
        D(1.5)
    assert str(D(None)) == "?" and repr(D(2)) == "Dimension(2)"
    assert tf.compat.dimension_value(D(2)) == 2 and tf.compat.dimension_value(None) is None


# ---- newaxis and dtype names -----------------------------------------------------------------

def test_newaxis_and_dtype_names():
    x = tf.constant([1., 2.])
    assert x[tf.newaxis, :].shape == [1, 2] and x[:, tf.newaxis].shape == [2, 1]
    assert tf.zeros((2,), "float64").dtype == tf.float64
    assert tf.ones([1], dtype="int32").dtype == tf.int32
    assert tf.cast(x, "int64").dtype == tf.int64
    assert tf.constant(1, dtype="float16").dtype == tf.float16


def test_compat_v1_reaches_the_top_level_names_and_casts():
    v1 = tf.compat.v1
    # names without a TF1 variant are the top-level ones; reduce_sum and nn have TF1's
    # arguments (reduction_indices, keep_prob), as in TensorFlow, where they differ too
    assert v1.constant is tf.constant and v1.matmul is tf.matmul and v1.nn.relu is tf.nn.relu
    assert float(v1.reduce_sum(v1.constant([1., 2.]))) == 3.
    assert float(v1.reduce_sum(v1.constant([1., 2.]), reduction_indices=0)) == 3.
    assert v1.to_float(tf.constant(1)).dtype == tf.float32
    assert v1.to_double(tf.constant(1)).dtype == tf.float64
    assert v1.to_int32(tf.constant(1.7)).numpy() == 1 and v1.to_int64(1).dtype == tf.int64
    with pytest.raises(AttributeError, match="no_such_name"):
        getattr(v1, "no_such_name")  # noqa: B009 (the module's __getattr__ under test)


def test_assert_all_finite():
    x = tf.constant([1., 2.])
    assert tf.debugging.assert_all_finite(x=x, message="m", name="a") is x
    with pytest.raises(tf.errors.InvalidArgumentError, match="m : Tensor had Inf"):
        tf.debugging.assert_all_finite(tf.constant([1., -np.inf]), "m")


def test_tensor_shape_of_unknown_rank():
    u = tf.TensorShape(None)
    assert isinstance(u, tf.TensorShape) and u.rank is None and u.ndims is None
    assert not u.is_fully_defined() and u.num_elements() is None
    assert u == tf.TensorShape(None) and u != [] and tf.TensorShape([]) != u
    assert u.is_compatible_with([1, 2]) and tf.TensorShape([1, 2]).is_compatible_with(u)
    assert u.merge_with([1, None]) == [1, None] and tf.TensorShape([3]).merge_with(u) == [3]
    assert u.concatenate([2]) == u and tf.TensorShape([2]).concatenate(u) == u
    assert u.with_rank(2) == [None, None] and repr(u) == "TensorShape(None)"
    for bad in (lambda: u.as_list(), lambda: len(u), lambda: u[0], lambda: list(u)):
        with pytest.raises(ValueError, match="unknown rank"):
            bad()


def test_dtype_names_as_strings_where_a_dtype_is():
    assert tf.Variable(1, dtype="float64").dtype == tf.float64
    assert tf.eye(2, dtype="float64").dtype == tf.float64
    assert tf.range(3, dtype="float32").dtype == tf.float32
    assert tf.shape(tf.zeros(2), out_type="int64").dtype == tf.int64
    assert tf.zeros_like(tf.zeros(2), dtype="int32").dtype == tf.int32
    assert tf.convert_to_tensor(1, dtype="float64").dtype == tf.float64
    assert tf.TensorSpec([2], "float64").dtype == tf.float64
    assert tf.as_dtype("bool") == tf.bool and tf.float32 == "float32"
