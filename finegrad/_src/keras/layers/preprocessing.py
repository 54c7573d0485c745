"""Keras's `Normalization` preprocessing layer: ``(x - mean) / max(sqrt(variance), 1e-7)``
per position of the kept ``axis``, with the statistics given or learned by ``adapt`` (NumPy
arrays, tensors, or an iterable of batches such as a `finegrad.data` dataset; batches are
combined exactly, as Keras combines them).
"""

from __future__ import annotations

import numpy as np

from finegrad._src.keras.layer import Layer
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reshape
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike

_EPSILON = 1e-7


def _batches(data):
    """The data as an iterable of NumPy batches: an array or a tensor is one batch; anything
    else is iterated, batch by batch (an ``(x, y)`` batch contributes its ``x``)."""
    if isinstance(data, (np.ndarray, Tensor)):
        return [np.asarray(data)]
    return (np.asarray(b[0] if isinstance(b, (tuple, list)) else b) for b in data)


def _listed(value):
    return None if value is None else np.asarray(value).tolist()


class Normalization(Layer):
    """Shifts and scales inputs to mean 0 and variance 1 per position of ``axis`` (the kept
    axes; None normalizes with one mean and variance), from ``mean``/``variance`` or from
    `adapt`; ``invert=True`` maps normalized values back.

    >>> import numpy as np, finegrad as fg
    >>> layer = fg.keras.layers.Normalization()
    >>> layer.adapt(np.array([[1., 10.], [3., 30.]], np.float32))
    >>> layer(np.array([[1., 10.]], np.float32)).numpy()
    array([[-1., -1.]], dtype=float32)
    """

    def __init__(self, axis: int = -1, mean: Any = None, variance: Any = None, invert: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = () if axis is None else ((axis,) if isinstance(axis, int)
                                             else tuple(axis))
        self.input_mean, self.input_variance, self.invert = mean, variance, invert
        self.supports_masking = True
        if (mean is None) != (variance is None):
            raise ValueError(f"keras.layers.Normalization: both mean and variance must be set, "
                             f"got mean={mean} and variance={variance}")
        if mean is not None and np.shape(mean) != np.shape(variance):
            raise ValueError(f"keras.layers.Normalization: mean and variance must have the "
                             f"same shape, got {np.shape(mean)} and {np.shape(variance)}")

    def build(self, input_shape: Any) -> None:
        ndim = len(input_shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"keras.layers.Normalization: axis values must be in [-{ndim}, "
                             f"{ndim}), got {self.axis}")
        self._keep = tuple(sorted(a % ndim for a in self.axis))
        if any(input_shape[d] is None for d in self._keep):
            raise ValueError(f"keras.layers.Normalization: the kept axes {self.axis} must have "
                             f"known sizes, got input shape {tuple(input_shape)}")
        self._reduce = tuple(d for d in range(ndim) if d not in self._keep)
        self._broadcast = [input_shape[d] if d in self._keep else 1 for d in range(ndim)]
        shape = tuple(input_shape[d] for d in self._keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=shape, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=shape,
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64",
                                         initializer="zeros", trainable=False)
        self.built = True

    def _statistics(self):
        if self.input_mean is None:
            return (reshape(self.adapt_mean, self._broadcast),
                    reshape(self.adapt_variance, self._broadcast))
        mean = np.asarray(self.input_mean, np.float64)
        var = np.asarray(self.input_variance, np.float64)
        expanded = [1] * len(self._broadcast)
        for i in range(1, mean.ndim + 1):
            expanded[self._keep[-i]] = mean.shape[-i]
        mean = np.broadcast_to(mean.reshape(expanded), self._broadcast)
        var = np.broadcast_to(var.reshape(expanded), self._broadcast)
        return convert_to_tensor(mean.astype(np.float32)), \
            convert_to_tensor(var.astype(np.float32))

    def adapt(self, data: Any) -> None:
        """Compute the mean and variance of ``data`` (an array, a tensor, or an iterable of
        batches) over every axis but the kept ones."""
        total_mean: Any = None
        total_var: Any = None
        total = 0
        for batch in _batches(data):
            if not self.built:
                self.build(batch.shape)
            n = int(np.prod([batch.shape[d] for d in self._reduce]))
            mean = batch.mean(axis=self._reduce, dtype=np.float64)
            var = batch.var(axis=self._reduce, dtype=np.float64)
            if total_mean is None:
                total_mean, total_var, total = mean, var, n
                continue
            total += n
            w = n / total
            new_mean = total_mean * (1 - w) + mean * w
            total_var = (total_var + (total_mean - new_mean) ** 2) * (1 - w) + \
                (var + (mean - new_mean) ** 2) * w
            total_mean = new_mean
        if total_mean is None:
            raise ValueError("keras.layers.Normalization.adapt: no data")
        self.adapt_mean.assign(total_mean.astype(np.float32))
        self.adapt_variance.assign(total_var.astype(np.float32))
        self.count.assign(np.int64(total))

    def call(self, inputs: TensorLike) -> Tensor:
        x = cast(convert_to_tensor(inputs), self.compute_dtype)
        mean, var = (cast(t, x.dtype) for t in self._statistics())
        scale = maximum(ew.sqrt(var), cast(_EPSILON, x.dtype))
        return mean + x * scale if self.invert else (x - mean) / scale

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(axis=self.axis, invert=self.invert, mean=_listed(self.input_mean),
                      variance=_listed(self.input_variance))
        return config
