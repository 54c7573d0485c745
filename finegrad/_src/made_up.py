"""Kernels that refuse a trace's made-up values.

While a trace holds made-up values (a TF1 graph's placeholders are zeros, as are the
arguments of a trace from `TensorSpec`s), a kernel may refuse them where the real values
would do: a singular matrix for ``inv``, ``solve`` and the like. TensorFlow computes nothing
while it builds a graph; finegrad's trace needs each result's shape and dtype, so `retried`
runs such a kernel once more on stand-ins. `core.bind` calls it only when a kernel raised.
"""
import numpy as np
from numpy import ndarray

from finegrad._src.state import state as _state


def retried(prim, vals, iparams, e):
    """While a trace holds made-up values (a TF1 graph's placeholders are zeros, as are a
    `TensorSpec` trace's arguments), a linear-algebra kernel that refuses them (a singular
    matrix) runs again on identity matrices in place of its square ones: the trace needs
    the result's shape and dtype, and TensorFlow computes nothing while it builds a graph.
    None (the error stands) otherwise, or when that fails too."""
    tr = _state.tracer
    if tr is None or not tr.examples or not isinstance(e, ValueError):
        return None
    square = [type(v) is ndarray and v.ndim >= 2 and v.shape[-1] == v.shape[-2] and
              v.dtype.kind in "fc" for v in vals]
    if not any(square):
        return None
    vals = [np.broadcast_to(np.eye(v.shape[-1], dtype=v.dtype), v.shape).copy() if sq else v
            for v, sq in zip(vals, square, strict=True)]
    try:
        return prim.impl(*vals, **iparams)
    except (ValueError, TypeError):
        return None
