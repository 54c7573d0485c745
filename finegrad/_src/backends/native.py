"""The ``finegrad`` backend of `finegrad.ops`: Keras 3's names on finegrad's own engine.

Tensors are `finegrad.Tensor`; ``custom_gradient`` is `finegrad.custom_gradient` itself (with
everything it has: variables, forward mode, nested rules, `finegrad.function`), its grad
adapted only when written in Keras's ``grad(*args, upstream)`` form.
"""
import functools

import numpy as np

from finegrad._src.ad import custom as _custom
from finegrad._src.ad import tape as _tape
from finegrad._src.ops.array import constants as _cs
from finegrad._src.ops.array import structural as _st
from finegrad._src.ops.linalg import products as _pr
from finegrad._src.ops.math import arithmetic as _ar
from finegrad._src.ops.math import elementwise as _ew
from finegrad._src.ops.math import reductions as _rd
from finegrad._src.ops.nn import softmax_cross_entropy as _sm
from finegrad._src import tensor as _tensor
from finegrad._src import variables as _variables
from finegrad._src.backends import rule as _rule

name = "finegrad"
framework = "finegrad"


def is_tensor(x):
    return isinstance(x, (_tensor.Tensor, _variables.Variable))


def is_float(x):
    return x.dtype.is_floating


def static_shape(x):
    return tuple(x.shape.as_list()) if x.shape.rank is not None else ()


def dtype_name(x):
    return x.dtype.name


def convert_to_tensor(x, dtype=None):
    return _st.convert_to_tensor(x, dtype=dtype)


def convert_to_numpy(x):
    return np.asarray(_st.convert_to_tensor(x).numpy())


def custom_gradient(f, forward="none", jvp=None):
    """`finegrad.custom_gradient` of ``f``, with a Keras ``grad(*args, upstream)`` adapted."""
    @functools.wraps(f)
    def f_with_grad_adapted(*args, **kwargs):
        y, grad = _rule.split(f(*args, **kwargs), f, name)
        if not _rule.takes_upstream_keyword(grad):
            return y, grad

        def grad_of_upstreams(*upstreams, **variables):
            up = upstreams[0] if len(upstreams) == 1 else tuple(upstreams)
            return grad(*args, upstream=up, **variables)
        return y, grad_of_upstreams
    return _custom.custom_gradient(f_with_grad_adapted, jvp=jvp)


def value_and_grad(f, argnums=0):
    """``f`` -> ``(f(*args), gradient)`` taken with a GradientTape."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def value_and_grad_f(*args, **kwargs):
        args = list(args)
        for i in nums:
            args[i] = _st.convert_to_tensor(args[i])
        with _tape.GradientTape() as tape:
            for i in nums:
                tape.watch(args[i])
            y = f(*args, **kwargs)
        grads = tape.gradient(y, [args[i] for i in nums])
        return y, grads[0] if isinstance(argnums, int) else tuple(grads)
    return value_and_grad_f


abs = _ew.abs  # Keras's name
exp, log, log1p, expm1 = _ew.exp, _ew.log, _ew.log1p, _ew.expm1
sqrt, square, sin, cos, tan, tanh = _ew.sqrt, _ew.square, _ew.sin, _ew.cos, _ew.tan, _ew.tanh
sign, negative, floor = _ew.sign, _ar.negative, _ew.floor
sigmoid, softplus, relu = _ew.sigmoid, _ew.softplus, _ew.relu
stop_gradient = _st.stop_gradient
add, subtract, multiply, divide, power = _ar.add, _ar.subtract, _ar.multiply, _ar.divide, _ar.pow
maximum, minimum, matmul = _ar.maximum, _ar.minimum, _pr.matmul
equal, not_equal, less, less_equal = _ew.equal, _ew.not_equal, _ew.less, _ew.less_equal
greater, greater_equal = _ew.greater, _ew.greater_equal
sum, mean, max, min = _st.reduce_sum, _rd.reduce_mean, _rd.reduce_max, _rd.reduce_min
prod, logsumexp = _rd.reduce_prod, _rd.reduce_logsumexp
reshape, expand_dims, squeeze, where = _st.reshape, _st.expand_dims, _st.squeeze, _ew.where
concatenate, stack, einsum = _st.concat, _st.stack, _pr.einsum
cast, clip = _st.cast, _ar.clip_by_value


def transpose(x, axes):
    return _st.transpose(x, perm=axes)


def softmax(x, axis):
    return _sm.softmax(x, axis=axis)


def log_softmax(x, axis):
    return _sm.log_softmax(x, axis=axis)


def zeros(shape, dtype):
    return _cs.zeros(shape, dtype=dtype)


def ones(shape, dtype):
    return _cs.ones(shape, dtype=dtype)
