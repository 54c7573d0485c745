"""`keras.ops.numpy`'s array functions (shapes, joins, products, statistics) written once
with other ops, for every backend. Each takes the backend ``b`` first."""
import numpy as _np

from finegrad._src.backends.composite.numpy import _axes, _float, _ndim, _t


# --- shapes and joins ---------------------------------------------------------------------

def ravel(b, x):
    return b.reshape(x, (-1,))


def ndim(b, x):
    return _ndim(b, _t(b, x))


def size(b, x):
    return b.convert_to_tensor(int(_np.prod(b.static_shape(_t(b, x)), dtype=_np.int64)),
                               "int32")


def swapaxes(b, x, axis1, axis2):
    n = _ndim(b, _t(b, x))
    perm = list(range(n))
    perm[axis1 % n], perm[axis2 % n] = perm[axis2 % n], perm[axis1 % n]
    return b.transpose(x, perm)


def moveaxis(b, x, source, destination):
    n = _ndim(b, _t(b, x))
    src = [s % n for s in ((source,) if isinstance(source, int) else source)]
    dst = [d % n for d in ((destination,) if isinstance(destination, int) else destination)]
    perm = [a for a in range(n) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        perm.insert(d, s)
    return b.transpose(x, perm)


def fliplr(b, x):
    return b.flip(x, 1)


def flipud(b, x):
    return b.flip(x, 0)


def rot90(b, array, k=1, axes=(0, 1)):
    k %= 4
    a0, a1 = axes
    if k == 0:
        return _t(b, array)
    if k == 2:
        return b.flip(b.flip(array, a0), a1)
    if k == 1:
        return swapaxes(b, b.flip(array, a1), a0, a1)
    return b.flip(swapaxes(b, array, a0, a1), a1)


def _atleast(b, x, n):
    x = _t(b, x)
    shape = b.static_shape(x)
    if len(shape) >= n:
        return x
    if n == 3:
        return b.reshape(x, (1, 1, 1) if not shape else (1, *shape, 1) if len(shape) == 1
                         else (*shape, 1))
    return b.reshape(x, (1,) * (n - len(shape)) + tuple(shape))


def hstack(b, xs):
    xs = [_atleast(b, x, 1) for x in xs]
    return b.concatenate(xs, 0 if _ndim(b, xs[0]) == 1 else 1)


def vstack(b, xs):
    return b.concatenate([_atleast(b, x, 2) for x in xs], 0)


def dstack(b, xs):
    return b.concatenate([_atleast(b, x, 3) for x in xs], 2)


def array_split(b, x, indices_or_sections, axis=0):
    x = _t(b, x)
    if isinstance(indices_or_sections, int):
        n = b.static_shape(x)[axis]
        q, r = divmod(n, indices_or_sections)
        sizes = [q + 1] * r + [q] * (indices_or_sections - r)
        indices_or_sections = list(_np.cumsum(sizes)[:-1])
    return b.split(x, indices_or_sections, axis)


def hsplit(b, x, indices_or_sections):
    return b.split(x, indices_or_sections, 0 if _ndim(b, _t(b, x)) == 1 else 1)


def vsplit(b, x, indices_or_sections):
    return b.split(x, indices_or_sections, 0)


def dsplit(b, x, indices_or_sections):
    return b.split(x, indices_or_sections, 2)


def append(b, x1, x2, axis=None):
    if axis is None:
        return b.concatenate([ravel(b, x1), ravel(b, x2)], 0)
    return b.concatenate([x1, x2], axis)


def broadcast_to(b, x, shape):
    x = _t(b, x)
    return b.add(x, b.zeros(shape, b.dtype_name(x)))


# --- products -----------------------------------------------------------------------------

def outer(b, x1, x2):
    return b.multiply(b.expand_dims(ravel(b, x1), 1), b.expand_dims(ravel(b, x2), 0))


def inner(b, x1, x2):
    x1, x2 = _t(b, x1), _t(b, x2)
    if _ndim(b, x1) == 0 or _ndim(b, x2) == 0:
        return b.multiply(x1, x2)
    return b.tensordot(x1, x2, [[-1], [-1]])


def vdot(b, x1, x2):
    return b.sum(b.multiply(b.conj(ravel(b, x1)), ravel(b, x2)))


def dot(b, x1, x2):
    x1, x2 = _t(b, x1), _t(b, x2)
    if _ndim(b, x1) == 0 or _ndim(b, x2) == 0:
        return b.multiply(x1, x2)
    if _ndim(b, x2) <= 2:
        return b.matmul(x1, x2)
    return b.tensordot(x1, x2, [[-1], [-2]])


def kron(b, x1, x2):
    x1, x2 = _t(b, x1), _t(b, x2)
    n = max(_ndim(b, x1), _ndim(b, x2))
    x1, x2 = _atleast(b, x1, n), _atleast(b, x2, n)
    s1, s2 = b.static_shape(x1), b.static_shape(x2)
    a = b.reshape(x1, [d for s in s1 for d in (s, 1)])
    c = b.reshape(x2, [d for s in s2 for d in (1, s)])
    return b.reshape(b.multiply(a, c), [p * q for p, q in zip(s1, s2, strict=True)])


def trace(b, x, offset=0, axis1=0, axis2=1):
    return b.sum(b.diagonal(x, offset, axis1, axis2), -1)


def diagflat(b, x, k=0):
    return b.diag(ravel(b, x), k)


def cross(b, x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    x1, x2 = moveaxis(b, x1, axisa, -1), moveaxis(b, x2, axisb, -1)
    if b.static_shape(x1)[-1] == 2:
        x1 = b.pad(x1, [(0, 0)] * (_ndim(b, x1) - 1) + [(0, 1)])
    if b.static_shape(x2)[-1] == 2:
        x2 = b.pad(x2, [(0, 0)] * (_ndim(b, x2) - 1) + [(0, 1)])
    a = [b.take(x1, i, -1) for i in range(3)]
    c = [b.take(x2, i, -1) for i in range(3)]
    out = b.stack([b.subtract(b.multiply(a[1], c[2]), b.multiply(a[2], c[1])),
                   b.subtract(b.multiply(a[2], c[0]), b.multiply(a[0], c[2])),
                   b.subtract(b.multiply(a[0], c[1]), b.multiply(a[1], c[0]))], -1)
    return moveaxis(b, out, -1, axisc)


def vander(b, x, N=None, increasing=False):  # (Keras's name)
    x = _t(b, x)
    n = b.static_shape(x)[0] if N is None else N
    powers = b.arange(n, dtype=b.dtype_name(x))
    if not increasing:
        powers = b.flip(powers, 0)
    return b.power(b.expand_dims(x, 1), b.expand_dims(powers, 0))


# --- statistics ---------------------------------------------------------------------------

def amax(b, x, axis=None, keepdims=False):
    return b.max(x, axis, keepdims)


def amin(b, x, axis=None, keepdims=False):
    return b.min(x, axis, keepdims)


def ptp(b, x, axis=None, keepdims=False):
    return b.subtract(b.max(x, axis, keepdims), b.min(x, axis, keepdims))


def var(b, x, axis=None, keepdims=False):
    x = _float(b, x)
    mean = b.mean(x, axis, True)
    return b.mean(b.square(b.abs(b.subtract(x, mean))),
                  axis, keepdims)


def std(b, x, axis=None, keepdims=False):
    return b.sqrt(var(b, x, axis, keepdims))


def average(b, x, axis=None, weights=None):
    x = _float(b, x)
    if weights is None:
        return b.mean(x, axis)
    w = b.cast(_t(b, weights), b.dtype_name(x))
    if axis is not None and _ndim(b, w) == 1 and _ndim(b, x) > 1:
        shape = [1] * _ndim(b, x)
        shape[axis] = -1
        w = b.reshape(w, shape)
    return b.divide(b.sum(b.multiply(x, w), axis), b.sum(b.add(w, b.zeros_like(x)), axis))


def count_nonzero(b, x, axis=None):
    return b.sum(b.cast(b.not_equal(x, 0), "int32"), axis)


def diff(b, a, n=1, axis=-1):
    a = _t(b, a)
    for _ in range(n):
        length = b.static_shape(a)[axis]
        a = b.subtract(b.take(a, b.arange(1, length, dtype="int32"), axis),
                       b.take(a, b.arange(0, length - 1, dtype="int32"), axis))
    return a


def trapezoid(b, y, x=None, dx=1.0, axis=-1):
    y = _float(b, y)
    length = b.static_shape(y)[axis]
    hi = b.take(y, b.arange(1, length, dtype="int32"), axis)
    lo = b.take(y, b.arange(0, length - 1, dtype="int32"), axis)
    d = dx if x is None else diff(b, _float(b, x), 1, -1 if _ndim(b, _t(b, x)) == 1 else axis)
    if x is not None and _ndim(b, _t(b, x)) == 1 and _ndim(b, y) > 1:
        shape = [1] * _ndim(b, y)
        shape[axis] = -1
        d = b.reshape(d, shape)
    return b.sum(b.multiply(b.multiply(b.add(hi, lo), d), 0.5), axis)


def quantile(b, x, q, axis=None, method="linear", keepdims=False):
    x = _float(b, x)
    ax = _axes(axis, _ndim(b, x))
    n = _ndim(b, x)
    rest = [a for a in range(n) if a not in ax]
    flat = b.reshape(b.transpose(x, rest + list(ax)),
                     [b.static_shape(x)[a] for a in rest] + [-1])
    s = b.sort(flat, -1)
    count = b.static_shape(s)[-1]
    qs = _np.asarray(b.convert_to_numpy(q) if b.is_tensor(q) else q, dtype=_np.float64)
    pos = qs * (count - 1)
    lo, hi = _np.floor(pos).astype(_np.int32), _np.ceil(pos).astype(_np.int32)
    if method == "lower":
        hi = lo
    elif method == "higher":
        lo = hi
    elif method == "nearest":
        lo = hi = _np.round(pos).astype(_np.int32)
    elif method == "midpoint":
        pos = (lo + hi) / 2.0
    frac = b.convert_to_tensor(_np.asarray(pos - lo, dtype=_np.float32), b.dtype_name(s))
    vlo = b.take(s, b.convert_to_tensor(_np.ravel(lo)), -1)
    vhi = b.take(s, b.convert_to_tensor(_np.ravel(hi)), -1)
    out = b.add(vlo, b.multiply(b.subtract(vhi, vlo), b.reshape(frac, (-1,))))
    out = b.reshape(out, b.static_shape(out)[:-1] + qs.shape)
    if qs.ndim:   # the q axis first, as NumPy
        out = moveaxis(b, out, -1, 0)
    if keepdims:
        for a in sorted(ax):
            out = b.expand_dims(out, a + qs.ndim)
    return out


def percentile(b, x, q, axis=None, method="linear", keepdims=False):
    qs = _np.asarray(b.convert_to_numpy(q) if b.is_tensor(q) else q, dtype=_np.float64)
    return quantile(b, x, qs / 100.0, axis, method, keepdims)


def median(b, x, axis=None, keepdims=False):
    return quantile(b, x, 0.5, axis, "linear", keepdims)


def corrcoef(b, x):
    x = _float(b, x)
    c = b.subtract(x, b.mean(x, 1, True))
    cov = b.matmul(c, b.transpose(b.conj(c), None))
    d = b.sqrt(b.diagonal(cov, 0, 0, 1))
    return b.divide(b.divide(cov, b.expand_dims(d, 1)), b.expand_dims(d, 0))
