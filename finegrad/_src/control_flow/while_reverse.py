"""The XLA lowering of a `while_loop`'s gradient (``while_grad``) when the loop has no static
``maximum_iterations``: the forward ``lax.while_loop`` counts its trips and stores the loop
variables before each trip in a buffer of `trips_capacity` rows; the reverse loop
(``lax.fori_loop`` over the stored rows, last trip first) pulls the cotangents back through
one trip of the body at a time (``jax.vjp`` of the lowered body), summing the gradients of
the captured values. A loop that runs more trips than the buffer holds takes the host
callback of the impl instead (a ``lax.cond`` on the count: the listing names that
callback)."""
import numpy as np

from finegrad._src.graph.xla import lower as xla

#: the buffer of stored loop variables holds at most this many trips ...
MAX_TRIPS = 4096
#: ... and at most this many bytes
MAX_BYTES = 64 << 20


def trips_capacity(vs):
    """How many trips of loop variables ``vs`` (JAX values) the buffer stores."""
    row = sum(int(np.prod(v.shape)) * v.dtype.itemsize for v in vs) or 1
    return max(1, min(MAX_TRIPS, MAX_BYTES // row))


def forward(run_c, run_b, vs, captured, limit, cap):
    """(The trip count, the buffer: row k holds the loop variables before trip k)."""
    import jax.numpy as jnp
    from jax import lax
    bufs = [jnp.zeros((cap,) + tuple(v.shape), v.dtype) for v in vs]

    def test(carry):
        i, vs, _ = carry
        ok = run_c([], vs, captured)[0][0]
        return ok if limit is None else jnp.logical_and(ok, i < limit)

    def step(carry):
        i, vs, bufs = carry
        bufs = [b.at[jnp.minimum(i, cap - 1)].set(v) for b, v in zip(bufs, vs, strict=True)]
        return i + 1, run_b([], vs, captured)[0], bufs
    trips, _, bufs = lax.while_loop(test, step, (jnp.asarray(0, jnp.int64), list(vs), bufs))
    return trips, bufs


def reverse(run_b, bufs, trips, captured, cts, floats_v, floats_c):
    """(The cotangents of the loop variables before the first trip, those of the captured
    values): ``cts`` pulled back through trips ``trips - 1`` down to 0."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def back(j, carry):
        ct_v, ct_c = carry
        k = trips - 1 - j
        vs = [b[k] for b in bufs]

        def one_trip(fv, fc):
            xs, cs = list(vs), list(captured)
            for i, f in zip(floats_v, fv, strict=True):
                xs[i] = f
            for i, f in zip(floats_c, fc, strict=True):
                cs[i] = f
            out = run_b([], xs, cs)[0]
            return [out[i] for i in floats_v]
        _, vjp = jax.vjp(one_trip, [vs[i] for i in floats_v],
                         [captured[i] for i in floats_c])
        g_v, g_c = vjp(ct_v)
        return list(g_v), [a + g for a, g in zip(ct_c, g_c, strict=True)]
    start = ([cts[i] for i in floats_v], [jnp.zeros_like(captured[i]) for i in floats_c])
    return lax.fori_loop(0, trips, back, start)


def while_grad_unbounded(prim, vals, params):
    """The gradients (one per input of the loop) of a first-order ``while_grad`` node
    (primitive ``prim``, inputs ``vals``, ``params``) whose loop has ``maximum_iterations``
    None or an input (see the module's docstring)."""
    import jax.numpy as jnp
    from jax import lax
    n, n_base = params["n"], params["n_base"]
    ins, cts = list(vals[:n_base]), list(vals[n_base:])
    captured = ins[n:]
    limit = captured.pop() if params["max_iter"] == "input" else None
    run_c, run_b = (xla.branch_function(p, []) for p in params["parts"])
    float_ = [bool(jnp.issubdtype(x.dtype, jnp.inexact)) for x in ins]
    floats_v = [i for i in range(n) if float_[i]]
    floats_c = [i for i in range(len(captured)) if float_[n + i]]
    cap = trips_capacity(ins[:n])
    trips, bufs = forward(run_c, run_b, ins[:n], captured, limit, cap)

    def stored(_):
        g_v, g_c = reverse(run_b, bufs, trips, captured, cts, floats_v, floats_c)
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
