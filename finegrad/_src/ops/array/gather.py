"""Gathering: `gather` (primitive ``gather``), its transpose ``gather_transpose``, and
`IndexedSlices`, the sparse cotangent gather's VJP returns (as TensorFlow's).

It imports the core modules, `ops.zeros_and_axes` and `ops.array.structural` (its
second-order rule reshapes and stacks); nothing in the ops below it needs a gather.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.zeros_and_axes import _normalize_axis, instantiate_zeros
from finegrad._src.ops.array.structural import (_t, concat, convert_to_tensor, reshape, stack,
                                                 batch_all, batch_size)
from finegrad._src.shapes import TensorShape
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.dtypes import DType
    from finegrad._src.shapes import TensorShape
    from finegrad._src.types import TensorLike


gather_p = Primitive("gather", unify=False, batch_rule=True, fresh=True)


def gather(params: TensorLike, indices: TensorLike, validate_indices: Any = None, axis: Any = None,
           batch_dims: int = 0, name: str | None = None) -> Tensor:
    """Take slices of ``params`` along ``axis`` at integer ``indices``. Primitive ``gather``
    (its VJP is primitive ``gather_transpose``).

    Out-of-range indices are an `InvalidArgumentError` naming the first one, as TensorFlow's
    CPU kernel raises (negative indices included: they do not count from the end). As in
    TensorFlow, the gradient with respect to ``params`` of a gather along axis 0 is an
    `IndexedSlices` (the rows gathered and their cotangents).

    >>> import finegrad as fg
    >>> fg.gather(fg.constant([10., 20., 30.]), [2, 0]).numpy()
    array([30., 10.], dtype=float32)
    """
    return _gather(params, indices, axis, batch_dims, "finegrad.gather", sparse_grad=True)


def take(params, indices, axis=None, batch_dims=0):
    """`gather` whose gradient is always dense: what ops built on a gather use, so that their
    gradients are dense tensors as those of TensorFlow's kernels are."""
    return _gather(params, indices, axis, batch_dims, "finegrad.gather", sparse_grad=False)


def _gather(params, indices, axis, batch_dims, fn, sparse_grad):
    p = _t(params)
    ind = _t(indices)
    if not ind.dtype.is_integer:
        raise TypeError(f"{fn}: indices must be integers, got {ind.dtype.name}")
    a = _normalize_axis(batch_dims if axis is None else axis, p._value.ndim, fn)
    bd = int(batch_dims) % (ind._value.ndim + 1) if batch_dims else 0
    if bd > a:
        raise ValueError(f"{fn}: batch_dims ({batch_dims}) must not exceed axis ({a})")
    if sparse_grad and a == 0 and bd == 0:
        return bind(gather_p, p, ind, axis=a, batch_dims=bd, sparse_grad=True)
    return bind(gather_p, p, ind, axis=a, batch_dims=bd)


@gather_p.def_impl
def _gather_impl(p, ind, *, axis, batch_dims, sparse_grad=False):
    # checked here, where compiled graphs check each call's indices too (np.take would wrap -1)
    n = p.shape[axis]
    if ind.size and (ind.min() < 0 or ind.max() >= n):
        tracer = core.current_tracer()
        if n and tracer is not None and tracer.examples:
            ind = np.clip(ind, 0, n - 1)  # made-up values of an input_signature: shapes matter
        else:
            bad = int(np.flatnonzero((ind < 0) | (ind >= n))[0])
            where = ",".join(str(int(k)) for k in np.unravel_index(bad, ind.shape))
            raise InvalidArgumentError(   # (TensorFlow's message, and the axis and shape)
                f"finegrad.gather: indices{f'[{where}]' if where else ''} = {ind.flat[bad]} "
                f"is not in [0, {n}) (axis {axis} of a tensor of shape {tuple(p.shape)})")
    if batch_dims == 0:
        out = np.take(p, ind, axis=axis)
        return np.array(out, object) if type(out) is bytes else out   # a string scalar
    return _gather_batched(p, ind, axis, batch_dims)


@gather_p.def_lowering
def _gather_lower(p, ind, *, axis, batch_dims, sparse_grad=False):
    # XLA cannot raise: an out-of-range index reads jnp.take's fill value (NaN for floats, the
    # dtype's lowest for signed ints) where impl raises InvalidArgumentError
    import jax
    import jax.numpy as jnp
    def take(p, i, ax):   # a negative index is out of range too (jnp.take would wrap it)
        return jnp.take(p, jnp.where(i < 0, p.shape[ax], i), axis=ax, mode="fill")
    if batch_dims == 0:
        return take(p, ind, axis)
    bshape = p.shape[:batch_dims]
    pb = p.reshape((-1,) + p.shape[batch_dims:])
    ib = ind.reshape((-1,) + ind.shape[batch_dims:])
    out = jax.vmap(lambda a, i: take(a, i, axis - batch_dims))(pb, ib)
    return out.reshape(bshape + out.shape[1:])


@gather_p.def_vmap
def _gather_vmap(args, batched, *, axis, batch_dims, sparse_grad=False):
    """Batched params alone: gather along the shifted axis; batched indices: the batch is
    one more batch dimension of both."""
    if batched[0] and not batched[1] and batch_dims == 0:
        return bind(gather_p, *args, axis=axis + 1, batch_dims=0)
    return bind(gather_p, *batch_all(args, batched), axis=axis + 1, batch_dims=batch_dims + 1)


def _gather_batched(p, ind, axis, bd):
    """gather with batch_dims: each batch entry gathers from its own slice of ``p``."""
    bshape = p.shape[:bd]
    if axis == bd:
        # the gathered axis follows the batch axes (sort, top_k): one fancy index, no loop
        n = int(np.prod(bshape, dtype=np.int64))
        ib = ind.reshape((n,) + ind.shape[bd:])
        rows = np.arange(n).reshape((n,) + (1,) * (ib.ndim - 1))
        out = p.reshape((n,) + p.shape[bd:])[rows, ib]
        return out.reshape(bshape + out.shape[1:])
    pb = p.reshape((-1,) + p.shape[bd:])
    ib = ind.reshape((-1,) + ind.shape[bd:])
    out = np.stack([np.take(pb[i], ib[i], axis=axis - bd) for i in range(pb.shape[0])])
    return out.reshape(bshape + out.shape[1:])


gather_p.def_shape(lambda p, ind, *, axis, batch_dims, sparse_grad=False:
                   tuple(p[:axis]) + tuple(ind[batch_dims:]) + tuple(p[axis + 1:]))


@gather_p.def_jvp
def _gather_jvp(primals, tangents, *, out, axis, batch_dims, sparse_grad=False):
    tangents = instantiate_zeros(primals, tangents)
    return bind(gather_p, tangents[0], primals[1], axis=axis, batch_dims=batch_dims)


@gather_p.def_vjp
def _gather_vjp(ct, p, ind, *, out, needs, batch, axis, batch_dims, sparse_grad=False):
    """VJP of gather: the cotangent rows at the gathered positions. For the public `gather`
    along axis 0 (outside a vectorized Jacobian) that is TensorFlow's sparse `IndexedSlices`,
    which the reverse pass adds to others by concatenation and makes dense where a dense
    cotangent is needed; otherwise the rows scatter-added into zeros shaped like ``p``."""
    shape = tuple(core.shape_of(p))
    if sparse_grad and not batch and all(type(d) is int for d in shape):
        return (IndexedSlices(reshape(ct, (-1,) + shape[1:]), reshape(ind, (-1,)),
                              dense_shape=shape), None)
    return (bind(gather_vjp_p, ct, ind, shape=shape, axis=axis,
                 batch_dims=batch_dims, nbatch=len(batch)), None)


gather_vjp_p = Primitive("gather_transpose", unify=False, batch_rule=True, fresh=True)


@gather_vjp_p.def_impl
def _gather_vjp_impl(ct, ind, *like, shape, axis, batch_dims, nbatch):
    if like:    # the shape of a tensor whose dynamic axis has its size in this call
        shape = np.shape(like[0])
    lead = ct.shape[:nbatch]
    z = np.zeros(lead + tuple(shape), ct.dtype)
    if batch_dims == 0:
        # ct axes: lead + shape[:axis] + ind.shape + shape[axis+1:]; move them to match z
        zi = np.moveaxis(z, nbatch + axis, 0)
        c = np.moveaxis(ct, tuple(range(nbatch + axis, nbatch + axis + ind.ndim)),
                        tuple(range(ind.ndim)))
        np.add.at(zi, ind, c)
        return z
    zb = z.reshape(lead + (-1,) + tuple(shape[batch_dims:]))
    cb = ct.reshape(lead + (-1,) + ct.shape[nbatch + batch_dims:])
    ib = ind.reshape((-1,) + ind.shape[batch_dims:])
    if axis == batch_dims:      # one scatter-add with a fancy index, no loop
        rows = np.arange(ib.shape[0]).reshape((-1,) + (1,) * (ib.ndim - 1))
        np.add.at(zb, (slice(None),) * nbatch + (rows, ib), cb)
        return z
    ax = nbatch + 1 + axis - batch_dims
    for i in range(ib.shape[0]):
        zi = np.moveaxis(zb[(slice(None),) * nbatch + (i,)], ax - 1, 0)
        c = np.moveaxis(cb[(slice(None),) * nbatch + (i,)],
                        tuple(range(ax - 1, ax - 1 + ib[i].ndim)), tuple(range(ib[i].ndim)))
        np.add.at(zi, ib[i], c)
    return z


@gather_vjp_p.def_lowering
def _gather_vjp_lower(ct, ind, *like, shape, axis, batch_dims, nbatch):
    # the transpose of gather's lowering (a scatter-add); an out-of-range index is dropped
    import jax
    import jax.numpy as jnp
    shape = tuple(like[0].shape) if like else tuple(shape)
    gather = lambda p: _gather_lower(p, ind, axis=axis, batch_dims=batch_dims)  # noqa: E731
    transpose = jax.linear_transpose(gather, jax.ShapeDtypeStruct(shape, ct.dtype))
    one = lambda c: transpose(c)[0]   # noqa: E731
    for _ in range(nbatch):
        one = jax.vmap(one)
    return one(jnp.asarray(ct))


gather_vjp_p.def_shape(lambda ct, ind, *like, shape, axis, batch_dims, nbatch:
                       tuple(ct[:nbatch]) + tuple(shape))


@gather_vjp_p.def_vmap
def _gather_vjp_vmap(args, batched, *, shape, axis, batch_dims, nbatch):
    """A batched cotangent alone: one more leading (Jacobian-like) axis; batched indices
    (each slice scatters its own rows): the batch is one more batch dimension."""
    if not any(batched[1:]):
        return bind(gather_vjp_p, *args, shape=shape, axis=axis, batch_dims=batch_dims,
                    nbatch=nbatch + 1)
    if nbatch:
        return NotImplemented
    return bind(gather_vjp_p, *batch_all(args, batched),
                shape=(batch_size(args, batched),) + tuple(shape), axis=axis + 1,
                batch_dims=batch_dims + 1, nbatch=0)


@gather_vjp_p.def_jvp
def _gather_vjp_jvp(primals, tangents, *, out, shape, axis, batch_dims, nbatch):
    tangents = instantiate_zeros(primals, tangents)
    return bind(gather_vjp_p, tangents[0], *primals[1:], shape=shape, axis=axis,
                batch_dims=batch_dims, nbatch=nbatch)


@gather_vjp_p.def_vjp
def _gather_vjp_vjp(ct, g, ind, *like, out, needs, batch, shape, axis, batch_dims, nbatch):
    """VJP of the gather transpose: gather again (batch axes in front)."""
    b = len(batch) + nbatch
    if b == 0:
        return (bind(gather_p, ct, ind, axis=axis, batch_dims=batch_dims), None) + \
            (None,) * len(like)
    lead = ct._value.shape[:b]
    flat = reshape(ct, (-1,) + tuple(shape))
    parts = [bind(gather_p, flat[i], ind, axis=axis, batch_dims=batch_dims)
             for i in range(flat._value.shape[0])]
    return (reshape(stack(parts), lead + parts[0]._value.shape), None) + (None,) * len(like)


class IndexedSlices:
    """A sparse slice of a dense tensor: rows ``indices`` (along axis 0) hold ``values``,
    repeated indices adding up, as TensorFlow's ``tf.IndexedSlices``.

    It is what `GradientTape.gradient` returns for a variable or tensor used only through
    `gather` (or ``nn.embedding_lookup``) along axis 0, and the argument of
    ``Variable.scatter_update`` and its siblings. Ops given one use its dense value
    (``convert_to_tensor``; differentiable); ``-s`` and ``math.scalar_mul`` keep it sparse.

    >>> import finegrad as fg
    >>> s = fg.IndexedSlices(fg.constant([[1., 2.]]), fg.constant([3]), dense_shape=[5, 2])
    >>> s.indices.numpy(), s.shape
    (array([3], dtype=int32), TensorShape([5, 2]))
    >>> fg.convert_to_tensor(s).numpy()[3]
    array([1., 2.], dtype=float32)
    """

    def __init__(self, values: Any, indices: TensorLike,
                 dense_shape: TensorLike | None = None) -> None:
        self.values = convert_to_tensor(values)
        self.indices = convert_to_tensor(indices)
        if not self.indices.dtype.is_integer:
            raise TypeError(f"finegrad.IndexedSlices: indices must be integers, got "
                            f"{self.indices.dtype.name}")
        self.dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    @property
    def dtype(self) -> DType:
        return self.values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense tensor's shape: ``dense_shape`` when given, else the values' with an
        unknown first axis."""
        if self.dense_shape is not None:
            return TensorShape([int(d) for d in self.dense_shape._value])
        return TensorShape([None] + list(self.values.shape)[1:])

    def _as_tensor(self):
        """The dense tensor (a recorded scatter-add, so gradients flow to ``values``)."""
        if self.dense_shape is None:
            raise ValueError("finegrad.convert_to_tensor: an IndexedSlices without dense_shape "
                             "has no dense value (its first dimension is unknown)")
        return bind(gather_vjp_p, self.values, self.indices, shape=tuple(self.shape.as_list()),
                    axis=0, batch_dims=0, nbatch=0)

    def _nest_components(self):
        """What a traced function returns for it, rebuilt by `_from_nest_components`."""
        return (self.values, self.indices, self.dense_shape)

    @classmethod
    def _from_nest_components(cls, parts):
        out = object.__new__(cls)
        out.values, out.indices, out.dense_shape = parts
        return out

    def __neg__(self):
        return IndexedSlices(-self.values, self.indices, self.dense_shape)

    def __add__(self, other):
        raise TypeError("unsupported operand type(s) for +: 'IndexedSlices' and "
                        f"'{type(other).__name__}' (as in TensorFlow: add their dense values "
                        "with finegrad.add, or concatenate values and indices)")

    __radd__ = __add__

    def __repr__(self):
        return (f"IndexedSlices(indices={self.indices!r}, values={self.values!r}, "
                f"dense_shape={self.dense_shape!r})")


def add_cotangents(a, b):
    """``a + b`` for cotangents that may be `IndexedSlices`: two of them concatenate (stay
    sparse, as TensorFlow's aggregation), otherwise the dense values add."""
    if type(a) is type(b) is Tensor:     # the common case first: no sparse cotangent
        return a + b
    if type(a) is IndexedSlices:
        if type(b) is IndexedSlices and a.shape == b.shape:
            return IndexedSlices(concat([a.values, b.values], 0),
                                 concat([a.indices, b.indices], 0), a.dense_shape)
        a = a._as_tensor()
    if type(b) is IndexedSlices:
        b = b._as_tensor()
    return a + b


def dense_cotangent(c):
    """``c`` as a dense tensor when it is an `IndexedSlices` (what a VJP rule receives)."""
    return c._as_tensor() if type(c) is IndexedSlices else c
