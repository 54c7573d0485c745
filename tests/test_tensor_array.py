"""``tf.TensorArray``: values, errors (TensorFlow's classes) and gradients, eagerly, inside
`finegrad.function` (a loop over a traced range), in ``while_loop`` run as Python, and in a
TF1 graph. Expected values are TensorFlow 2.21's (recorded; compared live where it is
installed)."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError, OutOfRangeError

X = [[1., 2.], [3., 4.], [5., 6.]]

CASES = {
    "write_stack": lambda T: _written(T).stack(),
    "unstack_read": lambda T: T.TensorArray(T.float32, size=3).unstack(T.constant(X)).read(1),
    "gather": lambda T: T.TensorArray(T.float32, size=3).unstack(T.constant(X)).gather([2, 0]),
    "concat": lambda T: T.TensorArray(T.float32, size=3).unstack(T.constant(X)).concat(),
    "dynamic_size": lambda T: T.TensorArray(T.float32, size=0, dynamic_size=True).write(
        4, [1., 2.]).size(),
    "unwritten_zeros": lambda T: T.TensorArray(T.float32, size=3, element_shape=[2]).write(
        1, [1., 2.]).stack(),
    "split": lambda T: T.TensorArray(T.float32, size=2, infer_shape=False).split(
        T.constant([1., 2., 3.]), [1, 2]).read(1),
    "scatter": lambda T: T.TensorArray(T.float32, size=3).scatter(
        [2, 0], T.constant([[1.], [2.]])).gather([0, 2]),
    "empty_stack_shape": lambda T: T.TensorArray(T.float32, size=0,
                                                 element_shape=[2]).stack().shape.as_list(),
}
RECORDED = {"write_stack": [[2., 4.], [6., 8.], [10., 12.]], "unstack_read": [3., 4.],
            "gather": [[5., 6.], [1., 2.]], "concat": [1., 2., 3., 4., 5., 6.],
            "dynamic_size": 5, "unwritten_zeros": [[0., 0.], [1., 2.], [0., 0.]],
            "split": [2., 3.], "scatter": [[2.], [1.]], "empty_stack_shape": [0, 2]}


def _written(T):
    ta = T.TensorArray(T.float32, size=3)
    for i in range(3):
        ta = ta.write(i, T.constant(X)[i] * 2.)
    return ta


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_as_tensorflow(name):
    got = CASES[name](fg)
    np.testing.assert_array_equal(np.asarray(got), RECORDED[name])


def test_recorded_values_are_tensorflows():
    tf = pytest.importorskip("tensorflow")
    for name, case in CASES.items():
        np.testing.assert_array_equal(np.asarray(case(tf)), RECORDED[name], err_msg=name)


@pytest.mark.parametrize("make, error", [
    (lambda: fg.TensorArray(fg.float32, size=2).write(2, [1.]), OutOfRangeError),
    (lambda: fg.TensorArray(fg.float32, size=2).read(3), OutOfRangeError),
    (lambda: fg.TensorArray(fg.float32, size=2).write(0, fg.constant([1], fg.int32)),
     InvalidArgumentError),
    (lambda: fg.TensorArray(fg.float32, size=2).write(0, [1., 2.]).write(1, [1.]), ValueError),
    (lambda: fg.TensorArray(fg.float32), ValueError)])
def test_errors_are_tensorflows_classes(make, error):
    with pytest.raises(error, match="finegrad.TensorArray"):
        make()


def test_gradients_flow_through_writes_and_stack():
    v = fg.Variable([1., 2.])
    with fg.GradientTape() as tape:
        ta = fg.TensorArray(fg.float32, size=2).write(0, v * 3.).write(1, v * v)
        y = fg.reduce_sum(ta.stack())
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [5., 7.])


def test_in_a_function_loop_over_a_traced_range():
    @fg.function
    def scaled_rows(x):
        ta = fg.TensorArray(fg.float32, size=0, dynamic_size=True)
        for i in fg.range(fg.shape(x)[0]):
            ta = ta.write(i, x[i] * fg.cast(i, fg.float32))
        return ta.stack()
    np.testing.assert_array_equal(scaled_rows(fg.constant(X)).numpy(),
                                  [[0., 0.], [3., 4.], [10., 12.]])
    np.testing.assert_array_equal(scaled_rows(fg.constant(X[:2])).numpy(), [[0., 0.], [3., 4.]])


def test_while_loop_run_as_python_carries_one_and_a_traced_one_says_what_to_do():
    def body(i, ta):
        return i + 1, ta.write(i, fg.cast(i, fg.float32) * 2.)
    _, ta = fg.while_loop(lambda i, ta: i < 3, body,
                          [fg.constant(0), fg.TensorArray(fg.float32, size=3)])
    np.testing.assert_array_equal(ta.stack().numpy(), [0., 2., 4.])
    traced = fg.function(lambda n: fg.while_loop(
        lambda i, ta: i < n, body, [0, fg.TensorArray(fg.float32, size=3)])[1].stack())
    with pytest.raises(NotImplementedError, match="TensorArray loop variable"):
        traced(fg.constant(3))


def test_in_a_tf1_graph():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [None])
        ta = v1.TensorArray(fg.float32, size=2).write(0, x).write(1, x * 2.)
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(ta.stack(), {x: [1., 2.]}),
                                          [[1., 2.], [2., 4.]])
