"""``tf.image``'s random augmentations. The ``stateless_random_*`` ones draw from
``random.stateless_uniform`` exactly as TensorFlow does (so the same ``seed`` gives the same
result, bit for bit); the ``random_*`` ones draw from ``random.uniform`` (the global and op
seeds, as TensorFlow's stateful ops, though not TensorFlow's stream)."""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.ops.array.manipulation import reverse
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reshape
from finegrad._src.ops.image.adjust_hsv import adjust_contrast, adjust_hue, adjust_saturation
from finegrad._src.ops.image.color import adjust_brightness
from finegrad._src.ops.math.elementwise import round as _round
from finegrad._src.ops.random.sampling import stateless_uniform, uniform
from finegrad._src.tensor import Tensor
from typing import Any
from finegrad._src.types import TensorLike


def _flip(image, axis, draw, name):
    image = convert_to_tensor(image)
    if image.shape.rank == 3:
        return reverse(image, [axis]) if float(draw([]).numpy()) < 0.5 else image
    if image.shape.rank != 4:
        raise ValueError(f"finegrad.image.{name}: 'image' must be 3-D or 4-D, got shape "
                         f"{tuple(image.shape)}")
    flips = cast(_round(reshape(draw([int(image.shape[0])]), [-1, 1, 1, 1])), image.dtype)
    return flips * reverse(image, [axis + 1]) + (1 - flips) * image


def stateless_random_flip_left_right(image: TensorLike, seed: Any) -> Tensor:
    """Flip left-right with probability 1/2 (each image of a batch on its own draw).

    >>> import finegrad as fg
    >>> fg.image.stateless_random_flip_left_right(fg.ones([2, 2, 1]), seed=[1, 2]).shape
    TensorShape([2, 2, 1])
    """
    return _flip(image, 1, lambda s: stateless_uniform(s, seed), "stateless_random_flip_left_right")


def stateless_random_flip_up_down(image: TensorLike, seed: Any) -> Tensor:
    """Flip upside down with probability 1/2 (each image of a batch on its own draw).

    >>> import finegrad as fg
    >>> fg.image.stateless_random_flip_up_down(fg.ones([2, 2, 1]), seed=[1, 2]).shape
    TensorShape([2, 2, 1])
    """
    return _flip(image, 0, lambda s: stateless_uniform(s, seed), "stateless_random_flip_up_down")


def random_flip_left_right(image: TensorLike, seed: int | None=None) -> Tensor:
    """Flip left-right with probability 1/2, drawn from the stateful generator.

    >>> import finegrad as fg
    >>> fg.image.random_flip_left_right(fg.ones([2, 2, 1]), seed=3).shape
    TensorShape([2, 2, 1])
    """
    return _flip(image, 1, lambda s: uniform(s, seed=seed), "random_flip_left_right")


def random_flip_up_down(image: TensorLike, seed: int | None=None) -> Tensor:
    """Flip upside down with probability 1/2, drawn from the stateful generator.

    >>> import finegrad as fg
    >>> fg.image.random_flip_up_down(fg.ones([2, 2, 1]), seed=3).shape
    TensorShape([2, 2, 1])
    """
    return _flip(image, 0, lambda s: uniform(s, seed=seed), "random_flip_up_down")


def _range(lower, upper, name):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def stateless_random_brightness(image: TensorLike, max_delta: Any, seed: Any) -> Tensor:
    """``adjust_brightness`` by a delta uniform in ``[-max_delta, max_delta)``.

    >>> import finegrad as fg
    >>> fg.image.stateless_random_brightness(fg.zeros([1, 1, 1]), 0.5, [1, 2]).shape
    TensorShape([1, 1, 1])
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, stateless_uniform([], seed, -max_delta, max_delta))


def random_brightness(image: TensorLike, max_delta: Any, seed: int | None=None) -> Tensor:
    """``adjust_brightness`` by a delta uniform in ``[-max_delta, max_delta)``, stateful.

    >>> import finegrad as fg
    >>> fg.image.random_brightness(fg.zeros([1, 1, 1]), 0.5, seed=1).shape
    TensorShape([1, 1, 1])
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_contrast(image: TensorLike, lower: Any, upper: Any, seed: Any) -> Tensor:
    """``adjust_contrast`` by a factor uniform in ``[lower, upper)``.

    >>> import finegrad as fg
    >>> fg.image.stateless_random_contrast(fg.zeros([1, 1, 1]), 0.5, 1.5, [1, 2]).shape
    TensorShape([1, 1, 1])
    """
    _range(lower, upper, "stateless_random_contrast")
    return adjust_contrast(image, stateless_uniform([], seed, lower, upper))


def random_contrast(image: TensorLike, lower: Any, upper: Any, seed: int | None=None) -> Tensor:
    """``adjust_contrast`` by a factor uniform in ``[lower, upper)``, stateful.

    >>> import finegrad as fg
    >>> fg.image.random_contrast(fg.zeros([1, 1, 1]), 0.5, 1.5, seed=1).shape
    TensorShape([1, 1, 1])
    """
    _range(lower, upper, "random_contrast")
    return adjust_contrast(image, uniform([], lower, upper, seed=seed))


def stateless_random_saturation(image: TensorLike, lower: Any, upper: Any, seed: Any) -> Tensor:
    """``adjust_saturation`` by a factor uniform in ``[lower, upper)``.

    >>> import finegrad as fg
    >>> fg.image.stateless_random_saturation(fg.zeros([1, 1, 3]), 0.5, 1.5, [1, 2]).shape
    TensorShape([1, 1, 3])
    """
    _range(lower, upper, "stateless_random_saturation")
    return adjust_saturation(image, stateless_uniform([], seed, lower, upper))


def stateless_random_hue(image: TensorLike, max_delta: Any, seed: Any) -> Tensor:
    """``adjust_hue`` by a delta uniform in ``[-max_delta, max_delta)``, ``max_delta`` <= 0.5.

    >>> import finegrad as fg
    >>> fg.image.stateless_random_hue(fg.zeros([1, 1, 3]), 0.2, [1, 2]).shape
    TensorShape([1, 1, 3])
    """
    if not 0 <= max_delta <= 0.5:
        raise ValueError("max_delta must be in the interval [0, 0.5].")
    return adjust_hue(image, stateless_uniform([], seed, -max_delta, max_delta))


def stateless_random_crop(value: TensorLike, size: Any, seed: Any) -> Tensor:
    """A ``size`` slice of ``value`` at a random offset (TensorFlow's draw: int32 uniform
    offsets modulo ``shape - size + 1``).

    Raises:
        ValueError: ``size`` has the wrong length or exceeds ``value``'s shape.

    >>> import finegrad as fg
    >>> fg.image.stateless_random_crop(fg.zeros([4, 4, 3]), [2, 2, 3], [1, 2]).shape
    TensorShape([2, 2, 3])
    """
    value = convert_to_tensor(value)
    shape = np.asarray(value.shape.as_list(), np.int64)
    size = np.asarray(size.numpy() if isinstance(size, Tensor) else size, np.int64)
    if size.shape != shape.shape or np.any(size > shape):
        raise ValueError(f"finegrad.image.stateless_random_crop: 'size' {size.tolist()} must "
                         f"have one entry per axis of 'value' {shape.tolist()}, none larger")
    draw = stateless_uniform([len(shape)], seed, maxval=np.iinfo(np.int32).max,
                             dtype=dtypes.int32).numpy()
    offset = draw.astype(np.int64) % (shape - size + 1)
    return value[tuple(slice(int(o), int(o + s)) for o, s in zip(offset, size, strict=True))]


def random_saturation(image: TensorLike, lower: Any, upper: Any, seed: int | None=None) -> Tensor:
    """``adjust_saturation`` by a factor uniform in ``[lower, upper)``, stateful.

    >>> import finegrad as fg
    >>> fg.image.random_saturation(fg.zeros([1, 1, 3]), 0.5, 1.5, seed=1).shape
    TensorShape([1, 1, 3])
    """
    _range(lower, upper, "random_saturation")
    return adjust_saturation(image, uniform([], lower, upper, seed=seed))


def random_hue(image: TensorLike, max_delta: Any, seed: int | None=None) -> Tensor:
    """``adjust_hue`` by a delta uniform in ``[-max_delta, max_delta)``, stateful.

    >>> import finegrad as fg
    >>> fg.image.random_hue(fg.zeros([1, 1, 3]), 0.2, seed=1).shape
    TensorShape([1, 1, 3])
    """
    if not 0 <= max_delta <= 0.5:
        raise ValueError("max_delta must be in the interval [0, 0.5].")
    return adjust_hue(image, uniform([], -max_delta, max_delta, seed=seed))


def random_crop(value: TensorLike, size: Any, seed: int | None=None, name: str | None=None
               ) -> Tensor:
    """A ``size`` slice of ``value`` at an offset drawn from the stateful generator.

    >>> import finegrad as fg
    >>> fg.image.random_crop(fg.zeros([4, 4, 3]), [2, 2, 3], seed=1).shape
    TensorShape([2, 2, 3])
    """
    value = convert_to_tensor(value)
    shape = np.asarray(value.shape.as_list(), np.int64)
    size = np.asarray(size.numpy() if isinstance(size, Tensor) else size, np.int64)
    if size.shape != shape.shape or np.any(size > shape):
        raise ValueError(f"finegrad.image.random_crop: 'size' {size.tolist()} must have one "
                         f"entry per axis of 'value' {shape.tolist()}, none larger")
    draw = uniform([len(shape)], maxval=np.iinfo(np.int32).max, dtype=dtypes.int32,
                   seed=seed).numpy()
    offset = draw.astype(np.int64) % (shape - size + 1)
    return value[tuple(slice(int(o), int(o + s)) for o, s in zip(offset, size, strict=True))]
