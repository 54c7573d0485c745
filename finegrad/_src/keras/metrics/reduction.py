"""Keras 3's ``Sum``, ``Mean`` and ``MeanMetricWrapper`` (the mean of a function's
per-sample values, which most metrics are)."""
from typing import Any

from finegrad._src.keras.loss_functions import squeeze_or_expand_to_same_rank
from finegrad._src.keras.losses import apply_mask
from finegrad._src.keras.metrics.base import Metric
from finegrad._src.ops.array.shape_queries import shape
from finegrad._src.ops.array.structural import cast, convert_to_tensor, ones_like, reduce_sum
from finegrad._src.ops.math.reductions import reduce_mean
from finegrad._src.ops.math.statistics import divide_no_nan


def reduce_to_samplewise_values(values: Any, sample_weight: Any, reduce_fn: Any, dtype: Any) -> Any:
    """``values`` reduced to one value per sample (the first axis), weighted by
    ``sample_weight`` (broadcast from its own axes); returns ``(values, sample_weight)``."""
    mask = getattr(values, "_keras_mask", None)
    values = cast(convert_to_tensor(values), dtype)
    if sample_weight is not None:
        sample_weight = cast(convert_to_tensor(sample_weight), dtype)
        if mask is not None:
            sample_weight = apply_mask(sample_weight, mask, dtype, "sum")
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        w_ndim, v_ndim = len(sample_weight.shape), len(values.shape)
        if v_ndim > w_ndim:
            values = reduce_fn(values, axis=list(range(w_ndim, v_ndim)))
        sample_weight = sample_weight * ones_like(values)   # broadcast (an open batch too)
        values = values * sample_weight
        if w_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, w_ndim)))
    if len(values.shape) > 1:
        values = reduce_fn(values, axis=list(range(1, len(values.shape))))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of all values seen.

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.Sum()
    >>> m.update_state([1., 3.]); m.update_state([[2.]])
    >>> float(m.result())
    6.0
    """

    def __init__(self, name: str | None = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", name="total")

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        values, _ = reduce_to_samplewise_values(values, sample_weight, reduce_sum, self.dtype)
        self.total.assign_add(reduce_sum(values))

    def result(self) -> Any:
        return cast(self.total.read_value(), self.dtype)


class Mean(Metric):
    """The (weighted) mean of all values seen: per sample values are averaged over their
    other axes first.

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.Mean()
    >>> m.update_state([1., 3.], sample_weight=[1., 3.])
    >>> float(m.result())
    2.5
    """

    def __init__(self, name: str | None = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", name="total")
        self.count = self.add_variable((), "zeros", name="count")

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, reduce_mean,
                                                            self.dtype)
        self.total.assign_add(reduce_sum(values))
        if sample_weight is not None:
            count = reduce_sum(sample_weight)
        elif len(values.shape) >= 1:
            count = shape(values)[0]     # dynamic: the batch size may be open in a trace
        else:
            count = convert_to_tensor(1.0)
        self.count.assign_add(cast(count, self.dtype))

    def result(self) -> Any:
        return divide_no_nan(self.total.read_value(), cast(self.count.read_value(), self.dtype))


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)`` over all samples seen.

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.MeanMetricWrapper(fg.keras.losses.mean_absolute_error)
    >>> float(m([[1., 2.]], [[0., 0.]]))
    1.5
    """

    def __init__(self, fn: Any, name: str | None = None, dtype: Any = None, **kwargs) -> None:
        super().__init__(name=name or getattr(fn, "__name__", None), dtype=dtype)
        self._fn, self._fn_kwargs = fn, kwargs

    def update_state(self, y_true: Any, y_pred: Any,  # type: ignore[override]
                     sample_weight: Any = None) -> Any:
        mask = getattr(y_pred, "_keras_mask", None)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = apply_mask(sample_weight, mask, self.dtype, "sum")
        return super().update_state(values, sample_weight=sample_weight)

    def get_config(self) -> Any:
        return {**super().get_config(), **self._fn_kwargs}


class _Wrapped(MeanMetricWrapper):
    """A built-in metric: its function is fixed, ``from_config`` passes only the options."""

    _fn_default: Any = None
    _default_name: Any = None

    def __init__(self, name: str | None = None, dtype: Any = None, **kwargs) -> None:
        super().__init__(type(self)._fn_default, name or self._default_name, dtype, **kwargs)
