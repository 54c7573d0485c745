"""Keras's depthwise and separable convolution layers: `DepthwiseConv1D/2D` (each input
channel convolved with its own ``depth_multiplier`` filters) and `SeparableConv1D/2D` (a
depthwise convolution, then a 1x1 convolution mixing the channels).
"""

from __future__ import annotations

from finegrad._src.keras import activations
from finegrad._src.keras.layers import convolution_ops as co
from finegrad._src.keras.layers.convolutional import _check_positive, _Conv, _WindowLayer
from finegrad._src.keras.layers.core import make_weight, weight_config, weight_options

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


class _DepthwiseConv(_WindowLayer):
    def __init__(self, rank, kernel_size, strides=1, padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._window_args(rank, kernel_size, strides, padding, data_format, dilation_rate)
        _check_positive(type(self).__name__, depth_multiplier=depth_multiplier)
        self.depth_multiplier = depth_multiplier
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        weight_options(self, "depthwise", depthwise_initializer, depthwise_regularizer,
                       depthwise_constraint)
        weight_options(self, "bias", bias_initializer, bias_regularizer, bias_constraint)

    def build(self, input_shape: Any) -> None:
        _, channels = co.spatial_shape(input_shape, self.data_format)
        self.kernel = make_weight(self, "depthwise",
                                  self.kernel_size + (channels, self.depth_multiplier),
                                  name="kernel")
        self.bias = make_weight(self, "bias", (channels * self.depth_multiplier,)) \
            if self.use_bias else None
        self.built = True

    def call(self, inputs):
        x = co.channels_last(inputs, self.data_format)
        y = co.depthwise_conv(x, self.kernel, self.strides, self.padding, self.dilation_rate)
        return self._finish(co.channels_back(y, self.data_format))

    def compute_output_shape(self, input_shape):
        spatial, channels = co.spatial_shape(input_shape, self.data_format)
        return co.batched_shape(input_shape[0], self._output_spatial(spatial),
                                channels * self.depth_multiplier, self.data_format)

    def get_config(self):
        config = super().get_config()
        window = self._window_config()
        config.update(depth_multiplier=self.depth_multiplier,
                      kernel_size=window.pop("kernel_size"), strides=window.pop("strides"),
                      padding=window.pop("padding"), **window,
                      activation=activations.serialize(self.activation),
                      use_bias=self.use_bias)
        config.update(weight_config(self, "depthwise", "bias", activity=True))
        return config


_DEPTHWISE_DOC = """{n}-D depthwise convolution: input channel c is convolved with
    ``kernel[..., c, :]`` ([*kernel_size, in_channels, depth_multiplier]); output channel
    ``c * depth_multiplier + m``.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.DepthwiseConv{n}D(3, depth_multiplier=2)
    >>> layer(fg.ones([1] + [4] * {n} + [3])).shape[-1]
    6
    """


class DepthwiseConv1D(_DepthwiseConv):
    __doc__ = _DEPTHWISE_DOC.format(n=1)

    def __init__(self, kernel_size: Any, strides: int = 1, padding: str = "valid",
                 depth_multiplier: int = 1, data_format: Any = None, dilation_rate: int = 1,
                 **kwargs: Any) -> None:
        super().__init__(1, kernel_size, strides, padding, depth_multiplier, data_format,
                         dilation_rate, **kwargs)


class DepthwiseConv2D(_DepthwiseConv):
    __doc__ = _DEPTHWISE_DOC.format(n=2)

    def __init__(self, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 depth_multiplier: int = 1, data_format: Any = None, dilation_rate: Any = (1, 1),
                 **kwargs: Any) -> None:
        super().__init__(2, kernel_size, strides, padding, depth_multiplier, data_format,
                         dilation_rate, **kwargs)


class _SeparableConv(_WindowLayer):
    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, depth_multiplier=1, activation=None,
                 use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._window_args(rank, kernel_size, strides, padding, data_format, dilation_rate)
        _check_positive(type(self).__name__, filters=filters,
                        depth_multiplier=depth_multiplier)
        self.filters, self.depth_multiplier = filters, depth_multiplier
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        weight_options(self, "depthwise", depthwise_initializer, depthwise_regularizer,
                       depthwise_constraint)
        weight_options(self, "pointwise", pointwise_initializer, pointwise_regularizer,
                       pointwise_constraint)
        weight_options(self, "bias", bias_initializer, bias_regularizer, bias_constraint)

    def build(self, input_shape: Any) -> None:
        _, channels = co.spatial_shape(input_shape, self.data_format)
        m = self.depth_multiplier
        self.depthwise_kernel = make_weight(self, "depthwise", self.kernel_size + (channels, m),
                                            name="depthwise_kernel")
        self.pointwise_kernel = make_weight(self, "pointwise",
                                            (1,) * self.rank + (channels * m, self.filters),
                                            name="pointwise_kernel")
        self.bias = make_weight(self, "bias", (self.filters,)) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        x = co.channels_last(inputs, self.data_format)
        y = co.separable_conv(x, self.depthwise_kernel, self.pointwise_kernel, self.strides,
                              self.padding, self.dilation_rate)
        return self._finish(co.channels_back(y, self.data_format))

    compute_output_shape = _Conv.compute_output_shape   # ``filters`` output channels

    def get_config(self):
        config = super().get_config()
        config.update(depth_multiplier=self.depth_multiplier, filters=self.filters,
                      **self._window_config(),
                      activation=activations.serialize(self.activation),
                      use_bias=self.use_bias)
        config.update(weight_config(self, "depthwise", "pointwise", "bias", activity=True))
        return config


_SEPARABLE_DOC = """{n}-D separable convolution: a depthwise convolution (``depthwise_kernel``
    [*kernel_size, in_channels, depth_multiplier]) followed by a pointwise one
    (``pointwise_kernel`` [{ones}in_channels * depth_multiplier, filters]).

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.SeparableConv{n}D(5, 3)
    >>> layer(fg.ones([1] + [4] * {n} + [3])).shape[-1]
    5
    """


class SeparableConv1D(_SeparableConv):
    __doc__ = _SEPARABLE_DOC.format(n=1, ones="1, ")

    def __init__(self, filters: TensorLike, kernel_size: Any, strides: int = 1,
                 padding: str = "valid", data_format: Any = None, dilation_rate: int = 1,
                 depth_multiplier: int = 1, **kwargs: Any) -> None:
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, **kwargs)


class SeparableConv2D(_SeparableConv):
    __doc__ = _SEPARABLE_DOC.format(n=2, ones="1, 1, ")

    def __init__(self, filters: TensorLike, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: Any = None, dilation_rate: Any = (1, 1),
                 depth_multiplier: int = 1, **kwargs: Any) -> None:
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, **kwargs)
