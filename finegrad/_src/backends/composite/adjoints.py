"""The adjoints of `keras.ops`'s sliding-window ops, written once with other ops for every
backend: ``conv_transpose`` (of ``conv``: JAX's zero-dilated convolution with Keras's
padding rule), ``fold`` (of ``unfold``, col2im) and ``istft`` (of ``stft``: windowed
overlap-add normalized by the summed squared window)."""
import numpy as _np

from finegrad._src.backends.composite.math import _window
from finegrad._src.backends.composite.numpy import _float, _ndim, _t


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


def _transpose_pads(kernel, stride, dilation, padding, output_padding):
    """Keras's (left, right) zero padding of the stride-dilated input for one axis."""
    if padding.lower() not in ("valid", "same"):
        raise ValueError(f"finegrad.ops.conv_transpose: padding must be 'valid' or 'same', "
                         f"got {padding!r}")
    k = (kernel - 1) * dilation + 1
    if padding.lower() == "valid":
        extra = max(k, stride) - k if output_padding is None else output_padding
        return k - 1, k - 1 + extra
    total = stride + k - 2 if output_padding is None else k + k % 2 - 2 + output_padding
    left = min(total // 2 + total % 2, k - 1)
    return left, total - left


def _dilate(b, x, axis, stride):
    """Insert ``stride - 1`` zeros between neighbours along ``axis``."""
    if stride == 1:
        return x
    shape = list(b.static_shape(x))
    n = shape[axis]
    pads = [(0, 0)] * (len(shape) + 1)
    pads[axis + 1] = (0, stride - 1)
    y = b.pad(b.expand_dims(x, axis + 1), pads)
    shape[axis] = n * stride
    y = b.reshape(y, shape)
    return b.take(y, b.arange(0, (n - 1) * stride + 1, dtype="int32"), axis)


def _pad_or_crop(b, x, axis, left, right):
    if left < 0 or right < 0:
        n = b.static_shape(x)[axis]
        x = b.take(x, b.arange(max(-left, 0), n - max(-right, 0), dtype="int32"), axis)
        left, right = max(left, 0), max(right, 0)
    pads = [(0, 0)] * _ndim(b, x)
    pads[axis] = (left, right)
    return b.pad(x, pads)


def conv_transpose(b, inputs, kernel, strides=1, padding="valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    """``kernel`` is ``(*spatial, out_channels, in_channels)``, as Keras's."""
    x = _float(b, inputs)
    n = _ndim(b, x) - 2
    if data_format == "channels_first":
        x = b.moveaxis(x, 1, -1)
    k = b.cast(_t(b, kernel), b.dtype_name(x))
    strides, dilation = _tuple(strides, n), _tuple(dilation_rate, n)
    out_pad = [None] * n if output_padding is None else _tuple(output_padding, n)
    sizes = b.static_shape(k)[:n]
    for d in range(n):
        x = _dilate(b, x, 1 + d, strides[d])
        left, right = _transpose_pads(sizes[d], strides[d], dilation[d], padding, out_pad[d])
        x = _pad_or_crop(b, x, 1 + d, left, right)
    for d in range(n):
        k = b.flip(k, d)
    k = b.swapaxes(k, -1, -2)                     # (*spatial, in, out)
    out = b.conv(x, k, 1, "valid", "channels_last", dilation)
    return b.moveaxis(out, -1, 1) if data_format == "channels_first" else out


def _scatter_matrix(targets, width):
    """The 0/1 matrix adding source ``i`` into column ``targets[i]`` (of ``width``)."""
    m = _np.zeros((len(targets), width), _np.float32)
    m[_np.arange(len(targets)), targets] = 1.0
    return m


def fold(b, x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: ``(N, C*kh*kw, L)`` blocks summed into ``(N, C, oh, ow)``."""
    x = _t(b, x)
    (oh, ow), (kh, kw) = _tuple(output_size, 2), _tuple(kernel_size, 2)
    (dh, dw), (ph, pw), (sh, sw) = _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2)
    n, ckk, length = b.static_shape(x)
    c = ckk // (kh * kw)
    nh = (oh + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    nw = (ow + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if nh * nw != length:
        raise ValueError(f"finegrad.ops.fold: x's last dimension must be the number of "
                         f"blocks {nh * nw}, got {length}")
    i, j, r, s = _np.meshgrid(_np.arange(kh), _np.arange(kw), _np.arange(nh), _np.arange(nw),
                              indexing="ij")
    rows, cols = i * dh + r * sh, j * dw + s * sw
    hp, wp = oh + 2 * ph, ow + 2 * pw
    m = _scatter_matrix((rows * wp + cols).reshape(-1), hp * wp)
    xf = _float(b, x)
    out = b.matmul(b.reshape(xf, (n, c, kh * kw * nh * nw)),
                   b.convert_to_tensor(m, b.dtype_name(xf)))
    out = b.reshape(out, (n, c, hp, wp))[:, :, ph:ph + oh, pw:pw + ow]
    return b.cast(out, b.dtype_name(x))


def istft(b, x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    real, imag = x
    frames = b.irfft((_float(b, real), _float(b, imag)), fft_length)    # (..., F, fft)
    dt = b.dtype_name(frames)
    count = b.static_shape(frames)[-2]
    left = (fft_length - sequence_length) // 2
    win = b.pad(_window(b, window, sequence_length, dt),
                [(left, fft_length - sequence_length - left)])
    frames = b.multiply(frames, win)
    total = fft_length + sequence_stride * (count - 1)
    f, k = _np.meshgrid(_np.arange(count), _np.arange(fft_length), indexing="ij")
    m = _scatter_matrix((f * sequence_stride + k).reshape(-1), total)
    w2 = _np.square(b.convert_to_numpy(win).astype(_np.float64)).reshape(-1)
    steady = _steady(b, sequence_length, fft_length, window, center)
    if steady and window is not None:
        # TensorFlow's inverse_stft_window_fn: each sample divided by the squared window
        # summed over the frames that would overlap it in the steady state
        overlaps = -(-fft_length // sequence_stride)
        w2 = _np.pad(w2, (0, overlaps * sequence_stride - fft_length))
        per = _np.tile(w2.reshape(overlaps, sequence_stride).sum(0), overlaps)[:fft_length]
        frames = b.divide(frames, b.convert_to_tensor(per, dt))
    lead = b.static_shape(frames)[:-2]
    out = b.matmul(b.reshape(frames, lead + (count * fft_length,)), b.convert_to_tensor(m, dt))
    if not steady:       # SciPy's: divided by the squared window overlapping each sample
        norm = _np.tile(w2, count) @ m.astype(_np.float64)
        norm = _np.where(norm > 1e-10, norm, 1.0)
        if window is None:
            norm = norm * sequence_stride / fft_length
        out = b.divide(out, b.convert_to_tensor(norm, dt))
    return _trim(b, out, total, fft_length, length, center)


def _steady(b, sequence_length, fft_length, window, center):
    """Whether Keras's istft on this backend uses TensorFlow's steady-state normalization
    (tensorflow; torch except where it falls back to torch.istft) rather than SciPy's
    per-sample one (jax, and the finegrad backend)."""
    if b.name == "torch":
        return not (sequence_length == fft_length and center and window is not None)
    return b.name == "tensorflow"


def _trim(b, out, total, fft_length, length, center):
    start = fft_length // 2 if center else 0
    end = start + length if length is not None else total - fft_length // 2 if center \
        else total
    return b.take(out, b.arange(start, end, dtype="int32"), -1)
