"""The primitives that exist only in compiled graphs, made by the rewrites of `rewrite`: the
sum of scatters into zeros (``scatter_sum_into_zeros``), a strided slice copied into a
contiguous buffer (``strided_slice_copy``) and one read in place (``strided_slice_view``).
`fuse` and `executor` recognize them; their impls take ``out=``, a recycled buffer (see
`executor.emit_steps`)."""
import numpy as np

from finegrad._src.core import Primitive, def_nondiff
from finegrad._src.ops.lowering import interleave, pad_into_zeros

scatter_sum_p = def_nondiff(Primitive("scatter_sum_into_zeros", unify=False, fresh=True,
                                      into_pool=True))
slice_copy_p = def_nondiff(Primitive("strided_slice_copy", unify=False, fresh=True,
                                     into_pool=True))
view_p = def_nondiff(Primitive("strided_slice_view", unify=False))

@scatter_sum_p.def_impl
def _scatter_sum_impl(*cts, shape, indices, covers=False, out=None):
    """The sum of the scatters of each ``cts[k]`` at ``indices[k]`` into zeros of ``shape``
    (``out``, zeroed, when given). ``covers``: the (basic) indices address every element
    once, so each one is written ``0 + ct`` directly, with no zeros written first."""
    if covers:
        z = np.empty(shape, cts[0].dtype) if out is None else out
        zero = z.dtype.type(0)
        for ct, index in zip(cts, indices, strict=True):
            np.add(zero, ct, out=z[index.idx])
        return z
    if out is None:
        z = np.zeros(shape, cts[0].dtype)
    else:
        z = out
        z.fill(0)
    for ct, index in zip(cts, indices, strict=True):
        if index.basic:
            z[index.idx] += ct
        else:
            np.add.at(z, index.idx, ct)
    return z


@scatter_sum_p.def_lowering
def _scatter_sum_lower(*cts, shape, indices, covers=False):
    """Slices of one axis that together cover it (``x[0::2]``, ``x[1::2]``) interleaved;
    otherwise each plain slice's cotangent padded with zeros (`lax.pad`, which XLA fuses
    into the sum), the others scattered."""
    import jax.numpy as jnp
    if covers:   # (every element once: maybe slices of one axis that interleave)
        woven = interleave(cts, shape, [index.idx for index in indices])
        if woven is not None:
            return woven
    z = jnp.zeros(shape, cts[0].dtype)   # impl's covering case writes 0 + ct too
    for ct, index in zip(cts, indices, strict=True):
        padded = pad_into_zeros(ct, shape, index.idx) if index.basic else None
        z = z.at[index.idx].add(ct) if padded is None else z + padded
    return z


@slice_copy_p.def_impl
def _slice_copy_impl(x, *, index, out=None):
    """``x[index]`` copied into a new contiguous array (``out`` when given)."""
    if out is None:
        return np.array(x[index.idx])
    np.copyto(out, x[index.idx])
    return out


@slice_copy_p.def_lowering
def _slice_copy_lower(x, *, index):
    return x[index.idx]


@view_p.def_impl
def _view_impl(x, *, index):
    """``x[index]``, a view (a basic index)."""
    return x[index.idx]


@view_p.def_lowering
def _view_lower(x, *, index):
    return x[index.idx]
