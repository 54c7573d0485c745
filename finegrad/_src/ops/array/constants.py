"""Constants: zeros, ones, fill, range, linspace and eye (no gradient flows through their
shape arguments; `fill` and `linspace` are recorded in their value arguments).

It imports the core modules and `ops.zeros_and_axes`, `ops.array.structural` and
`ops.array.indexing`; no ops module imports it.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dtypes
from finegrad._src import tensor as tensor_module
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.array.structural import (_t, broadcast_to, cast, concat, convert_to_tensor,
                                                reshape)
from finegrad._src.ops.zeros_and_axes import _shape_arg, filled, symbolic_shape
from finegrad._src.ops.array import symbolic_constants
from finegrad._src.ops.array.indexing import getitem
from finegrad._src.tensor import Tensor, to_numpy_value
from finegrad._src.shapes import as_int, as_ints
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import ShapeLike, TensorLike


# --- constants (no gradient: their outputs do not depend on any input) -----------------------

def constant(value: TensorLike, dtype: DTypeLike | None = None,
             shape: ShapeLike | None = None, name: str = "Const") -> Tensor:
    """A tensor from a Python number, nested list, NumPy array or tensor.

    Python floats become float32 and ints int32 (TensorFlow's defaults); NumPy arrays keep
    their dtype unless ``dtype`` is given. With ``shape``, a scalar is filled to that shape
    and other values are reshaped.

    >>> import finegrad as fg
    >>> fg.constant(1.).dtype, fg.constant([1, 2]).dtype
    (finegrad.float32, finegrad.int32)
    >>> fg.constant(0., shape=(2,)).numpy()
    array([0., 0.], dtype=float32)

    Raises:
        TypeError: for values that are neither numbers nor strings (naming their type).
            Strings (str or bytes) make a ``finegrad.string`` tensor holding bytes.
        ValueError: when the value cannot take ``shape``.
    """
    if isinstance(value, (Tensor, Variable)):
        t = convert_to_tensor(value)
        v = t._value if dtype is None else np.asarray(t._value).astype(dtypes.as_dtype(dtype)._np)
    else:
        v = to_numpy_value(value, dtype, "finegrad.constant")
    if shape is not None:
        v = tensor_module.filled(v, as_ints(shape, "finegrad.constant", "shape"),
                                 "finegrad.constant")
    t = Tensor(v)
    graph = getattr(core.current_tracer(), "v1_graph", None)
    if graph is not None:   # (a TF1 graph names its constants: a Const operation)
        graph.name_constant(t, name)
    return t


def zeros(shape: Any, dtype: DTypeLike = dtypes.float32, name: str | None = None,
          layout: Any = None) -> Tensor:
    """A tensor of zeros. ``finegrad.zeros((2, 3))`` is float32, as in TensorFlow.

    >>> import finegrad as fg
    >>> fg.zeros((2,)).numpy()
    array([0., 0.], dtype=float32)
    """
    dt = dtypes.as_dtype(dtype)._np
    if dt.kind == "O":   # TensorFlow's zeros of dtype string are empty strings
        return Tensor(np.full(_shape_arg(shape, "finegrad.zeros"), b"", object))
    sym = symbolic_shape(shape)   # [shape(x)[0], 3] in a trace: a node of that shape
    if sym is not None:
        return filled(sym, 0, dt)
    return Tensor(np.zeros(_shape_arg(shape, "finegrad.zeros"), dt))


def ones(shape: Any, dtype: DTypeLike = dtypes.float32, name: str | None = None,
         layout: Any = None) -> Tensor:
    """A tensor of ones.

    >>> import finegrad as fg
    >>> fg.ones((2,), dtype=fg.int32).numpy()
    array([1, 1], dtype=int32)
    """
    dt = dtypes.as_dtype(dtype)._np
    if dt.kind == "O":
        raise TypeError("finegrad.ones: there is no string one (TensorFlow refuses it too)")
    sym = symbolic_shape(shape)
    if sym is not None:
        return filled(sym, 1, dt)
    return Tensor(np.ones(_shape_arg(shape, "finegrad.ones"), dt))


def fill(dims: Any, value: TensorLike, name: str | None = None, layout: Any = None) -> Tensor:
    """A tensor of shape ``dims`` filled with ``value`` (whose dtype it takes).

    >>> import finegrad as fg
    >>> fg.fill((2,), 7.).numpy()
    array([7., 7.], dtype=float32)
    """
    v = _t(value)
    if v._value.ndim:
        raise ValueError(f"finegrad.fill: value must be a scalar, got shape {v.shape}")
    # a recorded broadcast: differentiable in ``value``, and a graph node when traced
    return broadcast_to(v, symbolic_shape(dims) or _shape_arg(dims, "finegrad.fill"))


def range_(start: Any, limit: Any = None, delta: Any = 1, dtype: DTypeLike | None = None,
           name: str = "range") -> Tensor:
    """Like Python's range, as a tensor (``finegrad.range``); int32 for ints, float32 for floats.

    >>> import finegrad as fg
    >>> fg.range(5).numpy(), fg.range(1., 2., 0.5).numpy()
    (array([0, 1, 2, 3, 4], dtype=int32), array([1. , 1.5], dtype=float32))
    """
    for name, v in (("start", start), ("limit", limit), ("delta", delta)):
        if isinstance(v, (str, bytes)) or isinstance(v, Tensor) and v.dtype.name == "string":
            raise TypeError(f"finegrad.range: {name} must be a number or a numeric scalar "
                            f"tensor, got a string {v!r:.30}")
    if limit is None:
        start, limit = 0, start
    counted = symbolic_constants.symbolic_range(start, limit, delta, dtype)
    if counted is not None:
        return counted
    # a traced bound fixes the shape: the graph checks each run's value (as TF computes it)
    vals = [to_numpy_value(tensor_module._static_value(v, "finegrad.range's bounds")
                           if isinstance(v, Tensor) else v) for v in (start, limit, delta)]
    lo, hi, step = (np.asarray(v).item() for v in vals)
    if step == 0:   # (the value: a traced delta is a tensor, not a Python bool)
        raise InvalidArgumentError(None, None, f"finegrad.range: Requires delta != 0: {step}")
    if (lo > hi) if step > 0 else (lo < hi):   # TensorFlow's Range kernel refuses these
        rel, sign = ("<=", ">") if step > 0 else (">=", "<")
        raise InvalidArgumentError(None, None, f"finegrad.range: Requires start {rel} limit "
                                   f"when delta {sign} 0: {lo}/{hi}")
    if dtype is None:
        kinds = [np.asarray(v).dtype for v in vals]
        dt: Any = np.float32 if any(k.kind == "f" for k in kinds) else np.int32
        if any(k == np.float64 for k in kinds):
            dt = np.float64
        elif any(k == np.int64 for k in kinds) and dt == np.int32:
            dt = np.int64
    else:
        dt = dtypes.as_dtype(dtype)._np
    return Tensor(np.arange(*vals).astype(dt))


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive.

    Integer ``start`` and ``stop`` give float64 values, as in TensorFlow
    (``linspace(-2, 2, 5)``); a Python number beside a float tensor takes its dtype.

    >>> import finegrad as fg
    >>> fg.linspace(0., 1., 3).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    >>> fg.linspace(-2, 2, 3).numpy()
    array([-2.,  0.,  2.])
    """
    a, b = _t(start), _t(stop)
    if a.dtype.is_integer and b.dtype.is_integer:
        a, b = cast(a, dtypes.float64), cast(b, dtypes.float64)
    elif a.dtype.is_floating and not isinstance(stop, Tensor):   # 2. beside a float64 start
        b = _t(np.asarray(stop, a._value.dtype))
    if not a.dtype.is_floating:
        raise TypeError(f"finegrad.linspace: start must be floating (or start and stop both "
                        f"integers), got {a.dtype.name} and {b.dtype.name}")
    spaced = symbolic_constants.symbolic_linspace(a, b, num) if axis == 0 else None
    if spaced is not None:
        return spaced
    num = as_int(num, "finegrad.linspace", "num")
    if core.active_recorders() and a._value.ndim == 0 and b._value.ndim == 0 and num > 1:
        # recorded (differentiable in start and stop, and traceable): start + i * step,
        # with the last value exactly stop, as NumPy computes it
        i = Tensor(np.arange(num, dtype=a._value.dtype))
        inner = getitem(a + i * ((b - a) / (num - 1)), slice(0, num - 1))
        return concat([inner, reshape(b, (1,))], 0)
    return Tensor(np.linspace(a._value, b._value, num, axis=axis).astype(a._value.dtype))


def eye(num_rows: Any, num_columns: Any = None, batch_shape: Any = None,
        dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
    """An identity matrix (optionally batched).

    >>> import finegrad as fg
    >>> fg.eye(2).numpy()
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    sym = symbolic_constants.symbolic_eye(num_rows, num_columns, batch_shape, dtype)
    if sym is not None:
        return sym
    rows = as_int(num_rows, "finegrad.eye", "num_rows")
    cols = None if num_columns is None else as_int(num_columns, "finegrad.eye", "num_columns")
    for arg, n in (("num_rows", rows), ("num_columns", cols)):
        if n is not None and n < 0:   # TensorFlow: InvalidArgumentError, "must be >= 0"
            raise InvalidArgumentError(f"finegrad.eye: {arg} must be >= 0, got {n}")
    m = np.eye(rows, cols, dtype=dtypes.as_dtype(dtype)._np)
    if batch_shape is not None:
        m = np.broadcast_to(m, as_ints(batch_shape, "finegrad.eye", "batch_shape") + m.shape).copy()
    return Tensor(m)
