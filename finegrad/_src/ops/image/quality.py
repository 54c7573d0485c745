"""``tf.image``'s statistics and quality measures: ``per_image_standardization``,
``total_variation`` and ``psnr``."""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.ops.array.structural import cast, convert_to_tensor
from finegrad._src.ops.image.color import convert_image_dtype
from finegrad._src.ops.math.arithmetic import maximum
from finegrad._src.ops.math.elementwise import abs as _abs, log as _log
from finegrad._src.ops.math.reductions import reduce_mean, reduce_sum
from finegrad._src.tensor import Tensor

_AXES = [-3, -2, -1]


def per_image_standardization(image) -> Tensor:
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


def total_variation(images, name: str | None = None) -> Tensor:
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


def psnr(a, b, max_val, name: str | None = None) -> Tensor:
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
