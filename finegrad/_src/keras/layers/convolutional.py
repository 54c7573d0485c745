"""Keras's convolution layers: `Conv1D/2D/3D`, `Conv1DTranspose/2DTranspose/3DTranspose`,
`DepthwiseConv1D/2D`, `SeparableConv1D/2D`.

Weights as Keras makes them: ``kernel`` [*kernel_size, in_channels // groups, filters] (a
transpose's [*kernel_size, filters, in_channels]; a depthwise one's [*kernel_size,
in_channels, depth_multiplier]), ``bias`` [filters]. ``call`` is ``convolution_op(inputs,
self.kernel)`` plus the bias, then the activation, so a subclass that overrides ``call`` and
reads ``self.kernel`` works as in Keras. The arithmetic is in `convolution_ops`.
"""

from __future__ import annotations

from finegrad._src.keras import activations
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers import convolution_ops as co
from finegrad._src.keras.layers.core import make_weight, weight_config, weight_options
from finegrad._src.ops.array.structural import reshape

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _check_positive(layer, **values):
    for name, value in values.items():
        if value is not None and (not all(v > 0 for v in value) if isinstance(value, tuple)
                                  else value <= 0):
            raise ValueError(f"keras.layers.{layer}: {name} must be positive, got {value}")


class _WindowLayer(Layer):
    """What every convolution shares: the window arguments, the activation, the bias."""

    def _window_args(self, rank, kernel_size, strides, padding, data_format, dilation_rate):
        name = type(self).__name__
        self.rank = rank
        self.kernel_size = co.tuple_arg(kernel_size, rank, "kernel_size", name)
        self.strides = co.tuple_arg(strides, rank, "strides", name)
        self.dilation_rate = co.tuple_arg(dilation_rate, rank, "dilation_rate", name)
        allowed = ("valid", "same", "causal") if rank == 1 and not \
            isinstance(self, _ConvTranspose) else ("valid", "same")
        self.padding = co.padding_arg(padding, f"keras.layers.{name}", allowed)
        self.data_format = co.data_format_arg(data_format, f"keras.layers.{name}")
        _check_positive(name, kernel_size=self.kernel_size, strides=self.strides)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"keras.layers.{name}: strides > 1 is not supported together "
                             f"with dilation_rate > 1, got strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")

    def _finish(self, outputs):
        """Add the bias (over the channel axis) and apply the activation."""
        if self.use_bias:
            shape = (1,) * (self.rank + 1) + (-1,) if self.data_format == "channels_last" \
                else (1, -1) + (1,) * self.rank
            outputs = outputs + reshape(self.bias, shape)
        return self.activation(outputs) if self.activation is not None else outputs

    def _window_config(self):
        return dict(kernel_size=self.kernel_size, strides=self.strides, padding=self.padding,
                    data_format=self.data_format, dilation_rate=self.dilation_rate)

    def _output_spatial(self, spatial):
        return [co.conv_output_length(n, k, self.padding, s, d) for n, k, s, d in
                zip(spatial, self.kernel_size, self.strides, self.dilation_rate, strict=True)]


class _Conv(_WindowLayer):
    """An N-D convolution layer (Keras's BaseConv)."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._window_args(rank, kernel_size, strides, padding, data_format, dilation_rate)
        self.filters, self.groups = filters, groups
        name = type(self).__name__
        _check_positive(name, filters=filters, groups=groups)
        if filters is not None and filters % groups:
            raise ValueError(f"keras.layers.{name}: filters ({filters}) must be divisible by "
                             f"groups ({groups})")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        weight_options(self, "kernel", kernel_initializer, kernel_regularizer,
                       kernel_constraint)
        weight_options(self, "bias", bias_initializer, bias_regularizer, bias_constraint)

    def build(self, input_shape: Any) -> None:
        _, channels = co.spatial_shape(input_shape, self.data_format)
        if channels % self.groups:
            raise ValueError(f"keras.layers.{type(self).__name__}: the input's {channels} "
                             f"channels must be divisible by groups ({self.groups}); input "
                             f"shape {tuple(input_shape)}")
        self.kernel = make_weight(self, "kernel",
                                  self.kernel_size + (channels // self.groups, self.filters))
        self.bias = make_weight(self, "bias", (self.filters,)) if self.use_bias else None
        self.built = True

    def convolution_op(self, inputs, kernel):
        x = co.channels_last(inputs, self.data_format)
        y = co.conv(x, kernel, self.strides, self.padding, self.dilation_rate, self.groups)
        return co.channels_back(y, self.data_format)

    def call(self, inputs):
        return self._finish(self.convolution_op(inputs, self.kernel))

    def compute_output_shape(self, input_shape):
        spatial, _ = co.spatial_shape(input_shape, self.data_format)
        return co.batched_shape(input_shape[0], self._output_spatial(spatial), self.filters,
                                self.data_format)

    def get_config(self):
        config = super().get_config()
        config.update(filters=self.filters, **self._window_config(), groups=self.groups,
                      activation=activations.serialize(self.activation),
                      use_bias=self.use_bias)
        config.update(weight_config(self, "kernel", "bias", activity=True))
        return config


_CONV_DOC = """{n}-D convolution layer: ``activation(conv(inputs, kernel) + bias)``.

    Args:
        filters: the number of output channels.
        kernel_size: an int or a tuple of {n} ints.
        strides, dilation_rate: an int or a tuple of {n} ints (not both above 1).
        padding: "valid", "same"{causal}.
        data_format: "channels_last" (default) or "channels_first".
        groups: the number of channel groups (each convolved with its own filters).
        activation, use_bias, initializers, regularizers, constraints: as in Keras.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.Conv{n}D(4, 3, padding="same")
    >>> layer(fg.ones([2] + [5] * {n} + [3])).shape[-1]
    4
    """


class Conv1D(_Conv):
    __doc__ = _CONV_DOC.format(n=1, causal=' or "causal" (left padding only)')

    def __init__(self, filters: TensorLike, kernel_size: Any, strides: int = 1,
                 padding: str = "valid", data_format: Any = None, dilation_rate: int = 1,
                 groups: int = 1, **kwargs: Any) -> None:
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, **kwargs)


class Conv2D(_Conv):
    __doc__ = _CONV_DOC.format(n=2, causal="")

    def __init__(self, filters: TensorLike, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: Any = None, dilation_rate: Any = (1, 1),
                 groups: int = 1, **kwargs: Any) -> None:
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, **kwargs)


class Conv3D(_Conv):
    __doc__ = _CONV_DOC.format(n=3, causal="")

    def __init__(self, filters: TensorLike, kernel_size: Any, strides: Any = (1, 1, 1),
                 padding: str = "valid", data_format: Any = None, dilation_rate: Any = (1, 1, 1),
                 groups: int = 1, **kwargs: Any) -> None:
        super().__init__(3, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, **kwargs)


class _ConvTranspose(_WindowLayer):
    """An N-D transposed convolution layer (Keras's BaseConvTranspose)."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 output_padding=None, data_format=None, dilation_rate=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._window_args(rank, kernel_size, strides, padding, data_format, dilation_rate)
        name = type(self).__name__
        self.filters = filters
        _check_positive(name, filters=filters)
        self.output_padding = None if output_padding is None else \
            co.tuple_arg(output_padding, rank, "output_padding", name)
        for op, s in zip(self.output_padding or (), self.strides, strict=False):
            if op >= s:
                raise ValueError(f"keras.layers.{name}: output_padding {self.output_padding} "
                                 f"must be smaller than strides {self.strides}")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        weight_options(self, "kernel", kernel_initializer, kernel_regularizer,
                       kernel_constraint)
        weight_options(self, "bias", bias_initializer, bias_regularizer, bias_constraint)

    def build(self, input_shape: Any) -> None:
        _, channels = co.spatial_shape(input_shape, self.data_format)
        self.kernel = make_weight(self, "kernel", self.kernel_size + (self.filters, channels))
        self.bias = make_weight(self, "bias", (self.filters,)) if self.use_bias else None
        self.built = True

    def convolution_op(self, inputs, kernel):
        x = co.channels_last(inputs, self.data_format)
        y = co.conv_transpose(x, kernel, self.strides, self.padding, self.output_padding,
                              self.dilation_rate)
        return co.channels_back(y, self.data_format)

    def call(self, inputs):
        return self._finish(self.convolution_op(inputs, self.kernel))

    def compute_output_shape(self, input_shape):
        spatial, _ = co.spatial_shape(input_shape, self.data_format)
        ops = self.output_padding or (None,) * self.rank
        out = [co.transpose_output_length(n, k, self.padding, s, op, d) for n, k, s, op, d in
               zip(spatial, self.kernel_size, self.strides, ops, self.dilation_rate,
                   strict=True)]
        return co.batched_shape(input_shape[0], out, self.filters, self.data_format)

    def get_config(self):
        config = super().get_config()
        window = self._window_config()
        config.update(filters=self.filters, kernel_size=window.pop("kernel_size"),
                      strides=window.pop("strides"), padding=window.pop("padding"),
                      output_padding=self.output_padding, **window,
                      activation=activations.serialize(self.activation),
                      use_bias=self.use_bias)
        config.update(weight_config(self, "kernel", "bias", activity=True))
        return config


_TRANSPOSE_DOC = """{n}-D transposed convolution ("deconvolution"): the gradient of a
    convolution with respect to its input, as a layer; ``kernel`` is [*kernel_size, filters,
    in_channels]. ``output_padding`` (smaller than ``strides``) adds to each output size.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.Conv{n}DTranspose(4, 3, strides=2, padding="same")
    >>> layer(fg.ones([1] + [3] * {n} + [2])).shape[1]
    6
    """


class Conv1DTranspose(_ConvTranspose):
    __doc__ = _TRANSPOSE_DOC.format(n=1)

    def __init__(self, filters: TensorLike, kernel_size: Any, strides: int = 1,
                 padding: str = "valid", output_padding: Any = None, data_format: Any = None,
                 dilation_rate: int = 1, **kwargs: Any) -> None:
        super().__init__(1, filters, kernel_size, strides, padding, output_padding,
                         data_format, dilation_rate, **kwargs)


class Conv2DTranspose(_ConvTranspose):
    __doc__ = _TRANSPOSE_DOC.format(n=2)

    def __init__(self, filters: TensorLike, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", output_padding: Any = None, data_format: Any = None,
                 dilation_rate: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(2, filters, kernel_size, strides, padding, output_padding,
                         data_format, dilation_rate, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    __doc__ = _TRANSPOSE_DOC.format(n=3)

    def __init__(self, filters: TensorLike, kernel_size: Any, strides: Any = (1, 1, 1),
                 padding: str = "valid", output_padding: Any = None, data_format: Any = None,
                 dilation_rate: Any = (1, 1, 1), **kwargs: Any) -> None:
        super().__init__(3, filters, kernel_size, strides, padding, output_padding,
                         data_format, dilation_rate, **kwargs)
