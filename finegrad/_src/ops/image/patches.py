"""``tf.image``'s finite-difference filters: ``image_gradients`` (forward differences, zero
at the far edge) and ``sobel_edges`` (3x3 Sobel filters on a reflect-padded image)."""

from __future__ import annotations

from finegrad._src.ops.array.manipulation import pad
from finegrad._src.ops.array.structural import concat, convert_to_tensor, stack, zeros_like
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


def image_gradients(image) -> tuple[Tensor, Tensor]:
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


def sobel_edges(image) -> Tensor:
    """The vertical and horizontal Sobel responses, stacked on a new last axis
    ``[batch, h, w, d, 2]``; the image is reflect-padded by one pixel, as TensorFlow does.

    >>> import finegrad as fg
    >>> fg.image.sobel_edges(fg.ones([1, 3, 3, 1])).shape
    TensorShape([1, 3, 3, 1, 2])
    """
    image = _batch(image, "sobel_edges")
    height, width = int(image.shape[1]), int(image.shape[2])
    padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    dy, dx = 0.0, 0.0
    for i in range(3):
        for j in range(3):
            window = padded[:, i:i + height, j:j + width, :]
            if _SOBEL_Y[i][j]:
                dy = dy + float(_SOBEL_Y[i][j]) * window
            if _SOBEL_Y[j][i]:
                dx = dx + float(_SOBEL_Y[j][i]) * window
    return stack([dy, dx], -1)
