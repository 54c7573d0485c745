"""Keras's activation layers: `Activation`, `ReLU`, `LeakyReLU`, `PReLU`, `ELU`, `Softmax`.

Each is elementwise (Softmax: along ``axis``) and keeps its input's shape and mask. At kinks the
subgradient is the one of the ops used (ReLU's at 0 is 0, as TensorFlow's).
"""

from __future__ import annotations

import warnings

from finegrad._src.ops.nn import activations as nn_activations
from finegrad._src.keras import activations
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers.core import make_weight, weight_config, weight_options
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.nn import softmax_cross_entropy as nn
from finegrad._src.ops.math.arithmetic import clip_by_value
from finegrad._src.ops.array.structural import cast, zeros_like
from finegrad._src.ops.math.reductions import reduce_logsumexp

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


class _Elementwise(Layer):
    """A weightless layer that keeps its input's shape and passes its mask on."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def compute_output_shape(self, input_shape):
        return input_shape


class Activation(_Elementwise):
    """Applies an activation function (a name such as "relu", or a callable).

    >>> import finegrad as fg
    >>> fg.keras.layers.Activation("relu")(fg.constant([-1., 2.])).numpy()
    array([0., 2.], dtype=float32)
    """

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs: TensorLike) -> Tensor:
        return self.activation(inputs)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(activation=activations.serialize(self.activation))
        return config


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras's generalized ReLU: ``x`` above ``threshold`` (clipped at ``max_value``),
    ``negative_slope * (x - threshold)`` below it."""
    if negative_slope != 0.0 and max_value is None and threshold == 0:
        return nn_activations.leaky_relu(x, negative_slope)
    neg = ew.relu(threshold - x) if threshold != 0 else ew.relu(-x)
    y = ew.where(x > threshold, x, zeros_like(x)) if threshold != 0 else ew.relu(x)
    if max_value is not None:
        y = clip_by_value(y, cast(0.0, x.dtype), cast(max_value, x.dtype))
    if negative_slope != 0.0:
        y = y - negative_slope * neg
    return y


class ReLU(_Elementwise):
    """Rectified linear unit: ``max_value`` caps the output, ``threshold`` is where it turns
    on, ``negative_slope`` the slope below it.

    >>> import finegrad as fg
    >>> fg.keras.layers.ReLU(max_value=1.)(fg.constant([-1., 0.5, 2.])).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """

    def __init__(self, max_value: Any = None, negative_slope: float = 0.0, threshold: float = 0.0,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"keras.layers.ReLU: max_value must be None or non-negative, got "
                             f"{max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"keras.layers.ReLU: negative_slope must be non-negative, got "
                             f"{negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"keras.layers.ReLU: threshold must be non-negative, got "
                             f"{threshold}")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs: TensorLike) -> Tensor:
        return relu(inputs, self.negative_slope, self.max_value, self.threshold)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(max_value=self.max_value, negative_slope=self.negative_slope,
                      threshold=self.threshold)
        return config


class LeakyReLU(_Elementwise):
    """``x`` for ``x > 0``, else ``negative_slope * x`` (default 0.3; ``alpha`` is the
    deprecated name).

    >>> import finegrad as fg
    >>> fg.keras.layers.LeakyReLU(0.5)(fg.constant([-2., 2.])).numpy()
    array([-1.,  2.], dtype=float32)
    """

    def __init__(self, negative_slope: float = 0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn("keras.layers.LeakyReLU: argument `alpha` is deprecated; use "
                          "`negative_slope`", stacklevel=2)
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"keras.layers.LeakyReLU: negative_slope must be a non-negative "
                             f"float, got {negative_slope}")
        self.negative_slope = negative_slope

    def call(self, inputs: TensorLike) -> Tensor:
        return nn_activations.leaky_relu(inputs, self.negative_slope)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(negative_slope=self.negative_slope)
        return config


class PReLU(Layer):
    """Parametric ReLU: ``relu(x) - alpha * relu(-x)`` with a learned ``alpha`` of the
    input's shape without the batch axis (size 1 along ``shared_axes``).

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.PReLU(alpha_initializer="ones")
    >>> layer(fg.constant([[-2., 2.]])).numpy()
    array([[-2.,  2.]], dtype=float32)
    """

    def __init__(self, alpha_initializer: str = "Zeros", alpha_regularizer: Any = None,
                 alpha_constraint: Any = None, shared_axes: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        weight_options(self, "alpha", alpha_initializer, alpha_regularizer, alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape: Any) -> None:
        shape = list(input_shape[1:])
        for i in self.shared_axes or ():
            shape[i - 1] = 1
        self.alpha = make_weight(self, "alpha", shape)
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        return ew.relu(inputs) - self.alpha * ew.relu(-inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(weight_config(self, "alpha"))
        config.update(shared_axes=self.shared_axes)
        return config


class ELU(_Elementwise):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``.

    >>> import finegrad as fg
    >>> fg.keras.layers.ELU()(fg.constant([0., 2.])).numpy()
    array([0., 2.], dtype=float32)
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs: Any) -> Tensor:
        y = nn_activations.elu(inputs)
        return y if self.alpha == 1.0 else ew.where(inputs > 0, y, y * self.alpha)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(alpha=self.alpha)
        return config


def masked_softmax(x, axis, mask=None, zero_masked=True):
    """Softmax along ``axis`` (an int or a tuple) where ``mask`` (broadcastable, True or
    > 0.5 to keep) is true; masked positions get 0 (unless not ``zero_masked``: then a row
    masked entirely is uniform, as Keras's fused attention gives)."""
    if mask is not None:
        if mask.dtype.name != "bool":
            mask = mask > 0.5
        big = -3e4 if x.dtype.name == "float16" else -1e9
        x = ew.where(mask, x, cast(big, x.dtype))
    if isinstance(axis, (tuple, list)) and len(axis) > 1:
        y = ew.exp(x - reduce_logsumexp(x, axis=list(axis), keepdims=True))
    else:
        y = nn.softmax(x, axis=axis[0] if isinstance(axis, (tuple, list)) else axis)
    if mask is not None and zero_masked:
        y = ew.where(mask, y, cast(0.0, y.dtype))
    return y


class Softmax(_Elementwise):
    """Softmax along ``axis`` (an int or a tuple); with a ``mask``, masked positions get
    probability 0.

    >>> import finegrad as fg
    >>> fg.keras.layers.Softmax()(fg.constant([0., 0.])).numpy()
    array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: TensorLike, mask: Any = None) -> Tensor:
        return masked_softmax(inputs, self.axis, mask)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(axis=self.axis)
        return config
