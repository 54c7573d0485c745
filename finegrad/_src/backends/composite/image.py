"""`keras.ops.image`, written once with other ops for every backend (channels_last unless
``data_format="channels_first"``). Each takes the backend ``b`` first; backends name these
``image_<name>``."""
import numpy as _np

from finegrad._src.backends.composite.numpy import _float, _ndim, _t


def _last(b, images, data_format):
    x = _t(b, images)
    if data_format == "channels_first":
        n = _ndim(b, x)
        x = b.moveaxis(x, n - 3, -1)
    return x


def _back(b, x, data_format):
    return b.moveaxis(x, -1, _ndim(b, x) - 3) if data_format == "channels_first" else x


def image_rgb_to_grayscale(b, images, data_format=None):
    x = _last(b, images, data_format)
    w = b.convert_to_tensor(_np.asarray([0.2989, 0.587, 0.114]), b.dtype_name(_float(b, x)))
    gray = b.sum(b.multiply(_float(b, x), w), -1, True)
    return _back(b, b.cast(gray, b.dtype_name(x)), data_format)


def _source_coords(out_size, in_size, half_pixel=True):
    scale = in_size / out_size
    return (_np.arange(out_size) + 0.5) * scale - 0.5 if half_pixel else \
        _np.arange(out_size) * scale


def image_resize(b, images, size, interpolation="bilinear", antialias=False,
                 crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, fill_mode="constant",
                 fill_value=0.0, data_format=None):
    if antialias or crop_to_aspect_ratio or pad_to_aspect_ratio or \
            interpolation not in ("nearest", "bilinear"):
        raise NotImplementedError(
            f"finegrad.ops.image.resize on the {b.name!r} backend: only interpolation "
            f"'nearest' and 'bilinear' without antialias or aspect-ratio options; use the "
            f"jax or tensorflow backend for {interpolation!r}")
    x = _last(b, images, data_format)
    h_in, w_in = b.static_shape(x)[-3:-1]
    h, w = size
    for axis, (n_out, n_in) in ((-3, (h, h_in)), (-2, (w, w_in))):
        x = _resize_axis(b, x, axis, n_out, n_in, interpolation)
    return _back(b, x, data_format)


def _resize_axis(b, x, axis, n_out, n_in, interpolation):
    src = _source_coords(n_out, n_in)
    if interpolation == "nearest":
        idx = _np.clip(_np.floor((_np.arange(n_out) + 0.5) * n_in / n_out), 0, n_in - 1)
        return b.take(x, b.convert_to_tensor(idx.astype(_np.int32)), axis)
    src = _np.clip(src, 0, n_in - 1)
    lo = _np.floor(src).astype(_np.int32)
    hi = _np.minimum(lo + 1, n_in - 1)
    frac = (src - lo).astype(_np.float32)
    shape = [1] * _ndim(b, x)
    shape[axis] = n_out
    xf = _float(b, x)
    f = b.reshape(b.convert_to_tensor(frac, b.dtype_name(xf)), shape)
    a = b.take(xf, b.convert_to_tensor(lo), axis)
    c = b.take(xf, b.convert_to_tensor(hi), axis)
    return b.add(a, b.multiply(b.subtract(c, a), f))


def image_extract_patches(b, images, size, strides=None, dilation_rate=1, padding="valid",
                          data_format=None):
    x = _float(b, _last(b, images, data_format))
    kh, kw = (size, size) if isinstance(size, int) else size
    sh, sw = (kh, kw) if strides is None else (strides, strides) if isinstance(strides, int) \
        else strides
    d = dilation_rate if isinstance(dilation_rate, int) else dilation_rate[0]
    unbatched = _ndim(b, x) == 3
    if unbatched:
        x = b.expand_dims(x, 0)
    h, w = b.static_shape(x)[1:3]
    if padding == "same":
        oh, ow = -(-h // sh), -(-w // sw)
        ph = max((oh - 1) * sh + (kh - 1) * d + 1 - h, 0)
        pw = max((ow - 1) * sw + (kw - 1) * d + 1 - w, 0)
        x = b.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
        h, w = h + ph, w + pw
    oh = (h - (kh - 1) * d - 1) // sh + 1
    ow = (w - (kw - 1) * d - 1) // sw + 1
    rows = (_np.arange(oh)[:, None] * sh + _np.arange(kh)[None, :] * d).astype(_np.int32)
    cols = (_np.arange(ow)[:, None] * sw + _np.arange(kw)[None, :] * d).astype(_np.int32)
    p = b.take(x, b.convert_to_tensor(rows), 1)          # n, oh, kh, w, c
    p = b.take(p, b.convert_to_tensor(cols), 3)          # n, oh, kh, ow, kw, c
    p = b.transpose(p, (0, 1, 3, 2, 4, 5))
    n, c = b.static_shape(x)[0], b.static_shape(x)[-1]
    p = b.reshape(p, (n, oh, ow, kh * kw * c))
    if unbatched:
        p = b.squeeze(p, 0)
    return _back(b, p, data_format)


def image_crop_images(b, images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                      right_cropping=None, target_height=None, target_width=None,
                      data_format=None):
    x = _last(b, images, data_format)
    h, w = b.static_shape(x)[-3:-1]
    top, left = top_cropping or 0, left_cropping or 0
    th = target_height if target_height is not None else h - top - (bottom_cropping or 0)
    tw = target_width if target_width is not None else w - left - (right_cropping or 0)
    return _back(b, x[..., top:top + th, left:left + tw, :], data_format)


def image_pad_images(b, images, top_padding=None, left_padding=None, bottom_padding=None,
                     right_padding=None, target_height=None, target_width=None,
                     data_format=None):
    x = _last(b, images, data_format)
    h, w = b.static_shape(x)[-3:-1]
    top, left = top_padding or 0, left_padding or 0
    bottom = bottom_padding if bottom_padding is not None else \
        (target_height - h - top if target_height is not None else 0)
    right = right_padding if right_padding is not None else \
        (target_width - w - left if target_width is not None else 0)
    pads = [(0, 0)] * (_ndim(b, x) - 3) + [(top, bottom), (left, right), (0, 0)]
    return _back(b, b.pad(x, pads), data_format)


def image_rgb_to_hsv(b, images, data_format=None):
    """Hue, saturation, value in [0, 1] of RGB images in [0, 1] (float)."""
    x = _float(b, _last(b, images, data_format))
    r, g, c = (b.take(x, i, -1) for i in range(3))
    value = b.maximum(b.maximum(r, g), c)
    rng = b.subtract(value, b.minimum(b.minimum(r, g), c))
    safe_value = b.where(b.greater(value, 0), value, b.ones_like(value))
    safe_range = b.where(b.greater(rng, 0), rng, b.ones_like(rng))
    saturation = b.where(b.greater(value, 0), b.divide(rng, safe_value), b.zeros_like(value))
    norm = b.divide(1.0, b.multiply(safe_range, 6.0))
    hue = b.where(b.equal(value, g), b.add(b.multiply(norm, b.subtract(c, r)), 2.0 / 6.0),
                  b.add(b.multiply(norm, b.subtract(r, g)), 4.0 / 6.0))
    hue = b.where(b.equal(value, r), b.multiply(norm, b.subtract(g, c)), hue)
    hue = b.where(b.greater(rng, 0), hue, b.zeros_like(hue))
    hue = b.add(hue, b.cast(b.less(hue, 0), b.dtype_name(hue)))
    return _back(b, b.stack([hue, saturation, value], -1), data_format)


def image_hsv_to_rgb(b, images, data_format=None):
    """RGB of HSV images (hue, saturation, value in [0, 1])."""
    x = _float(b, _last(b, images, data_format))
    h, s, v = (b.take(x, i, -1) for i in range(3))
    dh = b.multiply(b.mod(h, 1.0), 6.0)
    r = b.clip(b.subtract(b.abs(b.subtract(dh, 3.0)), 1.0), 0.0, 1.0)
    g = b.clip(b.subtract(2.0, b.abs(b.subtract(dh, 2.0))), 0.0, 1.0)
    c = b.clip(b.subtract(2.0, b.abs(b.subtract(dh, 4.0))), 0.0, 1.0)
    out = [b.multiply(v, b.add(b.multiply(s, b.subtract(p, 1.0)), 1.0)) for p in (r, g, c)]
    return _back(b, b.stack(out, -1), data_format)


def _adaptive(b, inputs, output_size, data_format, reduce):
    x = _float(b, _last(b, inputs, data_format)) if _ndim(b, _t(b, inputs)) == 4 else \
        _float(b, inputs if data_format != "channels_first" else b.moveaxis(inputs, 1, -1))
    n = _ndim(b, x) - 2
    sizes = (output_size,) * n if isinstance(output_size, int) else tuple(output_size)
    for d, out in enumerate(sizes):
        axis = 1 + d
        size = b.static_shape(x)[axis]
        pieces = []
        for i in range(out):
            lo, hi = (i * size) // out, -(-((i + 1) * size) // out)
            pieces.append(reduce(b.take(x, b.arange(lo, hi, dtype="int32"), axis), axis, True))
        x = b.concatenate(pieces, axis)
    if data_format == "channels_first":
        x = b.moveaxis(x, -1, 1)
    return x


def adaptive_average_pool(b, inputs, output_size, data_format=None):
    return _adaptive(b, inputs, output_size, data_format, b.mean)


def adaptive_max_pool(b, inputs, output_size, data_format=None):
    return _adaptive(b, inputs, output_size, data_format, b.max)
