"""How custom_gradient watches ``f`` without recording its ops twice: variable reads reach it
through the read listener (not through the recorder stack), and captured tensors are found
in the ops the tape recorded meanwhile; with a forward accumulator active, ``f``'s own ops
are logged instead (the accumulator's rules also consume tangents ``f`` never saw)."""
import warnings

import numpy as np
import pytest

import finegrad as tf
from finegrad._src import core


def _captured_warnings(record):
    return [w for w in record if issubclass(w.category, UserWarning)
            and "finegrad.custom_gradient" in str(w.message)]


@pytest.mark.parametrize("persistent", [True, False])
def test_ops_inside_f_take_the_one_recorder_path(persistent):
    # a persistent tape records f's ops itself (no watcher in the stack); a tape that
    # differentiates once runs f unrecorded, as TensorFlow does: its gradient can only go
    # through grad_fn
    seen = []
    x = tf.constant(1.5)

    @tf.custom_gradient
    def f(x):
        seen.append(core.active_recorders())
        return tf.exp(x), lambda dy: dy * 2.

    with tf.GradientTape(persistent=persistent) as t:
        t.watch(x)
        y = f(x)
    assert seen == [(t,) if persistent else ()]
    assert float(t.gradient(y, x).numpy()) == 2.
    z = tf.constant(0.5)   # a tape watching a tensor f may capture records f's ops
    with tf.GradientTape(persistent=persistent) as t:
        t.watch([x, z])
        y = f(x)
    assert seen[-1] == (t,)


def test_reads_inside_nested_custom_gradients_reach_the_outer_one():
    v = tf.Variable(3.)

    @tf.custom_gradient
    def inner(x):
        return x * v, lambda dy, variables=None: (dy * v, [dy * x])

    @tf.custom_gradient
    def outer(x):
        y = inner(x)

        def grad(dy, variables=None):
            assert [u.name for u in variables] == [v.name]
            return dy * 10., [dy * 100.]
        return y, grad

    x = tf.constant(2.)
    with tf.GradientTape() as t:
        t.watch(x)
        y = outer(x)
    gx, gv = t.gradient(y, [x, v])
    assert float(y.numpy()) == 6.
    assert (float(gx.numpy()), float(gv.numpy())) == (10., 100.)


def test_reads_hidden_by_grad_pass_through_are_not_seen():
    v = tf.Variable(3.)
    st = tf.grad_pass_through(lambda x: tf.round(x * v))
    x = tf.constant(0.7)
    for recorded in (False, True):
        with tf.GradientTape() as t:
            t.watch(x)
            if recorded:
                y = st(x)
            else:
                with t.stop_recording():
                    y = st(x)
        assert float(y.numpy()) == 2.
    assert float(t.gradient(y, x).numpy()) == 1.
    # recompute_grad's forward sees its reads by the listener too
    f = tf.recompute_grad(lambda x: x * v)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    gx, gv = t.gradient(y, [x, v])
    np.testing.assert_allclose([gx.numpy(), gv.numpy()], [3., 0.7], rtol=1e-6)


def test_a_tensor_f_computes_and_watches_itself_is_not_captured():
    x = tf.constant(2.)

    @tf.custom_gradient
    def f(x):
        z = tf.constant(3.) * 2.      # computed inside f from no watched tensor
        t.watch(z)                    # then watched: still f's own, not captured
        return x * z, lambda dy: dy * 6.

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
    assert _captured_warnings(record) == []
    assert float(t.gradient(y, x).numpy()) == 6.


def test_capture_under_an_accumulator_and_a_tape():
    x, c = tf.constant(2.), tf.constant(5.)

    @tf.custom_gradient
    def f(x):
        return x * c, lambda dy: dy * c

    for watch_c in (False, True):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            with tf.GradientTape() as t:
                t.watch([x, c] if watch_c else x)
                with tf.autodiff.ForwardAccumulator(x, tf.constant(1.)) as acc:
                    y = f(x)
            assert float(acc.jvp(y).numpy()) == 5.
            assert float(t.gradient(y, x).numpy()) == 5.
        assert len(_captured_warnings(record)) == (1 if watch_c else 0)


def test_a_reset_tape_reports_no_capture():
    x, c = tf.constant(2.), tf.constant(5.)

    @tf.custom_gradient
    def f(x):
        t.reset()
        t.watch(x)
        return x * c, lambda dy: dy * c

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with tf.GradientTape() as t:
            t.watch([x, c])
            y = f(x)
    assert _captured_warnings(record) == []
    assert float(t.gradient(y, x).numpy()) == 5.
