"""``tf.image.adjust_contrast``, ``adjust_saturation`` and ``adjust_hue``: TensorFlow's
``AdjustContrastv2``, ``AdjustSaturation`` and ``AdjustHue`` kernels, which TensorFlow
registers no gradient for. They are primitives here whose gradient rules raise the
``LookupError`` TensorFlow's tape raises ("gradient registry has no entry for: ...")."""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.core import Primitive, bind, same_shape_rule
from finegrad._src.ops.array.structural import cast, convert_to_tensor
from finegrad._src.ops.image.color import convert_image_dtype
from finegrad._src.tensor import Tensor
from typing import Any
from finegrad._src.types import TensorLike


def _no_gradient(prim, tf_name):
    def rule(*args, **kwargs):
        raise LookupError(f"gradient registry has no entry for: {tf_name}")
    prim.def_jvp(rule)
    prim.def_vjp(rule)


adjust_contrast_p = Primitive("adjust_contrast", shape_rule=same_shape_rule, fresh=True)
adjust_saturation_p = Primitive("adjust_saturation", shape_rule=same_shape_rule, fresh=True)
adjust_hue_p = Primitive("adjust_hue", shape_rule=same_shape_rule, fresh=True)
_no_gradient(adjust_contrast_p, "AdjustContrastv2")
_no_gradient(adjust_saturation_p, "AdjustSaturation")
_no_gradient(adjust_hue_p, "AdjustHue")


@adjust_contrast_p.def_impl
def _adjust_contrast_impl(x, factor):
    mean = x.mean(axis=(-3, -2), keepdims=True, dtype=np.float64).astype(x.dtype)
    return ((x - mean) * factor + mean).astype(x.dtype)


def _rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v, vmin = rgb.max(-1), rgb.min(-1)
    rng = v - vmin
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, 0.0)
        norm = 1.0 / (6.0 * rng)
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
    h = np.where(rng > 0, h, 0.0)
    return np.where(h < 0, h + 1.0, h), s, v


def _hsv_to_rgb(h6, s, v):
    """``h6`` the hue in [0, 6): TensorFlow's ``hv_range_to_rgb``."""
    vmin = v * (1.0 - s)
    cat = np.clip(np.floor(h6).astype(np.int64), 0, 5)
    ratio = h6 - cat
    ratio = np.where(cat % 2 == 0, ratio, 1.0 - ratio)
    vmid = vmin + ratio * (v - vmin)
    table = ((v, vmid, vmin), (vmid, v, vmin), (vmin, v, vmid), (vmin, vmid, v),
             (vmid, vmin, v), (v, vmin, vmid))
    return np.stack([np.choose(cat, [row[k] for row in table]) for k in range(3)], -1)


@adjust_saturation_p.def_impl
def _adjust_saturation_impl(x, scale):
    h, s, v = _rgb_to_hsv(x.astype(np.float64))
    s = np.clip(s * np.float64(scale), 0.0, 1.0)
    return _hsv_to_rgb(h * 6.0, s, v).astype(x.dtype)


@adjust_hue_p.def_impl
def _adjust_hue_impl(x, delta):
    h, s, v = _rgb_to_hsv(x.astype(np.float64))
    h6 = np.fmod(h * 6.0 + np.float64(delta) * 6.0, 6.0)
    h6 = np.where(h6 < 0, h6 + 6.0, h6)
    return _hsv_to_rgb(h6, s, v).astype(x.dtype)


# ---- the XLA lowerings: the same formulas in JAX, in float64 where JAX has it (x64 mode),
# else in the image's float32 (a few ulps apart; the hue sector is continuous at its edges)

def _wide(x):
    import jax.numpy as jnp
    return x.astype(jnp.promote_types(x.dtype, jnp.float64))


@adjust_contrast_p.def_lowering
def _adjust_contrast_lower(x, factor):
    mean = _wide(x).mean(axis=(-3, -2), keepdims=True).astype(x.dtype)
    return ((x - mean) * factor + mean).astype(x.dtype)


def _rgb_to_hsv_jax(rgb):
    import jax.numpy as jnp
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v, vmin = rgb.max(-1), rgb.min(-1)
    rng = v - vmin
    safe = lambda d: jnp.where(d == 0, 1, d)   # noqa: E731 (impl's 0/0 lands where h, s = 0)
    s = jnp.where(v > 0, rng / safe(v), 0.0)
    norm = 1.0 / (6.0 * safe(rng))
    h = jnp.where(r == v, norm * (g - b),
                  jnp.where(g == v, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
    h = jnp.where(rng > 0, h, 0.0)
    return jnp.where(h < 0, h + 1.0, h), s, v


def _hsv_to_rgb_jax(h6, s, v):
    import jax.numpy as jnp
    vmin = v * (1.0 - s)
    cat = jnp.clip(jnp.floor(h6), 0, 5).astype(jnp.int32)
    ratio = h6 - cat
    ratio = jnp.where(cat % 2 == 0, ratio, 1.0 - ratio)
    vmid = vmin + ratio * (v - vmin)
    table = ((v, vmid, vmin), (vmid, v, vmin), (vmin, v, vmid), (vmin, vmid, v),
             (vmid, vmin, v), (v, vmin, vmid))
    return jnp.stack([jnp.choose(cat, [row[k] for row in table], mode="clip")
                      for k in range(3)], -1)


@adjust_saturation_p.def_lowering
def _adjust_saturation_lower(x, scale):
    import jax.numpy as jnp
    h, s, v = _rgb_to_hsv_jax(_wide(x))
    s = jnp.clip(s * _wide(scale), 0.0, 1.0)
    return _hsv_to_rgb_jax(h * 6.0, s, v).astype(x.dtype)


@adjust_hue_p.def_lowering
def _adjust_hue_lower(x, delta):
    import jax.numpy as jnp
    h, s, v = _rgb_to_hsv_jax(_wide(x))
    h6 = jnp.fmod(h * 6.0 + _wide(delta) * 6.0, 6.0)
    h6 = jnp.where(h6 < 0, h6 + 6.0, h6)
    return _hsv_to_rgb_jax(h6, s, v).astype(x.dtype)


def _adjust(prim, image, value, name):
    image = convert_to_tensor(image)
    if image.shape.rank is None or image.shape.rank < 3:
        raise ValueError(f"finegrad.image.{name}: 'image' must be at least 3-D, got shape "
                         f"{tuple(image.shape)}")
    if name != "adjust_contrast" and image.shape[-1] != 3:
        raise ValueError(f"finegrad.image.{name}: the last axis of 'image' must be 3 (RGB), got "
                         f"shape {tuple(image.shape)}")
    orig = image.dtype
    flt = image if orig in (dtypes.float16, dtypes.float32) else convert_image_dtype(
        image, dtypes.float32)
    out = bind(prim, flt, cast(value, flt.dtype))
    return convert_image_dtype(out, orig, saturate=True) if orig != flt.dtype else out


def adjust_contrast(images: TensorLike, contrast_factor: Any) -> Tensor:
    """``(x - mean) * contrast_factor + mean``, the mean per image and channel.
    No gradient, as in TensorFlow: differentiating raises ``LookupError``.

    >>> import finegrad as fg
    >>> fg.image.adjust_contrast([[[0.], [1.]]], 2.)[..., 0].numpy()
    array([[-0.5,  1.5]], dtype=float32)
    """
    return _adjust(adjust_contrast_p, images, contrast_factor, "adjust_contrast")


def adjust_saturation(image: TensorLike, saturation_factor: Any) -> Tensor:
    """Scale the HSV saturation by ``saturation_factor`` (clipped to [0, 1]).
    No gradient, as in TensorFlow: differentiating raises ``LookupError``.

    >>> import finegrad as fg
    >>> fg.image.adjust_saturation([[[1., .5, .5]]], 0.).numpy()
    array([[[1., 1., 1.]]], dtype=float32)
    """
    return _adjust(adjust_saturation_p, image, saturation_factor, "adjust_saturation")


def adjust_hue(image: TensorLike, delta: Any) -> Tensor:
    """Rotate the HSV hue by ``delta`` (in turns, within [-1, 1]).
    No gradient, as in TensorFlow: differentiating raises ``LookupError``.

    >>> import finegrad as fg
    >>> fg.image.adjust_hue([[[1., 0., 0.]]], 1 / 3).numpy().round(4)
    array([[[0., 1., 0.]]], dtype=float32)
    """
    if not -1.0 <= float(np.asarray(delta.numpy() if isinstance(delta, Tensor) else delta)) <= 1:
        raise ValueError("delta must be in the interval [-1, 1]")
    return _adjust(adjust_hue_p, image, delta, "adjust_hue")
