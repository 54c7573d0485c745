"""Sparse reads and updates of a `Variable`: ``sparse_read``, ``scatter_nd_*`` and
``scatter_*`` (with `IndexedSlices`), as TensorFlow's ``tf.Variable`` methods.

The core `Variable` may not import ops, so this ops module defines the methods and sets them
on the class. Each update computes the variable's new value with the ``tensor_scatter_nd_*``
ops on a (recorded) read and assigns it with `Variable.assign`, so eagerly the variable
changes at once and inside `finegrad.function` the trace holds a read node, the scatter ops
and an assign node, run at each call. ``sparse_read`` is a `gather` of a read, so gradients
reach the variable through it. It imports the core modules and `ops.array`, `ops.array.gather`
and `ops.array.scatter_nd`.
"""

from __future__ import annotations

import contextlib

from finegrad._src import core
from finegrad._src.ops.array.structural import convert_to_tensor, expand_dims
from finegrad._src.ops.array.gather import IndexedSlices, take  # re-exported
from finegrad._src.ops.array.scatter_nd import (tensor_scatter_nd_add, tensor_scatter_nd_max,
                                                tensor_scatter_nd_min, tensor_scatter_nd_sub,
                                                tensor_scatter_nd_update)
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _updates(var, updates):
    """Python numbers, lists and arrays take the variable's dtype (as in `assign`)."""
    return updates if isinstance(updates, Tensor) else convert_to_tensor(updates, var.dtype)


def _renamed(where, op, *args):
    """``op(*args)``, its errors naming the Variable method ``where`` rather than the op."""
    try:
        return op(*args)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{where}: {e}") from e


def _nd(var, op, indices, updates):
    """The variable's new value ``op(var, indices, updates)``, assigned."""
    where = f"finegrad.Variable.{op.__name__.replace('tensor_', '')}"
    with _locked(var):   # read, update and store as one step (TensorFlow's are atomic)
        return var.assign(_renamed(where, op, var, indices, _updates(var, updates)))


def _rows(var, op, what, sparse_delta):
    """The rows ``sparse_delta.indices`` updated by ``op`` with ``sparse_delta.values``."""
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError(f"finegrad.Variable.scatter_{what}: sparse_delta must be a "
                        f"finegrad.IndexedSlices, got {type(sparse_delta).__name__}")
    rows = expand_dims(sparse_delta.indices, -1)
    where = f"finegrad.Variable.scatter_{what}"
    with _locked(var):
        return var.assign(_renamed(where, op, var, rows, _updates(var, sparse_delta.values)))


def _locked(var):
    """The variable's update lock, held eagerly (a trace's assignments run in its graph)."""
    return contextlib.nullcontext() if core.current_tracer() is not None else var._lock


def scatter_nd_update(self, indices: TensorLike, updates: TensorLike,
                      name: str | None = None) -> Variable:
    """``Variable.scatter_nd_update``: the elements or slices at ``indices`` (as
    `tensor_scatter_nd_update`) take ``updates``. Returns the variable.

    >>> import finegrad as fg
    >>> fg.Variable([1., 2., 3.]).scatter_nd_update([[0], [2]], [10., 30.]).numpy()
    array([10.,  2., 30.], dtype=float32)
    """
    return _nd(self, tensor_scatter_nd_update, indices, updates)


def scatter_nd_add(self, indices: TensorLike, updates: TensorLike,
                   name: str | None = None) -> Variable:
    """``Variable.scatter_nd_add``: ``updates`` added at ``indices`` (duplicates add up).

    >>> import finegrad as fg
    >>> fg.Variable([1., 2., 3.]).scatter_nd_add([[0], [0]], [10., 30.]).numpy()
    array([41.,  2.,  3.], dtype=float32)
    """
    return _nd(self, tensor_scatter_nd_add, indices, updates)


def scatter_nd_sub(self, indices: TensorLike, updates: TensorLike,
                   name: str | None = None) -> Variable:
    """``Variable.scatter_nd_sub``: ``updates`` subtracted at ``indices``.

    >>> import finegrad as fg
    >>> fg.Variable([1., 2., 3.]).scatter_nd_sub([[1]], [10.]).numpy()
    array([ 1., -8.,  3.], dtype=float32)
    """
    return _nd(self, tensor_scatter_nd_sub, indices, updates)


def scatter_update(self, sparse_delta: Any, use_locking: bool = False,
                   name: str | None = None) -> Variable:
    """``Variable.scatter_update``: the rows ``sparse_delta.indices`` (axis 0) take
    ``sparse_delta.values`` (a `finegrad.IndexedSlices`). Returns the variable.

    >>> import finegrad as fg
    >>> v = fg.Variable([[1., 2.], [3., 4.]])
    >>> v.scatter_update(fg.IndexedSlices(fg.constant([[0., 0.]]), fg.constant([1]))).numpy()
    array([[1., 2.],
           [0., 0.]], dtype=float32)
    """
    return _rows(self, tensor_scatter_nd_update, "update", sparse_delta)


def scatter_add(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_add``: ``sparse_delta.values`` added to the rows
    ``sparse_delta.indices`` (duplicates add up).

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> v.scatter_add(fg.IndexedSlices(fg.constant([5., 5.]), fg.constant([0, 0]))).numpy()
    array([11.,  2.], dtype=float32)
    """
    return _rows(self, tensor_scatter_nd_add, "add", sparse_delta)


def scatter_sub(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_sub``: ``sparse_delta.values`` subtracted from the rows
    ``sparse_delta.indices``.

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> v.scatter_sub(fg.IndexedSlices(fg.constant([5.]), fg.constant([1]))).numpy()
    array([ 1., -3.], dtype=float32)
    """
    return _rows(self, tensor_scatter_nd_sub, "sub", sparse_delta)


def scatter_max(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_max``: the rows ``sparse_delta.indices`` take their elementwise
    maximum with ``sparse_delta.values``.

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> v.scatter_max(fg.IndexedSlices(fg.constant([5., 0.]), fg.constant([0, 1]))).numpy()
    array([5., 2.], dtype=float32)
    """
    return _rows(self, tensor_scatter_nd_max, "max", sparse_delta)


def scatter_min(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_min``: the rows ``sparse_delta.indices`` take their elementwise
    minimum with ``sparse_delta.values``.

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> v.scatter_min(fg.IndexedSlices(fg.constant([5., 0.]), fg.constant([0, 1]))).numpy()
    array([1., 0.], dtype=float32)
    """
    return _rows(self, tensor_scatter_nd_min, "min", sparse_delta)


def sparse_read(self, indices: TensorLike, name: str | None = None) -> Tensor:
    """``Variable.sparse_read``: the rows ``indices`` of the variable (a recorded read and a
    `gather`, so gradients reach the variable).

    >>> import finegrad as fg
    >>> fg.Variable([1., 2., 3.]).sparse_read([2, 0]).numpy()
    array([3., 1.], dtype=float32)
    """
    return take(self, indices)


for _method in (scatter_nd_update, scatter_nd_add, scatter_nd_sub, scatter_update,
                scatter_add, scatter_sub, scatter_max, scatter_min, sparse_read):
    setattr(Variable, _method.__name__, _method)
