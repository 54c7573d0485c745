"""The matrix argument checks of ``tf.linalg``'s functions: each returns its argument as a
Tensor of rank >= 2, or raises the error TensorFlow raises, naming the function and argument.

`static_matrix`: rank >= 2 with static matrix axes (any dtype: masks and diagonals);
`square_matrix`: square and floating or complex (float16 included: inv, det, slogdet);
`matrix_arg`: float32/64 or complex64/128 (float16 refused: the solvers and decompositions),
square when asked.
"""
import numpy as np

from finegrad._src import core, dims
from finegrad._src.ops.array.structural import _t


def static_matrix(x, fn):
    """``x`` as a tensor of rank >= 2 whose last two axes are static (else a ValueError)."""
    x = _t(x)
    if x._value.ndim < 2:
        raise ValueError(f"finegrad.{fn}: input must have rank >= 2, got shape "
                         f"{tuple(x._value.shape)}")
    dims.pin(core.shape_of(x)[-2:], f"{fn} over a dynamic matrix axis")
    return x


def square_matrix(x, fn):
    """``x`` as a float tensor of square matrices over its last two axes (else a ValueError)."""
    x = static_matrix(x, fn)
    m, n = x._value.shape[-2:]
    if m != n:
        raise ValueError(f"finegrad.{fn}: input must be square matrices, got shape "
                         f"{tuple(x._value.shape)}")
    if not np.issubdtype(x._value.dtype, np.inexact):
        raise TypeError(f"finegrad.{fn}: input must be floating or complex, got "
                        f"{x._value.dtype.name}")
    return x


def matrix_arg(x, fn, arg, square=False):
    """``x`` as a float or complex tensor of rank >= 2 (square matrices with ``square``),
    else a ValueError/TypeError naming ``finegrad.<fn>`` and ``arg``."""
    x = _t(x)
    shape = tuple(x._value.shape)
    if x._value.ndim < 2:
        raise ValueError(f"finegrad.{fn}: {arg} must have rank >= 2 (matrices), got shape "
                         f"{shape}")
    if x._value.dtype.kind not in "fc" or x._value.dtype == np.float16:
        raise TypeError(f"finegrad.{fn}: {arg} must be float32, float64, complex64 or "
                        f"complex128, got {x._value.dtype.name}")
    if square and shape[-1] != shape[-2]:
        raise ValueError(f"finegrad.{fn}: {arg} must be square matrices, got shape {shape}")
    return static_matrix(x, fn)
