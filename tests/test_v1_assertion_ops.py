"""TF1 graphs: the assertions return operations that ``control_dependencies``, ``group`` and
``Session.run`` run, as TensorFlow 1.x's do (its documented pattern
``with tf.control_dependencies([tf.assert_positive(x)]): ...``); an assertion nothing
depends on does not run, as in TensorFlow. The behaviour here was checked against
TensorFlow 2.21's ``tf.compat.v1`` with eager execution disabled."""
import numpy as np
import pytest

import finegrad as fg
import finegrad.compat.v1 as v1
from finegrad.errors import InvalidArgumentError


@pytest.fixture
def graph():
    g = fg.Graph()
    with g.as_default():
        yield g


def test_a_control_dependency_on_an_assertion_runs_it(graph):
    x = v1.placeholder(fg.float32, [None])
    check = v1.assert_positive(x, message="x must be positive")
    assert isinstance(check, v1.Operation) and check.type == "Assert"
    with v1.control_dependencies([check]):
        y = fg.identity(x) * 2.
    with v1.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1., 2.]}), [2., 4.])
        with pytest.raises(InvalidArgumentError, match="x must be positive"):
            sess.run(y, {x: [-1., 2.]})


def test_an_assertion_nothing_depends_on_does_not_run(graph):
    x = v1.placeholder(fg.float32, [None])
    v1.assert_positive(x)
    y = x * 2.
    with v1.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [-1., 2.]}), [-2., 4.])


@pytest.mark.parametrize("make, good, bad", [
    (lambda x: v1.assert_equal(x, 1.), [1., 1.], [1., 2.]),
    (lambda x: v1.assert_less(x, 0.), [-1., -2.], [-1., 0.]),
    (lambda x: v1.debugging.Assert(x[0] < 0., ["first", x]), [-1., 5.], [1., 5.]),
    (lambda x: v1.debugging.assert_near(x, 5.), [5., 5.], [5., 6.])])
def test_running_an_assertion_and_a_group_of_it(graph, make, good, bad):
    x = v1.placeholder(fg.float32, [2])
    check = make(x)
    both = v1.group(check, x * 2.)
    with v1.Session() as sess:
        assert sess.run(check, {x: good}) is None   # an Operation fetches as None
        assert sess.run(both, {x: good}) is None
        with pytest.raises(InvalidArgumentError):
            sess.run(check, {x: bad})
        with pytest.raises(InvalidArgumentError):
            sess.run(both, {x: bad})


def test_static_checks_are_no_ops_in_a_graph_and_none_eagerly(graph):
    x = v1.placeholder(fg.float32, [None, 3])
    ops = [v1.assert_rank(x, 2), v1.assert_rank_at_least(x, 1), v1.assert_type(x, fg.float32),
           v1.debugging.assert_shapes([(x, ("N", 3))]),
           v1.debugging.assert_rank_in(x, [1, 2])]
    assert all(isinstance(o, v1.Operation) and o.type == "NoOp" for o in ops)
    with v1.control_dependencies(ops):
        y = fg.identity(x)
    with v1.Session() as sess:
        assert sess.run(y, {x: np.ones((2, 3), np.float32)}).shape == (2, 3)


def test_eager_assertions_return_none():
    x = fg.constant([1., 2.])
    assert fg.debugging.assert_positive(x) is None
    assert fg.debugging.assert_rank(x, 1) is None
    with pytest.raises(InvalidArgumentError):
        fg.debugging.assert_negative(x)


def test_tf1_print_prints_each_run_as_tensorflow_1(graph, capfd):
    """``tf.Print`` prints to stderr each time a run computes it (at most ``first_n``
    times), each value summarized as TensorFlow 1 does (recorded from TensorFlow 2.21's
    compat.v1, whose output is the same script's)."""
    x = v1.placeholder(fg.float32, [None])
    y = v1.Print(x, [x, "str", fg.constant([[1.5, 2.25], [3., 4.]]), fg.reduce_sum(x)],
                 message="m ", first_n=2)
    doubled = y * 2.
    whole = v1.Print(x, [x], summarize=10)
    with v1.Session() as sess:
        capfd.readouterr()
        for _ in range(3):
            np.testing.assert_array_equal(sess.run(doubled, {x: [1., 2., 3., 4.]}),
                                          [2., 4., 6., 8.])
        sess.run(whole, {x: [0.5, -2.]})
        sess.run(x * 3., {x: [1.]})   # (nothing computed from a Print: nothing printed)
    assert capfd.readouterr().err.splitlines() == [
        "m [1 2 3...][str][[1.5 2.25][3...]...][10]"] * 2 + ["[0.5 -2]"]
