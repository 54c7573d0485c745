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
    """``tf.map_fn`` with the output structure of ``f`` on the first element (as Keras), so
    ``f`` may return another structure than ``xs``'s."""
    xs = tf.nest.map_structure(tf.convert_to_tensor, xs)
    first = tf.nest.map_structure(lambda v: v[0], xs)
    spec = tf.nest.map_structure(lambda y: tf.TensorSpec.from_tensor(tf.convert_to_tensor(y)),
                                 f(first))
    return tf.map_fn(f, xs, fn_output_signature=spec)


def scatter_update(inputs, indices, updates, reduction=None):
    x = _custom.convert_to_tensor(inputs)
    fn = {None: tf.tensor_scatter_nd_update, "add": tf.tensor_scatter_nd_add,
          "max": tf.tensor_scatter_nd_max, "min": tf.tensor_scatter_nd_min}[reduction]
    return fn(x, indices, tf.cast(updates, x.dtype))


def slice(inputs, start_indices, shape):  # (Keras's name)
    return tf.slice(inputs, start_indices, shape)


def unstack(x, num=None, axis=0):
    return tf.unstack(x, num, axis)
