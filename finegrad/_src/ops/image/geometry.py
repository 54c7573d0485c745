"""``tf.image``'s geometry: flips, quarter turns, transposes, crops and pads of ``[h, w, c]``
images or ``[n, h, w, c]`` batches, all slices, reversals and pads (so differentiable)."""

from __future__ import annotations

import numpy as np

from finegrad._src.ops.array.manipulation import pad, reverse
from finegrad._src.ops.array.structural import convert_to_tensor, transpose as _transpose
from finegrad._src.tensor import Tensor
from finegrad._src.types import TensorLike


def image_tensor(image: TensorLike, name: str) -> Tensor:
    """``image`` as a tensor of rank 3 or 4, else TensorFlow's ValueError."""
    image = convert_to_tensor(image)
    if image.shape.rank not in (3, 4):
        raise ValueError(f"finegrad.image.{name}: 'image' (shape {tuple(image.shape)}) must "
                         "have either 3 or 4 dimensions.")
    return image


def _hw_perm(rank):
    return [0, 2, 1, 3] if rank == 4 else [1, 0, 2]


def flip_left_right(image: TensorLike) -> Tensor:
    """Reverse the width axis (``image[..., ::-1, :]``).

    >>> import finegrad as fg
    >>> fg.image.flip_left_right([[[1.], [2.]]])[..., 0].numpy()
    array([[2., 1.]], dtype=float32)
    """
    return reverse(image_tensor(image, "flip_left_right"), [-2])


def flip_up_down(image: TensorLike) -> Tensor:
    """Reverse the height axis.

    >>> import finegrad as fg
    >>> fg.image.flip_up_down([[[1.]], [[2.]]])[:, 0, 0].numpy()
    array([2., 1.], dtype=float32)
    """
    return reverse(image_tensor(image, "flip_up_down"), [-3])


def transpose(image: TensorLike) -> Tensor:
    """Swap height and width.

    >>> import finegrad as fg
    >>> fg.image.transpose(fg.zeros([2, 3, 1])).shape
    TensorShape([3, 2, 1])
    """
    image = image_tensor(image, "transpose")
    return _transpose(image, _hw_perm(image.shape.rank))


def rot90(image: TensorLike, k: int=1) -> Tensor:
    """Rotate by ``k`` quarter turns counter-clockwise (``np.rot90`` over height and width).

    >>> import finegrad as fg
    >>> fg.image.rot90([[[1.], [2.]], [[3.], [4.]]])[..., 0].numpy()
    array([[2., 4.],
           [1., 3.]], dtype=float32)
    """
    image = image_tensor(image, "rot90")
    k = int(k) % 4
    perm = _hw_perm(image.shape.rank)
    if k == 1:
        return _transpose(reverse(image, [-2]), perm)
    if k == 2:
        return reverse(image, [-3, -2])
    if k == 3:
        return reverse(_transpose(image, perm), [-2])
    return image


def _check_box(name, what, values):
    for arg, value in values.items():
        if int(value) < 0 and what == "offset":
            raise ValueError(f"finegrad.image.{name}: '{arg}' must be >= 0, got {value}")
        if int(value) <= 0 and what == "size":
            raise ValueError(f"finegrad.image.{name}: '{arg}' must be > 0, got {value}")


def crop_to_bounding_box(image: TensorLike, offset_height: int, offset_width: int,
                         target_height: int, target_width: int) -> Tensor:
    """The ``target_height x target_width`` window whose top-left corner is at the offsets.

    Raises:
        ValueError: a negative offset, a size that is not positive, or a window that does
            not fit inside the image.

    >>> import finegrad as fg
    >>> fg.image.crop_to_bounding_box(fg.zeros([4, 5, 1]), 1, 2, 2, 3).shape
    TensorShape([2, 3, 1])
    """
    image = image_tensor(image, "crop_to_bounding_box")
    _check_box("crop_to_bounding_box", "offset", {"offset_height": offset_height,
                                                  "offset_width": offset_width})
    _check_box("crop_to_bounding_box", "size", {"target_height": target_height,
                                                "target_width": target_width})
    height, width = int(image.shape[-3]), int(image.shape[-2])
    if offset_height + target_height > height:
        raise ValueError("height must be >= target + offset.")
    if offset_width + target_width > width:
        raise ValueError("width must be >= target + offset.")
    return image[..., offset_height:offset_height + target_height,
                 offset_width:offset_width + target_width, :]


def pad_to_bounding_box(image: TensorLike, offset_height: int, offset_width: int,
                        target_height: int, target_width: int) -> Tensor:
    """Zero-pad to ``target_height x target_width``, the image's top-left at the offsets.

    Raises:
        ValueError: a negative offset, or a target smaller than the image plus the offset.

    >>> import finegrad as fg
    >>> fg.image.pad_to_bounding_box(fg.ones([1, 1, 1]), 1, 0, 2, 2)[..., 0].numpy()
    array([[0., 0.],
           [1., 0.]], dtype=float32)
    """
    image = image_tensor(image, "pad_to_bounding_box")
    _check_box("pad_to_bounding_box", "offset", {"offset_height": offset_height,
                                                 "offset_width": offset_width})
    height, width = int(image.shape[-3]), int(image.shape[-2])
    after_h, after_w = target_height - offset_height - height, target_width - offset_width - width
    if after_h < 0:
        raise ValueError("height must be <= target - offset")
    if after_w < 0:
        raise ValueError("width must be <= target - offset")
    paddings = [[offset_height, after_h], [offset_width, after_w], [0, 0]]
    return pad(image, ([[0, 0]] if image.shape.rank == 4 else []) + paddings)


def central_crop(image: TensorLike, central_fraction: float) -> Tensor:
    """Keep the central ``central_fraction`` of each spatial axis (TensorFlow's rounding:
    the start is ``int((size - size * fraction) / 2)``, the same margin at both ends).

    Raises:
        ValueError: ``central_fraction`` outside ``(0, 1]``.

    >>> import finegrad as fg
    >>> fg.image.central_crop(fg.zeros([5, 4, 3]), 0.5).shape
    TensorShape([3, 2, 3])
    """
    image = image_tensor(image, "central_crop")
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return image
    height, width = int(image.shape[-3]), int(image.shape[-2])
    top = int((height - height * np.float64(central_fraction)) / 2)
    left = int((width - width * np.float64(central_fraction)) / 2)
    return image[..., top:height - top, left:width - left, :]


def resize_with_crop_or_pad(image: TensorLike, target_height: int, target_width: int) -> Tensor:
    """Center-crop or zero-pad each spatial axis to the target size.

    >>> import finegrad as fg
    >>> fg.image.resize_with_crop_or_pad(fg.zeros([4, 1, 1]), 2, 3).shape
    TensorShape([2, 3, 1])
    """
    image = image_tensor(image, "resize_with_crop_or_pad")
    _check_box("resize_with_crop_or_pad", "size", {"target_height": target_height,
                                                   "target_width": target_width})
    height, width = int(image.shape[-3]), int(image.shape[-2])
    dh, dw = target_height - height, target_width - width
    cropped = crop_to_bounding_box(image, max(-dh // 2, 0), max(-dw // 2, 0),
                                   min(target_height, height), min(target_width, width))
    return pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), target_height,
                               target_width)
