"""``tf.image.resize`` as TensorFlow 2 computes it: each spatial axis is resampled by a constant
``(out, in)`` weight matrix, applied with ``einsum``, so both differentiation modes and every
order follow from ``einsum``'s rules. The matrices reproduce TensorFlow's kernels:

* bilinear / bicubic without antialias: ``ResizeBilinear`` / ``ResizeBicubic`` with half-pixel
  centers (bicubic: Keys' kernel, a = -0.5, on TensorFlow's 1024-entry table; taps outside the
  image dropped and the rest renormalized);
* area: ``ResizeArea``, the box overlap of each output pixel with the input pixels;
* nearest: ``ResizeNearestNeighbor``, source ``floor((i + 0.5) * in / out)``, a gather that
  keeps the input dtype;
* every other case (antialias, lanczos3/5, gaussian, mitchellcubic): ``ScaleAndTranslate``, the
  kernel sampled at the half-pixel centers, widened by ``in / out`` when antialiasing a
  downscale, each row normalized to sum 1.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.array.structural import cast, convert_to_tensor, expand_dims, squeeze
from finegrad._src.ops.linalg.products import einsum
from finegrad._src.tensor import Tensor
from typing import Any
from finegrad._src.types import TensorLike

_NAME = "finegrad.image.resize"
_F32 = np.float32


class ResizeMethod:
    """The names of ``tf.image.resize``'s methods (TensorFlow's ``tf.image.ResizeMethod``)."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _lanczos(radius):
    def kernel(x):
        with np.errstate(invalid="ignore", divide="ignore"):
            v = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi ** 2 * x * x)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, v))
    return kernel, float(radius)


def _gaussian(x):
    sigma = 1.5 / 3.0
    return np.where(x >= 1.5, 0.0, np.exp(-x * x / (2.0 * sigma * sigma)))


def _keys(x):
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return np.where(x >= 2, 0.0, np.where(x >= 1, far, (1.5 * x - 2.5) * x * x + 1.0))


def _mitchell(x):
    far = (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
    near = ((7.0 / 6.0) * x - 2.0) * x * x + 8.0 / 9.0
    return np.where(x >= 2, 0.0, np.where(x >= 1, far, near))


_KERNELS = {"triangle": (lambda x: np.maximum(1.0 - x, 0.0), 1.0), "keyscubic": (_keys, 2.0),
            "lanczos3": _lanczos(3), "lanczos5": _lanczos(5), "gaussian": (_gaussian, 1.5),
            "mitchellcubic": (_mitchell, 2.0)}


def _scale_translate_weights(n_in, n_out, kernel_name, antialias):
    """``ScaleAndTranslate``'s weights: kernel taps at the half-pixel centers, normalized."""
    kernel, radius = _KERNELS[kernel_name]
    # float32 arithmetic as TensorFlow's kernel: taps that land exactly on the radius vanish
    inv_scale = _F32(1.0 / float(_F32(n_out) / _F32(n_in)))
    kernel_scale = max(inv_scale, _F32(1.0)) if antialias else _F32(1.0)
    reach = _F32(radius) * kernel_scale
    w = np.zeros((n_out, n_in))
    for x in range(n_out):
        sample = (_F32(x) + _F32(0.5)) * inv_scale
        start = min(max(int(np.ceil(sample - reach - _F32(0.5))), 0), n_in - 1)
        end = min(max(int(np.floor(sample + reach - _F32(0.5))), 0), n_in - 1) + 1
        src = np.arange(start, end, dtype=_F32)
        taps = kernel(np.abs((src + _F32(0.5) - sample) / kernel_scale).astype(np.float64))
        total = taps.sum()
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            w[x, start:end] = taps / total
    return w


def _bilinear_weights(n_in, n_out):
    """``ResizeBilinear`` (half-pixel centers): two taps, clamped at the edges."""
    scale = _F32(n_in) / _F32(n_out)
    src = (np.arange(n_out, dtype=_F32) + _F32(0.5)) * scale - _F32(0.5)
    low = np.floor(src)
    lerp = (src - low).astype(np.float64)
    lo = np.maximum(low.astype(np.int64), 0)
    hi = np.minimum(np.ceil(src).astype(np.int64), n_in - 1)
    w = np.zeros((n_out, n_in))
    np.add.at(w, (np.arange(n_out), lo), 1.0 - lerp)
    np.add.at(w, (np.arange(n_out), hi), lerp)
    return w


def _cubic_table():
    x = np.arange(1025) / 1024.0
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    xf = x + 1.0
    far = ((-0.5 * xf + 2.5) * xf - 4.0) * xf + 2.0
    return near, far


def _bicubic_weights(n_in, n_out):
    """``ResizeBicubic`` (half-pixel centers): Keys' cubic on a 1024-step table, taps outside
    the image dropped and the remaining weights renormalized."""
    near, far = _cubic_table()
    scale = _F32(n_in) / _F32(n_out)
    w = np.zeros((n_out, n_in))
    for i in range(n_out):
        src = (_F32(i) + _F32(0.5)) * scale - _F32(0.5)
        loc = int(np.floor(src))
        offset = int(np.rint((src - loc) * 1024))
        taps = (far[offset], near[offset], near[1024 - offset], far[1024 - offset])
        for k, tap in enumerate(taps):
            j = loc - 1 + k
            if 0 <= j < n_in:
                w[i, j] += tap
        total = w[i].sum()
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            w[i] /= total
    return w


def _area_weights(n_in, n_out):
    """``ResizeArea``: each output pixel averages the input pixels its box overlaps."""
    scale = float(_F32(n_in) / _F32(n_out))
    lo = np.arange(n_out)[:, None] * scale
    hi = (np.arange(n_out)[:, None] + 1) * scale
    src = np.arange(n_in)[None, :]
    overlap = np.clip(np.minimum(src + 1, hi) - np.maximum(src, lo), 0.0, None)
    return overlap / scale


def _axis_weights(method, antialias, n_in, n_out):
    if method == "area":
        return _area_weights(n_in, n_out)
    if method == "bilinear":
        return (_scale_translate_weights(n_in, n_out, "triangle", True) if antialias
                else _bilinear_weights(n_in, n_out))
    if method == "bicubic":
        return (_scale_translate_weights(n_in, n_out, "keyscubic", True) if antialias
                else _bicubic_weights(n_in, n_out))
    return _scale_translate_weights(n_in, n_out, method, antialias)


def _nearest_index(n_in, n_out):
    scale = _F32(n_in) / _F32(n_out)
    src = np.floor((np.arange(n_out, dtype=_F32) + _F32(0.5)) * scale).astype(np.int64)
    return np.clip(src, 0, n_in - 1)


def _target_size(size, height, width, preserve_aspect_ratio):
    size = np.asarray(size.numpy() if isinstance(size, Tensor) else size)
    if size.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if not np.issubdtype(size.dtype, np.integer):
        raise TypeError(f"{_NAME}: argument 'size' must hold integers, got dtype {size.dtype}")
    out_h, out_w = int(size[0]), int(size[1])
    if preserve_aspect_ratio:
        factor = min(_F32(out_h) / _F32(height), _F32(out_w) / _F32(width))
        out_h, out_w = int(np.rint(factor * _F32(height))), int(np.rint(factor * _F32(width)))
    if out_h <= 0 or out_w <= 0:
        raise InvalidArgumentError(f"{_NAME}: output dimensions must be positive, got "
                                   f"{[out_h, out_w]}")
    return out_h, out_w


def resample(images: Tensor, height_weights: np.ndarray, width_weights: np.ndarray) -> Tensor:
    """Apply ``(out, in)`` weight matrices to axes 1 and 2 of an ``NHWC`` batch, in its dtype."""
    wh = convert_to_tensor(height_weights.astype(images.dtype.as_numpy_dtype))
    ww = convert_to_tensor(width_weights.astype(images.dtype.as_numpy_dtype))
    return einsum("pw,nowc->nopc", ww, einsum("oh,nhwc->nowc", wh, images))


def resize(images: TensorLike, size: Any, method: str=ResizeMethod.BILINEAR,
           preserve_aspect_ratio: bool=False, antialias: bool=False, name: str | None=None
          ) -> Tensor:
    """Resize images (``[height, width, channels]`` or a batch of them) to ``size``.

    As TensorFlow 2's ``tf.image.resize``: half-pixel centers throughout; the result is float32
    for every method but ``"nearest"``, which keeps the input dtype. ``antialias`` widens the
    kernel by ``in / out`` when downscaling (bilinear, bicubic and the ``ScaleAndTranslate``
    kernels; nearest and area ignore it). With ``preserve_aspect_ratio`` the image is scaled
    by the smaller of the two ratios, so it fits inside ``size``. Each axis is a matrix product
    with constant weights, so the gradient is the transposed resampling (also for ``"area"``,
    where TensorFlow registers none and raises ``LookupError``).

    Args:
        images: a 3-D ``[h, w, c]`` or 4-D ``[n, h, w, c]`` tensor.
        size: two positive integers ``[new_height, new_width]``.
        method: a ``ResizeMethod`` name: ``"bilinear"``, ``"nearest"``, ``"bicubic"``,
            ``"area"``, ``"lanczos3"``, ``"lanczos5"``, ``"gaussian"``, ``"mitchellcubic"``.
        preserve_aspect_ratio: keep the aspect ratio.
        antialias: low-pass filter when downsampling.
        name: unused (TensorFlow's op name).

    Returns:
        The resized images, with the input's rank.

    Raises:
        ValueError: ``images`` is not 3-D or 4-D, ``size`` is not two numbers, or an unknown
            method. InvalidArgumentError: a size that is not positive.

    >>> import finegrad as fg
    >>> fg.image.resize(fg.reshape(fg.range(4.), [2, 2, 1]), [1, 1])[..., 0].numpy()
    array([[1.5]], dtype=float32)
    """
    images = convert_to_tensor(images)
    if images.shape.rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    if method not in _KERNELS and method not in ("bilinear", "nearest", "bicubic", "area"):
        raise ValueError(f"Resize method is not implemented: {method}")
    batch = images if images.shape.rank == 4 else expand_dims(images, 0)
    height, width = int(batch.shape[1]), int(batch.shape[2])
    out_h, out_w = _target_size(size, height, width, preserve_aspect_ratio)
    if method == "nearest":
        out = gather(gather(batch, _nearest_index(height, out_h), axis=1),
                     _nearest_index(width, out_w), axis=2)
    else:
        if batch.dtype != dtypes.float32:
            batch = cast(batch, dtypes.float32)
        out = resample(batch, _axis_weights(method, antialias, height, out_h),
                       _axis_weights(method, antialias, width, out_w))
    return out if images.shape.rank == 4 else squeeze(out, [0])
