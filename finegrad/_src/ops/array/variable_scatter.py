"""Sparse reads and updates of a `Variable`: ``sparse_read``, ``scatter_nd_*``,
``scatter_*`` (with `IndexedSlices`) and ``batch_scatter_update``, as TensorFlow's
``tf.Variable`` methods.

The core `Variable` may not import ops, so this ops module defines the methods and sets them
on the class. Eagerly, with no tape or read listener active, an update writes the rows into
the variable's buffer in place (copy on write: when a tensor read earlier still holds the
buffer, which `sys.getrefcount` tells, the buffer is copied first so that tensor keeps its
value). Otherwise (inside `finegrad.function`, under a tape) the new value is computed with
the ``tensor_scatter_nd_*`` ops on a recorded read and assigned with `Variable.assign`: the
trace holds a read node, the scatter ops and an assign node, run at each call, and a tape
watches the variable, as TensorFlow's does. ``sparse_read`` is a `gather` of a read, so
gradients reach the variable through it.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from finegrad._src import core
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.array.structural import convert_to_tensor, expand_dims, stack
from finegrad._src.ops.array.gather import IndexedSlices, take  # re-exported
from finegrad._src.ops.array import scatter_nd as _nd_ops
from finegrad._src.ops.array.scatter_nd import (tensor_scatter_nd_add, tensor_scatter_nd_max,
                                                tensor_scatter_nd_min, tensor_scatter_nd_sub,
                                                tensor_scatter_nd_update)
from finegrad._src.ops.math.arithmetic import divide, multiply
from finegrad._src.ops.math.segments import unsorted_segment_prod
from finegrad._src.ops.special.error_and_gamma import truncatediv
from finegrad._src.state import state as _state
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


def _eager_in_place() -> bool:
    """Whether an update may write the buffer: eager, nothing recording or listening."""
    return core.current_tracer() is None and not _state.recorders and \
        _state.read_listener is None


def _checked(var, where, ind, updates):
    """The update values, checked with the NumPy indices ``ind`` as the
    ``tensor_scatter_nd`` ops check them (errors naming the Variable method ``where``)."""
    u = _updates(var, updates)
    if u.dtype != var.dtype:
        raise TypeError(f"{where}: updates must have the variable's dtype "
                        f"({var.dtype.name}), got {u.dtype.name}")
    values, shape, k = u._value, var._storage.shape, ind.shape[-1]
    want = ind.shape[:-1] + tuple(shape[k:])
    if k > len(shape) or np.shape(values) != want:
        raise ValueError(f"{where}: updates must have shape indices.shape[:-1] + "
                         f"variable.shape[indices.shape[-1]:] = {list(want)}, got "
                         f"{list(np.shape(values))} (indices {list(ind.shape)}, variable "
                         f"{list(shape)})")
    _nd_ops._check_indices(where, ind, shape, "the variable")
    return np.asarray(values)


def _trunc_div_at(z, ind, values):
    """Integer ``scatter_div``: each row divided in turn, rounding toward zero (C's, as
    TensorFlow's kernel)."""
    for i in np.ndindex(ind.shape[:-1]):
        row = tuple(ind[i])
        a, b = z[row], values[i]
        q = np.abs(a) // np.abs(b)
        z[row] = np.where((a < 0) != (b < 0), -q, q)


def _storage_refs(var):
    """``sys.getrefcount`` of the variable's buffer, seen from here."""
    return sys.getrefcount(var._storage)


class _Unheld:
    def __init__(self):
        self._storage = np.empty(0)


# the count of a buffer nothing but its variable holds, measured with the same code (the
# interpreter's own references differ between Python versions: 3.14 borrows some)
_UNHELD = _storage_refs(_Unheld())


def _write_in_place(var, ind, values, mode):
    """The rows written into the variable's buffer, copied first if another holder sees it."""
    with var._lock:
        held = _storage_refs(var) > _UNHELD   # (counted before `buf` adds a reference)
        buf = var._storage
        if held or not buf.flags.owndata:
            buf = np.array(buf)
        buf.setflags(write=True)
        try:
            if mode is _trunc_div_at:
                _trunc_div_at(buf, ind, values)
            else:
                _nd_ops._run(buf, ind, 0, 0, values, mode)
        finally:
            buf.setflags(write=False)
        var._storage = buf
    return var


def _nd(var, op, indices, updates, mode=None, where=None):
    """The variable's new value ``op(var, indices, updates)``, assigned (in place eagerly)."""
    where = where or f"finegrad.Variable.{op.__name__.replace('tensor_', '')}"
    if mode is not None and _eager_in_place():
        ind = np.asarray(_nd_ops._indices(indices, where)._value)
        return _write_in_place(var, ind, _checked(var, where, ind, updates), mode)
    with _locked(var):   # read, update and store as one step (TensorFlow's are atomic)
        return var.assign(_renamed(where, op, var, indices, _updates(var, updates)))


def _rows(var, op, what, sparse_delta, mode=None):
    """The rows ``sparse_delta.indices`` updated by ``op`` with ``sparse_delta.values``."""
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError(f"finegrad.Variable.scatter_{what}: sparse_delta must be a "
                        f"finegrad.IndexedSlices, got {type(sparse_delta).__name__}")
    where = f"finegrad.Variable.scatter_{what}"
    if mode is not None and _eager_in_place():   # (IndexedSlices holds integer indices)
        ind = np.asarray(sparse_delta.indices._value)[..., None]
        values = _checked(var, where, ind, sparse_delta.values)
        if mode is _trunc_div_at and not values.all():
            raise InvalidArgumentError(f"{where}: integer division by zero")
        return _write_in_place(var, ind, values, mode)
    rows = expand_dims(sparse_delta.indices, -1)
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
    return _nd(self, tensor_scatter_nd_update, indices, updates, "assign")


def scatter_nd_add(self, indices: TensorLike, updates: TensorLike,
                   name: str | None = None) -> Variable:
    """``Variable.scatter_nd_add``: ``updates`` added at ``indices`` (duplicates add up).

    >>> import finegrad as fg
    >>> fg.Variable([1., 2., 3.]).scatter_nd_add([[0], [0]], [10., 30.]).numpy()
    array([41.,  2.,  3.], dtype=float32)
    """
    return _nd(self, tensor_scatter_nd_add, indices, updates, np.add)


def scatter_nd_sub(self, indices: TensorLike, updates: TensorLike,
                   name: str | None = None) -> Variable:
    """``Variable.scatter_nd_sub``: ``updates`` subtracted at ``indices``.

    >>> import finegrad as fg
    >>> fg.Variable([1., 2., 3.]).scatter_nd_sub([[1]], [10.]).numpy()
    array([ 1., -8.,  3.], dtype=float32)
    """
    return _nd(self, tensor_scatter_nd_sub, indices, updates, np.subtract)


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
    return _rows(self, tensor_scatter_nd_update, "update", sparse_delta,
                 "assign")


def scatter_add(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_add``: ``sparse_delta.values`` added to the rows
    ``sparse_delta.indices`` (duplicates add up).

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> v.scatter_add(fg.IndexedSlices(fg.constant([5., 5.]), fg.constant([0, 0]))).numpy()
    array([11.,  2.], dtype=float32)
    """
    return _rows(self, tensor_scatter_nd_add, "add", sparse_delta,
                 np.add)


def scatter_sub(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_sub``: ``sparse_delta.values`` subtracted from the rows
    ``sparse_delta.indices``.

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> v.scatter_sub(fg.IndexedSlices(fg.constant([5.]), fg.constant([1]))).numpy()
    array([ 1., -3.], dtype=float32)
    """
    return _rows(self, tensor_scatter_nd_sub, "sub", sparse_delta,
                 np.subtract)


def scatter_max(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_max``: the rows ``sparse_delta.indices`` take their elementwise
    maximum with ``sparse_delta.values``.

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> v.scatter_max(fg.IndexedSlices(fg.constant([5., 0.]), fg.constant([0, 1]))).numpy()
    array([5., 2.], dtype=float32)
    """
    return _rows(self, tensor_scatter_nd_max, "max", sparse_delta,
                 np.maximum)


def scatter_min(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_min``: the rows ``sparse_delta.indices`` take their elementwise
    minimum with ``sparse_delta.values``.

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> v.scatter_min(fg.IndexedSlices(fg.constant([5., 0.]), fg.constant([0, 1]))).numpy()
    array([1., 0.], dtype=float32)
    """
    return _rows(self, tensor_scatter_nd_min, "min", sparse_delta,
                 np.minimum)


def _segment_factors(var, rows, values):
    """The product of the factors each row of ``var`` gets (1 where none)."""
    return unsorted_segment_prod(values, rows[..., 0], var.shape[0])


def _scaled(var, rows, values):
    return multiply(var, _segment_factors(var, rows, values))


def _divided(var, rows, values):
    factors = _segment_factors(var, rows, values)
    return truncatediv(var, factors) if var.dtype.is_integer else divide(var, factors)


def scatter_mul(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_mul``: the rows ``sparse_delta.indices`` multiplied by
    ``sparse_delta.values`` (duplicates multiply in turn).

    >>> import finegrad as fg
    >>> v = fg.Variable([2., 3.])
    >>> v.scatter_mul(fg.IndexedSlices(fg.constant([2., 5.]), fg.constant([0, 0]))).numpy()
    array([20.,  3.], dtype=float32)
    """
    return _rows(self, _scaled, "mul", sparse_delta, np.multiply)


def scatter_div(self, sparse_delta: Any, use_locking: bool = False,
                name: str | None = None) -> Variable:
    """``Variable.scatter_div``: the rows ``sparse_delta.indices`` divided by
    ``sparse_delta.values`` (integers rounded toward zero, as TensorFlow's kernel).

    >>> import finegrad as fg
    >>> v = fg.Variable([7, -7, 9])
    >>> v.scatter_div(fg.IndexedSlices(fg.constant([2, 2]), fg.constant([0, 1]))).numpy()
    array([ 3, -3,  9], dtype=int32)

    Raises:
        finegrad.errors.InvalidArgumentError: for an integer division by zero.
    """
    mode = _trunc_div_at if self.dtype.is_integer else np.divide
    return _rows(self, _divided, "div", sparse_delta, mode)


def _batch_coordinates(indices, where):
    """``tf.compat.v1.batch_scatter_update``'s coordinates: each index of ``indices`` (of
    shape ``batch + (n,)``) preceded by its batch position."""
    ind = convert_to_tensor(indices)
    shape = tuple(ind.shape)
    if not ind.dtype.is_integer or not shape or None in shape:
        raise ValueError(f"{where}: indices must be integers of known shape and rank >= 1, "
                         f"got {ind.dtype.name} of shape {shape}")
    grids = np.indices(shape, dtype=ind.dtype._np)[:-1]
    return stack([*(convert_to_tensor(g) for g in grids), ind], axis=-1)


def batch_scatter_update(self, sparse_delta: Any, use_locking: bool = True,
                         name: str | None = None) -> Variable:
    """``Variable.batch_scatter_update``: for each batch position ``b`` (the leading axes of
    ``sparse_delta.indices``), ``v[b, indices[b, i]] = values[b, i]``.

    >>> import finegrad as fg
    >>> v = fg.Variable([[1., 2., 3.], [4., 5., 6.]])
    >>> v.batch_scatter_update(fg.IndexedSlices(fg.constant([[10.], [40.]]),
    ...                                         fg.constant([[0], [1]]))).numpy()
    array([[10.,  2.,  3.],
           [ 4., 40.,  6.]], dtype=float32)
    """
    where = "finegrad.Variable.batch_scatter_update"
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError(f"{where}: sparse_delta must be a finegrad.IndexedSlices, got "
                        f"{type(sparse_delta).__name__}")
    coords = _batch_coordinates(sparse_delta.indices, where)
    return _nd(self, tensor_scatter_nd_update, coords, sparse_delta.values, "assign", where)


def sparse_read(self, indices: TensorLike, name: str | None = None) -> Tensor:
    """``Variable.sparse_read``: the rows ``indices`` of the variable (a recorded read and a
    `gather`, so gradients reach the variable).

    >>> import finegrad as fg
    >>> fg.Variable([1., 2., 3.]).sparse_read([2, 0]).numpy()
    array([3., 1.], dtype=float32)
    """
    return take(self, indices)


for _method in (scatter_nd_update, scatter_nd_add, scatter_nd_sub, scatter_update,
                scatter_add, scatter_sub, scatter_max, scatter_min, scatter_mul, scatter_div,
                batch_scatter_update, sparse_read):
    setattr(Variable, _method.__name__, _method)
