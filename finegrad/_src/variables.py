"""Variable: a mutable container whose reads are recorded.

A `Variable` holds a NumPy value that `assign` replaces. Every use of a variable in an op goes
through `_as_tensor`, which makes a fresh Tensor and tells the active recorders about the read;
a tape that watches the variable (explicitly, or because it is trainable and the tape watches
accessed variables) then treats that tensor as a read of the variable, and the gradient with
respect to the variable is the sum over its reads. `custom_gradient` learns which variables its
function used the same way.
"""
from __future__ import annotations

import itertools
import numbers
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from finegrad._src import core, dtypes, interop
from finegrad._src.shapes import TensorShape
from finegrad._src.state import state as _state
from finegrad._src.tensor import (Tensor, _Operators, _TensorRef, _has_numpy, convert_like,
                                  convert_to_tensor, numpy_text, to_numpy_value)

_ids = itertools.count()


class Variable(_Operators):
    """A mutable tensor, e.g. model weights. Reads are watched by tapes when ``trainable``.

    Args:
        initial_value: a tensor, number, array or nested list (or a callable returning one).
        trainable: whether a `GradientTape` watches it automatically when it is read.
        name: a name for messages.
        dtype: converts the initial value to this dtype.

    >>> import finegrad as fg
    >>> v = fg.Variable(3.)
    >>> with fg.GradientTape() as tape:
    ...     y = v * v
    >>> tape.gradient(y, v).numpy()
    np.float32(6.0)
    >>> _ = v.assign_sub(1.); v.numpy()
    np.float32(2.0)
    """

    __array_priority__ = 100

    def __init__(self, initial_value: Any = None, trainable: bool = True, name: str | None = None,
                 dtype: Any = None, shape: Any = None) -> None:
        if initial_value is None:
            raise ValueError("finegrad.Variable: initial_value must be given")
        if callable(initial_value):
            initial_value = initial_value()
        given = initial_value
        if isinstance(initial_value, Variable):
            initial_value = initial_value.read_value()
        if isinstance(initial_value, Tensor):
            if dtype is not None and dtypes.as_dtype(dtype)._np != initial_value._value.dtype:
                value = initial_value._value.astype(dtypes.as_dtype(dtype)._np)
            else:
                value = initial_value._value
        else:
            value = to_numpy_value(initial_value, dtype, "finegrad.Variable")
        self._storage = np.array(value)  # writable, owned
        if self._storage.dtype.kind == "O":
            raise TypeError("finegrad.Variable: variables of dtype string are not supported; "
                            "keep strings in tensors (finegrad.constant)")
        self._storage.setflags(write=False)
        # updates are atomic, as TensorFlow's: assign_add from threads loses none
        self._lock = threading.RLock()
        self.trainable = bool(trainable)
        self._unique_id = next(_ids)
        # TensorFlow's form, "<name>:<output index>": a given "w" is named "w:0"
        self.name = f"Variable:{self._unique_id}" if name is None else \
            name if ":" in str(name) else f"{name}:0"
        tracer = core.current_tracer() or _state.lifted  # (init_scope: still the trace's)
        if tracer is not None:   # inside finegrad.function: its rule for new variables (a
            tracer.create_variable(self, given)   # TF1 graph names it, gives it an initializer)

    # --- reading ----------------------------------------------------------------------------

    def _as_tensor(self) -> Tensor:
        tracer = core.current_tracer()
        if tracer is not None:  # inside finegrad.function: a read node, run at each call
            return tracer.read_variable(self)
        v = self._storage
        t = Tensor(v if v.ndim else v[()])
        if _state.recorders or _state.read_listener is not None:   # someone observes reads
            core.notify_variable_read(self, t)
        return t

    def read_value(self) -> Tensor:
        """The current value, as a (recorded) Tensor.

        >>> import finegrad as fg
        >>> fg.Variable([1., 2.]).read_value().numpy()
        array([1., 2.], dtype=float32)
        """
        return self._as_tensor()

    value = read_value

    def numpy(self) -> Any:   # an ndarray, or a NumPy scalar for shape ()
        """The current value as a NumPy array (a NumPy scalar for shape ``()``), a copy.

        >>> import finegrad as fg
        >>> fg.Variable(2, dtype=fg.float64).numpy()
        np.float64(2.0)
        """
        v = self._eager_storage(".numpy()")
        return v.copy() if v.ndim else v[()]

    def _eager_storage(self, what):
        """The stored value; a variable of a TF1 graph has its values in sessions only."""
        if "graph" in self.__dict__:
            raise NotImplementedError(f"finegrad.Variable{what if what[0] == '.' else ''}: "
                                      f"{what} of variable {self.name!r} of a TF1 graph: its "
                                      f"value is in a Session (sess.run(v) or v.eval())")
        return self._storage

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        a = np.array(self._eager_storage("NumPy conversion"))
        return a if dtype is None else a.astype(dtype)

    def __dlpack__(self, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """DLPack export of the current value, a copy (the variable may change later)."""
        return interop.export_dlpack(np.array(self._storage), stream, max_version, dl_device)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (interop.CPU, 0)

    @property
    def shape(self) -> TensorShape:
        from finegrad._src.tensor import TensorShape
        return TensorShape(self._storage.shape)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_numpy(self._storage.dtype)

    @property
    def ndim(self) -> int:
        return self._storage.ndim

    def get_shape(self) -> TensorShape:
        return self.shape

    # --- writing ------------------------------------------------------------------------------

    def _new_value(self, value, fn):
        """The NumPy value to store: tensors and arrays must match the dtype; Python numbers
        and lists take the variable's dtype, as in TensorFlow (never dropping a fraction)."""
        np_dtype = self._storage.dtype
        where = f"finegrad.Variable.{fn}"
        if isinstance(value, (numbers.Number, np.generic)):
            v = convert_like(value, np_dtype, f"{where} (variable {self.name!r})")
        elif isinstance(value, (list, tuple)) and not _has_numpy(value) or \
                isinstance(value, np.ndarray):   # NumPy arrays too: TensorFlow converts them
            v = convert_like(value, np_dtype, f"{where} (variable {self.name!r})")
        else:
            # tensors, variables and tensor-likes (an IndexedSlices: its dense value)
            v = convert_to_tensor(value)._value if isinstance(value, Tensor) or hasattr(
                type(value), "_as_tensor") else to_numpy_value(value, None, where)
            if v.dtype != np_dtype:
                raise TypeError(f"{where}: variable {self.name!r} has dtype {self.dtype.name}, "
                                f"the value has {dtypes.from_numpy(v.dtype).name}")
        if np.shape(v) != self._storage.shape:
            raise ValueError(f"{where}: variable {self.name!r} has shape "
                             f"{tuple(self._storage.shape)}, the value has {tuple(np.shape(v))}")
        return v

    def _set(self, v):
        a = np.array(v, dtype=self._storage.dtype)
        a.setflags(write=False)
        self._storage = a
        return self

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None,
               read_value: bool = True) -> Variable:
        """Replace the value (same shape and dtype). Returns the variable.

        >>> import finegrad as fg
        >>> fg.Variable([1., 2.]).assign([3., 4.]).numpy()
        array([3., 4.], dtype=float32)
        """
        return self._update(value, "assign")

    def assign_add(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Variable:
        """Add ``delta`` in place. Returns the variable.

        >>> import finegrad as fg
        >>> fg.Variable(1.).assign_add(2.).numpy()
        np.float32(3.0)
        """
        return self._update(delta, "assign_add")

    def assign_sub(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Variable:
        """Subtract ``delta`` in place. Returns the variable.

        >>> import finegrad as fg
        >>> fg.Variable(1.).assign_sub(2.).numpy()
        np.float32(-1.0)
        """
        return self._update(delta, "assign_sub")

    def _update(self, value, mode):
        tracer = core.current_tracer()
        if tracer is not None:  # inside finegrad.function: an assign node, run at each call
            if isinstance(value, Variable):   # a traced read, not the trace-time value
                value = value.read_value()
            v = self._new_value(value, mode)   # the same checks as eagerly
            r = tracer.assign_variable(self, value if isinstance(value, Tensor) else Tensor(v),
                                       mode)
            return self if r is None else r   # (a TF1 graph: the read of the new value)
        v = self._new_value(value, mode)
        if mode == "assign":
            return self._set(v)
        with self._lock:   # read, add and store as one step
            return self._set(self._storage + v if mode == "assign_add" else self._storage - v)

    def __getitem__(self, key: Any) -> Tensor:
        """``v[key]``: a (recorded) read, sliced; ``v[key].assign(value)`` writes the slice,
        as in TensorFlow."""
        t = self._as_tensor()[key]
        t._slice_of = (self, key)
        return t

    def _assign_slice(self, key, value, read_value=True):
        """TensorFlow's ``v[key].assign(value)``: the slice takes ``value`` (broadcast to it,
        in the variable's dtype by the rules of `assign`)."""
        tracer = core.current_tracer()
        if tracer is not None:  # inside finegrad.function: a node that writes the slice
            tracer.assign_variable(self, value, "assign", key)
            return self if read_value else None
        with self._lock:
            v = _slice_value(self, value, np.asarray(self._storage[key]))
            new = np.array(self._storage)
            new[key] = v
            self._set(new)
        return self if read_value else None

    # --- Python protocol --------------------------------------------------------------------

    def __getstate__(self):      # copy and pickle: a fresh lock for the copy
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def ref(self) -> Any:
        """A hashable reference to this variable (variables themselves are unhashable in
        TensorFlow 2, as ``==`` compares their values): ``ref.deref()`` gives it back."""
        return _TensorRef(self)

    def __repr__(self) -> str:
        return (f"<finegrad.Variable '{self.name}' shape={tuple(self._storage.shape)} "
                f"dtype={self.dtype.name}, numpy={numpy_text(self._storage)}>")

    def __bool__(self) -> bool:
        return bool(self._eager_storage("a Python bool"))

    def __float__(self) -> float:
        return float(self._eager_storage("float()"))

    def __int__(self) -> int:
        return int(self._eager_storage("int()"))

    def __len__(self) -> int:
        return len(self._storage)

    def __iter__(self) -> Iterator[Tensor]:
        return iter(self._as_tensor())

    def __hash__(self) -> int:
        if getattr(_state.tracer, "v1_graph", None) is not None:   # a TF1 graph: identity
            return id(self)
        raise TypeError(f"Variable is unhashable (== compares values, as in TensorFlow 2). "
                        f"Instead, use variable.ref() as the key (and ref.deref() to get the "
                        f"variable back). (Variable: {self.name})")

    def __eq__(self, other: object) -> Tensor | bool:  # type: ignore[override]
        if getattr(_state.tracer, "v1_graph", None) is not None:   # a TF1 graph: identity
            return self is other
        return self._as_tensor() == other

    def __ne__(self, other: object) -> Tensor | bool:  # type: ignore[override]
        if getattr(_state.tracer, "v1_graph", None) is not None:
            return self is not other
        return self._as_tensor() != other


def _forward(name):
    def method(self, *args):
        return getattr(self._as_tensor(), name)(*args)
    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__",
              "__pos__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__",
              "__and__", "__or__", "__invert__"):
    setattr(Variable, _name, _forward(_name))


def _slice_value(var, value, part):
    """``value`` checked for the slice ``part`` of ``var``: its dtype, a shape that broadcasts
    to the slice's."""
    where = f"finegrad.Variable.assign (a slice of variable {var.name!r})"
    if isinstance(value, (numbers.Number, np.generic)) or \
            isinstance(value, (list, tuple)) and not _has_numpy(value) or \
            isinstance(value, np.ndarray):
        v = convert_like(value, var._storage.dtype, where)
    else:
        v = convert_to_tensor(value)._value
        if v.dtype != var._storage.dtype:
            raise TypeError(f"{where}: the variable has dtype {var.dtype.name}, the value has "
                            f"{dtypes.from_numpy(v.dtype).name}")
    try:
        return np.broadcast_to(v, part.shape)
    except ValueError:
        raise ValueError(f"{where}: the slice has shape {part.shape}, the value has "
                         f"{np.shape(v)}") from None
