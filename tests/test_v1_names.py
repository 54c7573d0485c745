"""TensorFlow 1's names for functions finegrad has under TensorFlow 2's names
(``tf.compat.v1.matrix_inverse`` is ``tf.linalg.inv``...): each one is the function its TF2
path names, as in TensorFlow (checked live against TensorFlow's own ``compat.v1``); and
linear algebra on a TF1 graph's placeholders (zeros while the graph is built)."""
import numpy as np
import pytest

import finegrad as fg
import finegrad.compat.v1 as v1
from finegrad._src.v1.aliases import TF1_NAMES


def _at(root, path):
    for part in path.split("."):
        root = getattr(root, part)
    return root


@pytest.mark.parametrize("name", sorted(TF1_NAMES))
def test_each_tf1_name_is_its_tf2_function(name):
    assert getattr(v1, name) is _at(fg, TF1_NAMES[name])


def test_the_table_matches_tensorflows_compat_v1():
    tf = pytest.importorskip("tensorflow")
    deprecated = {"initialize_all_variables", "all_variables", "initialize_variables",
                  "initialize_local_variables", "verify_tensor_all_finite", "assert_integer",
                  "assert_rank_in", "parse_example", "parse_single_example", "decode_raw",
                  "count_nonzero", "depth_to_space", "space_to_depth", "floor_div", "bincount",
                  "confusion_matrix", "string_to_number", "substr"}   # (TF1's own functions,
    # with TF2's arguments first, not TF2's objects)
    for name, path in TF1_NAMES.items():
        if name not in deprecated:
            assert getattr(tf.compat.v1, name) is _at(tf, path), name


def test_tf1_programs_use_them_in_a_graph():
    with fg.Graph().as_default():
        a = v1.placeholder(fg.float64, [2, 2])
        b = v1.placeholder(fg.float64, [2, 1])
        inv, sol = v1.matrix_inverse(a), v1.matrix_solve(a, b)
        chol = v1.cholesky(a)
        det = v1.matrix_determinant(a)
        init = v1.initialize_all_variables()
        with v1.Session() as sess:
            sess.run(init)
            feed = {a: [[4., 2.], [2., 3.]], b: [[1.], [2.]]}
            got = sess.run([inv, sol, chol, det], feed)
    m = np.array([[4., 2.], [2., 3.]])
    np.testing.assert_allclose(got[0], np.linalg.inv(m), rtol=1e-12)
    np.testing.assert_allclose(got[1], np.linalg.solve(m, [[1.], [2.]]), rtol=1e-12)
    np.testing.assert_allclose(got[2], np.linalg.cholesky(m), rtol=1e-12)
    assert got[3] == pytest.approx(8.)


def test_a_singular_fed_matrix_raises_when_the_session_runs():
    """The graph builds on made-up zeros (a singular matrix: its shapes only); a singular
    matrix fed at run time is TensorFlow's error then."""
    with fg.Graph().as_default():
        a = v1.placeholder(fg.float32, [None, 2, 2])
        inv = v1.matrix_inverse(a)
        assert inv.shape.as_list() == [None, 2, 2]
        with v1.Session() as sess:
            with pytest.raises(fg.errors.InvalidArgumentError, match="not invertible"):
                sess.run(inv, {a: np.zeros((1, 2, 2), np.float32)})


def test_a_signature_trace_of_an_inverse():
    f = fg.function(lambda m: fg.linalg.inv(m) @ m, input_signature=[fg.TensorSpec([3, 3])])
    m = np.array([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]], np.float32)
    np.testing.assert_allclose(f(fg.constant(m)).numpy(), np.eye(3), atol=1e-5)


def test_constants_made_in_a_graph_have_tensorflows_names():
    """A constant of a TF1 graph is a ``Const`` operation: its name (in its name scope),
    fetching it by name, and feeding it, as in TensorFlow."""
    with fg.Graph().as_default() as g:
        c = v1.constant([1., 2.], name="c")
        with v1.name_scope("s"):
            d = v1.constant(3., name="d")
        unnamed = v1.constant(5.)
        doubled = c * 2.
        assert (c.name, d.name, unnamed.name, c.op.type) == ("c:0", "s/d:0", "Const:0",
                                                              "Const")
        assert [o.name for o in g.get_operations()][:3] == ["c", "s/d", "Const"]
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run("c:0"), [1., 2.])
            assert sess.run("s/d:0") == 3.
            np.testing.assert_array_equal(sess.run(doubled, {c: [5., 6.]}), [10., 12.])
