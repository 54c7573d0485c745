"""Arrays from other libraries, in and out: the core's side of interoperation.

In: anything NumPy can turn into an array converts as that NumPy array would, keeping its
dtype (float64 stays float64, int64 stays int64), which is what TensorFlow does with it:
objects with ``__array__`` (pandas, JAX, PyTorch on the CPU, TensorFlow, xarray, ...),
``__array_interface__`` or ``__array_struct__``, and objects that only speak DLPack
(``__dlpack__``). Objects that only have the buffer protocol (``memoryview``,
``array.array``, ``bytearray``) are sequences to TensorFlow, not arrays: they convert as
the list of Python numbers they hold (float -> float32, int -> int32). Nothing here is on
`bind`'s fast path: it runs only for a value that is neither a tensor, a Python number, a
NumPy value nor a list (`tensor.to_numpy_value`, `tensor.convert_like`).

Out: `export_dlpack` is a tensor's ``__dlpack__``: the consumer gets the tensor's own NumPy
buffer, without a copy. Tensors are immutable, so the buffer is marked read-only where the
consumer's protocol can say so (DLPack 1.0, ``max_version >= (1, 0)``); a consumer of the
older protocol gets a writable view and must not write into it (as with JAX's and
TensorFlow's exports), except for a value that is read-only already, which it gets a copy
of (the old protocol cannot carry the flag, and NumPy refuses to export it).
"""
from __future__ import annotations

from typing import Any

import numpy as np

CPU = 1   # DLPack's kDLCPU: every tensor's device here

_ARRAY_PROTOCOLS = ("__array__", "__array_interface__", "__array_struct__")


def type_name(value: object) -> str:
    """The name of ``value``'s type for messages: ``dict``, ``pandas.DataFrame``,
    ``torch.Tensor`` (the top-level package, not the module that defines it)."""
    t = type(value)
    package = t.__module__.partition(".")[0]
    return t.__qualname__ if package == "builtins" else f"{package}.{t.__qualname__}"


def _speaks(value: object, names: tuple[str, ...]) -> bool:
    for name in names:
        try:
            if hasattr(value, name):
                return True
        except Exception:   # a __getattr__ that raises something else: it does not speak it
            pass
    return False


def is_array_like(value: object) -> bool:
    """Whether NumPy makes an array of ``value``'s own dtype from it (an array protocol or
    DLPack); False for tensors, Variables, NumPy values, numbers, lists and strings."""
    return _speaks(value, _ARRAY_PROTOCOLS + ("__dlpack__",))


def _has_buffer(value: Any) -> bool:
    try:
        memoryview(value)
    except TypeError:
        return False
    return True


def array_from(value: Any, fn: str) -> np.ndarray | list | None:
    """``value`` (an object of another library) as a NumPy array, or for a buffer-protocol
    object the nested list of Python numbers it holds; None when NumPy sees no array in it.
    A producer that refuses (a PyTorch tensor that requires grad, one on a GPU) is a
    TypeError naming ``fn`` and the type, with the producer's reason."""
    try:
        if _speaks(value, _ARRAY_PROTOCOLS):
            arr = np.asarray(value)
        elif _speaks(value, ("__dlpack__",)):
            arr = np.from_dlpack(value)
        elif not isinstance(value, (str, bytes)) and _has_buffer(value):
            return memoryview(value).tolist()
        else:
            return None
    except Exception as e:   # the producer's own reason, whatever its class
        if isinstance(e, ValueError) and getattr(type(value), "_symbolic_placeholder", False):
            raise   # a functional model's placeholder says why, as Keras's does (ValueError)
        raise TypeError(f"{fn}: cannot convert {type_name(value)} to a tensor: "
                        f"{type(e).__name__}: {e}") from None
    if arr.dtype.kind not in "biufcUSO" or arr.dtype.kind == "O" and not all(
            isinstance(v, (str, bytes)) for v in arr.flat):
        raise TypeError(f"{fn}: cannot convert {type_name(value)} to a tensor: NumPy makes "
                        f"an array of dtype {arr.dtype} from it (expected numbers or strings)")
    return arr


def export_dlpack(value: Any, stream: Any = None, max_version: tuple[int, int] | None = None,
                  dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
    """``__dlpack__`` of a tensor whose NumPy value is ``value`` (the module docstring says
    when the consumer gets the buffer itself, read-only or not, and when a copy)."""
    a = value if type(value) is np.ndarray else np.asarray(value)
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    if versioned and a.flags.writeable and not copy:
        a = a.view()
        a.setflags(write=False)
    elif not versioned and not a.flags.writeable:
        a = a.copy()
    given = (("stream", stream), ("max_version", max_version), ("dl_device", dl_device),
             ("copy", copy))
    kwargs: dict[str, Any] = {k: v for k, v in given if v is not None}
    return a.__dlpack__(**kwargs)


#: arrays this large are copied to a 64-byte boundary (`aligned_copy`): from glibc's mmap
#: threshold (128 KiB) up, JAX's own copy of an unaligned argument costs several times the
#: compiled program (graph/xla/staging.py has the figures)
ALIGNED_BYTES = 1 << 17


def aligned_copy(arr: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of ``arr`` whose data starts at a multiple of 64 bytes, which a
    compiled function (``jit_compile=True``) hands XLA as it is, where it would copy a large
    NumPy array's usual 16-byte alignment again on every call."""
    raw = np.empty(arr.nbytes + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    out = raw[start:start + arr.nbytes].view(arr.dtype).reshape(arr.shape)
    np.copyto(out, arr)
    return out
