"""Keras 3's ``AUC``: the area under the ROC or precision-recall curve, from confusion counts
at ``num_thresholds`` thresholds (Riemann sums, or the interpolated PR-AUC of Davis and
Goadrich, 2006)."""
from typing import Any
import numpy as np

from finegrad._src.keras.activations import sigmoid
from finegrad._src.keras.loss_functions import EPSILON
from finegrad._src.keras.metrics.base import Metric
from finegrad._src.keras.metrics.confusion import update_confusion_matrix_variables
from finegrad._src.ops.array.structural import cast, convert_to_tensor, ones_like, reduce_sum
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum, minimum
from finegrad._src.ops.math.reductions import reduce_mean
from finegrad._src.ops.math.statistics import divide_no_nan

_CURVES = ("ROC", "PR", "PRGAIN")
_SUMMATIONS = ("interpolation", "minoring", "majoring")


def _choice(value, allowed, what):
    v = str(getattr(value, "value", value))
    for a in allowed:
        if v.lower() == a.lower():
            return a
    raise ValueError(f"keras.metrics.AUC: invalid {what} {value!r}; expected one of {allowed}")


class AUC(Metric):
    """The area under the ROC curve (``curve="ROC"``), the precision-recall curve (``"PR"``)
    or the precision-recall-gain curve (``"PRGAIN"``), summed by ``summation_method``
    (``"interpolation"``, ``"minoring"``, ``"majoring"``) over ``num_thresholds`` evenly
    spaced thresholds (or the given ``thresholds``, plus 0 and 1); ``multi_label`` keeps one
    curve per label and averages their areas (weighted by ``label_weights``).

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.AUC(num_thresholds=3)([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]))
    0.75

    Raises:
        ValueError: for an unknown curve or summation method, or ``num_thresholds <= 1``.
    """

    true_positives: Any
    false_positives: Any
    true_negatives: Any
    false_negatives: Any

    def __init__(self, num_thresholds: Any = 200, curve: Any = "ROC",
                 summation_method: Any = "interpolation",
                 name: str | None = None, dtype: Any = None, thresholds: Any = None,
                 multi_label: bool = False, num_labels: Any = None,
                 label_weights: Any = None, from_logits: bool = False) -> None:
        self.curve = _choice(curve, _CURVES, "curve")
        self.summation_method = _choice(summation_method, _SUMMATIONS, "summation_method")
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
        else:
            if num_thresholds <= 1:
                raise ValueError(f"keras.metrics.AUC: num_thresholds must be > 1, got "
                                 f"{num_thresholds}")
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1)
                          for i in range(num_thresholds - 2)]
        self._thresholds = np.array([0.0 - EPSILON] + thresholds + [1.0 + EPSILON])
        super().__init__(name=name, dtype=dtype)
        self.multi_label, self.num_labels = multi_label, num_labels
        self.label_weights = None if label_weights is None else \
            cast(convert_to_tensor(np.asarray(label_weights, np.float32)), self.dtype)
        self._from_logits = from_logits
        self._built = False
        if not multi_label or num_labels:
            self._build([None, num_labels] if multi_label else None)

    @property
    def thresholds(self) -> Any:
        """The thresholds, 0 - epsilon and 1 + epsilon included."""
        return list(self._thresholds)

    def _build(self, shape):
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(f"keras.metrics.AUC: with multi_label, predictions must be "
                                 f"2-D, got shape {shape}")
            var_shape = (self.num_thresholds, shape[1])
        else:
            var_shape = (self.num_thresholds,)
        for name in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, name, self.add_variable(var_shape, "zeros", name=name))
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_pred = convert_to_tensor(y_pred)
        if not self._built:
            self._build(y_pred.shape)
        if self._from_logits:
            y_pred = sigmoid(y_pred)
        update_confusion_matrix_variables(
            {"tp": self.true_positives, "tn": self.true_negatives,
             "fp": self.false_positives, "fn": self.false_negatives},
            y_true, y_pred, self._thresholds, sample_weight=sample_weight,
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights)

    def _counts(self):
        return (self.true_positives.read_value(), self.false_positives.read_value(),
                self.true_negatives.read_value(), self.false_negatives.read_value())

    def _by_label(self, areas):
        if not self.multi_label:
            return reduce_sum(areas)
        by_label = reduce_sum(areas, axis=0)
        if self.label_weights is None:
            return reduce_mean(by_label)
        return divide_no_nan(reduce_sum(by_label * self.label_weights),
                             reduce_sum(self.label_weights))

    def interpolate_pr_auc(self) -> Any:
        """The PR-AUC with precision interpolated between thresholds (Davis & Goadrich)."""
        tp, fp, _, fn = self._counts()
        n = self.num_thresholds
        dtp = tp[:n - 1] - tp[1:]
        p = tp + fp
        dp = p[:n - 1] - p[1:]
        slope = divide_no_nan(dtp, maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        safe_ratio = ew.where(ew.logical_and(p[:n - 1] > 0, p[1:] > 0),
                              divide_no_nan(p[:n - 1], maximum(p[1:], 0.0)), ones_like(p[1:]))
        increments = divide_no_nan(slope * (dtp + intercept * ew.log(safe_ratio)),
                                   maximum(tp[1:] + fn[1:], 0.0))
        return self._by_label(increments)

    def _curve(self):
        tp, fp, tn, fn = self._counts()
        if self.curve == "ROC":
            return divide_no_nan(fp, fp + tn), divide_no_nan(tp, tp + fn)
        if self.curve == "PR":
            return divide_no_nan(tp, tp + fn), divide_no_nan(tp, tp + fp)
        scale = divide_no_nan(tp + fn, tn + fp)
        recall_gain = 1.0 - scale * divide_no_nan(fn, tp)
        precision_gain = 1.0 - scale * divide_no_nan(fp, tp)
        none = ew.equal(tp, 0.0)
        recall_gain = maximum(ew.where(none, tp * 0, recall_gain), 0.0)
        precision_gain = ew.where(none, ones_like(tp), precision_gain)
        return recall_gain, precision_gain

    def result(self) -> Any:
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        x, y = self._curve()
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[:n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = minimum(y[:n - 1], y[1:])
        else:
            heights = maximum(y[:n - 1], y[1:])
        return self._by_label((x[:n - 1] - x[1:]) * heights)

    def reset_state(self) -> None:
        if self._built:
            super().reset_state()

    def get_config(self) -> Any:
        label_weights = None if self.label_weights is None else \
            [float(w) for w in np.asarray(self.label_weights.numpy())]
        config = {"num_thresholds": self.num_thresholds, "curve": self.curve,
                  "summation_method": self.summation_method, "multi_label": self.multi_label,
                  "num_labels": self.num_labels, "label_weights": label_weights,
                  "from_logits": self._from_logits}
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return {**super().get_config(), **config}
