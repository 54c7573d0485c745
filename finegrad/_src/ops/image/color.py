"""``tf.image``'s dtype conversion and simple color operations: ``convert_image_dtype``,
grayscale conversions, ``adjust_brightness`` and ``adjust_gamma``, as TensorFlow computes
them (integer images are converted to float32 in [0, 1], adjusted, and converted back)."""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, ones_like, stack,
                                                stop_gradient, tile, zeros_like)
from finegrad._src.ops.math.arithmetic import maximum, minimum, multiply
from finegrad._src.ops.math.elementwise import abs as _abs, equal, where
from finegrad._src.ops.math.reductions import reduce_sum
from finegrad._src.tensor import Tensor
from typing import Any

_GRAY = (0.2989, 0.5870, 0.1140)


def _saturate(x, dtype):
    info = np.iinfo(dtype.as_numpy_dtype)
    low = max(float(info.min), float(np.finfo(x.dtype.as_numpy_dtype).min)
              if x.dtype.is_floating else float(info.min))
    return cast(minimum(maximum(x, low), float(info.max)) if x.dtype.is_floating
                else minimum(maximum(x, x.dtype.as_numpy_dtype(max(info.min, x.dtype.min))),
                             x.dtype.as_numpy_dtype(min(info.max, x.dtype.max))), dtype)


def convert_image_dtype(image: Any, dtype: Any, saturate: bool=False, name: str | None=None
                       ) -> Tensor:
    """Convert between image dtypes, rescaling: floats hold [0, 1], integers [0, MAX].

    Integer to integer shifts by the ratio of the ranges; integer to float multiplies by
    ``1 / MAX``; float to integer multiplies by ``MAX + 0.5`` and truncates (clipping first when
    ``saturate``); float to float is a cast.

    Raises:
        AttributeError: ``dtype`` is neither floating point nor integer (TensorFlow's error).

    >>> import finegrad as fg
    >>> fg.image.convert_image_dtype(fg.constant([255], fg.uint8), fg.float32).numpy()
    array([1.], dtype=float32)
    """
    image = convert_to_tensor(image)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if not (image.dtype.is_floating or image.dtype.is_integer):
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return image
    if image.dtype.is_integer and dtype.is_integer:
        scale_in, scale_out = int(image.dtype.max), int(dtype.max)
        if scale_in > scale_out:
            scaled = image // image.dtype.as_numpy_dtype((scale_in + 1) // (scale_out + 1))
            return _saturate(scaled, dtype) if saturate else cast(scaled, dtype)
        casted = _saturate(image, dtype) if saturate else cast(image, dtype)
        return casted * dtype.as_numpy_dtype((scale_out + 1) // (scale_in + 1))
    if image.dtype.is_floating and dtype.is_floating:
        return cast(image, dtype)
    if image.dtype.is_integer:
        return multiply(cast(image, dtype), 1.0 / float(image.dtype.max))
    scaled = multiply(image, float(dtype.max) + 0.5)
    return _saturate(scaled, dtype) if saturate else cast(scaled, dtype)


def _as_float(image):
    image = convert_to_tensor(image)
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image, image.dtype
    return convert_image_dtype(image, dtypes.float32), image.dtype


def rgb_to_grayscale(images: Any, name: str | None=None) -> Tensor:
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B``, keeping a last axis of size 1 and the dtype.

    >>> import finegrad as fg
    >>> fg.image.rgb_to_grayscale([[[1., 1., 1.]]]).numpy().round(4)
    array([[[0.9999]]], dtype=float32)
    """
    flt, orig = _as_float(images)
    gray = reduce_sum(flt * np.asarray(_GRAY, flt.dtype.as_numpy_dtype), -1, keepdims=True)
    return convert_image_dtype(gray, orig)


def grayscale_to_rgb(images: Any, name: str | None=None) -> Tensor:
    """Repeat a single channel three times.

    Raises:
        ValueError: the last axis is not of size 1.

    >>> import finegrad as fg
    >>> fg.image.grayscale_to_rgb(fg.ones([1, 1, 1])).shape
    TensorShape([1, 1, 3])
    """
    images = convert_to_tensor(images)
    if images.shape.rank is None or images.shape.rank < 2 or images.shape[-1] != 1:
        raise ValueError(f"finegrad.image.grayscale_to_rgb: the last axis of 'images' (shape "
                         f"{tuple(images.shape)}) must have size 1")
    return tile(images, [1] * (images.shape.rank - 1) + [3])


def adjust_brightness(image: Any, delta: Any) -> Tensor:
    """Add ``delta`` (in the [0, 1] scale of float images) to every pixel.

    >>> import finegrad as fg
    >>> fg.image.adjust_brightness([[[0.5]]], 0.25).numpy()
    array([[[0.75]]], dtype=float32)
    """
    flt, orig = _as_float(image)
    return convert_image_dtype(flt + cast(delta, flt.dtype), orig)


def adjust_gamma(image: Any, gamma: float=1, gain: float=1) -> Tensor:
    """``gain * image ** gamma`` on the [0, 1] float scale.

    Raises:
        ValueError: a negative ``gamma`` (TensorFlow: "Gamma should be a non-negative real
            number.").

    >>> import finegrad as fg
    >>> fg.image.adjust_gamma([[[0.25]]], 0.5).numpy()
    array([[[0.5]]], dtype=float32)
    """
    flt, orig = _as_float(image)
    if np.any(np.asarray(gamma.numpy() if isinstance(gamma, Tensor) else gamma) < 0):
        raise ValueError("Gamma should be a non-negative real number.")
    out = cast(gain, flt.dtype) * flt ** cast(gamma, flt.dtype)
    return convert_image_dtype(out, orig)


def _channels(images, name):
    images = convert_to_tensor(images)
    if images.shape.rank is None or images.shape.rank < 1 or images.shape[-1] != 3:
        raise ValueError(f"finegrad.image.{name}: the last axis of 'images' must be 3, got "
                         f"shape {tuple(images.shape)}")
    if not images.dtype.is_floating:
        raise TypeError(f"finegrad.image.{name}: 'images' must be float, got "
                        f"{images.dtype.name}")
    return images[..., 0], images[..., 1], images[..., 2]


def rgb_to_hsv(images: Any, name: str | None=None) -> Tensor:
    """RGB in [0, 1] to hue (in turns, [0, 1)), saturation and value, on the last axis.
    Differentiable away from the ties between channels, as TensorFlow's.

    >>> import finegrad as fg
    >>> fg.image.rgb_to_hsv([0., 1., 0.5]).numpy().round(4)
    array([0.4167, 1.    , 1.    ], dtype=float32)
    """
    r, g, b = _channels(images, "rgb_to_hsv")
    v = maximum(maximum(r, g), b)
    spread = v - minimum(minimum(r, g), b)
    one = ones_like(v)
    s = where(v > 0, spread / where(v > 0, v, one), zeros_like(v))
    norm = 1.0 / (6.0 * where(spread > 0, spread, one))
    h = where(equal(r, v), norm * (g - b),
              where(equal(g, v), norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
    h = where(spread > 0, h, zeros_like(h))
    h = where(h < 0, h + 1.0, h)
    return stack([h, s, v], -1)


def hsv_to_rgb(images: Any, name: str | None=None) -> Tensor:
    """Hue (in turns), saturation, value to RGB: ``v * ((1 - s) + s * f(h))`` with TensorFlow's
    piecewise-linear ``f`` per channel. No gradient, as TensorFlow's ``HSVToRGB``
    (``tape.gradient`` gives None).

    >>> import finegrad as fg
    >>> fg.image.hsv_to_rgb([1 / 3, 1., 1.]).numpy().round(4)
    array([0., 1., 0.], dtype=float32)
    """
    h, s, v = _channels(stop_gradient(convert_to_tensor(images)), "hsv_to_rgb")
    dh = h * 6.0

    def ramp(x):
        return minimum(maximum(x, 0.0), 1.0)
    fr, fg_, fb = ramp(_abs(dh - 3.0) - 1.0), ramp(2.0 - _abs(dh - 2.0)), ramp(2.0 - _abs(dh - 4.0))
    return stack([v * ((1.0 - s) + s * f) for f in (fr, fg_, fb)], -1)
