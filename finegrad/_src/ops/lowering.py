"""What the XLA lowerings of primitives (`core.Primitive`'s ``lower_jax``) share: `jnp`, JAX's
NumPy imported on first use, so that op modules import without JAX installed, and
`pad_into_zeros`, the scatter of a cotangent into zeros at a plain slice, lowered as a pad."""
import numbers
import operator


def jnp():
    """``jax.numpy`` (imported when a lowering first runs: JAX is an optional extra)."""
    import jax.numpy
    return jax.numpy


def _full_index(idx, ndim):
    """``idx`` with its Ellipsis (at most one) and its missing trailing axes as full slices;
    None where it holds anything but ints, slices and one Ellipsis."""
    if not all(i is Ellipsis or isinstance(i, slice) or (
            isinstance(i, numbers.Integral) and not isinstance(i, bool)) for i in idx):
        return None
    ell = [k for k, i in enumerate(idx) if i is Ellipsis]
    if len(ell) > 1:
        return None
    if ell:
        k = ell[0]
        idx = idx[:k] + (slice(None),) * (ndim - len(idx) + 1) + idx[k + 1:]
    return idx + (slice(None),) * (ndim - len(idx))


def _pad_config(idx, shape):
    """``(low, high, interior)`` per axis of ``shape``, the shape ``x[idx]`` has with its
    integer entries kept as axes of size 1, and that shape without them, for an index of ints,
    slices with positive steps and at most one Ellipsis; None for any other index (None
    entries, arrays, negative steps), or when the slice is empty."""
    idx = _full_index(idx, len(shape))
    if idx is None:
        return None
    config, kept, dropped = [], [], []
    for i, dim in zip(idx, shape, strict=True):
        if isinstance(i, slice):
            start, stop, step = i.indices(dim)
            n = len(range(start, stop, step))
            if step <= 0 or n == 0:
                return None
            config.append((start, dim - 1 - start - (n - 1) * step, step - 1))
            kept.append(n)
            dropped.append(n)
        else:
            j = operator.index(i)
            j = j + dim if j < 0 else j
            config.append((j, dim - 1 - j, 0))
            kept.append(1)
    return config, tuple(kept), tuple(dropped)


def pad_into_zeros(ct, shape, idx):
    """Zeros of ``shape`` with ``ct`` written at the basic index ``idx`` (NumPy's
    ``z[idx] = ct``), as one ``lax.pad`` (interior padding for the steps of the slices), which
    XLA fuses with its neighbours where a scatter stays a loop of its own. None when ``idx``
    is not ints, slices with positive steps and Ellipsis (the caller scatters then)."""
    got = _pad_config(tuple(idx), tuple(shape))
    if got is None:
        return None
    from jax import lax
    config, kept, sliced = got
    np_ = jnp()
    ct = np_.reshape(np_.broadcast_to(ct, sliced), kept)
    return lax.pad(ct, np_.zeros((), ct.dtype), config)


def interleave(cts, shape, idxs):
    """The array of ``shape`` whose elements the basic indices ``idxs`` address, ``cts[k]``
    at ``idxs[k]``, when they are the slices ``start::step`` of one axis for each start
    ``0 .. step-1`` (full slices elsewhere, the axis a multiple of ``step``): the
    cotangents stacked on a new axis after that one, reshaped (``x[0::2]`` and ``x[1::2]``
    back into ``x``'s shape). None for any other indices. XLA fuses this into the producers'
    loop with no per-element test, where two interior pads test each element twice."""
    full = [_full_index(tuple(i), len(shape)) for i in idxs]
    if any(f is None for f in full) or len(full) < 2:
        return None
    axes = {a for f in full for a, (i, dim) in enumerate(zip(f, shape, strict=True))
            if not isinstance(i, slice) or range(*i.indices(dim)) != range(dim)}
    if len(axes) != 1:
        return None
    a, step = axes.pop(), len(full)
    dim = shape[a]
    if dim % step or not all(isinstance(f[a], slice) for f in full):
        return None
    # (ranges compare as sequences: 0:99999:2 and 0::2 are the same elements)
    ranges = [range(*f[a].indices(dim)) for f in full]
    order = sorted(range(step), key=lambda k: ranges[k].start if ranges[k] else -1)
    if [ranges[k] for k in order] != [range(s, dim, step) for s in range(step)]:
        return None
    np_ = jnp()
    sliced = tuple(shape[:a]) + (dim // step,) + tuple(shape[a + 1:])
    parts = [np_.broadcast_to(cts[k], sliced) for k in order]
    return np_.reshape(np_.stack(parts, axis=a + 1), shape)
