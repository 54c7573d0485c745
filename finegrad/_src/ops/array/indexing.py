"""Indexing: ``x[idx]`` (primitive ``strided_slice``) and its transposes, the scatters
``scatter_add_into_zeros``.

The VJPs of `concat`, `unstack` and `split` (in `array`) slice with `getitem`, so
this module sits below `array`: it imports only the core modules and `ops.zeros_and_axes` (its input
conversion does not pack lists of tensors, which would need `stack`).
"""
import numbers

import numpy as np

from finegrad._src import core, dims
from finegrad._src import tensor as tensor_module
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.lowering import pad_into_zeros
from finegrad._src.ops.zeros_and_axes import as_tensor, _static
from finegrad._src.tensor import Tensor


class _Index:
    """A NumPy index (ints, slices, None, Ellipsis, integer or boolean arrays), kept as a param.

    Wrapped so that params stay comparable and printable; arrays are compared by identity.
    """

    __slots__ = ("idx", "basic")

    def __init__(self, idx):
        self.idx = idx
        self.basic = all(isinstance(i, (int, slice, type(None), type(Ellipsis))) for i in idx)

    def batched(self, b):
        return (slice(None),) * b + self.idx if b else self.idx

    def _has_dims(self):
        """Whether a slice bound is a symbolic size (a rule's slice of a traced shape)."""
        return any(dims.has_dims(i) for i in self.idx if isinstance(i, slice))

    def _resolve_dims(self, resolve):
        return _Index(tuple(resolve(i) if isinstance(i, slice) else i for i in self.idx))

    def __repr__(self):
        return "[" + ", ".join(_fmt_index(i) for i in self.idx) + "]"


def _fmt_index(i):
    if isinstance(i, slice):
        return ":".join("" if v is None else str(v) for v in (i.start, i.stop, i.step)) \
            .rstrip(":") or ":"
    if i is None:
        return "newaxis"
    if i is Ellipsis:
        return "..."
    if isinstance(i, np.ndarray):
        return f"array{list(i.shape)}"
    return str(i)


def _normalize_index(idx, shape):
    if not isinstance(idx, tuple):
        idx = (idx,)
    out = []
    for i in idx:
        if isinstance(i, Tensor):   # an index is part of the op: use gather for traced ones
            i = _static(i, "a tensor used as an index (use finegrad.gather)")
        if isinstance(i, (list, np.ndarray)):
            i = np.asarray(i)
            if i.dtype.kind not in "biu":
                raise TypeError(f"finegrad.Tensor.__getitem__: index arrays must be integer or "
                                f"boolean, got {i.dtype}")
        elif isinstance(i, numbers.Integral) and not isinstance(i, (bool, np.bool_)):
            i = int(i)
        elif isinstance(i, slice):
            i = slice(*(_slice_entry(v) for v in (i.start, i.stop, i.step)))
        elif i is not None and i is not Ellipsis:
            raise TypeError(f"finegrad.Tensor.__getitem__: unsupported index {i!r} of type "
                            f"{type(i).__name__}; use ints, slices, None, ... or int arrays")
        out.append(i)
    return _Index(tuple(out))


def _slice_entry(v):
    """A slice bound as an int, or a Dim when a shape-polymorphic trace knows the tensor as a
    symbolic size (``x[:shape(x)[0] - 1]``: the graph follows it); else a value guard."""
    if v is None or type(v) is dims.Dim:
        return v
    if isinstance(v, Tensor):
        sym = tensor_module._static_size(v)
        return sym if type(sym) is dims.Dim else int(_static(v, "a slice bound"))
    return int(v)


getitem_p = Primitive("strided_slice", unify=False, batch_rule=True)


def getitem(x, idx):
    """``x[idx]`` with NumPy semantics (basic slicing, strides, int and bool arrays).

    Primitive ``strided_slice`` (its VJP scatters with ``scatter_add_into_zeros``).

    >>> import finegrad as fg
    >>> fg.constant([1., 2., 3., 4.])[0::2].numpy()
    array([1., 3.], dtype=float32)
    """
    x = as_tensor(x)
    index = idx if isinstance(idx, _Index) else _normalize_index(idx, x._value.shape)
    try:
        x._value[dims.concrete(index.idx)]
    except IndexError as e:
        raise IndexError(f"finegrad.strided_slice: index {index!r} is out of range for a "
                         f"tensor of shape {tuple(x._value.shape)}: {e}") from None
    return bind(getitem_p, x, index=index)


#: a strided slice with more elements than this is copied (contiguous) by `strided_slice`
COPY_MIN = 4096


@getitem_p.def_impl
def _getitem_impl(x, *, index):
    out = x[index.idx]
    if type(out) is bytes:    # one entry of a string tensor: kept a (0-d) NumPy array
        return np.array(out, object)
    # a strided view makes every later op on it slower (2x for step 2); a large one is copied
    # once, contiguous. Small ones stay views (values are never written in place).
    if index.basic and isinstance(out, np.ndarray) and out.size > COPY_MIN and \
            not out.flags.c_contiguous:
        return np.ascontiguousarray(out)
    return out


@getitem_p.def_lowering
def _getitem_lower(x, *, index):
    # jax.numpy indexes as NumPy does (constant index arrays and masks included)
    return x[index.idx]


@getitem_p.def_shape
def _getitem_shape(x, *, index):
    """NumPy indexing of a shape with symbolic sizes: ints drop an axis, None adds one, a
    slice keeps its length (clamped at the trace's sizes, strides by ``//``), and index
    arrays (constants) give their broadcast shape, placed as NumPy places it: where the
    arrays stand when they are adjacent, in front otherwise. A boolean mask over an open
    axis keeps that axis at its traced size."""
    idx = _full_index(list(index.idx), len(x))
    entries, axis = [], 0
    for i in idx:
        if i is None:
            entries.append([1])
        elif isinstance(i, slice):
            entries.append([_slice_length(i, x[axis])])
        else:
            if isinstance(i, np.ndarray) and i.dtype == np.bool_:
                dims.pin(x[axis:axis + _consumed(i)], "a boolean mask over a dynamic axis")
            entries.append([])
        axis += _consumed(i)
    if index.basic:
        return tuple(d for made in entries for d in made)
    adv = [k for k, i in enumerate(idx) if isinstance(i, (int, np.ndarray))]
    shape = np.broadcast_shapes(*[np.nonzero(i)[0].shape if isinstance(i, np.ndarray)
                                  and i.dtype == np.bool_ else np.shape(i)
                                  for i in (idx[k] for k in adv)])
    before = [d for made in entries[:adv[0]] for d in made]
    after = [d for made in entries[adv[0]:] for d in made]
    if adv == list(range(adv[0], adv[-1] + 1)):
        return tuple(before) + shape + tuple(after)
    return shape + tuple(before) + tuple(after)


def _slice_length(s, n):
    """The length of slice ``s`` of an axis of size ``n`` (either may be symbolic)."""
    if type(n) is not dims.Dim and not dims.has_dims(s):
        return len(range(*s.indices(n)))
    step = 1 if s.step is None else s.step
    if s.start is None and s.stop is None:   # the whole axis: no guard on its size
        return n if abs(step) == 1 else (n + abs(step) - 1) // abs(step)
    if step > 0:   # exact at every size, no guard (dims.slice_bound)
        lo = 0 if s.start is None else _low_bound(s.start, n)
        hi = n if s.stop is None else _high_bound(s.stop, n)
        return dims.at_least_zero((hi - lo + step - 1) // step)
    lo = n - 1 if s.start is None else dims.reverse_slice_bound(s.start, n)
    hi = -1 if s.stop is None else dims.reverse_slice_bound(s.stop, n)
    return dims.at_least_zero(lo - hi - step - 1) // -step   # exact, no guard


def _low_bound(i, n):
    """A start bound (positive step): clamped below only; past ``n`` the length is 0 anyway."""
    if type(i) is not dims.Dim and i >= 0:
        return i
    return dims.slice_bound(i, n)


def _high_bound(i, n):
    """A stop bound (positive step): clamped above only; below 0 the length is 0 anyway."""
    if type(i) is not dims.Dim and i < 0:
        return n + i
    return dims.slice_bound(i, n)


def _consumed(i):
    """How many axes of the indexed tensor one index entry consumes."""
    if i is None or i is Ellipsis:
        return 0
    if isinstance(i, np.ndarray) and i.dtype == np.bool_:
        return max(i.ndim, 1)
    return 1


def _full_index(idx, n):
    """``idx`` with its Ellipsis (or the missing trailing axes) written as full slices."""
    used = sum(_consumed(i) for i in idx)
    ell = [k for k, i in enumerate(idx) if i is Ellipsis]
    if ell:
        idx[ell[0]:ell[0] + 1] = [slice(None)] * (n - used)
    else:
        idx += [slice(None)] * (n - used)
    return idx


def _batched_index(index):
    """``index`` with a full slice in front (for slices along a new axis 0), or None where
    NumPy would then move the indexed axes elsewhere: advanced (array) entries that are not
    adjacent go first, before the new axis."""
    if not index.basic:
        adv = [k for k, i in enumerate(index.idx) if not isinstance(i, (slice, type(None),
                                                                          type(Ellipsis)))]
        if adv[-1] - adv[0] + 1 != len(adv):
            return None
    return _Index(index.batched(1))


@getitem_p.def_vmap
def _getitem_vmap(args, batched, *, index):
    b = _batched_index(index)
    return NotImplemented if b is None else bind(getitem_p, args[0], index=b)


@getitem_p.def_jvp
def _getitem_jvp(primals, tangents, *, out, index):
    return getitem(tangents[0], index)


@getitem_p.def_vjp
def _getitem_vjp(ct, x, *, out, needs, batch, index):
    """VJP of slicing: the cotangent scattered (added) into zeros of the input's shape."""
    bs = tuple(batch)
    return (bind(scatter_add_p, ct, shape=bs + tuple(core.shape_of(x)),
                 index=_Index(index.batched(len(bs)))),)


scatter_add_p = Primitive("scatter_add_into_zeros", unify=False, batch_rule=True, fresh=True)


scatter_add_p.def_shape(lambda ct, *, shape, index: tuple(shape))


@scatter_add_p.def_impl
def _scatter_add_impl(ct, *, shape, index):
    z = np.zeros(shape, ct.dtype)
    if index.basic:
        z[index.idx] = ct
    else:
        np.add.at(z, index.idx, ct)
    return z


@scatter_add_p.def_lowering
def _scatter_add_lower(ct, *, shape, index):
    """A plain slice (ints, slices with positive steps) is a `lax.pad` of the cotangent
    (XLA fuses it; a scatter is a loop of its own); any other index scatters."""
    import jax.numpy as jnp
    padded = pad_into_zeros(ct, shape, index.idx) if index.basic else None
    if padded is not None:
        return padded
    z = jnp.zeros(shape, ct.dtype)
    # a basic index writes each element once: set, as impl assigns (keeps a -0.0 cotangent)
    return z.at[index.idx].set(ct) if index.basic else z.at[index.idx].add(ct)


@scatter_add_p.def_vmap
def _scatter_add_vmap(args, batched, *, shape, index):
    b = _batched_index(index)
    return NotImplemented if b is None else bind(
        scatter_add_p, args[0], shape=core.shape_of(args[0])[:1] + tuple(shape), index=b)


@scatter_add_p.def_jvp
def _scatter_add_jvp(primals, tangents, *, out, shape, index):
    return bind(scatter_add_p, tangents[0], shape=shape, index=index)


@scatter_add_p.def_vjp
def _scatter_add_vjp(ct, g, *, out, needs, batch, shape, index):
    """VJP of the scatter: slicing, its transpose."""
    b = len(batch)
    return (getitem(ct, _Index(index.batched(b))),)
