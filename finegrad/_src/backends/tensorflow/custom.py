"""The ``tensorflow`` backend of `finegrad.ops`: Keras 3's names on TensorFlow.

``custom_gradient`` is ``tf.custom_gradient`` over the flat tensor leaves of the inputs
(so nested inputs and several outputs work, eagerly and inside ``tf.function``); its gradient
function calls the user's checked ``grad``.
"""
import functools

import numpy as np
import tensorflow as tf

from finegrad._src.backends import rule as _rule

name = "tensorflow"
framework = "tensorflow"
supports_variables = True   # tf.custom_gradient's variables= contract


def is_tensor(x):
    return tf.is_tensor(x) or isinstance(x, tf.Variable)


def is_float(x):
    return x.dtype.is_floating


def static_shape(x):
    return tuple(x.shape.as_list()) if x.shape.rank is not None else ()


def dtype_name(x):
    return x.dtype.name


def convert_to_tensor(x, dtype=None):
    if isinstance(x, float) and dtype is None:
        dtype = "float32"
    return tf.convert_to_tensor(x, dtype=dtype)


def convert_to_numpy(x):
    return np.asarray(x)


def custom_gradient(f, forward="none", jvp=None):
    """``f`` as a ``tf.custom_gradient`` whose gradient is the user's checked ``grad``."""
    if jvp is not None:
        raise ValueError(f"finegrad.ops.custom_gradient (tensorflow backend): {f.__qualname__} "
                         f"has an explicit jvp=, which tensorflow cannot pair with a custom "
                         f"reverse rule; drop it (forward mode then comes from "
                         f"tf.autodiff.ForwardAccumulator), or use the finegrad or torch backend")

    names_by_count = {}

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        inputs = _rule.Inputs(f, args, kwargs, _this, names_by_count)
        structure = {}

        @tf.custom_gradient
        def flat_call(*leaves):
            a, kw = inputs.rebuild(leaves)
            y, grad = _rule.run(f, a, kw, _this)
            structure["y"] = y

            def tf_grad(*cts, variables=None):
                # variables: those f read, which tf.custom_gradient tracks (TensorFlow's
                # contract: grad then returns their gradients too)
                grads = _rule.call_grad(grad, inputs, leaves, y, cts, f.__qualname__, _this,
                                        variables)
                return (list(grads[0]), list(grads[1])) if variables else list(grads)
            return list(tf.nest.flatten(y)), tf_grad

        outs = flat_call(*inputs.tensors)
        return tf.nest.pack_sequence_as(structure["y"], list(outs))
    return decorated


def value_and_grad(f, argnums=0):
    """``f`` -> ``(f(*args), gradient)`` taken with a ``tf.GradientTape``."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def value_and_grad_f(*args, **kwargs):
        args = list(args)
        for i in nums:
            args[i] = convert_to_tensor(args[i])
        with tf.GradientTape() as tape:
            for i in nums:
                tape.watch(args[i])
            y = f(*args, **kwargs)
        grads = tape.gradient(y, [args[i] for i in nums],
                              unconnected_gradients=tf.UnconnectedGradients.ZERO)
        return y, grads[0] if isinstance(argnums, int) else tuple(grads)
    return value_and_grad_f


import sys as _sys  # noqa: E402 (the module itself, for the shared rule's backend argument)
_this = _sys.modules[__name__]
