"""TensorFlow 1's names of ``tf.compat.v1`` that finegrad defines itself (the rest are
finegrad's TensorFlow 2 names): the casts ``to_float``, ``to_double``, ``to_int32``,
``to_int64`` and TensorFlow 1's ``name_scope(name, default_name, values)``. Graphs, sessions
and variable scopes are in `finegrad._src.v1`.
"""
from typing import Any as _Any

from finegrad._src import dtypes as _dtypes
from finegrad._src.api.scopes import name_scope as _name_scope
from finegrad._src.ops.array.structural import cast as _cast
from finegrad._src.tensor import Tensor as _Tensor
from finegrad._src.types import TensorLike as _TensorLike


def to_float(x: _TensorLike, name: str = "ToFloat") -> _Tensor:
    """``x`` cast to float32 (TensorFlow 1's ``tf.to_float``).

    >>> import finegrad as fg
    >>> fg.compat.v1.to_float(fg.constant([1, 2])).dtype
    finegrad.float32
    """
    return _cast(x, _dtypes.float32)


def to_double(x: _TensorLike, name: str = "ToDouble") -> _Tensor:
    """``x`` cast to float64."""
    return _cast(x, _dtypes.float64)


def to_int32(x: _TensorLike, name: str = "ToInt32") -> _Tensor:
    """``x`` cast to int32."""
    return _cast(x, _dtypes.int32)


def to_int64(x: _TensorLike, name: str = "ToInt64") -> _Tensor:
    """``x`` cast to int64."""
    return _cast(x, _dtypes.int64)


def name_scope(name: str | None, default_name: str | None = None,
               values: _Any = None) -> _Any:
    """TensorFlow 1's ``name_scope(name, default_name, values)``: ``default_name`` when
    ``name`` is None; ``values`` is accepted and ignored.

    >>> import finegrad as fg
    >>> with fg.compat.v1.name_scope(None, "layer", []) as scope:
    ...     scope
    'layer/'
    """
    del values
    # both None: name_scope's own ValueError (name must be a string)
    return _name_scope(default_name if name is None else name)  # type: ignore[arg-type]

