"""Keras 3's ``FBetaScore``, ``F1Score`` and ``R2Score``: metrics whose state is one count
per class (or output)."""
from typing import Any
from finegrad._src.keras.loss_functions import EPSILON, squeeze_or_expand_to_same_rank
from finegrad._src.keras.metrics.base import Metric
from finegrad._src.ops.array.shape_queries import size
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, expand_dims,
                                                ones_like, reduce_sum)
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.reductions import reduce_max, reduce_mean


def _two_d(y_true, y_pred, cls):
    if len(y_pred.shape) != 2 or len(y_true.shape) != 2 or y_pred.shape[-1] is None:
        raise ValueError(f"{cls} expects 2D inputs with shape (batch_size, output_dim), "
                         f"output_dim known; got y_pred.shape={tuple(y_pred.shape)} and "
                         f"y_true.shape={tuple(y_true.shape)}")
    return y_pred.shape[-1]


class FBetaScore(Metric):
    """The F-beta score ``(1 + beta^2) P R / (beta^2 P + R)`` per class (``average=None``),
    or its ``"micro"``, ``"macro"`` or ``"weighted"`` average; a prediction is positive above
    ``threshold`` (by default: the largest of its row).

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.FBetaScore(beta=1.0, average="micro")
    >>> round(float(m([[1., 0.], [0., 1.]], [[0.9, 0.1], [0.8, 0.2]])), 4)
    0.5

    Raises:
        ValueError: for an unknown average, a beta that is not a positive float or a
            threshold outside (0, 1].
    """

    true_positives: Any
    false_positives: Any
    false_negatives: Any
    intermediate_weights: Any

    def __init__(self, average: Any = None, beta: Any = 1.0, threshold: Any = None,
                 name: str | None = "fbeta_score",
                 dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(f"FBetaScore: average must be one of None, 'micro', 'macro', "
                             f"'weighted', got {average!r}")
        if not isinstance(beta, float) or beta <= 0.0:
            raise ValueError(f"FBetaScore: beta must be a positive Python float, got {beta!r}")
        if threshold is not None and (not isinstance(threshold, float)
                                      or not 0.0 < threshold <= 1.0):
            raise ValueError(f"FBetaScore: threshold must be a float in (0, 1], got "
                             f"{threshold!r}")
        self.average, self.beta, self.threshold = average, beta, threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, classes):
        shape = () if self.average == "micro" else (classes,)
        for name in ("true_positives", "false_positives", "false_negatives",
                     "intermediate_weights"):
            setattr(self, name, self.add_variable(shape, "zeros", name=name))
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_true = cast(convert_to_tensor(y_true), self.dtype)
        y_pred = cast(convert_to_tensor(y_pred), self.dtype)
        classes = _two_d(y_true, y_pred, type(self).__name__)
        if not self._built:
            self._build(classes)
        if self.threshold is None:
            top = reduce_max(y_pred, axis=-1, keepdims=True)
            positive = ew.logical_and(y_pred >= top, ew.abs(y_pred) > 1e-9)
        else:
            positive = y_pred > self.threshold
        y_pred = cast(positive, self.dtype)
        weights = None if sample_weight is None else \
            expand_dims(cast(convert_to_tensor(sample_weight), self.dtype), 1)

        def total(values):
            return reduce_sum(values if weights is None else values * weights, axis=self.axis)
        self.true_positives.assign_add(total(y_pred * y_true))
        self.false_positives.assign_add(total(y_pred * (1 - y_true)))
        self.false_negatives.assign_add(total((1 - y_pred) * y_true))
        self.intermediate_weights.assign_add(total(y_true))

    def result(self) -> Any:
        tp = self.true_positives.read_value()
        precision = tp / (tp + self.false_positives.read_value() + EPSILON)
        recall = tp / (tp + self.false_negatives.read_value() + EPSILON)
        b2 = self.beta ** 2
        score = precision * recall / (b2 * precision + recall + EPSILON) * (1 + b2)
        if self.average == "weighted":
            w = self.intermediate_weights.read_value()
            return reduce_sum(score * (w / (reduce_sum(w) + EPSILON)))
        if self.average is not None:
            return reduce_mean(score)
        return score

    def reset_state(self) -> None:
        if self._built:
            super().reset_state()

    def get_config(self) -> Any:
        return {**super().get_config(), "average": self.average, "beta": self.beta,
                "threshold": self.threshold}


class F1Score(FBetaScore):
    """The F1 score, `FBetaScore` with ``beta=1``.

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.F1Score(average="macro")
    >>> round(float(m([[1., 0.], [0., 1.]], [[0.9, 0.1], [0.2, 0.8]])), 4)
    1.0
    """

    def __init__(self, average: Any = None, threshold: Any = None, name: str | None = "f1_score",
                 dtype: Any = None) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name,
                         dtype=dtype)

    def get_config(self) -> Any:
        config = super().get_config()
        del config["beta"]
        return config


_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """The coefficient of determination per output, aggregated by ``class_aggregation``
    (``"uniform_average"``, ``"variance_weighted_average"`` or None), adjusted for
    ``num_regressors`` when given.

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.R2Score()
    >>> round(float(m([[1.], [2.], [3.]], [[1.], [2.], [4.]])), 4)
    0.5

    Raises:
        ValueError: for an unknown aggregation or a negative ``num_regressors``.
    """

    sum: Any
    squared_sum: Any
    total_mse: Any
    count: Any

    def __init__(self, class_aggregation: Any = "uniform_average", num_regressors: Any = 0,
                 name: str | None = "r2_score", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(f"R2Score: class_aggregation must be one of {_AGGREGATIONS}, "
                             f"got {class_aggregation!r}")
        if num_regressors < 0:
            raise ValueError(f"R2Score: num_regressors must be >= 0, got {num_regressors}")
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors
        self.num_samples = self.add_variable((), "zeros", name="num_samples")
        self._built = False

    def _build(self, outputs):
        for name, attr in (("squared_sum", "squared_sum"), ("sum", "sum"),
                           ("residual", "total_mse"), ("count", "count")):
            setattr(self, attr, self.add_variable((outputs,), "zeros", name=name))
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_true = cast(convert_to_tensor(y_true), self.dtype)
        y_pred = cast(convert_to_tensor(y_pred), self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        outputs = _two_d(y_true, y_pred, "R2Score")
        if not self._built:
            self._build(outputs)
        w = convert_to_tensor(1.0) if sample_weight is None else \
            cast(convert_to_tensor(sample_weight), self.dtype)
        if len(w.shape) == 1:
            w = expand_dims(w, 1)
        w = w * ones_like(y_true)
        self.sum.assign_add(reduce_sum(y_true * w, axis=0))
        self.squared_sum.assign_add(reduce_sum(y_true * y_true * w, axis=0))
        self.total_mse.assign_add(reduce_sum(ew.square(y_true - y_pred) * w, axis=0))
        self.count.assign_add(reduce_sum(w, axis=0))
        self.num_samples.assign_add(cast(size(y_true), self.dtype))

    def result(self) -> Any:
        s, count = self.sum.read_value(), self.count.read_value()
        total = self.squared_sum.read_value() - s * (s / count)
        raw = 1 - self.total_mse.read_value() / total
        raw = ew.where(ew.is_inf(raw), raw * 0, raw)
        if self.class_aggregation == "uniform_average":
            score = reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = reduce_sum(total * raw) / reduce_sum(total)
        else:
            score = raw
        if self.num_regressors:
            n, p = self.num_samples.read_value(), float(self.num_regressors)
            adjusted = 1.0 - (1.0 - score) * (n - 1.0) / (n - p - 1.0)
            score = ew.where(n - p - 1.0 > 0, adjusted, score)   # Keras warns and keeps r2
        return score

    def reset_state(self) -> None:
        self.num_samples.assign(0.0)
        if self._built:
            for v in (self.squared_sum, self.sum, self.total_mse, self.count):
                v.assign(v * 0)

    def get_config(self) -> Any:
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}
