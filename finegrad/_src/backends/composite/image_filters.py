"""`keras.ops.image`'s filters, written once with the backend's convolutions for every
backend: ``gaussian_blur``, ``sobel_edges`` (zero padding, as Keras's JAX and torch
backends), ``ssim`` (Keras's backend-agnostic formula) and ``extract_patches_3d``."""
import numpy as _np

from finegrad._src.backends.composite.numpy import _float, _ndim, _t


def _channels_last(b, images, data_format, name, ranks=(3, 4)):
    x = _t(b, images)
    if _ndim(b, x) not in ranks:
        raise ValueError(f"finegrad.ops.image.{name}: images must have rank "
                         f"{' or '.join(map(str, ranks))}, got shape {b.static_shape(x)}")
    squeeze = _ndim(b, x) == 3
    if squeeze:
        x = b.expand_dims(x, 0)
    if data_format == "channels_first":
        x = b.transpose(x, (0, 2, 3, 1))
    return x, squeeze


def _restore(b, x, squeeze, data_format):
    if data_format == "channels_first":
        x = b.transpose(x, (0, 3, 1, 2))
    return b.squeeze(x, 0) if squeeze else x


def _gauss_1d(b, size, sigma, dtype):
    x = b.convert_to_tensor(_np.arange(size) - (size - 1) / 2, dtype)
    k = b.exp(b.multiply(b.square(b.divide(x, sigma)), -0.5))
    return b.divide(k, b.sum(k))


def image_gaussian_blur(b, images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Each channel convolved with the separable Gaussian of ``kernel_size`` (width,
    height) and ``sigma``, zero-padded to the input's size ('same')."""
    x, squeeze = _channels_last(b, images, data_format, "gaussian_blur")
    dtype = b.dtype_name(x)
    xf = _float(b, x)
    ft = b.dtype_name(xf)
    sx, sy = (sigma, sigma) if not isinstance(sigma, (list, tuple)) and \
        _ndim(b, _t(b, sigma)) == 0 else (sigma[0], sigma[1])
    kx = _gauss_1d(b, int(kernel_size[0]), b.cast(sx, ft), ft)
    ky = _gauss_1d(b, int(kernel_size[1]), b.cast(sy, ft), ft)
    kernel = b.multiply(b.expand_dims(ky, 1), b.expand_dims(kx, 0))       # (kh, kw)
    c = b.static_shape(x)[-1]
    kernel = b.tile(b.reshape(kernel, b.static_shape(kernel) + (1, 1)), (1, 1, c, 1))
    out = b.depthwise_conv(xf, kernel, 1, "same", "channels_last")
    return _restore(b, b.cast(out, dtype), squeeze, data_format)


_SOBEL_X = _np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], _np.float64)


def image_sobel_edges(b, images, data_format=None):
    """Vertical and horizontal Sobel responses ``(..., 2)`` = ``[dy, dx]`` of each channel,
    with zero padding."""
    x, _ = _channels_last(b, images, data_format, "sobel_edges", (4,))
    dtype = b.dtype_name(x)
    c = b.static_shape(x)[-1]
    edges = []
    for k in (_SOBEL_X.T, _SOBEL_X):
        kernel = b.convert_to_tensor(_np.tile(k[:, :, None, None], (1, 1, c, 1)), dtype)
        edges.append(b.depthwise_conv(x, kernel, 1, "same", "channels_last"))
    out = b.stack(edges, -1)
    return b.transpose(out, (0, 3, 1, 2, 4)) if data_format == "channels_first" else out


def image_ssim(b, image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01,
               k2=0.03, data_format=None):
    """Keras's SSIM: local statistics under a ``filter_size`` Gaussian window (valid
    positions only), averaged over positions and channels; one value per image."""
    a, squeeze = _channels_last(b, image1, data_format, "ssim")
    c_, _ = _channels_last(b, image2, data_format, "ssim")
    dtype = b.dtype_name(a)
    a, c_ = _float(b, a), b.cast(_float(b, c_), b.dtype_name(_float(b, a)))
    ft = b.dtype_name(a)
    n, h, w, ch = b.static_shape(a)
    g = _gauss_1d(b, filter_size, filter_sigma, ft)
    kernel = b.reshape(b.multiply(b.expand_dims(g, 1), b.expand_dims(g, 0)),
                       (filter_size, filter_size, 1, 1))

    def blur(v):
        return b.conv(v, kernel, 1, "valid", "channels_last")
    a = b.reshape(b.transpose(a, (0, 3, 1, 2)), (-1, h, w, 1))
    c_ = b.reshape(b.transpose(c_, (0, 3, 1, 2)), (-1, h, w, 1))
    mu1, mu2 = blur(a), blur(c_)
    mu11, mu22, mu12 = b.multiply(mu1, mu1), b.multiply(mu2, mu2), b.multiply(mu1, mu2)
    s11 = b.subtract(blur(b.multiply(a, a)), mu11)
    s22 = b.subtract(blur(b.multiply(c_, c_)), mu22)
    s12 = b.subtract(blur(b.multiply(a, c_)), mu12)
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    num = b.multiply(b.add(b.multiply(mu12, 2.0), c1), b.add(b.multiply(s12, 2.0), c2))
    den = b.multiply(b.add(b.add(mu11, mu22), c1), b.add(b.add(s11, s22), c2))
    per = b.mean(b.reshape(b.mean(b.divide(num, den), (1, 2, 3)), (n, ch)), -1)
    return b.cast(b.squeeze(per, 0) if squeeze else per, dtype)


def _windows(b, x, axis, k, stride, dilation, padding):
    """``x`` with ``axis`` replaced by (window position, offset in the window)."""
    n = b.static_shape(x)[axis]
    span = (k - 1) * dilation + 1
    if padding == "same":
        out = -(-n // stride)
        total = max((out - 1) * stride + span - n, 0)
        pads = [(0, 0)] * _ndim(b, x)
        pads[axis] = (total // 2, total - total // 2)
        x, n = b.pad(x, pads), n + total
    out = (n - span) // stride + 1
    index = _np.arange(out)[:, None] * stride + _np.arange(k)[None, :] * dilation
    return b.take(x, b.convert_to_tensor(index.astype(_np.int32)), axis)


def image_extract_patches_3d(b, volumes, size, strides=None, dilation_rate=1, padding="valid",
                             data_format=None):
    """Keras's 3D patches (a convolution with an identity kernel there): each output
    position holds its ``size`` block flattened in (depth, height, width, channel) order."""
    x = _t(b, volumes)
    size = (size,) * 3 if isinstance(size, int) else tuple(size)
    strides = size if strides is None else (strides,) * 3 if isinstance(strides, int) \
        else tuple(strides)
    dilation = (dilation_rate,) * 3 if isinstance(dilation_rate, int) else tuple(dilation_rate)
    if len(strides) != 3 or len(size) != 3:
        raise ValueError(f"finegrad.ops.image.extract_patches_3d: size and strides must be "
                         f"an int or 3 ints, got {size!r} and {strides!r}")
    unbatched = _ndim(b, x) == 4
    if unbatched:
        x = b.expand_dims(x, 0)
    if data_format == "channels_first":
        x = b.moveaxis(x, 1, -1)
    for d in range(3):
        x = _windows(b, x, 1 + 2 * d, size[d], strides[d], dilation[d], padding.lower())
    x = b.transpose(x, (0, 1, 3, 5, 2, 4, 6, 7))
    n, od, oh, ow = b.static_shape(x)[:4]
    x = b.reshape(x, (n, od, oh, ow, -1))
    if data_format == "channels_first":
        x = b.moveaxis(x, -1, 1)
    return b.squeeze(x, 0) if unbatched else x
