"""Tensor: an immutable NumPy value with a dtype and a shape.

A `Tensor` holds one NumPy value (an ndarray, or a NumPy scalar for shape ``()``, which is
what NumPy's own arithmetic returns and is several times faster to compute with). It never
changes after creation, so recorders may keep references to it instead of copies. The
operators (``+``, ``@``, indexing, ...) are the ones in `finegrad._src.ops`, installed on the
class by `ops/operators.py`, since ops are built on top of this module.

`convert_to_tensor` implements TensorFlow's conversion rules: Python floats become float32 and
ints int32, NumPy values keep their dtype, and a Python scalar used beside a tensor takes that
tensor's dtype (`convert_like`).
"""
from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
import operator

import numpy as np

from finegrad._src import dtypes, interop
from finegrad._src.shapes import TensorShape
from finegrad._src.state import state as _state
from finegrad._src.state import watching_births as _watching_births
from finegrad._src.graph_values import (MISSING, GraphOnly, OutOfScope,  # noqa: F401
                                         add_graph, graph_iter, graph_len, graphs,
                                         live_graphs)


def _concrete(t, what):
    """Inside finegrad.function a traced tensor has no value for Python to branch on: the
    tracer (which knows which tensors are traced) refuses."""
    tracer = _state.tracer
    if tracer is None:
        tracer = _state.lifted   # inside `init_scope` during a trace: still the trace's tensor
    if tracer is not None:
        tracer.check_concrete(t, what)
    elif graphs:   # a tensor of a TF1 graph, used after its graph's block: its graph refuses
        for g in live_graphs():
            g.check_concrete(t, what)


def _static_size(t):
    """The value of ``t`` as symbolic sizes, where a shape-polymorphic trace knows it as one
    (``shape(x)[0]`` of an open axis: a `dims.Dim`, or a tuple holding some), else None."""
    tracer = _state.tracer
    known = getattr(tracer, "symbolic_size", None)
    return known(t) if known is not None else None


def _static_value(t, what):
    """The NumPy value of ``t`` used as a static argument (a shape, a range's bound, a
    depth). Inside finegrad.function a traced ``t`` is accepted as TensorFlow accepts it:
    the graph keeps a guard that checks each run's value against the traced one (a call with
    another value runs eagerly, graph/value_sizes.py); other tracers refuse."""
    tracer = _state.tracer
    if tracer is None:
        tracer = _state.lifted
    if tracer is not None:
        static = getattr(tracer, "static_value", None)
        if static is None:
            tracer.check_concrete(t, what)
        else:
            return static(t, what)
    return t._value


if TYPE_CHECKING:
    class _Operators:
        """The operators `Tensor` (from ops/operators.py) and `Variable` (`_forward` to its
        value) are given at import, declared for type checkers."""
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
else:
    _Operators = object   # at run time the operators are attached to each class


class Tensor(_Operators):
    """An immutable n-dimensional value. Create one with `finegrad.constant`.

    >>> import finegrad as fg
    >>> x = fg.constant([[1., 2.], [3., 4.]])
    >>> x.shape, x.dtype, x.ndim
    (TensorShape([2, 2]), finegrad.float32, 2)
    >>> (x * 2).numpy()
    array([[2., 4.],
           [6., 8.]], dtype=float32)
    """

    __slots__ = ("_value", "_slice_of", "__weakref__")  # _slice_of: set by Variable[key]
    __array_priority__ = 100  # NumPy defers `ndarray op Tensor` to our reflected operators
    _value: Any                      # an ndarray, a NumPy scalar, or OutOfScope
    _slice_of: tuple[Any, Any]

    def __init__(self, value: Any) -> None:
        self._value = value
        if _watching_births[0]:   # a TF1 graph follows what a guarded call makes
            born = _state.births
            if born is not None:
                born(self)

    if TYPE_CHECKING:   # the operators only Tensor has, declared for type checkers
        def __rand__(self, other: Any) -> Tensor: ...
        def __ror__(self, other: Any) -> Tensor: ...
        def __xor__(self, other: Any) -> Tensor: ...
        def __rxor__(self, other: Any) -> Tensor: ...
        def __eq__(self, other: object) -> Tensor: ...  # type: ignore[override]
        def __ne__(self, other: object) -> Tensor: ...  # type: ignore[override]
        def __getitem__(self, key: Any) -> Tensor: ...

    @property
    def shape(self) -> TensorShape:
        """The static shape. Inside a `finegrad.function` traced for an input_signature with
        None dimensions, the axes those sizes flow into are None (use `finegrad.shape` for
        their value when the graph runs), as in TensorFlow."""
        tracer = _state.tracer
        if tracer is not None:
            return tracer.static_shape(self)
        if graphs:   # a tensor of a TF1 graph keeps its graph's static shape
            for g in live_graphs():
                shape = g.tensor_attribute(self, "shape")
                if shape is not MISSING:
                    return shape
        return TensorShape(self._value.shape)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_numpy(self._value.dtype)

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return self._value.size

    def numpy(self) -> Any:   # an ndarray, or a NumPy scalar for shape ()
        """The value as a NumPy array (a NumPy scalar for shape ``()``), a copy.

        >>> import finegrad as fg
        >>> fg.constant([1, 2]).numpy(), fg.constant(1.5).numpy()
        (array([1, 2], dtype=int32), np.float32(1.5))
        """
        _concrete(self, ".numpy()")
        v = self._value
        return v.copy() if isinstance(v, np.ndarray) and v.ndim else v[()]

    def get_shape(self) -> TensorShape:
        return self.shape

    def set_shape(self, shape: Any) -> None:
        """Declare this tensor's static shape inside a graph (merged with what is known; a
        ValueError where they conflict, as in TensorFlow); eagerly only a check."""
        tracer = _state.tracer
        if tracer is not None and tracer.knows(self):
            return tracer.set_shape(self, shape)
        for g in live_graphs():
            r = g.tensor_attribute(self, "set_shape")
            if r is not MISSING:
                return r(shape)
        if not TensorShape(self._value.shape).is_compatible_with(TensorShape(shape)):
            raise ValueError(f"Tensor's shape {TensorShape(self._value.shape)} is not "
                             f"compatible with supplied shape {TensorShape(shape)}.")
        return None

    @property
    def assign(self) -> Callable[..., Any]:
        """Only on a slice of a Variable: ``v[0].assign(5.)`` writes that slice (TensorFlow's
        sliced assignment). Other tensors are immutable and have no ``assign``."""
        try:
            var, key = self._slice_of
        except AttributeError:
            raise AttributeError("'Tensor' object has no attribute 'assign': tensors are "
                                 "immutable (a slice of a Variable, v[0], can be assigned)") \
                from None

        def assign(value, use_locking=False, name=None, read_value=True):
            return var._assign_slice(key, value, read_value)
        return assign

    def ref(self) -> _TensorRef:
        """A hashable reference to this tensor (tensors themselves are unhashable, as in TF)."""
        return _TensorRef(self)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        _concrete(self, "NumPy conversion")
        a = np.asarray(self._value)
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        if copy:
            return a.copy()
        a = a.view()  # read-only: `np.asarray(t)[0] = 1` must not change the tensor
        a.setflags(write=False)
        return a

    def __dlpack__(self, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """The DLPack export (``torch.from_dlpack(t)``, ``np.from_dlpack(t)``): the tensor's
        own buffer, read-only where the consumer's protocol can say so (`interop`)."""
        _concrete(self, "DLPack export")
        return interop.export_dlpack(self._value, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(1, 0)``: DLPack's CPU device, where every finegrad tensor lives."""
        return (interop.CPU, 0)

    def __bool__(self) -> bool:
        _concrete(self, "a Python bool (an `if` or `while`)")
        return bool(self._value)

    def __float__(self) -> float:
        _concrete(self, "float()")
        return float(self._value)

    def __format__(self, spec: str) -> str:
        """``f"{loss:.4f}"``: the value formatted as NumPy formats it (as in TensorFlow)."""
        if not spec:
            return str(self)
        _concrete(self, "formatting")
        return format(self.numpy(), spec)

    def __int__(self) -> int:
        _concrete(self, "int()")
        return int(self._value)

    def __index__(self) -> int:
        if self.dtype.is_integer and self._value.ndim == 0:
            _concrete(self, "a Python int (range(), a list index); use finegrad.range or "
                            "finegrad.while_loop for a loop over it and finegrad.gather to "
                            "index with it")
            return int(self._value)
        raise TypeError(f"finegrad.Tensor.__index__: only integer scalar tensors can be used "
                        f"as an index, got shape {tuple(self._value.shape)} and {self.dtype.name}")

    def _static_int(self, what):
        """This integer scalar as a Python int for a static argument (see `_static_value`)."""
        if not (self.dtype.is_integer and self._value.ndim == 0):
            return operator.index(self)
        return int(_static_value(self, what))

    def __len__(self) -> int:
        tracer = _state.tracer
        if (tracer is not None and tracer.knows(self)) or graphs:
            graph_len(self)
        if self._value.ndim == 0:
            raise TypeError("finegrad.Tensor.__len__: len() of a scalar tensor (shape ())")
        return self._value.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        tracer = _state.tracer
        if (tracer is not None and tracer.knows(self)) or graphs:
            graph_iter(self)
        if self._value.ndim == 0:
            raise TypeError("finegrad.Tensor.__iter__: iteration over a scalar tensor (shape ())")
        return (self[i] for i in range(self._value.shape[0]))

    def __hash__(self) -> int:
        # `==` is elementwise, as in TensorFlow 2, so a tensor is no dict key (use .ref());
        # but a tensor of a TF1 graph is, by identity, as TensorFlow's graph tensors are
        # (feed_dict={x: ...})
        for g in live_graphs():
            if g.tensor_attribute(self, "graph") is g:
                return id(self)
        raise TypeError("finegrad.Tensor is unhashable (== compares elementwise, as in "
                        "TensorFlow). Instead, use tensor.ref() as the key (and "
                        "ref.deref() to get the tensor back)")

    def __getattr__(self, name: str) -> Any:
        # ``.name``, ``.op``, ``.graph``, ``.eval``, ``.set_shape``: a tensor of a TF1 graph
        # (v1/graphs.py) asks the graph that made it; eager tensors have none of them
        if not name.startswith("_"):
            for g in live_graphs():
                r = g.tensor_attribute(self, name)
                if r is not MISSING:
                    return r
        if name in ("name", "op", "graph"):
            raise AttributeError(f"Tensor.{name} is undefined when eager execution is enabled.")
        raise AttributeError(f"'Tensor' object has no attribute {name!r}")

    def __repr__(self) -> str:
        for g in live_graphs():     # a tensor of a TF1 graph shows no (example) value
            r = g.tensor_attribute(self, "repr")
            if r is not MISSING:
                return r
        if type(self._value) is OutOfScope:
            return f"<finegrad.Tensor: out of scope (traced in {self._value.function!r})>"
        return (f"<finegrad.Tensor: shape={tuple(self._value.shape)}, dtype={self.dtype.name}, "
                f"numpy={numpy_text(self._value)}>")

    def __str__(self) -> str:
        if type(self._value) is OutOfScope or graphs and any(
                g.tensor_attribute(self, "graph") is g for g in live_graphs()):
            return repr(self)
        return (f"finegrad.Tensor({np.array2string(np.asarray(self._value))}, "
                f"shape={tuple(self._value.shape)}, dtype={self.dtype.name})")


def numpy_text(value):
    """The ``numpy=`` part of a tensor's or variable's repr, as TensorFlow writes it: NumPy's
    repr of an array (from a new line when it spans several), the value of a scalar (its
    shortest form for the dtype, ``0.1``, where TensorFlow prints the float64 expansion of a
    float32, ``0.10000000149011612``).

    >>> import finegrad as fg
    >>> fg.constant([1., 2.])
    <finegrad.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
    >>> fg.constant(0.1)
    <finegrad.Tensor: shape=(), dtype=float32, numpy=0.1>
    """
    a = np.asarray(value)
    if a.ndim == 0:
        return str(a[()])
    text = repr(a)
    return "\n" + text if "\n" in text else text


class _TensorRef:
    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def deref(self):
        return self._tensor

    def __hash__(self):
        return id(self._tensor)

    def __eq__(self, other):
        return isinstance(other, _TensorRef) and other._tensor is self._tensor


# --- conversion ------------------------------------------------------------------------------

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1


def _python_default(value):
    """TensorFlow's dtype for a Python scalar or nested list of them."""
    if isinstance(value, bool):
        return np.bool_
    if isinstance(value, numbers.Integral):
        return np.int32 if _INT32_MIN <= value <= _INT32_MAX else np.int64
    if isinstance(value, numbers.Real):
        return np.float32
    if isinstance(value, numbers.Complex):
        return np.complex128
    return None


def _bad_type(value, fn):
    # the type only, never the object's printout (a DataFrame's would fill the screen)
    return TypeError(f"{fn}: expected a tensor, number, array (anything NumPy converts to an "
                     f"array of numbers) or nested list of numbers, got "
                     f"{interop.type_name(value)}")


def _from_sequence(value, fn, np_dtype=None):
    """A NumPy array from a (nested) list/tuple of numbers and tensors, TF dtype rules.

    With ``np_dtype`` the values are converted straight to it (no float32 detour)."""
    try:
        arr = np.asarray([_unwrap(v) for v in value]) if value else np.asarray(value, np.float32)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{fn}: cannot convert the nested sequence to a tensor: {e}") from None
    except OverflowError:
        raise ValueError(f"{fn}: the sequence holds an integer out of the range of "
                         f"int64") from None
    if arr.dtype.kind == "O" and all(isinstance(v, numbers.Integral) for v in arr.flat):
        raise ValueError(f"{fn}: the sequence holds an integer out of the range of int64")
    if np_dtype is not None and not _has_numpy(value) and arr.dtype.kind in "biufc":
        return _numbers_as(arr, value, np_dtype, fn)
    kind = arr.dtype.kind
    if kind not in "biufc":
        raise _bad_type(value, fn)
    if not _has_numpy(value):  # Python numbers only: apply TensorFlow's Python defaults
        if kind == "f":
            arr = arr.astype(np.float32)
        elif kind in "iu" and arr.size and _INT32_MIN <= arr.min() and arr.max() <= _INT32_MAX:
            arr = arr.astype(np.int32)
        elif kind in "iu" and not arr.size:
            arr = arr.astype(np.int32)
    return arr


def _numbers_as(arr, value, np_dtype, fn):
    """``arr`` (Python numbers of ``value``) as ``np_dtype``: a TypeError where a fraction
    would be lost, a range error where an integer does not fit."""
    if arr.dtype.kind == "f" and np_dtype.kind in "iub" and not np.all(np.mod(arr, 1) == 0):
        raise TypeError(f"{fn}: cannot convert {value!r:.60} to a tensor of dtype "
                        f"{np_dtype.name} without losing its fraction; use a float tensor "
                        f"or finegrad.cast")
    if np_dtype.kind in "iu" and arr.dtype.kind in "iu" and arr.size:
        info = np.iinfo(np_dtype)
        if arr.min() < info.min or arr.max() > info.max:
            bad = arr.max() if arr.max() > info.max else arr.min()
            raise _out_of_range(int(bad), np_dtype, fn)
    return arr.astype(np_dtype)


def _has_tensor(value):
    if isinstance(value, (list, tuple)):
        return any(_has_tensor(v) for v in value)
    return isinstance(value, Tensor) or hasattr(type(value), "_as_tensor")


def _has_numpy(value):
    if isinstance(value, (list, tuple)):
        return any(_has_numpy(v) for v in value)
    return isinstance(value, (np.ndarray, np.generic, Tensor))


def _unwrap(v):
    if isinstance(v, Tensor):
        return v._value
    if isinstance(v, (list, tuple)):
        return [_unwrap(u) for u in v]
    if hasattr(type(v), "_as_tensor"):
        return v._as_tensor()._value
    return v


def _string_leaves(value):
    """Whether ``value`` is a str/bytes or a (nested) list/tuple whose leaves all are."""
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_string_leaves(v) for v in value)
    return isinstance(value, (str, bytes, np.str_, np.bytes_))


def _as_bytes(v):
    return v.encode() if isinstance(v, str) else bytes(v)


def _empty_nest(value):
    """Whether ``value`` is a list or tuple (nested) without a single element."""
    return isinstance(value, (list, tuple)) and all(_empty_nest(v) for v in value)


def string_value(value, fn):
    """``value`` (str, bytes, a nested list of them, a NumPy str/bytes/object array or a
    string tensor) as a string tensor's value: a NumPy object array of bytes (0-d for a
    scalar), as TensorFlow's tf.string holds bytes. TypeError for anything else."""
    if isinstance(value, Tensor):
        value = value._value
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "USO":
        arr = np.asarray(value)
        if arr.dtype.kind == "O" and not all(isinstance(v, (str, bytes)) for v in arr.flat):
            raise _bad_type(value, fn)
    elif _string_leaves(value):
        arr = np.asarray(value, dtype=object)
        if arr.dtype.kind != "O" or any(isinstance(v, list) for v in arr.flat):
            raise ValueError(f"{fn}: cannot convert the nested sequence to a tensor: its "
                             f"rows have different lengths")
    elif _empty_nest(value):   # ([] or [[], []]: no elements, as TF takes them)
        arr = np.empty(np.shape(value), object)
    else:
        raise TypeError(f"{fn}: expected a string (str or bytes) for a tensor of dtype "
                        f"string, got {type(value).__name__} {value!r:.60}")
    out = np.empty(arr.shape, object)
    out.reshape(-1)[:] = [_as_bytes(v) for v in arr.reshape(-1)]
    return out


def filled(value, shape, fn):
    """``value`` (a NumPy value) as a tensor value of ``shape`` (a tuple of ints): one
    element repeated, or as many elements as the shape has reshaped (`finegrad.constant`'s
    ``shape``, `finegrad.constant_initializer`); a ValueError naming ``fn`` otherwise."""
    a = np.asarray(value)
    if a.size == 1:
        v = np.full(shape, a.reshape(()), a.dtype)
    elif a.size == int(np.prod(shape, dtype=np.int64)):
        v = a.reshape(shape)
    else:
        raise ValueError(f"{fn}: a value of {a.size} elements (shape {a.shape}) cannot take "
                         f"shape {tuple(shape)}; expected 1 or {int(np.prod(shape))} elements")
    return v if v.ndim else v[()]


def to_numpy_value(value, dtype=None, fn="finegrad.convert_to_tensor"):
    """The NumPy value for ``value`` (no Tensor wrapper), following TF's conversion rules.
    Strings (str, bytes, lists of them) become a string tensor's value (`string_value`)."""
    np_dtype = None if dtype is None else dtypes.as_dtype(dtype)._np
    if np_dtype is not None and np_dtype.kind == "O" or np_dtype is None and (
            _string_leaves(value) or isinstance(value, (np.ndarray, np.generic)) and
            value.dtype.kind in "USO"):
        return string_value(value, fn)
    if isinstance(value, np.ndarray):
        arr = _owned_value(value, np_dtype)
    elif isinstance(value, np.generic):
        arr = value
    elif isinstance(value, (bool, numbers.Number)):
        return _python_scalar_value(value, np_dtype, fn)
    elif isinstance(value, (list, tuple, range)):   # a range too, as TensorFlow converts it
        arr = _from_sequence(list(value) if isinstance(value, range) else value, fn, np_dtype)
    else:   # another library's array (pandas, JAX, PyTorch, TensorFlow, a memoryview...)
        foreign = interop.array_from(value, fn)
        if foreign is None:
            raise _bad_type(value, fn)
        return to_numpy_value(foreign, dtype, fn)
    if arr.dtype.kind not in "biufc":
        raise _bad_type(value, fn)
    if np_dtype is not None and arr.dtype != np_dtype:
        arr = arr.astype(np_dtype)
    if isinstance(arr, np.ndarray) and arr.ndim == 0:
        arr = arr[()]
    return arr


def _python_scalar_value(value, np_dtype, fn):
    """The NumPy scalar of a Python bool or number: TensorFlow's default dtype for it, or
    ``np_dtype`` when given (a range error when it does not fit)."""
    default = _python_default(value)
    if default is None:
        raise _bad_type(value, fn)
    if np_dtype is not None:
        return _python_scalar_as(value, np_dtype, fn)
    try:
        return default(value)
    except OverflowError:
        raise _out_of_range(value, np.dtype(default), fn) from None


def _owned_value(arr, np_dtype):
    """``arr`` as a tensor's value: a copy, so mutating the caller's array afterwards changes
    nothing (tensors are immutable values, as in TensorFlow). An array that is read-only and
    owns its memory is taken as it is: nobody can write to it without first undoing its flag."""
    if np_dtype is not None and arr.dtype != np_dtype:
        return arr.astype(np_dtype)  # a new array already
    if arr.flags.writeable or not arr.flags.owndata:
        # (a large one copied to a 64-byte boundary; a read-only one is taken as it is)
        return interop.aligned_copy(arr) if arr.nbytes >= interop.ALIGNED_BYTES and \
            arr.dtype.kind in "biufc" else arr.copy()
    return arr


def _array_as(arr, np_dtype, fn):
    """A NumPy array used beside a tensor of ``np_dtype``, converted to that dtype as
    TensorFlow converts it (float64 beside float32 becomes float32), but never silently
    dropping a fraction, an imaginary part or a value out of the integer range (TensorFlow
    would truncate or wrap those: a TypeError here)."""
    if arr.dtype == np_dtype:
        return _owned_value(arr, None)
    src, dst = arr.dtype.kind, np_dtype.kind
    if src not in "biufc":
        raise _bad_type(arr, fn)
    lost = None
    if src == "c" and dst != "c":
        lost = "its imaginary part"
    elif dst == "b" and src != "b":
        lost = "its values (only bool converts to bool)"
    elif dst in "iu" and src == "f" and not np.all(np.mod(arr, 1) == 0):
        lost = "its fraction"
    elif dst in "iu" and arr.size and src in "iuf":
        info = np.iinfo(np_dtype)
        if arr.min() < info.min or arr.max() > info.max:
            lost = f"values outside the range of {np_dtype.name}"
    if lost is not None:
        raise TypeError(f"{fn}: cannot convert a NumPy array of {arr.dtype.name} to "
                        f"{np_dtype.name}, the other operand's dtype, without losing {lost}; "
                        f"use finegrad.cast")
    return arr.astype(np_dtype)


def _python_scalar_as(value, np_dtype, fn):
    """A Python scalar converted to ``np_dtype``; refuses to drop a fraction or an imaginary
    part."""
    kind = np_dtype.kind
    name = dtypes.from_numpy(np_dtype).name
    if isinstance(value, complex) and kind != "c":
        raise TypeError(f"{fn}: cannot convert complex {value!r} to a tensor of dtype {name}")
    if kind in "iu" and not isinstance(value, numbers.Integral) and not float(value).is_integer():
        raise TypeError(f"{fn}: cannot convert {value!r} to a tensor of dtype {name} without "
                        f"losing its fraction; use a float tensor or finegrad.cast")
    if kind == "b" and not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}: cannot convert {value!r} ({type(value).__name__}) to bool")
    if kind in "iu" and isinstance(value, numbers.Integral):
        info = np.iinfo(np_dtype)
        if not info.min <= value <= info.max:
            raise _out_of_range(value, np_dtype, fn)
    try:
        return np_dtype.type(value)
    except OverflowError:
        raise _out_of_range(value, np_dtype, fn) from None


def _out_of_range(value, np_dtype, fn):
    """An integer too large for the dtype: TensorFlow refuses it (ValueError), never a wrapped
    value, and never Python's raw OverflowError."""
    return ValueError(f"{fn}: the number {value!r:.40} is out of the range of "
                      f"{np.dtype(np_dtype).name}")


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None,
                      name: str | None = None) -> Tensor:
    """Convert a tensor, Variable, number, NumPy array or nested list to a Tensor.

    Python floats become float32 and ints int32 (TensorFlow's defaults); NumPy values keep
    their dtype. With ``dtype``, Python values are converted to it; a Tensor of another dtype
    is a TypeError (use `finegrad.cast`). A list holding tensors becomes a new, unrecorded
    tensor here; `finegrad.convert_to_tensor` (ops/array/structural.py, where ``stack`` is
    known) packs it with a recorded stack instead.

    >>> import numpy as np, finegrad as fg
    >>> fg.convert_to_tensor(1.5).dtype, fg.convert_to_tensor(np.ones(2)).dtype
    (finegrad.float32, finegrad.float64)

    Raises:
        TypeError: for strings and other non-numeric objects, or a dtype mismatch.
    """
    if type(value) is Tensor:
        if dtype is not None and dtypes.as_dtype(dtype)._np != value._value.dtype:
            raise TypeError(f"finegrad.convert_to_tensor: requested dtype "
                            f"{dtypes.as_dtype(dtype).name} for a tensor of dtype "
                            f"{value.dtype.name}; use finegrad.cast to change it")
        return value
    if hasattr(type(value), "_as_tensor"):  # Variable (and other tensor-likes): a recorded read
        return convert_to_tensor(value._as_tensor(), dtype)
    if dtype is None and dtype_hint is not None and isinstance(value, (bool, numbers.Number)):
        try:
            return Tensor(convert_like(value, dtypes.as_dtype(dtype_hint)._np,
                                       "finegrad.convert_to_tensor"))
        except TypeError:
            pass
    return Tensor(to_numpy_value(value, dtype))


def convert_like(value, np_dtype, fn):
    """The NumPy value of ``value`` used beside a tensor of ``np_dtype``: a Python scalar, a
    NumPy scalar of the same kind, or a (nested) list of Python numbers takes that dtype, as in
    TensorFlow, but never silently loses a fraction or an imaginary part (TypeError naming
    ``fn``). The one place this rule is written: `bind` unifying an op's operands, a Variable
    assigned a Python value, and `convert_to_tensor`'s ``dtype_hint`` all use it."""
    if isinstance(value, (list, tuple)) or np_dtype.kind == "O":
        return to_numpy_value(value, np_dtype, fn)
    if not isinstance(value, (np.ndarray, np.generic, numbers.Number)):
        foreign = interop.array_from(value, fn)   # as a NumPy array (or list) would convert
        if foreign is not None:
            return convert_like(foreign, np_dtype, fn)
    if isinstance(value, np.ndarray):
        return _array_as(value, np_dtype, fn)
    if isinstance(value, np.generic) and value.dtype.kind == np_dtype.kind:
        return np_dtype.type(value)
    kind = np_dtype.kind
    if isinstance(value, bool) and kind != "b":
        return np_dtype.type(value)
    return _python_scalar_as(value, np_dtype, fn)
