"""A dataset's fingerprint: a hash of its recipe (``Dataset.fingerprint``, and the key that
``Dataset.snapshot`` files a snapshot under).

``tf.data`` hashes the dataset's graph. A finegrad dataset is a chain of Python closures, so
the fingerprint walks them: each function's code (bytecode, constants, names, defaults) and
the values its closure holds (arrays and tensors by content, numbers and strings by value,
datasets and functions recursively). A value of another kind (an object with state, a
callable instance) contributes its identity, so a pipeline that holds one gets a new
fingerprint in each process: its snapshot is recomputed rather than read back stale.
Globals a function reads by name are not followed.
"""
from __future__ import annotations

import functools
import hashlib
import types
from typing import Any

import numpy as np

from finegrad._src.tensor import Tensor

_SCALARS = (str, bytes, int, float, complex, bool, type(None), type(Ellipsis),
            type(NotImplemented))
_STATEFUL_ITERATORS = (types.GeneratorType,)
_MAX_DEPTH = 200


def fingerprint(dataset: Any) -> int:
    """The 64-bit fingerprint of ``dataset``'s recipe."""
    h = hashlib.sha256()
    _feed(h, dataset, set(), 0)
    return int.from_bytes(h.digest()[:8], "little")


def _feed(h, obj, seen, depth):
    if isinstance(obj, _SCALARS):
        h.update(f"{type(obj).__name__}:{obj!r};".encode())
        return
    if depth > _MAX_DEPTH or id(obj) in seen:
        h.update(b"<seen>")
        return
    seen.add(id(obj))
    if isinstance(obj, Tensor):
        obj = np.asarray(obj._value)
    if isinstance(obj, np.ndarray):
        h.update(f"array:{obj.dtype.str}:{obj.shape};".encode())
        h.update(repr(obj.tolist()).encode() if obj.dtype == object
                 else np.ascontiguousarray(obj).tobytes())
    elif hasattr(obj, "_make_iterator") and hasattr(obj, "_cardinality"):
        h.update(f"dataset:{obj._cardinality};".encode())
        _feed(h, obj._make_iterator, seen, depth + 1)
    elif isinstance(obj, (types.FunctionType, types.MethodType, functools.partial,
                          types.CodeType)):
        _feed_callable(h, obj, seen, depth)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        h.update(f"{type(obj).__name__}:{len(obj)};".encode())
        for v in (sorted(obj, key=repr) if isinstance(obj, (set, frozenset)) else obj):
            _feed(h, v, seen, depth + 1)
    elif isinstance(obj, dict):
        h.update(f"dict:{len(obj)};".encode())
        for k in sorted(obj, key=repr):
            _feed(h, k, seen, depth + 1)
            _feed(h, obj[k], seen, depth + 1)
    else:
        _feed_other(h, obj)


def _feed_callable(h, obj, seen, depth):
    if isinstance(obj, types.CodeType):
        h.update(obj.co_code)
        _feed(h, obj.co_names, seen, depth + 1)
        _feed(h, obj.co_consts, seen, depth + 1)
    elif isinstance(obj, types.MethodType):
        _feed(h, obj.__func__, seen, depth + 1)
        _feed(h, obj.__self__, seen, depth + 1)
    elif isinstance(obj, functools.partial):
        for part in (obj.func, obj.args, obj.keywords):
            _feed(h, part, seen, depth + 1)
    else:
        h.update(f"function:{obj.__qualname__};".encode())
        _feed(h, obj.__code__, seen, depth + 1)
        _feed(h, obj.__defaults__, seen, depth + 1)
        cells = obj.__closure__ or ()
        _feed(h, [_cell(c) for c in cells], seen, depth + 1)


def _cell(cell):
    try:
        return cell.cell_contents
    except ValueError:        # an empty cell
        return None


def _feed_other(h, obj):
    kind = type(obj)
    if isinstance(obj, (type, types.ModuleType, types.BuiltinFunctionType, np.ufunc)):
        h.update(f"named:{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', obj)};"
                 .encode())
    elif isinstance(obj, _STATEFUL_ITERATORS) or kind.__module__ == "itertools":
        h.update(f"iterator:{kind.__name__};".encode())   # a counter's state is not a recipe
    elif kind.__name__ in ("TensorSpec", "DType", "DatasetSpec", "DataConstant"):
        h.update(f"{kind.__name__}:{obj!r};".encode())
    else:
        h.update(f"object:{kind.__module__}.{kind.__qualname__}:{id(obj)};".encode())
