"""Shape queries: `shape`, `size` and `rank` as tensors (``shape`` is a graph op, primitive
``shape``, when an axis is dynamic; `size` then counts with ``count``).

It imports the core modules, `ops.zeros_and_axes` and `ops.array` (for its input conversion); no ops
module imports it.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims, dtypes
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.ops.array.structural import _t, broadcast_to_p
from finegrad._src.ops.array.indexing import getitem
from finegrad._src.ops.zeros_and_axes import count
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike


def shape(input: TensorLike,  # TensorFlow's keyword
          out_type: DTypeLike = dtypes.int32, name: str | None = None) -> Tensor:
    """The shape of ``x`` as a 1-D integer tensor (``finegrad.shape``).

    >>> import finegrad as fg
    >>> fg.shape(fg.zeros((2, 3))).numpy()
    array([2, 3], dtype=int32)
    """
    x = input
    x = _t(x)
    dt = dtypes.as_dtype(out_type)._np
    if dims.is_symbolic(core.shape_of(x)):   # sizes known at each call: an op, not a constant
        return bind(shape_p, x, dtype=dt)
    return Tensor(_shape_impl(x._value, dtype=dt))


shape_p = def_nondiff(Primitive("shape", unify=False))


shape_p.def_shape(lambda x, **params: (len(x),))


@shape_p.def_vmap
def _shape_vmap(args, batched, *, dtype):
    """Each slice's shape (the batch axis left out): the same for every slice."""
    shape = core.shape_of(args[0])
    rows = getitem(bind(shape_p, args[0], dtype=dtype), (slice(1, None),))
    return bind(broadcast_to_p, rows, shape=(shape[0], len(shape) - 1))


@shape_p.def_impl
def _shape_impl(x, *, dtype):
    return np.asarray(np.shape(x), dtype)


@shape_p.def_lowering
def _shape_lower(x, *, dtype):
    import jax.numpy as jnp
    return jnp.asarray(np.shape(x), dtype)   # static under jit: a constant


def size(input: TensorLike, out_type: DTypeLike = dtypes.int32,  # TensorFlow's keyword
         name: str | None = None) -> Tensor:
    """The number of elements of ``x`` as a scalar integer tensor.

    >>> import finegrad as fg
    >>> fg.size(fg.zeros((2, 3))).numpy()
    np.int32(6)
    """
    x = input
    x = _t(x)
    return count(x, tuple(range(x._value.ndim)), dtypes.as_dtype(out_type)._np)


def rank(input: TensorLike, name: str | None = None) -> Tensor:  # TensorFlow's keyword
    """The number of axes of ``x`` as a scalar int32 tensor.

    >>> import finegrad as fg
    >>> fg.rank(fg.zeros((2, 3))).numpy()
    np.int32(2)
    """
    x = input
    return Tensor(np.int32(_t(x)._value.ndim))
