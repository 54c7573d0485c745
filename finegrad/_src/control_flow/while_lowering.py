"""The XLA lowerings of `while_loop` (``while_loop`` nodes) and of its derivatives
(``while_grad``), with the variables the loop's condition or body assign threaded through
the loop's carry.

The forward loop is one ``lax.while_loop`` over (the trip count, the loop variables, the
assigned variables' values, the condition's last result): the condition runs once before
the loop and again after each trip of the body, so a condition that assigns variables does
so as often as in the uncompiled graph (once more than the body), and its updates reach the
next trip. The values the variables had before the loop are kept (`Lowering.pre_loop`),
for the derivative's re-run.

A derivative re-runs the loop from the variables' values before it (while they still
hold what the loop left them; else, as in the impl's `_rerun`, the values they hold) and
pulls the cotangents back through it with ``jax.vjp``. The variables' values are carried as
state that gradients do not flow through (a read of a variable is not differentiable in the
value it was assigned, as in TensorFlow, whose assign has no gradient): with a static
``maximum_iterations``, the loop is a ``lax.scan`` of that many guarded trips, differentiated
to any order by nested ``jax.vjp`` (`grad_bounded`); without one, the first derivative is a
counted forward loop that stores the loop variables and the variables' values before each
trip, and a reverse loop over them (`while_reverse`).
"""
from finegrad._src.graph.xla import lower as xla


def loop_functions(parts, carried, captured):
    """``(test, trip)`` of a loop whose condition and body are ``parts``, the variables
    ``carried`` (ids) threaded through as state: ``test(state, vs) -> (ok, state)`` and
    ``trip(state, vs) -> (vs, state, ok)`` (the body, then the condition)."""
    run_c, run_b = (xla.branch_function(p, carried) for p in parts)

    def test(state, vs):
        outs, state = run_c(state, vs, captured)
        return outs[0], state

    def trip(state, vs):
        vs, state = run_b(state, vs, captured)
        ok, state = test(state, vs)
        return vs, state, ok
    return test, trip


def lower_while(vals, parts, n, max_iter):
    """The loop variables after a ``while_loop`` node (inputs ``vals``: the loop variables,
    then the captured values, then the maximum count when it is an input), the assigned
    variables' values updated in the current `Lowering`."""
    import jax.numpy as jnp
    from jax import lax
    low = xla.current()
    captured = list(vals[n:])
    limit = captured.pop() if max_iter == "input" else max_iter
    carried = low.carried([p.graph for p in parts])
    before = [low.values[k] for k in carried]
    if low.differentiating and type(limit) is int:
        # a loop inside one that JAX differentiates (whose lax.while_loop it cannot
        # reverse): the guarded scan
        vs, state = _guarded_loop(vals, parts, n, limit, carried, before, with_state=True)
        low.values.update(zip(carried, state, strict=True))
        return tuple(vs)
    test, trip = loop_functions(parts, carried, captured)
    ok, state = test(before, list(vals[:n]))

    def keep_going(carry):
        i, _, _, ok = carry
        return ok if limit is None else jnp.logical_and(ok, i < limit)

    def step(carry):
        i, vs, state, _ = carry
        return (i + 1, *trip(state, vs))
    start = (jnp.asarray(0, jnp.int64), list(vals[:n]), state, ok)
    _, vs, state, _ = lax.while_loop(keep_going, step, start)
    low.values.update(zip(carried, state, strict=True))
    low.pre_loop[id(parts[1])] = (dict(zip(carried, before, strict=True)),
                                  dict(zip(carried, state, strict=True)))
    return tuple(vs)


def state_before(parts, carried):
    """The values the variables ``carried`` had before the loop's last run (while they still
    hold the values it left), else the values they hold; gradients stopped."""
    from jax import lax
    low = xla.current()
    kept = low.pre_loop.get(id(parts[1]))
    out = []
    for k in carried:
        now = low.values[k]
        out.append(kept[0][k] if kept is not None and kept[1].get(k) is now else now)
    return [lax.stop_gradient(v) for v in out]


def _guarded_loop(xs, parts, n, max_iter, carried, state, with_state=False):
    """The loop variables after the loop on inputs ``xs`` (loop variables, captured values)
    as a ``lax.scan`` of ``max_iter`` guarded trips (a trip after the condition failed keeps
    the loop variables): JAX differentiates it to any order. With ``with_state``, also the
    carried variables' values after it."""
    import jax
    import jax.numpy as jnp
    test, trip = loop_functions(parts, carried, list(xs[n:]))
    ok, st = test(state, list(xs[:n]))

    def step(carry, _):
        def stay(vs_st):
            return (*vs_st, jnp.asarray(False))
        ok, vs, st = carry
        vs, st, ok = jax.lax.cond(ok, lambda a: trip(a[1], a[0]), stay, (vs, st))
        return (ok, vs, st), None
    _, vs, st = jax.lax.scan(step, (ok, list(xs[:n]), st), None, length=max_iter)[0]
    return (list(vs), st) if with_state else list(vs)


def _inexact(x):
    import jax.numpy as jnp
    return bool(jnp.issubdtype(x.dtype, jnp.inexact))


def derivative(ts, depth, sizes, loop):
    """The outputs of the loop's derivative of order ``depth`` on inputs ``ts`` (as
    `cond_while._while_derivative`: one gradient per input of the order below, zeros for
    the integer ones), by ``jax.vjp`` of the order below; ``sizes(d)``: the number of
    inputs of order ``d``; ``loop(xs)``: order 0."""
    import jax
    import jax.numpy as jnp
    if depth == 0:
        return loop(ts)
    m = sizes(depth - 1)
    xs, cts = list(ts[:m]), list(ts[m:])
    floats = [i for i, x in enumerate(xs) if _inexact(x)]
    live = [i for i, c in enumerate(cts) if _inexact(c)]

    def below(*fs):
        ys = list(xs)
        for i, f in zip(floats, fs, strict=True):
            ys[i] = f
        outs = derivative(ys, depth - 1, sizes, loop)
        return [outs[i] for i in live]
    _, vjp = jax.vjp(below, *[xs[i] for i in floats])
    grads = vjp([cts[i] for i in live])
    out = [jnp.zeros_like(x) for x in xs]
    for i, g in zip(floats, grads, strict=True):
        out[i] = g
    return out


def grad_bounded(vals, parts, n, max_iter, carried, state, n_base, depth, sizes):
    """The outputs of a ``while_grad`` node of order ``depth`` (inputs ``vals``) of a loop
    with an int ``maximum_iterations``: nested ``jax.vjp`` of the guarded loop
    (`_guarded_loop`). ``state``: the variables' values before the loop."""
    return tuple(derivative(list(vals), depth, sizes, lambda xs: _guarded_loop(
        xs, parts, n, max_iter, carried, state)))
