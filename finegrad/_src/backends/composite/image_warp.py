"""`keras.ops.image`'s resampling at arbitrary coordinates, written once with other ops for
every backend: ``map_coordinates`` (JAX's algorithm, which Keras's torch and tensorflow
backends port), and the warps built on it (``affine_transform``, ``perspective_transform``,
``elastic_transform``) and ``scale_and_translate``. Gradients flow to the images and, through
the interpolation weights, to the coordinates."""
import functools as _functools
import itertools as _itertools

import numpy as _np

from finegrad._src.backends.composite.image_filters import image_gaussian_blur
from finegrad._src.backends.composite.numpy import _float, _ndim, _t

FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
INTERPOLATIONS = {"nearest": 0, "bilinear": 1}
# backends whose Keras map_coordinates rounds halves to even (Keras's torch and tensorflow
# ports of JAX's algorithm use their framework's round)
_HALF_EVEN = ("torch", "tensorflow")


def _mirror(b, index, size):
    s = max(size - 1, 1)
    return b.abs(b.subtract(b.mod(b.add(index, s), 2 * s), s))


def _tf_fold(b, mode, index, size):
    """Keras's tensorflow port's mirror/reflect (it differs from SciPy's and JAX's: an
    index -i reads i, and mirror can reach ``size``, where TensorFlow fails; clipped)."""
    index = b.abs(index)
    mod = b.mod(index, 2 * size)
    under = b.less(mod, size)
    folded = b.where(under, mod, b.subtract(2 * size, mod))
    if mode == "reflect":
        folded = b.where(under, folded, b.subtract(folded, 1))
    return b.clip(folded, 0, size - 1)


def _fix(b, mode, index, size):
    if b.name == "tensorflow" and mode in ("mirror", "reflect"):
        return _tf_fold(b, mode, index, size)
    if mode in ("constant", "nearest"):
        return b.clip(index, 0, size - 1)
    if mode == "wrap":
        return b.mod(index, size)
    if mode == "mirror":
        return _mirror(b, index, size)
    doubled = _mirror(b, b.add(b.multiply(index, 2), 1), 2 * size + 1)
    return b.floor_divide(b.subtract(doubled, 1), 2)


def _nodes(b, coordinate, order):
    """(integer index, weight or None) pairs of one axis's interpolation."""
    if order == 0:
        c = coordinate
        if b.dtype_name(c).startswith("float"):   # JAX rounds halves away from zero
            c = b.round(c) if b.name in _HALF_EVEN else \
                b.multiply(b.sign(c), b.floor(b.add(b.abs(c), 0.5)))
        return [(b.cast(c, "int32"), None)]
    lower = b.floor(coordinate)
    upper_weight = b.subtract(coordinate, lower)
    index = b.cast(lower, "int32")
    return [(index, b.subtract(1.0, upper_weight)), (b.add(index, 1), upper_weight)]


def _check_map_args(shape, count, order, fill_mode):
    if count != len(shape):
        raise ValueError(f"finegrad.ops.image.map_coordinates: the first dimension of "
                         f"`coordinates` must be the rank of `inputs` ({len(shape)}), got "
                         f"{count}")
    if fill_mode not in FILL_MODES:
        raise ValueError(f"finegrad.ops.image.map_coordinates: fill_mode must be one of "
                         f"{FILL_MODES}, got {fill_mode!r}")
    if order not in (0, 1):
        raise ValueError(f"finegrad.ops.image.map_coordinates: order must be 0 or 1, got "
                         f"{order!r}")


def image_map_coordinates(b, inputs, coordinates, order, fill_mode="constant",
                          fill_value=0.0):
    x = _t(b, inputs)
    shape = b.static_shape(x)
    if isinstance(coordinates, (list, tuple)):
        coords = [_float(b, c) for c in coordinates]
    else:
        c = _float(b, coordinates)
        coords = [c[i] for i in range(b.static_shape(c)[0])]
    _check_map_args(shape, len(coords), order, fill_mode)
    flat = b.reshape(x, (-1,))
    strides = [int(_np.prod(shape[d + 1:])) for d in range(len(shape))]
    per_axis = [[(_fix(b, fill_mode, i, n), b.logical_and(b.greater_equal(i, 0),
                                                           b.less(i, n)), w)
                 for i, w in _nodes(b, c, order)] for c, n in zip(coords, shape, strict=True)]
    total = None
    for items in _itertools.product(*per_axis):
        index = _functools.reduce(b.add, [b.multiply(i, s) for (i, _, _), s
                                          in zip(items, strides, strict=True)])
        value = b.take(flat, index, 0)
        if fill_mode == "constant":
            valid = _functools.reduce(b.logical_and, [v for _, v, _ in items])
            value = b.where(valid, value, b.cast(fill_value, b.dtype_name(value)))
        weights = [w for _, _, w in items if w is not None]
        if weights:
            value = b.multiply(_functools.reduce(b.multiply, weights), value)
        total = value if total is None else b.add(total, value)
    if not b.dtype_name(x).startswith(("float", "bfloat", "complex")):
        total = b.round(total) if b.dtype_name(total).startswith("float") else total
    return b.cast(total, b.dtype_name(x))


def _batched(b, images, data_format, name):
    x = _t(b, images)
    if _ndim(b, x) not in (3, 4):
        raise ValueError(f"finegrad.ops.image.{name}: images must have rank 3 (one image) "
                         f"or 4 (a batch), got shape {b.static_shape(x)}")
    squeeze = _ndim(b, x) == 3
    if squeeze:
        x = b.expand_dims(x, 0)
    if data_format == "channels_first":
        x = b.transpose(x, (0, 2, 3, 1))
    return x, squeeze


def _unbatched(b, x, squeeze, data_format):
    if data_format == "channels_first":
        x = b.transpose(x, (0, 3, 1, 2))
    return b.squeeze(x, 0) if squeeze else x


def _check_warp(name, interpolation, fill_mode):
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"finegrad.ops.image.{name}: interpolation must be one of "
                         f"{tuple(INTERPOLATIONS)}, got {interpolation!r}")
    if fill_mode not in FILL_MODES:
        raise ValueError(f"finegrad.ops.image.{name}: fill_mode must be one of "
                         f"{FILL_MODES}, got {fill_mode!r}")


def _grid(shape):
    """Index grids (row, column, channel) of an image of shape ``(H, W, C)``, as float32."""
    return [g.astype(_np.float32) for g in _np.meshgrid(*[_np.arange(n) for n in shape],
                                                        indexing="ij")]


def image_affine_transform(b, images, transform, interpolation="bilinear",
                           fill_mode="constant", fill_value=0, data_format=None):
    """Keras's (JAX backend's) affine transform: output pixel (y, x, c) samples the input
    at row ``b0*x + b1*y + b2 + c0*c`` and column ``a0*x + a1*y + a2 + c1*c``."""
    _check_warp("affine_transform", interpolation, fill_mode)
    x, squeeze = _batched(b, images, data_format, "affine_transform")
    t = _float(b, transform)
    if _ndim(b, t) not in (1, 2):
        raise ValueError(f"finegrad.ops.image.affine_transform: transform must have rank 1 "
                         f"or 2, got shape {b.static_shape(t)}")
    if _ndim(b, t) == 1:
        t = b.expand_dims(t, 0)
    dtype = b.dtype_name(x)
    xf = _float(b, x)
    t = b.cast(t, b.dtype_name(xf))
    rows, cols, chans = _grid(b.static_shape(x)[1:])
    out = []
    for i in range(b.static_shape(x)[0]):
        a = t[i if b.static_shape(t)[0] > 1 else 0]
        row = b.add(b.add(b.add(b.multiply(a[3], cols), b.multiply(a[4], rows)), a[5]),
                    b.multiply(a[6], chans))
        col = b.add(b.add(b.add(b.multiply(a[0], cols), b.multiply(a[1], rows)), a[2]),
                    b.multiply(a[7], chans))
        coords = [row, col, b.convert_to_tensor(chans, b.dtype_name(row))]
        out.append(image_map_coordinates(b, xf[i], coords, INTERPOLATIONS[interpolation],
                                         fill_mode, fill_value))
    return _unbatched(b, b.cast(b.stack(out, 0), dtype), squeeze, data_format)


def compute_homography_matrix(b, start_points, end_points):
    """The 8 coefficients of the projective transform mapping ``end_points`` to
    ``start_points`` (each ``(N, 4, 2)``)."""
    s, e = _float(b, start_points), _float(b, end_points)
    zero, one = b.zeros_like(e[:, 0, 0]), b.ones_like(e[:, 0, 0])
    rows = []
    for k in range(4):
        ex, ey, sx, sy = e[:, k, 0], e[:, k, 1], s[:, k, 0], s[:, k, 1]
        rows.append(b.stack([ex, ey, one, zero, zero, zero, b.negative(b.multiply(sx, ex)),
                             b.negative(b.multiply(sx, ey))], -1))
        rows.append(b.stack([zero, zero, zero, ex, ey, one, b.negative(b.multiply(sy, ex)),
                             b.negative(b.multiply(sy, ey))], -1))
    target = b.stack([s[:, k, j] for k in range(4) for j in range(2)], -1)
    solved = b.solve(b.stack(rows, 1), b.expand_dims(target, -1))
    return b.reshape(solved, (-1, 8))


def _points(b, points, name):
    p = _float(b, points)
    shape = tuple(b.static_shape(p))
    if len(shape) not in (2, 3) or shape[-2:] != (4, 2):
        raise ValueError(f"finegrad.ops.image.perspective_transform: {name} must have shape "
                         f"(4, 2) or (N, 4, 2), got {shape}")
    return b.expand_dims(p, 0) if len(shape) == 2 else p


def image_perspective_transform(b, images, start_points, end_points, interpolation="bilinear",
                                fill_value=0, data_format=None):
    _check_warp("perspective_transform", interpolation, "constant")
    x, squeeze = _batched(b, images, data_format, "perspective_transform")
    start = _points(b, start_points, "start_points")
    end = _points(b, end_points, "end_points")
    if b.static_shape(start) != b.static_shape(end):
        raise ValueError("finegrad.ops.image.perspective_transform: start_points and "
                         "end_points must have the same shape")
    xf = _float(b, x)
    t = b.cast(compute_homography_matrix(b, start, end), b.dtype_name(xf))
    rows, cols, chans = _grid(b.static_shape(x)[1:])
    out = []
    for i in range(b.static_shape(x)[0]):
        a = t[i if b.static_shape(t)[0] > 1 else 0]
        denom = b.add(b.add(b.multiply(a[6], cols), b.multiply(a[7], rows)), 1.0)
        col = b.divide(b.add(b.add(b.multiply(a[0], cols), b.multiply(a[1], rows)), a[2]),
                       denom)
        row = b.divide(b.add(b.add(b.multiply(a[3], cols), b.multiply(a[4], rows)), a[5]),
                       denom)
        coords = [row, col, b.convert_to_tensor(chans, b.dtype_name(row))]
        out.append(image_map_coordinates(b, xf[i], coords, INTERPOLATIONS[interpolation],
                                         "constant", fill_value))
    return _unbatched(b, b.cast(b.stack(out, 0), b.dtype_name(x)), squeeze, data_format)


def image_elastic_transform(b, images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                            fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    """Keras's elastic transform: pixels displaced by ``alpha`` times Gaussian-blurred
    (``sigma``) standard normal noise, the same field for rows and columns as Keras's
    JAX backend. The noise comes from NumPy's generator seeded by ``seed`` (an int), so it
    is the same on every backend, not Keras's per-backend generator."""
    _check_warp("elastic_transform", interpolation, fill_mode)
    x, squeeze = _batched(b, images, data_format, "elastic_transform")
    n, h, w, c = b.static_shape(x)
    xf = _float(b, x)
    dt = b.dtype_name(xf)
    size = int(6 * float(sigma)) | 1
    noise = _np.random.default_rng(seed).normal(size=(n, h, w, 1)) * float(sigma)
    field = image_gaussian_blur(b, b.convert_to_tensor(noise.astype(dt), dt), (size, size),
                                (sigma, sigma))
    rows, cols, chans = _grid((h, w, c))
    out = []
    for i in range(n):
        shift = b.multiply(b.cast(alpha, dt), field[i])                 # (h, w, 1)
        coords = [b.add(rows, shift), b.add(cols, shift), b.convert_to_tensor(chans, dt)]
        out.append(image_map_coordinates(b, xf[i], coords, INTERPOLATIONS[interpolation],
                                         fill_mode, fill_value))
    return _unbatched(b, b.cast(b.stack(out, 0), b.dtype_name(x)), squeeze, data_format)


def _triangle(x):
    return _np.maximum(0, 1 - _np.abs(x))


def _keys_cubic(x):
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = _np.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return _np.where(x >= 2.0, 0.0, out)


def _lanczos(radius, x):
    y = radius * _np.sin(_np.pi * x) * _np.sin(_np.pi * x / radius)
    with _np.errstate(divide="ignore", invalid="ignore"):
        out = _np.where(x > 1e-3, y / _np.where(x != 0, _np.pi ** 2 * x ** 2, 1), 1)
    return _np.where(x > radius, 0.0, out)


KERNELS = {"linear": _triangle, "bilinear": _triangle, "trilinear": _triangle,
           "triangle": _triangle, "cubic": _keys_cubic, "bicubic": _keys_cubic,
           "tricubic": _keys_cubic, "lanczos3": _functools.partial(_lanczos, 3.0),
           "lanczos5": _functools.partial(_lanczos, 5.0)}


def _weights(n_in, n_out, scale, translation, kernel, antialias):
    """JAX's ``scale_and_translate`` weight matrix ``(n_in, n_out)``, in float32."""
    inv = 1.0 / _np.float32(scale)
    kernel_scale = max(inv, 1.0) if antialias else 1.0
    sample = (_np.arange(n_out, dtype=_np.float32) + 0.5) * inv - _np.float32(
        translation) * inv - 0.5
    w = kernel(_np.abs(sample[None, :] - _np.arange(n_in, dtype=_np.float32)[:, None])
               / kernel_scale)
    total = w.sum(0, keepdims=True)
    w = _np.where(_np.abs(total) > 1000.0 * _np.finfo(_np.float32).eps,
                  w / _np.where(total != 0, total, 1), 0)
    inside = (sample >= -0.5) & (sample <= n_in - 0.5)
    return _np.where(inside[None, :], w, 0).astype(_np.float32)


def _static(b, value):
    return _np.asarray(value if not b.is_tensor(value) else b.convert_to_numpy(value),
                       _np.float32).reshape(-1)


def image_scale_and_translate(b, images, output_shape, scale, translation, spatial_dims,
                              method, antialias=True):
    if method not in KERNELS:
        raise ValueError(f"finegrad.ops.image.scale_and_translate: method must be one of "
                         f"{tuple(KERNELS)}, got {method!r}")
    x = _t(b, images)
    integer = not b.dtype_name(x).startswith(("float", "bfloat", "complex"))
    out = _float(b, x)
    shape, n = b.static_shape(x), _ndim(b, x)
    scale, translation = _static(b, scale), _static(b, translation)
    for i, d in enumerate(spatial_dims):
        d = d % n
        w = _weights(shape[d], output_shape[d], scale[i], translation[i], KERNELS[method],
                     antialias)
        out = b.moveaxis(b.tensordot(out, b.convert_to_tensor(w, b.dtype_name(out)),
                                     ([d], [0])), -1, d)
    if integer:
        out = b.cast(b.clip(b.round(out), b.min(x), b.max(x)), b.dtype_name(x))
    return out
