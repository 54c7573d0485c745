"""Keras's core group on TensorFlow's control flow (``tf.cond``, ``tf.while_loop``, traceable
under ``tf.function``), ``tf.vectorized_map`` and ``tf.tensor_scatter_nd_*``."""
import tensorflow as tf

from finegrad._src.backends.tensorflow import custom as _custom


def cast(x, dtype):
    return tf.cast(x, dtype)


def cond(pred, true_fn, false_fn):
    return tf.cond(pred, true_fn, false_fn)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    is_tuple = isinstance(loop_vars, (tuple, list))
    state = tuple(loop_vars) if is_tuple else (loop_vars,)

    def b(*s):
        out = body(*s)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)
    out = tf.while_loop(cond, b, state, maximum_iterations=maximum_iterations)
    return tuple(out) if is_tuple else out[0]


def vectorized_map(function, elements):
    return tf.vectorized_map(function, elements)


def map(f, xs):  # (Keras's name)
    return tf.map_fn(f, xs)


def scatter_update(inputs, indices, updates, reduction=None):
    x = _custom.convert_to_tensor(inputs)
    fn = {None: tf.tensor_scatter_nd_update, "add": tf.tensor_scatter_nd_add,
          "max": tf.tensor_scatter_nd_max, "min": tf.tensor_scatter_nd_min}[reduction]
    return fn(x, indices, tf.cast(updates, x.dtype))


def slice(inputs, start_indices, shape):  # (Keras's name)
    return tf.slice(inputs, start_indices, shape)


def unstack(x, num=None, axis=0):
    return tf.unstack(x, num, axis)
