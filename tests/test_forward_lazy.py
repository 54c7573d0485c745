"""An outermost ForwardAccumulator defers JVPs until a tangent is asked for."""
import numpy as np
import pytest

import finegrad as tf
from finegrad._src.ops.math import elementwise


def test_long_chain_resolves_without_recursion():
    x = tf.constant(0.3, tf.float64)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1., tf.float64)) as acc:
        y = x
        for _ in range(5000):
            y = tf.sin(y) * 1.0001
    want, d = 0.3, 1.0
    for _ in range(5000):
        d = d * np.cos(want) * 1.0001
        want = np.sin(want) * 1.0001
    assert acc.jvp(y).numpy() == pytest.approx(d, rel=1e-9)


def test_unneeded_tangents_are_never_computed(monkeypatch):
    calls = []
    rule = elementwise.exp_p.jvp

    def counting(*a, **k):
        calls.append(1)
        return rule(*a, **k)
    monkeypatch.setattr(elementwise.exp_p, "jvp", counting)
    x = tf.constant([1., 2.])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1., 0.])) as acc:
        unused = tf.exp(x)  # its tangent is never asked for
        y = tf.sin(x)
    assert calls == []
    np.testing.assert_allclose(acc.jvp(y).numpy(), [np.cos(1.), 0.], rtol=1e-6)
    assert acc.jvp(unused) is not None and calls == [1]


def test_deferred_and_eager_tangents_agree_under_an_outer_tape():
    x = tf.constant([0.5, -1.2], tf.float64)
    v = tf.constant([1., 2.], tf.float64)

    def f(z):
        return tf.reduce_sum(tf.tanh(z * z) * tf.exp(-z))
    with tf.autodiff.ForwardAccumulator(x, v) as acc:      # outermost: deferred
        y1 = f(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, v) as acc2:  # inside a tape: eager
            y2 = f(x)
        t2 = acc2.jvp(y2)
    assert acc.jvp(y1).numpy() == pytest.approx(t2.numpy(), rel=1e-12)
    # reverse over forward still sees the tangent computation: d/dx <grad f(x), v> = H v
    g = tape.gradient(t2, x)

    def jvp_at(z):
        with tf.autodiff.ForwardAccumulator(z, v) as a:
            out = f(z)
        return a.jvp(out).numpy()
    eps = 1e-6
    num = [(jvp_at(x + eps * e) - jvp_at(x - eps * e)) / (2 * eps)
           for e in (tf.constant([1., 0.], tf.float64), tf.constant([0., 1.], tf.float64))]
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-6)


def test_errors_of_a_deferred_rule_surface_at_jvp():
    x = tf.constant(1.)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.)) as acc:
        y = tf.cast(x, tf.int32)
    assert acc.jvp(y) is None
