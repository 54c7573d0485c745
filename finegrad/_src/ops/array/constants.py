"""Constants: zeros, ones, fill, range, linspace and eye (no gradient flows through their
shape arguments; `fill` and `linspace` are recorded in their value arguments).

It imports the core modules and `ops.zeros_and_axes`, `ops.array.structural` and
`ops.array.indexing`; no ops module imports it.
"""
import numpy as np

from finegrad._src import core, dtypes
from finegrad._src import tensor as tensor_module
from finegrad._src.ops.array.structural import _t, broadcast_to, concat, reshape
from finegrad._src.ops.zeros_and_axes import _shape_arg
from finegrad._src.ops.array.indexing import getitem
from finegrad._src.tensor import Tensor, to_numpy_value
from finegrad._src.shapes import as_int, as_ints


# --- constants (no gradient: their outputs do not depend on any input) -----------------------

def zeros(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of zeros. ``finegrad.zeros((2, 3))`` is float32, as in TensorFlow.

    >>> import finegrad as fg
    >>> fg.zeros((2,)).numpy()
    array([0., 0.], dtype=float32)
    """
    dt = dtypes.as_dtype(dtype)._np
    if dt.kind == "O":   # TensorFlow's zeros of dtype string are empty strings
        return Tensor(np.full(_shape_arg(shape, "finegrad.zeros"), b"", object))
    return Tensor(np.zeros(_shape_arg(shape, "finegrad.zeros"), dt))


def ones(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of ones.

    >>> import finegrad as fg
    >>> fg.ones((2,), dtype=fg.int32).numpy()
    array([1, 1], dtype=int32)
    """
    dt = dtypes.as_dtype(dtype)._np
    if dt.kind == "O":
        raise TypeError("finegrad.ones: there is no string one (TensorFlow refuses it too)")
    return Tensor(np.ones(_shape_arg(shape, "finegrad.ones"), dt))


def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with ``value`` (whose dtype it takes).

    >>> import finegrad as fg
    >>> fg.fill((2,), 7.).numpy()
    array([7., 7.], dtype=float32)
    """
    v = _t(value)
    if v._value.ndim:
        raise ValueError(f"finegrad.fill: value must be a scalar, got shape {v.shape}")
    # a recorded broadcast: differentiable in ``value``, and a graph node when traced
    return broadcast_to(v, _shape_arg(dims, "finegrad.fill"))


def range_(start, limit=None, delta=1, dtype=None, name="range"):
    """Like Python's range, as a tensor (``finegrad.range``); int32 for ints, float32 for floats.

    >>> import finegrad as fg
    >>> fg.range(5).numpy(), fg.range(1., 2., 0.5).numpy()
    (array([0, 1, 2, 3, 4], dtype=int32), array([1. , 1.5], dtype=float32))
    """
    if limit is None:
        start, limit = 0, start
    for v in (start, limit, delta):
        if isinstance(v, Tensor):   # its value fixes the shape: not a traced tensor
            tensor_module._concrete(v, "finegrad.range's bounds")
    vals = [to_numpy_value(v._value if isinstance(v, Tensor) else v) for v in (start, limit, delta)]
    if delta == 0:
        raise ValueError("finegrad.range: delta must not be zero")
    if dtype is None:
        kinds = [np.asarray(v).dtype for v in vals]
        dt = np.float32 if any(k.kind == "f" for k in kinds) else np.int32
        if any(k == np.float64 for k in kinds):
            dt = np.float64
        elif any(k == np.int64 for k in kinds) and dt == np.int32:
            dt = np.int64
    else:
        dt = dtypes.as_dtype(dtype)._np
    return Tensor(np.arange(*vals).astype(dt))


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive.

    >>> import finegrad as fg
    >>> fg.linspace(0., 1., 3).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    a, b = _t(start), _t(stop)
    if not a.dtype.is_floating:
        raise TypeError(f"finegrad.linspace: start must be floating, got {a.dtype.name}")
    num = as_int(num, "finegrad.linspace", "num")
    if core.active_recorders() and a._value.ndim == 0 and b._value.ndim == 0 and num > 1:
        # recorded (differentiable in start and stop, and traceable): start + i * step,
        # with the last value exactly stop, as NumPy computes it
        i = Tensor(np.arange(num, dtype=a._value.dtype))
        inner = getitem(a + i * ((b - a) / (num - 1)), slice(0, num - 1))
        return concat([inner, reshape(b, (1,))], 0)
    return Tensor(np.linspace(a._value, b._value, num, axis=axis).astype(a._value.dtype))


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix (optionally batched).

    >>> import finegrad as fg
    >>> fg.eye(2).numpy()
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    m = np.eye(as_int(num_rows, "finegrad.eye", "num_rows"),
               None if num_columns is None else as_int(num_columns, "finegrad.eye", "num_columns"),
               dtype=dtypes.as_dtype(dtype)._np)
    if batch_shape is not None:
        m = np.broadcast_to(m, as_ints(batch_shape, "finegrad.eye", "batch_shape") + m.shape).copy()
    return Tensor(m)
