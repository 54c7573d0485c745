"""One graph for every size of a None dimension, 0 and 1 included: second derivatives and
Hessians of a placeholder in a TF1 session, and `map_fn`/`scan` in a `finegrad.function`
traced first at zero rows (then more rows, and the reverse order), against TensorFlow's
values."""

import warnings

import numpy as np
import pytest

import finegrad as fg

SIZES = [0, 1, 3, 1, 0, 2]


def _second_order_graph(T):
    v1 = T.compat.v1
    g = T.Graph()
    with g.as_default():
        x = v1.placeholder(T.float32, [None])
        m = v1.placeholder(T.float32, [None, None])
        y = T.reduce_sum(x ** 3) + T.reduce_sum(T.sin(x) * x) + T.reduce_mean(x) ** 2
        (g1,) = T.gradients(y, x)
        (g2,) = T.gradients(g1, x)
        z = T.reduce_sum(T.matmul(m, m) * T.exp(m)) + T.reduce_sum(T.reduce_max(m, 1) ** 2)
        (gm,) = T.gradients(z, m)
        (gm2,) = T.gradients(T.reduce_sum(gm * gm), m)
        (h,) = T.hessians(T.reduce_sum(x ** 3) + T.reduce_sum(x[:, None] * x[None, :] ** 2), x)
    return v1.Session(graph=g), (x, m), [g1, g2, gm, gm2], h


def _feeds(n):
    return (np.arange(n, dtype=np.float32) + 0.5,
            np.arange(n * n, dtype=np.float32).reshape(n, n) / 7)


def test_second_derivatives_of_a_none_dimension_serve_every_size():
    """gradients of gradients: one graph, sizes 0, 1 and n (no guard on the size)."""
    sess, (x, m), fetches, h = _second_order_graph(fg)
    for n in SIZES:
        xv, mv = _feeds(n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # the mean of no elements
            g1, g2, gm, gm2 = sess.run(fetches, {x: xv, m: mv})
        assert g1.shape == g2.shape == (n,) and gm.shape == gm2.shape == (n, n)
        if n:   # closed forms: the Hessian's row sums, 6x + 2cos x - x sin x + 2/n
            want = 6 * xv + 2 * np.cos(xv) - xv * np.sin(xv) + 2 / n
            np.testing.assert_allclose(g2, want, rtol=1e-5)
        hv = sess.run(h, {x: xv})
        want_h = np.diag(6 * xv + 2 * xv.sum()) + 2 * (xv[:, None] + xv[None, :])
        np.testing.assert_allclose(hv, want_h, rtol=1e-6)


def test_second_derivatives_and_hessians_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    ours, theirs = _second_order_graph(fg), _second_order_graph(tf)
    for n in SIZES:
        xv, mv = _feeds(n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = ours[0].run(ours[2], {ours[1][0]: xv, ours[1][1]: mv})
        want = theirs[0].run(theirs[2], {theirs[1][0]: xv, theirs[1][1]: mv})
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-5)
        if n:   # (TensorFlow's hessians cannot stack zero rows: ours give a 0x0 matrix)
            np.testing.assert_allclose(ours[0].run(ours[3], {ours[1][0]: xv}),
                                       theirs[0].run(theirs[3], {theirs[1][0]: xv}),
                                       rtol=1e-6)


def _mapped(T):
    @T.function(input_signature=[T.TensorSpec([None, 3], T.float32)])
    def f(x):
        with T.GradientTape() as tape:
            tape.watch(x)
            y = T.map_fn(lambda r: T.reduce_sum(r * r) + r[0], x)
            z = T.map_fn(lambda r: r * 2. + T.reduce_max(r), x)
            s = T.scan(lambda a, r: a * 0.5 + r, x, initializer=T.ones([3]))
            loss = T.reduce_sum(y) + T.reduce_sum(z * z) + T.reduce_sum(s)
        return y, z, s, tape.gradient(loss, x)
    return f


@pytest.mark.parametrize("order", [[0, 1, 4, 2, 0], [3, 0, 1, 5]])
def test_map_fn_traced_at_zero_rows_serves_every_count(order):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = _mapped(fg), _mapped(tf)
    for n in order:
        x = np.arange(n * 3, dtype=np.float32).reshape(n, 3) / 3 - 1
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # no retrace warning: one graph
            got = ours(fg.constant(x))
        want = theirs(tf.constant(x))
        for a, b in zip(got, want, strict=True):
            assert a.shape == tuple(b.shape)
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    assert ours.experimental_get_tracing_count() == 1


def _second_order_function(T):
    @T.function(input_signature=[T.TensorSpec([None], T.float32)])
    def f(x):
        y = T.reduce_sum(x ** 3) + T.reduce_mean(x) ** 2
        (g1,) = T.gradients(y, x)
        (g2,) = T.gradients(g1, x)
        (h,) = T.hessians(T.reduce_sum(x[:, None] * x[None, :] ** 2), x)
        return g1, g2, h
    return f


def test_a_function_traced_at_size_one_serves_every_size():
    tf = pytest.importorskip("tensorflow")
    ours, theirs = _second_order_function(fg), _second_order_function(tf)
    for n in [1, 3, 1, 2]:
        x = np.arange(n, dtype=np.float32) + 0.5
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # no retrace warning: one graph
            got = ours(fg.constant(x))
        for a, b in zip(got, theirs(tf.constant(x)), strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)
    assert ours.experimental_get_tracing_count() == 1
