"""The XLA lowering of a `while_loop`'s gradient (``while_grad``) when the loop has no static
``maximum_iterations``: the forward ``lax.while_loop`` counts its trips and stores the loop
variables (and the values of the variables the loop assigns, `while_lowering`) before each
trip in a buffer of `trips_capacity` rows; the reverse loop (``lax.fori_loop`` over the
stored rows, last trip first) pulls the cotangents back through one trip of the body at a
time (``jax.vjp`` of the lowered body), summing the gradients of the captured values. A loop
that runs more trips than the buffer holds takes the host callback of the impl instead (a
``lax.cond`` on the count: the listing names that callback). Why a buffer: XLA's buffers have
static sizes, and a loop's trip count is known only when it has run; the buffer's size is the
bound, and a host callback (which keeps every trip, in NumPy) serves the rare longer loop."""
import numpy as np

from finegrad._src.graph.xla import lower as xla
from finegrad._src.control_flow.while_lowering import loop_functions, state_before

#: the buffer of stored loop variables holds at most this many trips ...
MAX_TRIPS = 4096
#: ... and at most this many bytes
MAX_BYTES = 64 << 20


def trips_capacity(vs):
    """How many trips of loop variables ``vs`` (JAX values) the buffer stores."""
    row = sum(int(np.prod(v.shape)) * v.dtype.itemsize for v in vs) or 1
    return max(1, min(MAX_TRIPS, MAX_BYTES // row))


def forward(test, trip, vs, state, limit, cap):
    """(The trip count, the buffer: row k holds the loop variables and then the state before
    trip k). ``test`` and ``trip``: `while_lowering.loop_functions`."""
    import jax.numpy as jnp
    from jax import lax
    rows = list(vs) + list(state)
    bufs = [jnp.zeros((cap,) + tuple(v.shape), v.dtype) for v in rows]
    ok, state = test(list(state), list(vs))

    def keep_going(carry):
        i, _, _, ok, _ = carry
        return ok if limit is None else jnp.logical_and(ok, i < limit)

    def step(carry):
        i, vs, state, _, bufs = carry
        bufs = [b.at[jnp.minimum(i, cap - 1)].set(v)
                for b, v in zip(bufs, list(vs) + list(state), strict=True)]
        return (i + 1, *trip(state, vs), bufs)
    start = (jnp.asarray(0, jnp.int64), list(vs), state, ok, bufs)
    trips, _, _, _, bufs = lax.while_loop(keep_going, step, start)
    return trips, bufs


def reverse(run_b, bufs, n, trips, captured, cts, floats_v, floats_c):
    """(The cotangents of the loop variables before the first trip, those of the captured
    values): ``cts`` pulled back through trips ``trips - 1`` down to 0. ``run_b(state, vs,
    captured)`` gives the loop variables after one trip."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def back(j, carry):
        ct_v, ct_c = carry
        k = trips - 1 - j
        row = [b[k] for b in bufs]
        vs, state = row[:n], row[n:]

        def one_trip(fv, fc):
            xs, cs = list(vs), list(captured)
            for i, f in zip(floats_v, fv, strict=True):
                xs[i] = f
            for i, f in zip(floats_c, fc, strict=True):
                cs[i] = f
            out = run_b(state, xs, cs)
            return [out[i] for i in floats_v]
        _, vjp = jax.vjp(one_trip, [vs[i] for i in floats_v],
                         [captured[i] for i in floats_c])
        g_v, g_c = vjp(ct_v)
        return list(g_v), [a + g for a, g in zip(ct_c, g_c, strict=True)]
    start = ([cts[i] for i in floats_v], [jnp.zeros_like(captured[i]) for i in floats_c])
    return lax.fori_loop(0, trips, back, start)


def while_grad_unbounded(prim, vals, params, carried):
    """The gradients (one per input of the loop) of a first-order ``while_grad`` node
    (primitive ``prim``, inputs ``vals``, ``params``) whose loop has ``maximum_iterations``
    None or an input, and assigns the variables ``carried`` (ids; see the module's
    docstring)."""
    import jax.numpy as jnp
    from jax import lax
    n, n_base, parts = params["n"], params["n_base"], params["parts"]
    ins, cts = list(vals[:n_base]), list(vals[n_base:])
    captured = ins[n:]
    limit = captured.pop() if params["max_iter"] == "input" else None
    float_ = [bool(jnp.issubdtype(x.dtype, jnp.inexact)) for x in ins]
    floats_v = [i for i in range(n) if float_[i]]
    floats_c = [i for i in range(len(captured)) if float_[n + i]]
    state = state_before(parts, carried)
    cap = trips_capacity(ins[:n] + state)
    test, trip = loop_functions(parts, carried, captured)
    trips, bufs = forward(test, trip, ins[:n], state, limit, cap)
    run_b = xla.branch_function(parts[1], carried)

    def stored(_):
        g_v, g_c = reverse(lambda st, xs, cs: run_b(st, xs, cs)[0], bufs, n, trips,
                           captured, cts, floats_v, floats_c)
        out = [jnp.zeros_like(x) for x in ins]
        for i, g in zip(floats_v, g_v, strict=True):
            out[i] = g
        for i, g in zip(floats_c, g_c, strict=True):
            out[n + i] = g
        return out

    def on_host(_):
        meta = [(tuple(x.shape), np.dtype(x.dtype)) for x in ins]
        return list(xla.host_callback(prim, vals, params, meta, f"only for runs past {cap} "
                                      f"trips, the stored loop's limit", declined=True))
    return tuple(lax.cond(trips <= cap, stored, on_host, None))
