"""`keras.ops.numpy`'s NaN-ignoring reductions, selections and searches, written once with
other ops for every backend. Each takes the backend ``b`` first."""
import re as _re

import numpy as _np

from finegrad._src.backends.composite.numpy import _float, _ndim, _t


def _nan_filled(b, x, value):
    x = _t(b, x)
    if not b.dtype_name(x).startswith(("float", "bfloat")):
        return x
    return b.where(b.isnan(x), b.full_like(x, value), x)


def nansum(b, x, axis=None, keepdims=False):
    return b.sum(_nan_filled(b, x, 0), axis, keepdims)


def nanprod(b, x, axis=None, keepdims=False):
    return b.prod(_nan_filled(b, x, 1), axis, keepdims)


def nanmax(b, x, axis=None, keepdims=False):
    x = _t(b, x)
    out = b.max(_nan_filled(b, x, -_np.inf), axis, keepdims)
    allnan = b.all(b.isnan(x), axis, keepdims)
    return b.where(allnan, b.full_like(out, _np.nan), out)


def nanmin(b, x, axis=None, keepdims=False):
    x = _t(b, x)
    out = b.min(_nan_filled(b, x, _np.inf), axis, keepdims)
    allnan = b.all(b.isnan(x), axis, keepdims)
    return b.where(allnan, b.full_like(out, _np.nan), out)


def nanmean(b, x, axis=None, keepdims=False):
    x = _float(b, x)
    count = b.sum(b.cast(b.logical_not(b.isnan(x)), b.dtype_name(x)), axis, keepdims)
    return b.divide(nansum(b, x, axis, keepdims), count)


def nanvar(b, x, axis=None, keepdims=False):
    x = _float(b, x)
    m = nanmean(b, x, axis, True)
    return nanmean(b, b.square(b.abs(b.subtract(x, m))), axis, keepdims)


def nanstd(b, x, axis=None, keepdims=False):
    return b.sqrt(nanvar(b, x, axis, keepdims))


def nancumsum(b, x, axis=None, dtype=None):
    return b.cumsum(_nan_filled(b, x, 0), axis, dtype)


def nancumprod(b, x, axis=None, dtype=None):
    return b.cumprod(_nan_filled(b, x, 1), axis, dtype)


def nanargmax(b, x, axis=None, keepdims=False):
    return b.argmax(_nan_filled(b, x, -_np.inf), axis, keepdims)


def nanargmin(b, x, axis=None, keepdims=False):
    return b.argmin(_nan_filled(b, x, _np.inf), axis, keepdims)


def _eager(b, x, what):
    try:
        return b.convert_to_numpy(x)
    except Exception as e:   # a traced value has no NumPy value
        raise NotImplementedError(f"finegrad.ops.{what}: its output's shape depends on the "
                                  f"values, which the {b.name!r} backend cannot know while "
                                  f"tracing; call it eagerly") from e


def nanquantile(b, x, q, axis=None, method="linear", keepdims=False):
    return _nan_quantile(b, x, q, axis, method, keepdims, 1.0, "nanquantile")


def nanpercentile(b, x, q, axis=None, method="linear", keepdims=False):
    return _nan_quantile(b, x, q, axis, method, keepdims, 100.0, "nanpercentile")


def nanmedian(b, x, axis=None, keepdims=False):
    return _nan_quantile(b, x, 0.5, axis, "linear", keepdims, 1.0, "nanmedian")


def _nan_quantile(b, x, q, axis, method, keepdims, scale, what):
    """Eager only: computed by NumPy's nanquantile on the value (no gradient)."""
    x = _t(b, x)
    qs = _np.asarray(b.convert_to_numpy(q) if b.is_tensor(q) else q, dtype=_np.float64) / scale
    value = _np.nanquantile(_eager(b, x, what), qs, axis=axis, method=method, keepdims=keepdims)
    return b.convert_to_tensor(value, b.result_type(b.dtype_name(x), float))


def select(b, condlist, choicelist, default=0):
    out = b.convert_to_tensor(default)
    dtype = b.result_type(*[b.dtype_name(_t(b, c)) for c in choicelist])
    out = b.cast(out, dtype)
    for cond, choice in reversed(list(zip(condlist, choicelist, strict=True))):
        out = b.where(cond, b.cast(_t(b, choice), dtype), out)
    return out


def isin(b, x1, x2, assume_unique=False, invert=False):
    x1, x2 = _t(b, x1), b.reshape(_t(b, x2), (-1,))
    eq = b.equal(b.expand_dims(x1, -1), x2)
    out = b.any(eq, -1)
    return b.logical_not(out) if invert else out


def digitize(b, x, bins):
    x, bins = _t(b, x), _t(b, bins)
    return b.sum(b.cast(b.greater_equal(b.expand_dims(x, -1), bins), "int32"), -1)


def searchsorted(b, sorted_sequence, values, side="left"):
    s, v = _t(b, sorted_sequence), _t(b, values)
    cmp = b.less(s, b.expand_dims(v, -1)) if side == "left" else \
        b.less_equal(s, b.expand_dims(v, -1))
    return b.sum(b.cast(cmp, "int32"), -1)


def histogram(b, x, bins=10, range=None):  # (Keras's name)
    x = b.reshape(_float(b, x), (-1,))
    lo, hi = (b.min(x), b.max(x)) if range is None else range
    edges = b.linspace(lo, hi, bins + 1, True, False, None, 0)
    idx = b.clip(b.subtract(b.sum(b.cast(b.greater_equal(b.expand_dims(x, -1), edges),
                                         "int32"), -1), 1), 0, bins - 1)
    inside = b.logical_and(b.greater_equal(x, lo), b.less_equal(x, hi))
    counts = b.sum(b.cast(b.logical_and(b.equal(b.expand_dims(idx, -1), b.arange(bins)),
                                        b.expand_dims(inside, -1)), "float32"), 0)
    return counts, edges


def meshgrid(b, *x, indexing="xy"):
    xs = [b.reshape(_t(b, v), (-1,)) for v in x]
    n = len(xs)
    out = []
    for i, v in enumerate(xs):
        shape = [1] * n
        shape[i] = -1
        out.append(b.reshape(v, shape))
    if indexing == "xy" and n >= 2:
        out = [b.swapaxes(o, 0, 1) for o in out]
    full = b.zeros([b.static_shape(v)[0] for v in xs], "bool")
    if indexing == "xy" and n >= 2:
        full = b.swapaxes(full, 0, 1)
    return [b.add(o, b.cast(full, b.dtype_name(o))) for o in out]


def unravel_index(b, indices, shape):
    idx = _t(b, indices)
    out = []
    for d in reversed(shape):
        out.append(b.mod(idx, d))
        idx = b.floor_divide(idx, d)
    return tuple(reversed(out))


def argpartition(b, x, kth, axis=-1):
    return b.argsort(x, axis)


def correlate(b, x1, x2, mode="valid"):
    x1, x2 = _float(b, x1), _float(b, x2)
    n, m = b.static_shape(x1)[0], b.static_shape(x2)[0]
    pad = {"valid": 0, "same": m // 2, "full": m - 1}[mode]
    right = {"valid": 0, "same": m - 1 - m // 2, "full": m - 1}[mode]
    xp = b.pad(x1, [(pad, right)])
    length = n + pad + right - m + 1
    rows = b.add(b.expand_dims(b.arange(length, dtype="int32"), 1),
                 b.expand_dims(b.arange(m, dtype="int32"), 0))
    return b.sum(b.multiply(b.take(xp, rows, 0), b.conj(x2)), -1)


def bincount(b, x, weights=None, minlength=0, sparse=False):
    x = _t(b, x)
    length = max(int(_np.max(_eager(b, x, "bincount"), initial=-1)) + 1, minlength)
    hit = b.equal(b.expand_dims(x, -1), b.arange(length, dtype=b.dtype_name(x)))
    if weights is None:
        return b.sum(b.cast(hit, "int32"), -2)
    w = _t(b, weights)
    return b.sum(b.multiply(b.cast(hit, b.dtype_name(w)), b.expand_dims(w, -1)), -2)


def nonzero(b, x):
    value = _eager(b, x, "nonzero")
    return tuple(b.convert_to_tensor(i.astype(_np.int32)) for i in _np.nonzero(value))


def unique(b, x, sorted=True, return_index=False, return_inverse=False,
           return_counts=False, axis=None, size=None, fill_value=None):
    value = _eager(b, x, "unique")
    res = _np.unique(value, return_index=return_index, return_inverse=return_inverse,
                     return_counts=return_counts, axis=axis)
    res = res if isinstance(res, tuple) else (res,)
    if size is not None:
        pad = size - res[0].shape[0]
        fill = fill_value if fill_value is not None else (res[0].min() if res[0].size else 0)
        res = (_np.concatenate([res[0][:size], _np.full(max(pad, 0), fill, res[0].dtype)]),
               *res[1:])
    out = tuple(b.convert_to_tensor(r if i == 0 else r.astype(_np.int32))
                for i, r in enumerate(res))
    return out if len(out) > 1 else out[0]


def vectorize(b, pyfunc, *, excluded=None, signature=None):
    """``pyfunc`` applied to each element of its broadcast tensor arguments, or with
    ``signature`` (NumPy's ``"(n),(n)->()"``) to each block of their core dimensions."""
    if signature is not None:
        return _with_signature(b, pyfunc, signature)

    def vectorized(*args):
        ts = [_t(b, a) for a in args]
        zero = b.zeros((), "bool")
        for t in ts:
            zero = b.logical_and(zero, b.cast(b.zeros_like(t), "bool"))
        shape = b.static_shape(zero)
        flat = [b.reshape(b.add(t, b.cast(b.zeros(shape, "bool"), b.dtype_name(t))), (-1,))
                for t in ts]
        out = b.vectorized_map(lambda xs: pyfunc(*xs), tuple(flat))
        return b.reshape(out, shape)
    return vectorized


def _core_dims(signature):
    """NumPy's gufunc signature as (inputs' core dims, outputs' core dims, several outputs)."""
    inputs, arrow, outputs = signature.replace(" ", "").partition("->")
    if not arrow or not _re.fullmatch(r"(\([\w,]*\),?)+", inputs + "," + outputs):
        raise ValueError(f"finegrad.ops.vectorize: signature must look like '(n),(n)->()', "
                         f"got {signature!r}")

    def parse(text):
        return [tuple(d for d in group.split(",") if d)
                for group in _re.findall(r"\(([\w,]*)\)", text)]
    return parse(inputs), parse(outputs), "),(" in outputs


def _with_signature(b, pyfunc, signature):
    ins, outs, several = _core_dims(signature)

    def vectorized(*args):
        if len(args) != len(ins):
            raise TypeError(f"finegrad.ops.vectorize: signature {signature!r} takes "
                            f"{len(ins)} arguments, got {len(args)}")
        ts = [_t(b, a) for a in args]
        loops = [tuple(b.static_shape(t)[:_ndim(b, t) - len(core)]) for t, core in zip(
            ts, ins, strict=True)]
        loop = tuple(_np.broadcast_shapes(*loops))
        flat = [b.reshape(b.broadcast_to(t, loop + tuple(b.static_shape(t)[len(lp):])),
                          (-1,) + tuple(b.static_shape(t)[len(lp):]))
                for t, lp in zip(ts, loops, strict=True)]
        out = b.vectorized_map(lambda xs: pyfunc(*xs), tuple(flat))
        pieces = tuple(out) if several else (out,)
        shaped = tuple(b.reshape(o, loop + tuple(b.static_shape(o)[1:])) for o in pieces)
        return shaped if several else shaped[0]
    return vectorized


def get_item(b, x, key):
    return _t(b, x)[key]


def view(b, x, dtype=None):
    value = _eager(b, x, "view")
    return b.convert_to_tensor(value.view(dtype) if dtype else value)


def round(b, x, decimals=0):  # (Keras's name)
    x = _t(b, x)
    if decimals == 0:
        return b.rint(x)
    scale = 10.0 ** decimals
    name = b.dtype_name(x)
    if not name.startswith(("float", "bfloat")):
        return b.cast(b.rint(b.multiply(b.cast(x, "float32"), scale) / scale), name)
    return b.divide(b.rint(b.multiply(x, scale)), scale)
