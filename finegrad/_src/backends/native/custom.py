"""The ``finegrad`` backend of `finegrad.ops`: Keras 3's names on finegrad's own engine.

Tensors are `finegrad.Tensor`; ``custom_gradient`` is `finegrad.custom_gradient` itself (with
everything it has: variables, forward mode, nested rules, `finegrad.function`), its grad
adapted only when written in Keras's ``grad(*args, upstream)`` form.
"""
import functools

import numpy as np

from finegrad._src.ad import custom as _custom
from finegrad._src.ad import tape as _tape
from finegrad._src.ops.array import structural as _st
from finegrad._src import tensor as _tensor
from finegrad._src import variables as _variables
from finegrad._src.backends import rule as _rule

name = "finegrad"
framework = "finegrad"


def is_tensor(x):
    return isinstance(x, (_tensor.Tensor, _variables.Variable))


def is_float(x):
    # a Tensor's NumPy dtype directly (its DType is looked up from it: `DType.is_floating`
    # is the NumPy kind "f"); a Variable's DType
    if type(x) is _tensor.Tensor:
        return x._value.dtype.kind == "f"
    return x.dtype.is_floating


def same_dtype(x1, x2):
    """Whether two Tensors have one dtype, from their NumPy dtypes (one DType per NumPy
    dtype, so they are equal where the DTypes are)."""
    return x1._value.dtype == x2._value.dtype


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
        grads = tape.gradient(y, [args[i] for i in nums],
                              unconnected_gradients=_tape.UnconnectedGradients.ZERO)
        return y, grads[0] if isinstance(argnums, int) else tuple(grads)
    return value_and_grad_f
