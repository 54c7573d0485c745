"""Keras's regularization layers: `Dropout`, `SpatialDropout1D/2D/3D` (whole channels
dropped), `AlphaDropout`, `GaussianNoise`, `GaussianDropout`, `ActivityRegularization`.

The noise layers act only in training (``training=True``, given or inherited from the
enclosing call, as ``fit`` does); otherwise they return their input. In training dropout scales
each kept value by 1 / (1 - rate), so the expectation is unchanged, and the gradient is the
same mask scaled. ActivityRegularization adds its penalty to `losses` on every call.
"""

from __future__ import annotations

import math

from finegrad._src.core import bind
from finegrad._src.keras import regularizers
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers import convolution_ops as co
from finegrad._src.ops.nn.dropout import dropout
from finegrad._src.ops.array.structural import cast
from finegrad._src.ops.random import sampling, streams

from typing import Any


class Dropout(Layer):
    """Sets each input value to 0 with probability ``rate`` during training and scales the
    others by 1 / (1 - rate).

    Args:
        rate: a float in [0, 1).
        noise_shape: the shape of the drop mask (axes of size 1 share one draw; None entries
            take the input's size).
        seed: a Python int for a reproducible sequence of masks.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.Dropout(0.5, seed=1)
    >>> layer(fg.ones([4])).numpy()            # not training: the input
    array([1., 1., 1., 1.], dtype=float32)
    >>> set(layer(fg.ones([100]), training=True).numpy().tolist()) <= {0., 2.}
    True
    """

    def __init__(self, rate: Any, noise_shape: Any = None, seed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"keras.layers.Dropout: rate must be a float between 0 and 1, "
                             f"got {rate}")
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed
        self.supports_masking = True
        self.built = True

    def _noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        return [int(n) if s is None else s
                for s, n in zip(self.noise_shape, inputs.shape, strict=True)]

    def call(self, inputs: Any, training: Any = False) -> Any:
        if not training or self.rate == 0:
            return inputs
        return dropout(inputs, self.rate, noise_shape=self._noise_shape(inputs),
                       seed=self.seed)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(rate=self.rate, seed=self.seed, noise_shape=self.noise_shape)
        return config


class _SpatialDropout(Dropout):
    def __init__(self, rank, rate, data_format=None, seed=None, **kwargs):
        super().__init__(rate, seed=seed, **kwargs)
        self.rank = rank
        self.data_format = co.data_format_arg(data_format,
                                              f"keras.layers.{type(self).__name__}")

    def _noise_shape(self, inputs):
        if len(inputs.shape) != self.rank + 2:
            raise ValueError(f"keras.layers.{type(self).__name__}: the input must have rank "
                             f"{self.rank + 2}, got shape {tuple(inputs.shape)}")
        b = int(inputs.shape[0])
        if self.data_format == "channels_last":
            return [b] + [1] * self.rank + [int(inputs.shape[-1])]
        return [b, int(inputs.shape[1])] + [1] * self.rank

    def get_config(self):
        config = super().get_config()
        config.pop("noise_shape")
        config.pop("trainable", None)      # Keras's spatial dropouts take no `trainable`
        config["dtype"] = self.dtype_policy.variable_dtype   # (a name there, not a policy)
        if self.rank > 1:
            config.update(data_format=self.data_format)
        return config


class SpatialDropout1D(_SpatialDropout):
    """Drops whole channels of a [batch, steps, channels] input (one draw per example and
    channel) during training.

    >>> import finegrad as fg
    >>> y = fg.keras.layers.SpatialDropout1D(0.5)(fg.ones([1, 3, 4]), training=True)
    >>> bool((y.numpy() == y.numpy()[:, :1]).all())
    True
    """

    def __init__(self, rate: Any, seed: Any = None, name: str | None = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(1, rate, seed=seed, name=name, dtype=dtype, **kwargs)


class SpatialDropout2D(_SpatialDropout):
    """Drops whole channels (feature maps) of a 4-D input during training.

    >>> import finegrad as fg
    >>> y = fg.keras.layers.SpatialDropout2D(0.5)(fg.ones([1, 2, 2, 3]), training=True)
    >>> y.shape
    TensorShape([1, 2, 2, 3])
    """

    def __init__(self, rate: Any, data_format: Any = None, seed: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(2, rate, data_format, seed=seed, name=name, dtype=dtype, **kwargs)


class SpatialDropout3D(_SpatialDropout):
    """Drops whole channels (feature volumes) of a 5-D input during training.

    >>> import finegrad as fg
    >>> fg.keras.layers.SpatialDropout3D(0.5)(fg.ones([1, 2, 2, 2, 3])).shape
    TensorShape([1, 2, 2, 2, 3])
    """

    def __init__(self, rate: Any, data_format: Any = None, seed: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(3, rate, data_format, seed=seed, name=name, dtype=dtype, **kwargs)


def normal_like(x, seed, fn):
    """Standard normal noise shaped like ``x`` when it runs (open sizes included)."""
    return bind(streams.random_like_p, x, stream=streams.op_stream(seed, fn), dist="normal",
                dtype=x._value.dtype)


class GaussianNoise(Layer):
    """Adds zero-mean Gaussian noise of standard deviation ``stddev`` in training (a
    regularizer); the identity otherwise.

    >>> import finegrad as fg
    >>> fg.keras.layers.GaussianNoise(0.1)(fg.ones([2])).numpy()
    array([1., 1.], dtype=float32)
    """

    def __init__(self, stddev: Any, seed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= stddev <= 1:
            raise ValueError(f"keras.layers.GaussianNoise: stddev must be in [0, 1], got "
                             f"{stddev}")
        self.stddev, self.seed = stddev, seed
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        if training and self.stddev > 0:
            return inputs + self.stddev * normal_like(inputs, self.seed,
                                                      "keras.layers.GaussianNoise")
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(stddev=self.stddev, seed=self.seed)
        return config


class GaussianDropout(Layer):
    """Multiplies by Gaussian noise of mean 1 and standard deviation
    ``sqrt(rate / (1 - rate))`` in training; the identity otherwise.

    >>> import finegrad as fg
    >>> fg.keras.layers.GaussianDropout(0.2)(fg.ones([2])).numpy()
    array([1., 1.], dtype=float32)
    """

    def __init__(self, rate: Any, seed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"keras.layers.GaussianDropout: rate must be in [0, 1], got "
                             f"{rate}")
        self.rate, self.seed = rate, seed
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        if training and self.rate > 0:
            stddev = math.sqrt(self.rate / (1.0 - self.rate))
            noise = normal_like(inputs, self.seed, "keras.layers.GaussianDropout")
            return inputs * (1.0 + stddev * noise)
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(rate=self.rate, seed=self.seed)
        return config


class ActivityRegularization(Layer):
    """The identity, adding ``l1 * sum(|x|) + l2 * sum(x^2)`` of its output to `losses`.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.ActivityRegularization(l2=0.5)
    >>> _ = layer(fg.constant([[1., 2.]])); float(layer.losses[0])
    2.5
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.pop("activity_regularizer", None)
        config.update(l1=self.l1, l2=self.l2)
        return config


class AlphaDropout(Dropout):
    """Dropout for self-normalizing (SELU) networks: dropped values are set to SELU's
    negative saturation and the result is affinely rescaled so that the mean and variance
    are kept; the identity outside training.

    >>> import finegrad as fg
    >>> fg.keras.layers.AlphaDropout(0.2)(fg.ones([2])).numpy()
    array([1., 1.], dtype=float32)
    """

    def call(self, inputs: Any, training: Any = False) -> Any:
        if not training or self.rate == 0:
            return inputs
        alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
        shape = self._noise_shape(inputs)
        noise = streams_uniform_like(inputs, self.seed) if shape is None else \
            sampling.uniform(shape, dtype=inputs.dtype, seed=self.seed)
        kept = cast(noise >= self.rate, inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        return a * (inputs * kept + alpha_p * (1 - kept)) + b


def streams_uniform_like(x, seed):
    """Uniform [0, 1) noise shaped like ``x`` when it runs."""
    return bind(streams.random_like_p, x, stream=streams.op_stream(seed,
                                                                   "keras.layers.AlphaDropout"),
                dist="uniform", dtype=x._value.dtype)
