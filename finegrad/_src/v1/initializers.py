"""TensorFlow 1's initializers (``tf.compat.v1.*_initializer``): callables
``init(shape, dtype=None, partition_info=None)`` whose defaults are TensorFlow 1's
(``random_normal_initializer`` has ``stddev=1.0``; a ``dtype`` can be given to the
constructor). In a graph they build random ops, so each run of a variable's initializer draws
new values, from the op's seed as `finegrad.random` ops do."""

from __future__ import annotations

import math

import numpy as np

from finegrad._src import dtypes
from finegrad._src.ops.random import sampling as random_ops
from finegrad._src.ops.array.constants import ones, zeros
from finegrad._src.ops.array.structural import convert_to_tensor, reshape
from finegrad._src.ops.array.constants import fill

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import DTypeLike


class _Initializer:
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def _dt(self, dtype):
        return self.dtype if dtype is None else dtypes.as_dtype(dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class zeros_initializer(_Initializer):  # TensorFlow's name
    """Zeros.

    >>> import finegrad as fg
    >>> fg.compat.v1.zeros_initializer()([2]).numpy()
    array([0., 0.], dtype=float32)
    """

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return zeros(shape, self._dt(dtype))


class ones_initializer(_Initializer):  # TensorFlow's name
    """Ones."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        return ones(shape, self._dt(dtype))


class constant_initializer(_Initializer):  # TensorFlow's name
    """``value`` (a scalar fills the shape; a list of as many elements is reshaped)."""

    def __init__(self, value: int = 0, dtype: DTypeLike = dtypes.float32,
                 verify_shape: bool = False) -> None:
        super().__init__(dtype)
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None,
                 verify_shape: Any = None) -> Tensor:
        dt = self._dt(dtype)
        v = np.asarray(self.value)
        if v.ndim == 0:
            return fill(shape, convert_to_tensor(v.astype(dt._np)))
        shape = tuple(shape)
        if v.size != int(np.prod(shape, dtype=np.int64)):
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor "
                            f"of shape {v.shape} cannot be reshaped to {shape}")
        return reshape(convert_to_tensor(v.astype(dt._np)), shape)


class random_normal_initializer(_Initializer):  # TensorFlow's name
    """Normal values (TensorFlow 1's defaults: mean 0, stddev 1)."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: Any = None,
                 dtype: DTypeLike = dtypes.float32) -> None:
        super().__init__(dtype)
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        return random_ops.normal(shape, self.mean, self.stddev, self._dt(dtype), self.seed)


class truncated_normal_initializer(random_normal_initializer):
    """Normal values cut at two standard deviations (redrawn), as TensorFlow's."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        return random_ops.truncated_normal(shape, self.mean, self.stddev, self._dt(dtype),
                                           self.seed)


class random_uniform_initializer(_Initializer):  # TensorFlow's name
    """Uniform values in ``[minval, maxval)`` (TensorFlow 1's defaults: 0 and 1)."""

    def __init__(self, minval: float = 0.0, maxval: Any = None, seed: Any = None,
                 dtype: DTypeLike = dtypes.float32) -> None:
        super().__init__(dtype)
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        dt = self._dt(dtype)
        maxval = self.maxval if self.maxval is not None else 1.0
        return random_ops.uniform(shape, self.minval, maxval, dt, self.seed)


def _fans(shape):
    shape = tuple(shape)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class variance_scaling_initializer(_Initializer):  # TensorFlow's name
    """Values of variance ``scale / n`` (``n`` the fan in, the fan out or their mean), from a
    truncated normal (corrected by TensorFlow's 0.8796...), a normal or a uniform."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: Any = None,
                 dtype: DTypeLike = dtypes.float32) -> None:
        super().__init__(dtype)
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dt = self._dt(dtype)
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.}[
            self.mode]
        scale = self.scale / max(1., n)
        if self.distribution == "truncated_normal":
            std = math.sqrt(scale) / .87962566103423978
            return random_ops.truncated_normal(shape, 0., std, dt, self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.normal(shape, 0., math.sqrt(scale), dt, self.seed)
        limit = math.sqrt(3. * scale)
        return random_ops.uniform(shape, -limit, limit, dt, self.seed)


def glorot_uniform_initializer(seed: Any = None, dtype: DTypeLike = dtypes.float32) -> Any:
    """Uniform in ``±sqrt(6 / (fan_in + fan_out))``: `get_variable`'s default."""
    return variance_scaling_initializer(1., "fan_avg", "uniform", seed, dtype)


def glorot_normal_initializer(seed: Any = None, dtype: DTypeLike = dtypes.float32) -> Any:
    return variance_scaling_initializer(1., "fan_avg", "truncated_normal", seed, dtype)


def he_normal(seed: Any = None) -> Any:
    return variance_scaling_initializer(2., "fan_in", "truncated_normal", seed)


def he_uniform(seed: Any = None) -> Any:
    return variance_scaling_initializer(2., "fan_in", "uniform", seed)


def lecun_normal(seed: Any = None) -> Any:
    return variance_scaling_initializer(1., "fan_in", "truncated_normal", seed)


def lecun_uniform(seed: Any = None) -> Any:
    return variance_scaling_initializer(1., "fan_in", "uniform", seed)


