"""Keras's core group (loops, switch, scatter, slicing, casts), written once with other ops
for every backend; each takes the backend ``b`` first. Backends with a native loop or scatter
override these."""
import numpy as _np

from finegrad._src import nest as _nest
from finegrad._src.backends.composite.numpy import _t


def fori_loop(b, lower, upper, body_fun, init_val):
    def cond(i, _):
        return b.less(i, upper)

    def body(i, v):
        return b.add(i, 1), body_fun(i, v)
    return b.while_loop(cond, body, (lower, init_val))[1]


def switch(b, index, branches, *operands):
    i = int(_np.clip(int(b.convert_to_numpy(index)) if b.is_tensor(index) else int(index),
                     0, len(branches) - 1))
    return branches[i](*operands)


def map(b, f, xs):  # (Keras's name)
    leaves = _nest.flatten(xs)
    n = b.static_shape(_t(b, leaves[0]))[0]
    outs = [f(_nest.pack_sequence_as(xs, [_t(b, v)[i] for v in leaves])) for i in range(n)]
    flat = [_nest.flatten(o) for o in outs]
    return _nest.pack_sequence_as(outs[0], [b.stack([row[j] for row in flat], 0)
                                            for j in range(len(flat[0]))])


def vectorized_map(b, function, elements):
    return map(b, function, elements)


def scan(b, f, init, xs=None, length=None, reverse=False, unroll=1):
    n = length if xs is None else b.static_shape(_t(b, _nest.flatten(xs)[0]))[0]
    carry, ys = init, []
    for i in (reversed(range(n)) if reverse else range(n)):
        x = None if xs is None else _nest.map_structure(lambda v, i=i: _t(b, v)[i], xs)
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys or ys[0] is None:
        return carry, None
    flat = [_nest.flatten(y) for y in ys]
    stacked = [b.stack([row[j] for row in flat], 0) for j in range(len(flat[0]))]
    return carry, _nest.pack_sequence_as(ys[0], stacked)


def associative_scan(b, f, elems, reverse=False, axis=0):
    leaves = [_t(b, v) for v in _nest.flatten(elems)]
    n = b.static_shape(leaves[0])[axis]
    order = list(range(n))[::-1] if reverse else list(range(n))
    acc, outs = None, {}
    for i in order:
        cur = _nest.pack_sequence_as(elems, [b.take(v, i, axis) for v in leaves])
        acc = cur if acc is None else f(acc, cur)
        outs[i] = _nest.flatten(acc)
    return _nest.pack_sequence_as(elems, [b.stack([outs[i][j] for i in range(n)], axis)
                                          for j in range(len(leaves))])


def unstack(b, x, num=None, axis=0):
    x = _t(b, x)
    n = b.static_shape(x)[axis]
    return [b.take(x, i, axis) for i in range(n)]


def saturate_cast(b, x, dtype):
    x = _t(b, x)
    if dtype.startswith(("int", "uint")):
        info = _np.iinfo(dtype)
        lo, hi = info.min, info.max
        if b.dtype_name(x).startswith(("float", "bfloat")):
            x = b.clip(x, float(lo), float(hi))
        elif b.dtype_name(x).startswith(("int", "uint")):
            src = _np.iinfo(b.dtype_name(x))
            x = b.clip(x, max(lo, src.min), min(hi, src.max))
    elif dtype.startswith(("float", "bfloat")) and dtype != "float64":
        info = _np.finfo(_np.float32 if dtype == "bfloat16" else dtype)
        if b.dtype_name(x).startswith("float"):
            x = b.clip(x, float(info.min), float(info.max))
    return b.cast(x, dtype)


def scatter(b, indices, values, shape):
    values = _t(b, values)
    zeros = b.zeros(shape, b.dtype_name(values))
    return b.scatter_update(zeros, indices, values, "add")


def slice(b, inputs, start_indices, shape):  # (Keras's name)
    x = _t(b, inputs)
    starts = [int(s) for s in (b.convert_to_numpy(start_indices) if b.is_tensor(start_indices)
                               else start_indices)]
    return x[tuple(_np.s_[s:s + n] for s, n in zip(starts, shape, strict=True))]


def rearrange(b, tensor, pattern, **axes_lengths):
    """Transposes and groupings of ``pattern`` ('b h w c -> b (h w) c') by reshape and
    transpose."""
    x = _t(b, tensor)
    lhs, rhs = (side.strip() for side in pattern.split("->"))
    left, right = _groups(lhs), _groups(rhs)
    sizes = dict(axes_lengths)
    shape = b.static_shape(x)
    for group, size in zip(left, shape, strict=True):
        unknown = [a for a in group if a not in sizes]
        known = int(_np.prod([sizes[a] for a in group if a in sizes]))
        for a in unknown:
            sizes[a] = size // known
    flat_left = [a for g in left for a in g]
    x = b.reshape(x, [sizes[a] for a in flat_left])
    flat_right = [a for g in right for a in g]
    x = b.transpose(x, [flat_left.index(a) for a in flat_right])
    return b.reshape(x, [int(_np.prod([sizes[a] for a in g])) for g in right])


def _groups(side):
    groups, cur = [], None
    for tok in side.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            cur = []
        elif tok == ")":
            groups.append(cur)
            cur = None
        elif cur is not None:
            cur.append(tok)
        else:
            groups.append([tok])
    return groups


def slice_update(b, inputs, start_indices, updates):
    """``inputs`` with the block at ``start_indices`` replaced by ``updates`` (padding the
    update to the input's shape, and a mask of where it lands)."""
    x, u = _t(b, inputs), _t(b, updates)
    starts = [int(s) for s in (b.convert_to_numpy(start_indices) if b.is_tensor(start_indices)
                               else start_indices)]
    widths = [(s, n - s - m) for s, n, m in
              zip(starts, b.static_shape(x), b.static_shape(u), strict=True)]
    padded = b.pad(b.cast(u, b.dtype_name(x)), widths)
    mask = b.cast(b.pad(b.ones(b.static_shape(u), "int32"), widths), "bool")
    return b.where(mask, padded, x)
