"""Keras 3's metrics read at an operating point of a curve: ``SensitivityAtSpecificity``,
``SpecificityAtSensitivity``, ``PrecisionAtRecall`` and ``RecallAtPrecision``: the best
value of one rate over the thresholds where the other reaches its target."""
from typing import Any
from finegrad._src.keras.metrics.base import Metric
from finegrad._src.keras.metrics.confusion import update_confusion_matrix_variables
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum
from finegrad._src.ops.math.reductions import reduce_max
from finegrad._src.ops.math.statistics import divide_no_nan


class _AtOperatingPoint(Metric):
    """Confusion counts at ``num_thresholds`` evenly spaced thresholds in [0, 1]."""

    true_positives: Any
    false_positives: Any
    true_negatives: Any
    false_negatives: Any

    _target: str = ""      # the constructor argument holding the target value

    def __init__(self, value: Any, num_thresholds: Any = 200, class_id: Any = None,
                 name: str | None = None, dtype: Any = None) -> None:
        cls = type(self).__name__
        if not 0 <= value <= 1:
            raise ValueError(f"{cls}: {self._target} must be in [0, 1], got {value}")
        if num_thresholds <= 0:
            raise ValueError(f"{cls}: num_thresholds must be > 0, got {num_thresholds}")
        super().__init__(name=name, dtype=dtype)
        self.value, self.num_thresholds, self.class_id = value, num_thresholds, class_id
        setattr(self, self._target, value)
        if num_thresholds == 1:
            self.thresholds = [0.5]
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0] + inner + [1.0]
        n = len(self.thresholds)
        for name_ in ("true_positives", "false_positives", "true_negatives",
                      "false_negatives"):
            setattr(self, name_, self.add_variable((n,), "zeros", name=name_))

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        update_confusion_matrix_variables(
            {"tp": self.true_positives, "tn": self.true_negatives,
             "fp": self.false_positives, "fn": self.false_negatives},
            y_true, y_pred, self.thresholds, class_id=self.class_id,
            sample_weight=sample_weight)

    def _rates(self):
        tp, fp = self.true_positives.read_value(), self.false_positives.read_value()
        tn, fn = self.true_negatives.read_value(), self.false_negatives.read_value()
        return {"sensitivity": divide_no_nan(tp, tp + fn), "recall": divide_no_nan(tp, tp + fn),
                "specificity": divide_no_nan(tn, tn + fp),
                "precision": divide_no_nan(tp, tp + fp)}

    def _best(self, constrained, dependent):
        feasible = constrained >= self.value
        return maximum(reduce_max(ew.where(feasible, dependent, dependent * 0)), 0.0)

    def get_config(self) -> Any:
        return {**super().get_config(), "class_id": self.class_id,
                "num_thresholds": self.num_thresholds, self._target: self.value}


class SensitivityAtSpecificity(_AtOperatingPoint):
    """The best sensitivity (recall) where the specificity is at least ``specificity``.

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.SensitivityAtSpecificity(0.5)
    >>> float(m([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]))
    0.5

    Raises:
        ValueError: for a target outside [0, 1] or ``num_thresholds <= 0``.
    """

    _target = "specificity"

    def __init__(self, specificity: Any, num_thresholds: Any = 200, class_id: Any = None,
                 name: str | None = None, dtype: Any = None) -> None:
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def result(self) -> Any:
        r = self._rates()
        return self._best(r["specificity"], r["sensitivity"])


class SpecificityAtSensitivity(_AtOperatingPoint):
    """The best specificity where the sensitivity (recall) is at least ``sensitivity``.

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.SpecificityAtSensitivity(0.5)
    >>> round(float(m([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])), 4)
    0.6667
    """

    _target = "sensitivity"

    def __init__(self, sensitivity: Any, num_thresholds: Any = 200, class_id: Any = None,
                 name: str | None = None, dtype: Any = None) -> None:
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def result(self) -> Any:
        r = self._rates()
        return self._best(r["sensitivity"], r["specificity"])


class PrecisionAtRecall(_AtOperatingPoint):
    """The best precision where the recall is at least ``recall``.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.PrecisionAtRecall(0.5)([0, 0, 1, 1], [0, 0.5, 0.3, 0.8]))
    1.0
    """

    _target = "recall"

    def __init__(self, recall: Any, num_thresholds: Any = 200, class_id: Any = None,
                 name: str | None = None, dtype: Any = None) -> None:
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def result(self) -> Any:
        r = self._rates()
        return self._best(r["recall"], r["precision"])


class RecallAtPrecision(_AtOperatingPoint):
    """The best recall where the precision is at least ``precision``.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.RecallAtPrecision(0.8)([0, 0, 1, 1], [0, 0.5, 0.3, 0.8]))
    0.5
    """

    _target = "precision"

    def __init__(self, precision: Any, num_thresholds: Any = 200, class_id: Any = None,
                 name: str | None = None, dtype: Any = None) -> None:
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def result(self) -> Any:
        r = self._rates()
        return self._best(r["precision"], r["recall"])
