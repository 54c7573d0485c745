"""Keras's reshaping layers: `Flatten`, `Reshape`, `Permute`, `RepeatVector`,
`ZeroPadding1D/2D`, `Cropping1D/2D`, `UpSampling1D/2D` (nearest neighbour). None of them has
weights; their gradients are the ops' own (a reshape's, a transpose's, a slice's...).
"""

from __future__ import annotations

import math

import numpy as np

from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers import convolution_ops as co
from finegrad._src.ops.array.structural import expand_dims, reshape, tile, transpose
from finegrad._src.ops.array.manipulation import pad, repeat
from finegrad._src.ops.linalg import products as linalg
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


class _Reshaping(Layer):
    _build_config_on_call = True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.built = True


def _known(sizes):
    return all(isinstance(n, int) for n in sizes)


class Flatten(_Reshaping):
    """Flattens every axis but the batch axis (channels last first, so a "channels_first"
    input flattens in the same order as its "channels_last" twin).

    >>> import finegrad as fg
    >>> fg.keras.layers.Flatten()(fg.ones([2, 3, 4])).shape
    TensorShape([2, 12])
    """

    def __init__(self, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = co.data_format_arg(data_format, "keras.layers.Flatten")

    def call(self, inputs: Any) -> Tensor:
        rank = len(inputs.shape)
        if self.data_format == "channels_first" and rank > 2:
            inputs = co.channels_last(inputs, "channels_first")
        rest = list(inputs.shape[1:])
        rest = [None if n is None else int(n) for n in rest]
        return reshape(inputs, (-1, math.prod(rest)) if _known(rest) else
                       (int(inputs.shape[0]), -1))

    def compute_output_shape(self, input_shape: Any) -> Any:
        rest = list(input_shape[1:])
        return (input_shape[0], math.prod(rest) if _known(rest) else None)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(data_format=self.data_format)
        return config


class Reshape(_Reshaping):
    """Reshapes every axis but the batch axis to ``target_shape`` (one entry may be -1).

    >>> import finegrad as fg
    >>> fg.keras.layers.Reshape((3, -1))(fg.ones([2, 12])).shape
    TensorShape([2, 3, 4])
    """

    _build_config_on_call = False   # (Keras's Reshape is built when made)

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        if sum(1 for n in self.target_shape if n == -1) > 1:
            raise ValueError(f"keras.layers.Reshape: target_shape may have at most one -1, got "
                             f"{self.target_shape}")

    def _resolved(self, rest):
        if -1 not in self.target_shape or not _known(rest):
            return self.target_shape
        known = math.prod(n for n in self.target_shape if n != -1)
        total = math.prod(rest)
        if known == 0 or total % known:
            raise ValueError(f"keras.layers.Reshape: cannot reshape an input of shape "
                             f"{tuple(rest)} (without the batch axis) to {self.target_shape}")
        return tuple(total // known if n == -1 else n for n in self.target_shape)

    def call(self, inputs: Any) -> Tensor:
        rest: list[Any] = [None if n is None else int(n) for n in inputs.shape[1:]]
        target = self._resolved(rest)
        if _known(rest) and math.prod(rest) != math.prod(target):
            raise ValueError(f"keras.layers.Reshape: total size of the input shape "
                             f"{tuple(rest)} (without the batch axis) differs from that of "
                             f"target_shape {self.target_shape}")
        return reshape(inputs, (-1,) + tuple(target))

    def compute_output_shape(self, input_shape: Any) -> Any:
        target = self._resolved(list(input_shape[1:]))
        return (input_shape[0],) + tuple(None if n == -1 else n for n in target)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(target_shape=self.target_shape)
        return config


class Permute(_Reshaping):
    """Permutes the non-batch axes: ``dims`` is a permutation of 1..rank-1.

    >>> import finegrad as fg
    >>> fg.keras.layers.Permute((2, 1))(fg.ones([2, 3, 4])).shape
    TensorShape([2, 4, 3])
    """

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"keras.layers.Permute: dims must be a permutation of 1..."
                             f"{len(self.dims)} (the batch axis, 0, stays), got {dims}")

    def call(self, inputs: TensorLike) -> Tensor:
        return transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(dims=self.dims)
        return config


class RepeatVector(_Reshaping):
    """Repeats a [batch, features] input ``n`` times: [batch, n, features].

    >>> import finegrad as fg
    >>> fg.keras.layers.RepeatVector(3)(fg.ones([2, 4])).shape
    TensorShape([2, 3, 4])
    """

    def __init__(self, n: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(n, int):
            raise TypeError(f"keras.layers.RepeatVector: n must be an int, got "
                            f"{type(n).__name__}")
        self.n = n

    def call(self, inputs: Any) -> Tensor:
        if len(inputs.shape) != 2:
            raise ValueError(f"keras.layers.RepeatVector: the input must have rank 2, got "
                             f"shape {tuple(inputs.shape)}")
        return tile(expand_dims(inputs, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape: Any) -> Any:
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(n=self.n)
        return config


def _pairs(value, n, name, layer):
    """An int, ``n`` ints (symmetric) or ``n`` pairs, as ``n`` (before, after) pairs; a 1-D
    layer's value is one pair (an int or two ints)."""
    if n == 1:
        pair = co.tuple_arg(value, 2, name, layer)
        if min(pair) < 0:
            raise ValueError(f"{layer}: {name} must be non-negative, got {value!r}")
        return pair
    if isinstance(value, int):
        value = [value] * n
    if not hasattr(value, "__len__") or len(value) != n:
        raise ValueError(f"{layer}: {name} must be an int, a tuple of {n} ints or a tuple of "
                         f"{n} pairs of ints, got {value!r}")
    pairs = tuple(co.tuple_arg(v, 2, name, layer) for v in value)
    if any(min(p) < 0 for p in pairs):
        raise ValueError(f"{layer}: {name} must be non-negative, got {value!r}")
    return pairs


def _spatial_pairs(pairs, rank, data_format):
    """The per-axis pairs of a batched input of ``rank`` spatial axes."""
    pairs = (pairs,) if rank == 1 else tuple(pairs)
    if data_format == "channels_last":
        return ((0, 0),) + pairs + ((0, 0),)
    return ((0, 0), (0, 0)) + pairs


class _ZeroPadding(_Reshaping):
    def __init__(self, rank, padding, data_format, **kwargs):
        super().__init__(**kwargs)
        name = f"keras.layers.{type(self).__name__}"
        self.rank = rank
        self.padding = _pairs(padding, rank, "padding", name)
        self.data_format = co.data_format_arg(data_format, name)

    def call(self, inputs):
        return pad(inputs, [list(p) for p in _spatial_pairs(self.padding, self.rank,
                                                            self.data_format)])

    def compute_output_shape(self, input_shape):
        pairs = _spatial_pairs(self.padding, self.rank, self.data_format)
        return tuple(None if n is None else n + a + b
                     for n, (a, b) in zip(input_shape, pairs, strict=True))

    def get_config(self):
        config = super().get_config()
        config.update(padding=self.padding, data_format=self.data_format)
        return config


class ZeroPadding1D(_ZeroPadding):
    """Pads the steps axis with zeros: ``padding`` an int or a (before, after) pair.

    >>> import finegrad as fg
    >>> fg.keras.layers.ZeroPadding1D(2)(fg.ones([1, 3, 1])).shape
    TensorShape([1, 7, 1])
    """

    def __init__(self, padding: int = 1, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(1, padding, data_format, **kwargs)


class ZeroPadding2D(_ZeroPadding):
    """Pads rows and columns with zeros: ``padding`` an int, (rows, cols), or
    ((top, bottom), (left, right)).

    >>> import finegrad as fg
    >>> fg.keras.layers.ZeroPadding2D(((1, 0), (2, 1)))(fg.ones([1, 3, 3, 1])).shape
    TensorShape([1, 4, 6, 1])
    """

    def __init__(self, padding: Any = (1, 1), data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(2, padding, data_format, **kwargs)


class _Cropping(_Reshaping):
    def __init__(self, rank, cropping, data_format, **kwargs):
        super().__init__(**kwargs)
        name = f"keras.layers.{type(self).__name__}"
        self.rank = rank
        self.cropping = _pairs(cropping, rank, "cropping", name)
        self.data_format = co.data_format_arg(data_format, name)

    def call(self, inputs):
        pairs = _spatial_pairs(self.cropping, self.rank, self.data_format)
        index = []
        for n, (a, b) in zip(inputs.shape, pairs, strict=True):
            if n is not None and a + b >= int(n) and (a or b):
                raise ValueError(f"keras.layers.{type(self).__name__}: cropping "
                                 f"{self.cropping} leaves nothing of an input of shape "
                                 f"{tuple(inputs.shape)}")
            index.append(slice(a, None if b == 0 else -b))
        return inputs[tuple(index)]

    def compute_output_shape(self, input_shape):
        pairs = _spatial_pairs(self.cropping, self.rank, self.data_format)
        return tuple(None if n is None else n - a - b
                     for n, (a, b) in zip(input_shape, pairs, strict=True))

    def get_config(self):
        config = super().get_config()
        config.update(cropping=self.cropping)
        if self.rank > 1:
            config.update(data_format=self.data_format)
        return config


class Cropping1D(_Cropping):
    """Crops the steps axis: ``cropping`` an int or a (start, end) pair.

    >>> import finegrad as fg
    >>> fg.keras.layers.Cropping1D((1, 2))(fg.ones([1, 5, 1])).shape
    TensorShape([1, 2, 1])
    """

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(1, cropping, None, **kwargs)


class Cropping2D(_Cropping):
    """Crops rows and columns: ``cropping`` an int, (rows, cols), or
    ((top, bottom), (left, right)).

    >>> import finegrad as fg
    >>> fg.keras.layers.Cropping2D(1)(fg.ones([1, 4, 4, 1])).shape
    TensorShape([1, 2, 2, 1])
    """

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(2, cropping, data_format, **kwargs)


class UpSampling1D(_Reshaping):
    """Repeats each step ``size`` times.

    >>> import finegrad as fg
    >>> fg.keras.layers.UpSampling1D(2)(fg.constant([[[1.], [2.]]]))[0, :, 0].numpy()
    array([1., 1., 2., 2.], dtype=float32)
    """

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs: TensorLike) -> Tensor:
        return repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape: Any) -> Any:
        n = input_shape[1]
        return (input_shape[0], None if n is None else n * self.size, input_shape[2])

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(size=self.size)
        return config


def bilinear_weights(n, factor):
    """The [n * factor, n] matrix of bilinear interpolation with half-pixel centers
    (TensorFlow's ``resize`` without antialiasing): output i reads input coordinate
    (i + 0.5) / factor - 0.5, clamped to the edges."""
    c = (np.arange(n * factor) + 0.5) / factor - 0.5
    lo = np.floor(c)
    frac = c - lo
    w = np.zeros((n * factor, n))
    rows = np.arange(n * factor)
    np.add.at(w, (rows, np.clip(lo, 0, n - 1).astype(int)), 1 - frac)
    np.add.at(w, (rows, np.clip(lo + 1, 0, n - 1).astype(int)), frac)
    return w


class UpSampling2D(_Reshaping):
    """Repeats rows ``size[0]`` and columns ``size[1]`` times ("nearest"), or interpolates
    them ("bilinear", TensorFlow's half-pixel-centered resize); other interpolations are not
    implemented.

    >>> import finegrad as fg
    >>> fg.keras.layers.UpSampling2D()(fg.ones([1, 2, 3, 1])).shape
    TensorShape([1, 4, 6, 1])
    """

    def __init__(self, size: Any = (2, 2), data_format: Any = None, interpolation: str = "nearest",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = "keras.layers.UpSampling2D"
        self.size = co.tuple_arg(size, 2, "size", name)
        self.data_format = co.data_format_arg(data_format, name)
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"{name}: interpolation {interpolation!r} is not "
                                      f"implemented; only 'nearest' and 'bilinear'")
        self.interpolation = interpolation

    def call(self, inputs: TensorLike) -> Tensor:
        if self.interpolation == "bilinear":
            x = co.channels_last(inputs, self.data_format)
            dt = x.dtype.as_numpy_dtype
            wh = Tensor(bilinear_weights(int(x.shape[1]), self.size[0]).astype(dt))
            ww = Tensor(bilinear_weights(int(x.shape[2]), self.size[1]).astype(dt))
            y = linalg.einsum("hH,bHWc,wW->bhwc", wh, x, ww)
            return co.channels_back(y, self.data_format)
        first = 1 if self.data_format == "channels_last" else 2
        x = repeat(inputs, self.size[0], axis=first)
        return repeat(x, self.size[1], axis=first + 1)

    def compute_output_shape(self, input_shape: Any) -> Any:
        spatial, channels = co.spatial_shape(input_shape, self.data_format)
        out = [None if n is None else n * s for n, s in zip(spatial, self.size, strict=True)]
        return co.batched_shape(input_shape[0], out, channels, self.data_format)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(size=self.size, data_format=self.data_format,
                      interpolation=self.interpolation)
        return config


class ZeroPadding3D(_ZeroPadding):
    """Pads the three spatial axes with zeros: ``padding`` an int, three ints, or three
    (before, after) pairs.

    >>> import finegrad as fg
    >>> fg.keras.layers.ZeroPadding3D(1)(fg.ones([1, 2, 2, 2, 1])).shape
    TensorShape([1, 4, 4, 4, 1])
    """

    def __init__(self, padding: Any = ((1, 1), (1, 1), (1, 1)), data_format: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(3, padding, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crops the three spatial axes: ``cropping`` an int, three ints, or three (start, end)
    pairs.

    >>> import finegrad as fg
    >>> fg.keras.layers.Cropping3D(1)(fg.ones([1, 4, 4, 4, 1])).shape
    TensorShape([1, 2, 2, 2, 1])
    """

    def __init__(self, cropping: Any = ((1, 1), (1, 1), (1, 1)), data_format: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(3, cropping, data_format, **kwargs)


class UpSampling3D(_Reshaping):
    """Repeats the three spatial axes ``size`` times each (nearest neighbour).

    >>> import finegrad as fg
    >>> fg.keras.layers.UpSampling3D()(fg.ones([1, 1, 2, 3, 1])).shape
    TensorShape([1, 2, 4, 6, 1])
    """

    def __init__(self, size: Any = (2, 2, 2), data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = "keras.layers.UpSampling3D"
        self.size = co.tuple_arg(size, 3, "size", name)
        self.data_format = co.data_format_arg(data_format, name)

    def call(self, inputs: Any) -> Any:
        first = 1 if self.data_format == "channels_last" else 2
        x = inputs
        for i, s in enumerate(self.size):
            x = repeat(x, s, axis=first + i)
        return x

    def compute_output_shape(self, input_shape: Any) -> Any:
        spatial, channels = co.spatial_shape(input_shape, self.data_format)
        out = [None if n is None else n * s for n, s in zip(spatial, self.size, strict=True)]
        return co.batched_shape(input_shape[0], out, channels, self.data_format)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(size=self.size, data_format=self.data_format)
        return config
