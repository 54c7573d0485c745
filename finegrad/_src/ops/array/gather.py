"""Gathering: `gather` (primitive ``gather``) and its transpose, ``gather_transpose``.

It imports the core modules, `ops.zeros_and_axes` and `ops.array.structural` (its
second-order rule reshapes and stacks); nothing in the ops below it needs a gather.
"""
import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.zeros_and_axes import _normalize_axis, instantiate_zeros
from finegrad._src.ops.array.structural import _t, reshape, stack, batch_all, batch_size


gather_p = Primitive("gather", unify=False, batch_rule=True, fresh=True)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Take slices of ``params`` along ``axis`` at integer ``indices``. Primitive ``gather``
    (its VJP is primitive ``gather_transpose``).

    Out-of-range indices are an IndexError (TensorFlow's CPU kernel also refuses them).

    >>> import finegrad as fg
    >>> fg.gather(fg.constant([10., 20., 30.]), [2, 0]).numpy()
    array([30., 10.], dtype=float32)
    """
    p = _t(params)
    ind = _t(indices)
    if not ind.dtype.is_integer:
        raise TypeError(f"finegrad.gather: indices must be integers, got {ind.dtype.name}")
    a = _normalize_axis(batch_dims if axis is None else axis, p._value.ndim, "finegrad.gather")
    bd = int(batch_dims) % (ind._value.ndim + 1) if batch_dims else 0
    if bd > a:
        raise ValueError(f"finegrad.gather: batch_dims ({batch_dims}) must not exceed axis ({a})")
    return bind(gather_p, p, ind, axis=a, batch_dims=bd)


@gather_p.def_impl
def _gather_impl(p, ind, *, axis, batch_dims):
    # checked here, where compiled graphs check each call's indices too (np.take would wrap -1)
    n = p.shape[axis]
    if ind.size and (ind.min() < 0 or ind.max() >= n):
        tracer = core.current_tracer()
        if n and tracer is not None and tracer.examples:
            ind = np.clip(ind, 0, n - 1)  # made-up values of an input_signature: shapes matter
        else:
            raise IndexError(f"finegrad.gather: indices must be in [0, {n}) for axis {axis} of "
                             f"a tensor of shape {tuple(p.shape)}, got values in "
                             f"[{ind.min()}, {ind.max()}]")
    if batch_dims == 0:
        out = np.take(p, ind, axis=axis)
        return np.array(out, object) if type(out) is bytes else out   # a string scalar
    return _gather_batched(p, ind, axis, batch_dims)


@gather_p.def_vmap
def _gather_vmap(args, batched, *, axis, batch_dims):
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


gather_p.def_shape(lambda p, ind, *, axis, batch_dims:
                   tuple(p[:axis]) + tuple(ind[batch_dims:]) + tuple(p[axis + 1:]))


@gather_p.def_jvp
def _gather_jvp(primals, tangents, *, out, axis, batch_dims):
    tangents = instantiate_zeros(primals, tangents)
    return bind(gather_p, tangents[0], primals[1], axis=axis, batch_dims=batch_dims)


@gather_p.def_vjp
def _gather_vjp(ct, p, ind, *, out, needs, batch, axis, batch_dims):
    """VJP of gather: scatter-add the cotangent rows back to the gathered positions (into
    zeros shaped like ``p``, whose sizes may be symbolic)."""
    return (bind(gather_vjp_p, ct, ind, shape=tuple(core.shape_of(p)), axis=axis,
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
