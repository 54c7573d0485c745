"""Keras's core group on ``jax.lax``: structured control flow (traceable under ``jax.jit``),
scatter and dynamic slices."""
import jax
import jax.numpy as jnp


def cast(x, dtype):
    return jnp.asarray(x).astype(dtype)


def cond(pred, true_fn, false_fn):
    return jax.lax.cond(pred, true_fn, false_fn)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    is_tuple = isinstance(loop_vars, (tuple, list))
    state = tuple(loop_vars) if is_tuple else (loop_vars,)
    if maximum_iterations is not None:
        state = (0, state)

        def c(s):
            return jnp.logical_and(s[0] < maximum_iterations, cond(*s[1]))

        def b(s):
            out = body(*s[1])
            return s[0] + 1, tuple(out) if isinstance(out, (tuple, list)) else (out,)
        out = jax.lax.while_loop(c, b, state)[1]
    else:
        def b(s):
            out = body(*s)
            return tuple(out) if isinstance(out, (tuple, list)) else (out,)
        out = jax.lax.while_loop(lambda s: cond(*s), b, state)
    return out if is_tuple else out[0]


def fori_loop(lower, upper, body_fun, init_val):
    return jax.lax.fori_loop(lower, upper, body_fun, init_val)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    return jax.lax.scan(f, init, xs, length, reverse, unroll)


def associative_scan(f, elems, reverse=False, axis=0):
    return jax.lax.associative_scan(f, elems, reverse, axis)


def map(f, xs):  # (Keras's name)
    return jax.lax.map(f, xs)


def switch(index, branches, *operands):
    return jax.lax.switch(index, branches, *operands)


def vectorized_map(function, elements):
    return jax.vmap(function)(elements)


def scatter_update(inputs, indices, updates, reduction=None):
    x, idx = jnp.asarray(inputs), jnp.asarray(indices)
    at = x.at[tuple(jnp.moveaxis(idx, -1, 0))]
    return {None: at.set, "add": at.add, "max": at.max, "min": at.min,
            "mul": at.multiply}[reduction](updates)


def slice(inputs, start_indices, shape):  # (Keras's name)
    return jax.lax.dynamic_slice(inputs, start_indices, shape)


def slice_update(inputs, start_indices, updates):
    return jax.lax.dynamic_update_slice(inputs, updates, start_indices)


def unstack(x, num=None, axis=0):
    return [jax.lax.index_in_dim(x, i, axis, keepdims=False) for i in range(x.shape[axis])]
