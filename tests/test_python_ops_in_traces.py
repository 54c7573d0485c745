"""numpy_function and py_function inside finegrad.function run when the graph runs, once per
run, as in TensorFlow: a trace does not add a call of its own (issue 22, cause 8)."""
import numpy as np
import pytest

import finegrad as fg


def _counting():
    calls = []

    def next_batch(x):
        calls.append(1)
        return np.asarray(x, np.float32) + np.float32(len(calls))
    return calls, next_batch


def _numpy_op(func):
    return lambda x: fg.numpy_function(func, [x], fg.float32)


def _py_op(func):
    return lambda x: fg.py_function(lambda t: fg.constant(func(t.numpy())), [x], fg.float32)


@pytest.mark.parametrize("op", [_numpy_op, _py_op], ids=["numpy_function", "py_function"])
@pytest.mark.parametrize("signature", [None, [fg.TensorSpec([])]], ids=["plain", "signature"])
def test_one_call_per_run(op, signature):
    calls, next_batch = _counting()
    f = fg.function(lambda x: op(next_batch)(x) * 1., input_signature=signature)
    got = [float(f(fg.constant(0.))) for _ in range(3)]
    assert got == [1., 2., 3.] and len(calls) == 3   # TensorFlow: the same


def test_iterator_inside_a_function_does_not_skip_a_batch():
    batches = iter([np.float32(10.), np.float32(20.), np.float32(30.)])
    f = fg.function(lambda: fg.numpy_function(lambda: next(batches), [], fg.float32) + 0.)
    assert [float(f()) for _ in range(3)] == [10., 20., 30.]


def test_new_trace_for_new_shape_is_not_an_extra_call():
    calls, next_batch = _counting()
    f = fg.function(lambda x: fg.reduce_sum(_numpy_op(next_batch)(x)))
    assert float(f(fg.constant(0.))) == 1.
    assert float(f(fg.constant([0., 0.]))) == 4.    # traced again: still one call
    assert float(f(fg.constant(0.))) == 3.
    assert len(calls) == 3


def test_the_values_follow_each_calls_inputs():
    calls, next_batch = _counting()
    f = fg.function(_numpy_op(next_batch))
    assert [float(f(fg.constant(x))) for x in (0., 10., 0.)] == [1., 12., 3.]


def test_gradient_through_a_traced_py_function():
    x = fg.constant(3.)
    f = fg.function(lambda x: fg.py_function(lambda a: a * a, [x], fg.float32))
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(y) == 9. and float(tape.gradient(y, x)) == 6.


def test_concrete_function_from_a_spec_then_called():
    calls, next_batch = _counting()
    f = fg.function(_numpy_op(next_batch))
    conc = f.get_concrete_function(fg.TensorSpec([], fg.float32))
    made = len(calls)
    assert float(conc(fg.constant(5.))) == 5. + made + 1   # its own call, on its own input


def test_loop_matches_tensorflow():
    """In a while_loop the graph runs ``func`` once per iteration (TensorFlow 2.21: 6 then
    15 for this loop)."""
    calls, next_batch = _counting()

    @fg.function
    def f(x):
        return fg.while_loop(lambda i, s: i < 3, lambda i, s: (
            i + 1, s + fg.reshape(_numpy_op(next_batch)(x), [])), [0, x])[1]

    assert [float(f(fg.constant(0.))) for _ in range(2)] == [6., 15.]


def test_matches_tensorflow_live():
    tf = pytest.importorskip("tensorflow")
    for lib in (tf, fg):
        calls, next_batch = _counting()
        f = lib.function(lambda x, lib=lib, nb=next_batch: lib.numpy_function(
            nb, [x], lib.float32))
        assert [float(f(lib.constant(0.))) for _ in range(3)] == [1., 2., 3.]
        assert len(calls) == 3


@pytest.mark.parametrize("host", ["numpy_function", "py_function"])
def test_a_host_call_whose_result_is_unused_runs_at_every_call(host):
    # (TensorFlow runs stateful ops in a tf.function even when nothing reads them)
    seen = []

    def side(x):
        seen.append(float(np.asarray(x)))
        return x

    call = getattr(fg, host)
    f = fg.function(lambda x: (call(side, [x], fg.float32), x + 1.)[1],
                    input_signature=[fg.TensorSpec([], fg.float32)])
    got = [float(f(fg.constant(v)).numpy()) for v in (1., 2., 3.)]
    assert got == [2., 3., 4.]
    assert seen == [1., 2., 3.]


def test_value_assertions_check_at_each_call_of_a_function():
    # (TensorFlow's Assert op runs in a tf.function; the check is not the trace's)
    f = fg.function(lambda x: (fg.debugging.assert_positive(x, message="pos"), x * 2)[1],
                    input_signature=[fg.TensorSpec([None], fg.float32)])
    assert f(fg.constant([1., 2.])).numpy().tolist() == [2., 4.]
    with pytest.raises(fg.errors.InvalidArgumentError, match="pos"):
        f(fg.constant([1., -2.]))
    g = fg.function(lambda x: (fg.debugging.Assert(fg.reduce_all(x > 0), ["x:", x]), x)[1])
    g(fg.constant([1., 3.]))
    with pytest.raises(fg.errors.InvalidArgumentError, match=r"assertion failed: \[x:\]"):
        g(fg.constant([-1., 3.]))
    near = fg.function(lambda x, y: fg.debugging.assert_near(x, y))
    near(fg.constant(1.), fg.constant(1.))
    with pytest.raises(fg.errors.InvalidArgumentError, match="within tolerance"):
        near(fg.constant(1.), fg.constant(1.5))


def test_check_numerics_in_a_function_a_gradient_and_a_session():
    f = fg.function(lambda x: fg.debugging.check_numerics(fg.math.log(x), "bad log"))
    assert f(fg.constant([1.])).numpy().tolist() == [0.]
    with np.errstate(divide="ignore"), pytest.raises(fg.errors.InvalidArgumentError,
                                                     match="bad log : Tensor had Inf"):
        f(fg.constant([0.]))

    @fg.function
    def grad(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = fg.reduce_sum(fg.debugging.check_numerics(x * x, "sq"))
        return tape.gradient(y, x)
    assert grad(fg.constant([1., 2.])).numpy().tolist() == [2., 4.]
    # the cotangent is checked too, with TensorFlow's message
    with fg.GradientTape() as tape:
        x = fg.constant([0.])
        tape.watch(x)
        y = fg.reduce_sum(fg.math.sqrt(fg.debugging.check_numerics(x, "in")))
    with np.errstate(divide="ignore"), pytest.raises(fg.errors.InvalidArgumentError,
                                                     match="detected in gradient. in"):
        tape.gradient(y, x)
    v1 = fg.compat.v1
    with v1.Graph().as_default():
        p = v1.placeholder(fg.float32, [None])
        q = fg.debugging.check_numerics(fg.math.log(p), "v1")
        with v1.Session() as sess:
            assert sess.run(q, {p: [1.]}).tolist() == [0.]
            with np.errstate(divide="ignore"), pytest.raises(fg.errors.InvalidArgumentError):
                sess.run(q, {p: [0.]})
