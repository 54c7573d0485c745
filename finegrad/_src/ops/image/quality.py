"""``tf.image``'s statistics and quality measures: ``per_image_standardization``,
``total_variation``, ``psnr`` and ``ssim``."""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reshape
from finegrad._src.ops.image.color import convert_image_dtype
from finegrad._src.ops.image.resize import resample
from finegrad._src.ops.math.arithmetic import maximum
from finegrad._src.ops.math.elementwise import abs as _abs, log as _log
from finegrad._src.ops.math.reductions import reduce_mean, reduce_sum
from finegrad._src.tensor import Tensor
from typing import Any
from finegrad._src.types import TensorLike

_AXES = [-3, -2, -1]


def per_image_standardization(image: TensorLike) -> Tensor:
    """``(x - mean) / max(stddev, 1 / sqrt(N))`` over each image's ``N`` pixels and channels,
    computed and returned in float32 whatever the input dtype (as TensorFlow 2).

    >>> import finegrad as fg
    >>> fg.image.per_image_standardization([[[0.], [2.]]])[..., 0].numpy()
    array([[-1.,  1.]], dtype=float32)
    """
    flt = cast(convert_to_tensor(image), dtypes.float32)
    if flt.shape.rank < 3:
        raise ValueError("'image' must be at least three-dimensional.")
    n = int(np.prod(flt.shape.as_list()[-3:]))
    mean = reduce_mean(flt, _AXES, keepdims=True)
    centered = flt - mean
    std = reduce_mean(centered * centered, _AXES, keepdims=True) ** 0.5
    out = centered / maximum(std, cast(1.0 / np.sqrt(n), flt.dtype))
    return out


def total_variation(images: TensorLike, name: str | None=None) -> Tensor:
    """Sum of absolute differences of neighbouring pixels (per image for a batch).

    >>> import finegrad as fg
    >>> fg.image.total_variation([[[0.], [1.]], [[3.], [1.]]]).numpy()
    np.float32(6.0)
    """
    images = convert_to_tensor(images)
    if images.shape.rank not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    dh = images[..., 1:, :, :] - images[..., :-1, :, :]
    dw = images[..., :, 1:, :] - images[..., :, :-1, :]
    axes = None if images.shape.rank == 3 else [1, 2, 3]
    return reduce_sum(_abs(dh), axes) + reduce_sum(_abs(dw), axes)


def psnr(a: TensorLike, b: TensorLike, max_val: Any, name: str | None=None) -> Tensor:
    """Peak signal-to-noise ratio ``10 log10(max_val**2 / mse)`` per image, in float32.

    >>> import finegrad as fg
    >>> float(fg.image.psnr([[[0.]]], [[[0.1]]], 1.0).numpy().round(3))
    20.0
    """
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.dtype != b.dtype:
        raise TypeError(f"finegrad.image.psnr: 'a' ({a.dtype.name}) and 'b' ({b.dtype.name}) "
                        "must have the same dtype")
    max_val = convert_image_dtype(cast(max_val, a.dtype), dtypes.float32)
    a, b = convert_image_dtype(a, dtypes.float32), convert_image_dtype(b, dtypes.float32)
    mse = reduce_mean((a - b) * (a - b), _AXES)
    return (20.0 / np.log(10.0)) * _log(max_val) - (10.0 / np.log(10.0)) * _log(mse)


def _gauss_band(size, n, sigma):
    """The VALID 1-D Gaussian filter of ``size`` taps as an ``(n - size + 1, n)`` matrix; the
    2-D filter TensorFlow uses is the outer product of this normalized 1-D one."""
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-0.5 * coords ** 2 / float(sigma) ** 2)
    g /= g.sum()
    band = np.zeros((n - size + 1, n))
    for o in range(n - size + 1):
        band[o, o:o + size] = g
    return band


def ssim(img1: TensorLike, img2: TensorLike, max_val: Any, filter_size: int=11,
         filter_sigma: float=1.5, k1: float=0.01, k2: float=0.03, return_index_map: bool=False
        ) -> Tensor:
    """Structural similarity per image (mean over channels), in float32: the luminance and
    contrast-structure terms under an ``filter_size`` Gaussian window (``filter_sigma``),
    evaluated where the window fits (VALID), averaged over the image; with
    ``return_index_map`` the per-position map instead of the mean.

    Raises:
        ValueError: images of different shapes or dtypes, or smaller than the filter.

    >>> import finegrad as fg
    >>> x = fg.random.stateless_uniform([16, 16, 1], seed=[1, 2])
    >>> float(fg.image.ssim(x, x, 1.0).numpy())
    1.0
    """
    a, b = convert_to_tensor(img1), convert_to_tensor(img2)
    if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape) or a.shape.rank < 3:
        raise ValueError(f"finegrad.image.ssim: 'img1' and 'img2' must have one dtype and one "
                         f"shape of rank >= 3, got {a.dtype.name}{tuple(a.shape)} and "
                         f"{b.dtype.name}{tuple(b.shape)}")
    height, width = int(a.shape[-3]), int(a.shape[-2])
    size = int(filter_size)
    if height < size or width < size:
        raise ValueError(f"finegrad.image.ssim: images ({height}x{width}) must be at least "
                         f"filter_size ({size}) on each side")
    max_val = convert_image_dtype(cast(max_val, a.dtype), dtypes.float32)
    x, y = convert_image_dtype(a, dtypes.float32), convert_image_dtype(b, dtypes.float32)
    wh, ww = _gauss_band(size, height, filter_sigma), _gauss_band(size, width, filter_sigma)
    lead = [int(d) for d in a.shape[:-3]]

    def blur(t):
        flat = reshape(t, [-1, height, width, int(a.shape[-1])])
        out = resample(flat, wh, ww)
        return reshape(out, lead + [height - size + 1, width - size + 1, int(a.shape[-1])])
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mx, my = blur(x), blur(y)
    num0, den0 = mx * my * 2.0, mx * mx + my * my
    luminance = (num0 + c1) / (den0 + c1)
    cs = (blur(x * y) * 2.0 - num0 + c2) / (blur(x * x + y * y) - den0 + c2)
    index_map = luminance * cs
    if return_index_map:
        return reduce_mean(index_map, [-1])
    return reduce_mean(reduce_mean(index_map, [-3, -2]), [-1])
