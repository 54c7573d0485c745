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
