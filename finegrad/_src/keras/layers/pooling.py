"""Keras's pooling layers: `MaxPooling1D/2D/3D`, `AveragePooling1D/2D/3D` (windows, TensorFlow's
"same" padding, whose averages count only the values inside the input) and
`GlobalAveragePooling1D/2D/3D`, `GlobalMaxPooling1D/2D/3D` (over every spatial position;
GlobalAveragePooling1D averages only the unmasked steps).

Max pooling's gradient goes to the first maximum of each window, as TensorFlow's.
"""

from __future__ import annotations

from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers import convolution_ops as co
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import cast, expand_dims, reduce_sum
from finegrad._src.ops.math.reductions import reduce_max, reduce_mean

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


class _Pooling(Layer):
    def __init__(self, kind, rank, pool_size, strides, padding, data_format, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        self.kind, self.rank = kind, rank
        self.pool_size = co.tuple_arg(pool_size, rank, "pool_size", name)
        self.strides = co.tuple_arg(pool_size if strides is None else strides, rank,
                                    "strides", name)
        self.padding = co.padding_arg(padding, f"keras.layers.{name}")
        self.data_format = co.data_format_arg(data_format, f"keras.layers.{name}")
        self.built = True

    def call(self, inputs):
        x = co.channels_last(inputs, self.data_format)
        y = co.pool(x, self.kind, self.pool_size, self.strides, self.padding)
        return co.channels_back(y, self.data_format)

    def compute_output_shape(self, input_shape):
        spatial, channels = co.spatial_shape(input_shape, self.data_format)
        out = [co.conv_output_length(n, k, self.padding, s) for n, k, s in
               zip(spatial, self.pool_size, self.strides, strict=True)]
        return co.batched_shape(input_shape[0], out, channels, self.data_format)

    def get_config(self):
        config = super().get_config()
        config.update(pool_size=self.pool_size, padding=self.padding, strides=self.strides,
                      data_format=self.data_format)
        return config


_POOL_DOC = """{kind} pooling over {n}-D windows of ``pool_size``, moved by ``strides``
    (default: ``pool_size``), with "valid" or "same" padding.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.{name}({example})
    >>> layer(fg.ones([1] + [4] * {n} + [3])).shape[1]
    2
    """


class MaxPooling1D(_Pooling):
    __doc__ = _POOL_DOC.format(kind="Max", n=1, name="MaxPooling1D", example="")

    def __init__(self, pool_size: int = 2, strides: Any = None, padding: str = "valid",
                 data_format: Any = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__("max", 1, pool_size, strides, padding, data_format, name=name,
                         **kwargs)


class MaxPooling2D(_Pooling):
    __doc__ = _POOL_DOC.format(kind="Max", n=2, name="MaxPooling2D", example="")

    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Any = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__("max", 2, pool_size, strides, padding, data_format, name=name,
                         **kwargs)


class AveragePooling1D(_Pooling):
    __doc__ = _POOL_DOC.format(kind="Average", n=1, name="AveragePooling1D", example="2")

    def __init__(self, pool_size: Any, strides: Any = None, padding: str = "valid",
                 data_format: Any = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__("average", 1, pool_size, strides, padding, data_format, name=name,
                         **kwargs)


class AveragePooling2D(_Pooling):
    __doc__ = _POOL_DOC.format(kind="Average", n=2, name="AveragePooling2D", example="2")

    def __init__(self, pool_size: Any, strides: Any = None, padding: str = "valid",
                 data_format: Any = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__("average", 2, pool_size, strides, padding, data_format, name=name,
                         **kwargs)


class MaxPooling3D(_Pooling):
    __doc__ = _POOL_DOC.format(kind="Max", n=3, name="MaxPooling3D", example="")

    def __init__(self, pool_size: Any = (2, 2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Any = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__("max", 3, pool_size, strides, padding, data_format, name=name,
                         **kwargs)


class AveragePooling3D(_Pooling):
    __doc__ = _POOL_DOC.format(kind="Average", n=3, name="AveragePooling3D", example="2")

    def __init__(self, pool_size: Any, strides: Any = None, padding: str = "valid",
                 data_format: Any = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__("average", 3, pool_size, strides, padding, data_format, name=name,
                         **kwargs)


class _GlobalPooling(Layer):
    def __init__(self, rank, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.rank = rank
        self.data_format = co.data_format_arg(data_format,
                                              f"keras.layers.{type(self).__name__}")
        self.keepdims = keepdims
        self.built = True

    def _axes(self):
        first = 1 if self.data_format == "channels_last" else 2
        return list(range(first, first + self.rank))

    def compute_output_shape(self, input_shape):
        spatial, channels = co.spatial_shape(input_shape, self.data_format)
        if self.keepdims:
            return co.batched_shape(input_shape[0], [1] * len(spatial), channels,
                                    self.data_format)
        return (input_shape[0], channels)

    def get_config(self):
        config = super().get_config()
        config.update(data_format=self.data_format, keepdims=self.keepdims)
        return config


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps axis (only the unmasked steps when a mask comes).

    >>> import finegrad as fg
    >>> fg.keras.layers.GlobalAveragePooling1D()(fg.ones([2, 5, 3])).shape
    TensorShape([2, 3])
    """

    def __init__(self, data_format: Any = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(1, data_format, keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs: Any, mask: Any = None) -> Tensor:
        axis = self._axes()[0]
        if mask is None:
            return reduce_mean(inputs, axis=axis, keepdims=self.keepdims)
        m = expand_dims(cast(mask, "bool"), 2 if self.data_format == "channels_last" else 1)
        total = reduce_sum(ew.where(m, inputs, cast(0.0, inputs.dtype)), axis=axis,
                           keepdims=self.keepdims)
        return total / reduce_sum(cast(m, inputs.dtype), axis=axis, keepdims=self.keepdims)

    def compute_mask(self, inputs: TensorLike, mask: Any = None) -> None:
        return None


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over the two spatial axes.

    >>> import finegrad as fg
    >>> fg.keras.layers.GlobalAveragePooling2D()(fg.ones([2, 4, 4, 3])).shape
    TensorShape([2, 3])
    """

    def __init__(self, data_format: Any = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(2, data_format, keepdims, **kwargs)

    def call(self, inputs: TensorLike) -> Tensor:
        return reduce_mean(inputs, axis=self._axes(), keepdims=self.keepdims)


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over the steps axis.

    >>> import finegrad as fg
    >>> fg.keras.layers.GlobalMaxPooling1D()(fg.ones([2, 5, 3])).shape
    TensorShape([2, 3])
    """

    def __init__(self, data_format: Any = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(1, data_format, keepdims, **kwargs)

    def call(self, inputs: TensorLike) -> Tensor:
        return reduce_max(inputs, axis=self._axes(), keepdims=self.keepdims)


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over the two spatial axes.

    >>> import finegrad as fg
    >>> fg.keras.layers.GlobalMaxPooling2D()(fg.ones([2, 4, 4, 3])).shape
    TensorShape([2, 3])
    """

    def __init__(self, data_format: Any = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(2, data_format, keepdims, **kwargs)

    def call(self, inputs: TensorLike) -> Tensor:
        return reduce_max(inputs, axis=self._axes(), keepdims=self.keepdims)


class GlobalAveragePooling3D(_GlobalPooling):
    """The mean over the three spatial axes.

    >>> import finegrad as fg
    >>> fg.keras.layers.GlobalAveragePooling3D()(fg.ones([2, 3, 3, 3, 4])).shape
    TensorShape([2, 4])
    """

    def __init__(self, data_format: Any = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(3, data_format, keepdims, **kwargs)

    def call(self, inputs: TensorLike) -> Tensor:
        return reduce_mean(inputs, axis=self._axes(), keepdims=self.keepdims)


class GlobalMaxPooling3D(_GlobalPooling):
    """The maximum over the three spatial axes.

    >>> import finegrad as fg
    >>> fg.keras.layers.GlobalMaxPooling3D()(fg.ones([2, 3, 3, 3, 4])).shape
    TensorShape([2, 4])
    """

    def __init__(self, data_format: Any = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(3, data_format, keepdims, **kwargs)

    def call(self, inputs: TensorLike) -> Tensor:
        return reduce_max(inputs, axis=self._axes(), keepdims=self.keepdims)
