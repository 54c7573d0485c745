"""Keras 3's `keras.ops` core group: control flow, scatter, slicing, dtypes (and `rearrange`).

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from finegrad._src.backends.dispatch.selection import on as _on


def associative_scan(f, elems, reverse=False, axis=0):
    """Keras 3's `keras.ops.associative_scan` on the active backend."""
    return _on(elems).associative_scan(f, elems, reverse, axis)


def cast(x, dtype):
    """``x`` converted to ``dtype`` (a name such as ``"float32"``)."""
    return _on(x).cast(x, dtype)


def cond(pred, true_fn, false_fn):
    """Keras 3's `keras.ops.cond` on the active backend."""
    return _on(pred).cond(pred, true_fn, false_fn)


def fori_loop(lower, upper, body_fun, init_val):
    """Keras 3's `keras.ops.fori_loop` on the active backend."""
    return _on(lower, upper, body_fun, init_val).fori_loop(lower, upper, body_fun, init_val)


def map(f, xs):
    """Keras 3's `keras.ops.map` on the active backend."""
    return _on(xs).map(f, xs)


def rearrange(tensor, pattern, **axes_lengths):
    """Keras 3's `keras.ops.rearrange` on the active backend."""
    return _on(tensor).rearrange(tensor, pattern, **axes_lengths)


def saturate_cast(x, dtype):
    """Keras 3's `keras.ops.saturate_cast` on the active backend."""
    return _on(x).saturate_cast(x, dtype)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Keras 3's `keras.ops.scan` on the active backend."""
    return _on(init, xs, length).scan(f, init, xs, length, reverse, unroll)


def scatter(indices, values, shape):
    """Keras 3's `keras.ops.scatter` on the active backend."""
    return _on(indices, values).scatter(indices, values, shape)


def scatter_update(inputs, indices, updates, reduction=None):
    """Keras 3's `keras.ops.scatter_update` on the active backend."""
    return _on(inputs, indices, updates, reduction).scatter_update(
        inputs, indices, updates, reduction
    )


def slice(inputs, start_indices, shape):
    """Keras 3's `keras.ops.slice` on the active backend."""
    return _on(inputs, start_indices).slice(inputs, start_indices, shape)


def slice_update(inputs, start_indices, updates):
    """Keras 3's `keras.ops.slice_update` on the active backend."""
    return _on(inputs, start_indices, updates).slice_update(inputs, start_indices, updates)


def stop_gradient(variable):
    """``x``, through which no gradient flows."""
    return _on(variable).stop_gradient(variable)


def switch(index, branches, *operands):
    """Keras 3's `keras.ops.switch` on the active backend."""
    return _on(index, branches, *operands).switch(index, branches, *operands)


def unstack(x, num=None, axis=0):
    """Keras 3's `keras.ops.unstack` on the active backend."""
    return _on(x, num).unstack(x, num, axis)


def vectorized_map(function, elements):
    """Keras 3's `keras.ops.vectorized_map` on the active backend."""
    return _on(function, elements).vectorized_map(function, elements)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Keras 3's `keras.ops.while_loop` on the active backend."""
    return _on(loop_vars, maximum_iterations).while_loop(cond, body, loop_vars, maximum_iterations)
