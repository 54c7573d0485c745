"""The gradient of a `while_loop` without a static ``maximum_iterations`` under
``function(jit_compile=True)``: a counted forward ``lax.while_loop`` that stores the loop
variables, and a reverse loop over them (finegrad/_src/control_flow/while_reverse.py), with
no host callback while the trips fit the buffer; past it, the host callback. Values against
the closed form and the uncompiled graph."""
import numpy as np
import pytest

import finegrad as fg
from finegrad._src.control_flow import while_reverse

jax = pytest.importorskip("jax")


def _loop(limit=None):
    def f(x, w):
        with fg.GradientTape() as tape:
            tape.watch([x, w])
            y, k = fg.while_loop(lambda a, k: a < 100., lambda a, k: (a * a * w, k + 1),
                                 (x, fg.constant(0)), maximum_iterations=limit)
        return y, k, tape.gradient(y, [x, w])
    return f


def _closed_form(x, w, trips):
    # a_{k+1} = a_k^2 w: a_T = x^(2^T) w^(2^T - 1)
    p = 2 ** trips
    y = x ** p * w ** (p - 1)
    return y, p * y / x, (p - 1) * y / w


def _check(f, args, dtype=np.float64):
    compiled = fg.function(f, jit_compile=True)
    got = compiled(*args)
    want = fg.function(f)(*args)
    y, k, (gx, gw) = got
    assert k.numpy() == want[1].numpy()
    cy, cgx, cgw = _closed_form(float(args[0].numpy()), float(args[1].numpy()), int(k.numpy()))
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose([y.numpy(), gx.numpy(), gw.numpy()], [cy, cgx, cgw], rtol=tol)
    np.testing.assert_allclose([gx.numpy(), gw.numpy()],
                               [want[2][0].numpy(), want[2][1].numpy()], rtol=tol)
    return compiled.get_concrete_function(*args).compiled_source


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unbounded_loop_gradient_lowers_without_a_callback_in_the_trips_it_stores(dtype):
    args = (fg.constant(dtype(1.5)), fg.constant(dtype(1.1)))
    src = _check(_loop(), args, dtype)
    assert "while[" in src
    (line,) = [s for s in src.split("\n") if "while_grad" in s]   # only the fallback branch
    assert "only for runs past 4096 trips" in line


def test_maximum_iterations_given_as_a_tensor():
    def g(x, w, m):
        with fg.GradientTape() as tape:
            tape.watch([x, w])
            y, k = fg.while_loop(lambda a, k: a < 100., lambda a, k: (a * a * w, k + 1),
                                 (x, fg.constant(0)), maximum_iterations=m)
        return y, k, tape.gradient(y, [x, w])
    args = (fg.constant(1.5), fg.constant(1.1), fg.constant(2))
    compiled = fg.function(g, jit_compile=True)
    y, k, (gx, gw) = compiled(*args)
    assert k.numpy() == 2   # stopped by the limit, before the condition
    cy, cgx, cgw = _closed_form(1.5, 1.1, 2)
    np.testing.assert_allclose([y.numpy(), gx.numpy(), gw.numpy()], [cy, cgx, cgw],
                               rtol=1e-5)


def test_past_the_buffer_the_host_callback_gives_the_same_values(monkeypatch):
    monkeypatch.setattr(while_reverse, "MAX_TRIPS", 2)
    src = _check(_loop(), (fg.constant(1.5), fg.constant(1.1)), np.float32)   # 4 trips > 2
    assert "only for runs past 2 trips" in src


def test_capacity_is_bounded_by_trips_and_bytes():
    big = jax.ShapeDtypeStruct((1 << 20,), np.float64)   # 8 MiB a trip
    assert while_reverse.trips_capacity([big]) == while_reverse.MAX_BYTES // (8 << 20)
    assert while_reverse.trips_capacity([jax.numpy.zeros(())]) == while_reverse.MAX_TRIPS


def test_vector_loop_with_captured_matrix_matches_the_executor():
    rng = np.random.default_rng(3)
    def f(x, W, b):
        with fg.GradientTape() as tape:
            tape.watch([x, W, b])
            y, _ = fg.while_loop(
                lambda v, k: fg.logical_and(fg.reduce_sum(v * v) < 50., k < 7),
                lambda v, k: (fg.tanh(fg.linalg.matvec(W, v)) * 2. + b, k + 1),
                (x, fg.constant(0)))
            loss = fg.reduce_sum(y * y)
        return [loss] + tape.gradient(loss, [x, W, b])

    args = (fg.constant(rng.standard_normal(4)), fg.constant(rng.standard_normal((4, 4)) * .5),
            fg.constant(rng.standard_normal(4)))
    got = fg.function(f, jit_compile=True)(*args)
    want = fg.function(f)(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-12)
    src = fg.function(f, jit_compile=True).get_concrete_function(*args).compiled_source
    assert [s for s in src.split("\n") if s.startswith("#   ")] == [
        s for s in src.split("\n") if s.startswith("#   ") and "only for runs past 4096 trips" in s]


def _accumulating(v):
    def f(x, w):
        with fg.GradientTape() as tape:
            tape.watch([x, w])

            def body(a, k):
                v.assign_add(a)
                return a * a * w, k + 1
            y, k = fg.while_loop(lambda a, k: a < 100., body, (x, fg.constant(0)))
        return y, tape.gradient(y, [x, w]), v.read_value()
    return f


@pytest.mark.parametrize("jit", [True, None])
def test_a_body_that_assigns_updates_once_per_call_and_differentiates(jit):
    """TensorFlow 2.21 (tf.function, values recorded): the body's updates happen once a
    call (the derivative's re-run of the loop does not repeat them), the gradient is that
    of the loop; compiled (the derivative a host callback) and uncompiled alike."""
    v = fg.Variable(0., dtype=fg.float64)
    f = fg.function(_accumulating(v), jit_compile=jit)
    args = (fg.constant(1.5, fg.float64), fg.constant(1.1, fg.float64))
    for total in (60.65667536367, 121.31335072734):
        y, (gx, gw), after = f(*args)
        np.testing.assert_allclose([y.numpy(), gx.numpy(), gw.numpy(), after.numpy()],
                                   [2743.787177987617, 29267.063231867913,
                                    37415.27969983114, total], rtol=1e-12)


@pytest.mark.parametrize("jit", [True, None])
def test_a_body_that_reads_what_it_assigns_differentiates_with_the_loops_values(jit):
    """y = x * 2 * 3 * 4 with v counting up in the body: dy/dx = 24 (TensorFlow 2.21's
    value), the derivative reading v as each trip did, not as the loop left it."""
    v = fg.Variable(1., dtype=fg.float64)

    def f(x):
        with fg.GradientTape() as tape:
            tape.watch(x)

            def body(a, k):
                v.assign_add(1.)
                return a * v, k + 1
            y, _ = fg.while_loop(lambda a, k: k < 3, body, (x, fg.constant(0)))
        return y, tape.gradient(y, x), v.read_value()
    got = fg.function(f, jit_compile=jit)(fg.constant(2., fg.float64))
    assert [float(t) for t in got] == [48., 24., 4.]


@pytest.mark.parametrize("unbounded", [True, False])
def test_second_order_compiled_equals_the_graph_and_eager(unbounded):
    """Past order 1 the derivative of a loop without a static maximum_iterations runs on
    the host (listed), that of a loop with one is native (nested jax.vjp of a scan): the
    same values as the uncompiled graph and as eager nested tapes."""
    def g(x, w):
        with fg.GradientTape() as t2:
            t2.watch(x)
            with fg.GradientTape() as t1:
                t1.watch(x)
                if unbounded:
                    y, _ = fg.while_loop(lambda a, k: a < 100., lambda a, k: (a * a * w, k + 1),
                                         (x, fg.constant(0)))
                else:
                    y, _ = fg.while_loop(lambda a, k: k < 3,
                                         lambda a, k: (fg.sin(a) * w + a * a, k + 1),
                                         (x, fg.constant(0)), maximum_iterations=5)
            d = t1.gradient(y, x)
        return y, d, t2.gradient(d, x)
    args = (fg.constant(1.5, fg.float64), fg.constant(1.1, fg.float64))
    compiled = fg.function(g, jit_compile=True)
    got = [t.numpy() for t in compiled(*args)]
    for want in (fg.function(g)(*args), g(*args)):
        np.testing.assert_allclose(got, [t.numpy() for t in want], rtol=1e-12)
    src = compiled.get_concrete_function(*args).compiled_source
    assert ("while_grad" in src) == unbounded
    assert ("# host callbacks: none" in src) == (not unbounded)
