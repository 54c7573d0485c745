"""``tf.image``'s finite-difference filters: ``image_gradients`` (forward differences, zero
at the far edge) and ``sobel_edges`` (3x3 Sobel filters on a reflect-padded image)."""

from __future__ import annotations

from typing import Any

from finegrad._src.ops.array.manipulation import pad
from finegrad._src.ops.array.structural import (concat, convert_to_tensor, reshape, stack,
                                                zeros_like)
from finegrad._src.tensor import Tensor

_SOBEL_Y = ((-1, -2, -1), (0, 0, 0), (1, 2, 1))


def _batch(image, name):
    image = convert_to_tensor(image)
    if image.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{tuple(image.shape)}." if name == "image_gradients" else
                         f"finegrad.image.{name}: 'image' must be 4-D [batch, h, w, d], got "
                         f"shape {tuple(image.shape)}")
    return image


def image_gradients(image: Any) -> tuple[Tensor, Tensor]:
    """``(dy, dx)``: ``dy[:, i] = image[:, i + 1] - image[:, i]`` (0 in the last row), ``dx``
    likewise along the width.

    >>> import finegrad as fg
    >>> dy, dx = fg.image.image_gradients(fg.reshape(fg.range(4.), [1, 2, 2, 1]))
    >>> dy[0, ..., 0].numpy(), dx[0, ..., 0].numpy()
    (array([[2., 2.],
           [0., 0.]], dtype=float32), array([[1., 0.],
           [1., 0.]], dtype=float32))
    """
    image = _batch(image, "image_gradients")
    dy = image[:, 1:] - image[:, :-1]
    dx = image[:, :, 1:] - image[:, :, :-1]
    dy = concat([dy, zeros_like(image[:, :1])], 1)
    dx = concat([dx, zeros_like(image[:, :, :1])], 2)
    return dy, dx


def sobel_edges(image: Any) -> Tensor:
    """The vertical and horizontal Sobel responses, stacked on a new last axis
    ``[batch, h, w, d, 2]``; the image is reflect-padded by one pixel, as TensorFlow does.

    >>> import finegrad as fg
    >>> fg.image.sobel_edges(fg.ones([1, 3, 3, 1])).shape
    TensorShape([1, 3, 3, 1, 2])
    """
    image = _batch(image, "sobel_edges")
    height, width = int(image.shape[1]), int(image.shape[2])
    padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    dy: Any = 0.0   # a float, then a tensor
    dx: Any = 0.0
    for i in range(3):
        for j in range(3):
            window = padded[:, i:i + height, j:j + width, :]
            if _SOBEL_Y[i][j]:
                dy = dy + float(_SOBEL_Y[i][j]) * window
            if _SOBEL_Y[j][i]:
                dx = dx + float(_SOBEL_Y[j][i]) * window
    return stack([dy, dx], -1)


def _four(values, what):
    values = [int(v) for v in values]
    if len(values) != 4 or values[0] != 1 or values[3] != 1 or min(values) < 1:
        raise ValueError(f"finegrad.image.extract_patches: '{what}' must be [1, rows, cols, 1] "
                         f"with positive entries, got {values}")
    return values[1], values[2]


def _patch_grid(size, k, stride, rate, padding):
    """Output length and padding before, as TensorFlow's VALID / SAME windows."""
    reach = (k - 1) * rate + 1
    if padding == "VALID":
        return max(-(-(size - reach + 1) // stride), 0), 0
    out = -(-size // stride)
    return out, max((out - 1) * stride + reach - size, 0) // 2


def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: str,
                    name: str | None=None) -> Tensor:
    """The ``sizes[1] x sizes[2]`` patches of each image, taken every ``strides`` pixels with
    taps ``rates`` apart, flattened (rows, columns, channels) into the last axis:
    ``[batch, out_rows, out_cols, rows * cols * depth]``. ``"SAME"`` pads with zeros.

    >>> import finegrad as fg
    >>> x = fg.reshape(fg.range(16.), [1, 4, 4, 1])
    >>> p = fg.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    >>> p[0, 0].numpy()
    array([[0., 1., 4., 5.],
           [2., 3., 6., 7.]], dtype=float32)
    """
    images = convert_to_tensor(images)
    if images.shape.rank != 4:
        raise ValueError(f"finegrad.image.extract_patches: 'images' must be 4-D, got shape "
                         f"{tuple(images.shape)}")
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"finegrad.image.extract_patches: 'padding' must be 'VALID' or 'SAME', "
                         f"got {padding!r}")
    (kh, kw), (sh, sw), (rh, rw) = _four(sizes, "sizes"), _four(strides, "strides"), \
        _four(rates, "rates")
    height, width, depth = (int(d) for d in images.shape[1:])
    oh, top = _patch_grid(height, kh, sh, rh, padding)
    ow, left = _patch_grid(width, kw, sw, rw, padding)
    need_h, need_w = (oh - 1) * sh + (kh - 1) * rh + 1, (ow - 1) * sw + (kw - 1) * rw + 1
    padded = pad(images, [[0, 0], [top, max(need_h - height - top, 0)],
                          [left, max(need_w - width - left, 0)], [0, 0]])
    taps = [padded[:, i * rh:i * rh + (oh - 1) * sh + 1:sh, j * rw:j * rw + (ow - 1) * sw + 1:sw]
            for i in range(kh) for j in range(kw)]
    return reshape(stack(taps, 3), [-1, oh, ow, kh * kw * depth])
