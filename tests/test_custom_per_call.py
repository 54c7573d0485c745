"""What custom_gradient decides once (per function, per grad_fn's code, per call shape) must
not hide what changes from call to call: a variable read on some calls only, a tensor
captured on some calls only, a grad_fn wrapped by functools.wraps, outputs of any structure."""
import functools
import warnings

import numpy as np
import pytest

import finegrad as tf


def _captured_warnings(record):
    return [w for w in record if issubclass(w.category, UserWarning)
            and "finegrad.custom_gradient" in str(w.message)]


def test_a_variable_read_on_some_calls_only_is_checked_on_those_calls():
    v = tf.Variable(3.)

    @tf.custom_gradient
    def maybe_scaled(x, use_v):
        y = x * v if use_v else x * 2.
        return y, lambda dy: dy * 2.   # the same grad_fn code on every call: no `variables`

    x = tf.constant(1.)
    for _ in range(2):   # the plain call, twice (what a cache would remember)
        with tf.GradientTape() as t:
            t.watch(x)
            y = maybe_scaled(x, use_v=False)
        assert float(t.gradient(y, x).numpy()) == 2.
    with tf.GradientTape() as t:
        t.watch(x)
        with pytest.raises(TypeError, match=r"maybe_scaled reads the variables .* no "
                                            r"`variables` parameter"):
            maybe_scaled(x, use_v=True)


def test_grad_fn_signature_follows_functools_wraps_on_every_call():
    v = tf.Variable(2.)

    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper

    @tf.custom_gradient
    def f(x):
        @logged
        def grad(dy, variables=None):
            return dy * v, [dy * x]
        return x * v, grad

    x = tf.constant(5.)
    for _ in range(2):
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        gx, gv = t.gradient(y, [x, v])
        assert (float(gx.numpy()), float(gv.numpy())) == (2., 5.)


def test_a_tensor_captured_on_a_later_call_still_warns():
    x = tf.constant(2.)
    c = tf.constant([1., 2.])
    captured = []

    @tf.custom_gradient
    def f(x):
        y = x * captured[0] if captured else x * 3.
        return y, lambda dy: tf.reduce_sum(dy) * 3.

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with tf.GradientTape() as t:
            t.watch([x, c])
            f(x)
        assert not _captured_warnings(record)
        captured.append(c)
        with tf.GradientTape() as t:
            t.watch([x, c])
            f(x)
    got = _captured_warnings(record)
    assert len(got) == 1 and "(2,)" in str(got[0].message)


@pytest.mark.parametrize("kind", [tuple, list])
def test_flat_outputs_keep_their_type_and_each_gets_its_gradient(kind):
    @tf.custom_gradient
    def two(a, b):
        return kind([a * b, a + b]), lambda d1, d2: (d1 * b + d2, d1 * a + d2)

    a, b = tf.constant(2.), tf.constant(5.)
    with tf.GradientTape() as t:
        t.watch([a, b])
        out = two(a, b)
        total = out[0] + 10. * out[1]
    assert type(out) is kind
    assert [float(o.numpy()) for o in out] == [10., 7.]
    ga, gb = t.gradient(total, [a, b])
    assert (float(ga.numpy()), float(gb.numpy())) == (15., 12.)


def test_outputs_with_arrays_and_nesting_are_converted_and_rebuilt():
    @tf.custom_gradient
    def f(x):
        return (x * 2., [np.float32(1.), x]), lambda d1, d2, d3: d1 * 2. + d3

    x = tf.constant(3.)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
        s = y[0] + y[1][0] + y[1][1]
    assert isinstance(y, tuple) and isinstance(y[1], list)
    assert isinstance(y[1][0], tf.Tensor) and float(y[1][0].numpy()) == 1.
    assert float(t.gradient(s, x).numpy()) == 3.
