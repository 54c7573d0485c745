"""Keras 3's confusion-matrix metrics: ``TruePositives``, ``FalsePositives``,
``TrueNegatives``, ``FalseNegatives``, ``Precision``, ``Recall`` and ``AUC``.

Each keeps, per threshold ``t``, weighted counts of the four cases of ``label`` (``y_true``
non-zero) against ``y_pred > t``, as Keras does; ``top_k`` keeps only the ``k`` largest
predictions of each row and ``class_id`` looks at one class.
"""
from typing import Any
import numpy as np

from finegrad._src.keras.loss_functions import squeeze_or_expand_to_same_rank
from finegrad._src.keras.metrics.base import Metric
from finegrad._src.ops.array.manipulation import one_hot
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, expand_dims,
                                                ones_like, reduce_sum, reshape)
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.sorting import top_k as _top_k
from finegrad._src.ops.math.statistics import divide_no_nan

NEG_INF = -1e10
_CASES = {"tp": (True, True), "fn": (True, False), "fp": (False, True), "tn": (False, False)}


def _thresholds(thresholds, default):
    if thresholds is None:
        return [default]
    values = list(thresholds) if isinstance(thresholds, (list, tuple, np.ndarray)) \
        else [thresholds]
    for t in values:
        if t is None or not 0 <= t <= 1:
            raise ValueError(f"keras.metrics: threshold values must be in [0, 1], got "
                             f"{thresholds}")
    return values


def _filter_top_k(x, k):
    """``x`` with all but the ``k`` largest entries of each row set to -1e10."""
    idx = _top_k(x, k).indices
    keep = reduce_sum(one_hot(idx, x.shape[-1], dtype=x.dtype), axis=-2)
    return x * keep + NEG_INF * (1 - keep)


def _prepare(y_true, y_pred, dtype, sample_weight, top_k, class_id):
    y_true = cast(convert_to_tensor(y_true), dtype)
    y_pred = cast(convert_to_tensor(y_pred), dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = expand_dims(cast(convert_to_tensor(sample_weight), dtype), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight,
                                                          expand_rank_1=False)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if len(y_pred.shape) == 1:
            raise ValueError(f"keras.metrics: with class_id, y_pred must be 2-D "
                             f"(num_samples, num_classes), got shape {y_pred.shape}")
        y_true, y_pred = y_true[..., class_id:class_id + 1], y_pred[..., class_id:class_id + 1]
    return y_true, y_pred, sample_weight


def update_confusion_matrix_variables(variables: Any, y_true: Any, y_pred: Any, thresholds: Any,
                                      top_k: Any = None,
                                      class_id: Any = None, sample_weight: Any = None,
                                      multi_label: bool = False,
                                      label_weights: Any = None) -> Any:
    """Add the weighted counts of this batch to ``variables`` (a dict from ``"tp"``,
    ``"fp"``, ``"tn"``, ``"fn"`` to count variables of one entry per threshold, or
    ``(thresholds, labels)`` with ``multi_label``)."""
    dtype = next(iter(variables.values())).dtype
    y_true, y_pred, sample_weight = _prepare(y_true, y_pred, dtype, sample_weight, top_k,
                                             class_id)
    thr = convert_to_tensor(np.asarray(thresholds, dtype._np))
    weights = None if sample_weight is None else sample_weight * ones_like(y_pred)
    if multi_label:
        preds, labels = expand_dims(y_pred, 0), expand_dims(cast(y_true, "bool"), 0)
        thr = reshape(thr, [-1, 1, 1])
    else:
        preds, labels = reshape(y_pred, [1, -1]), reshape(cast(y_true, "bool"), [1, -1])
        thr = reshape(thr, [-1, 1])
        if label_weights is not None:
            lw = expand_dims(cast(convert_to_tensor(label_weights), dtype), 0) * ones_like(y_pred)
            weights = lw if weights is None else weights * lw
        if weights is not None:
            weights = reshape(weights, [1, -1])
    pred_pos = preds > thr
    for key, var in variables.items():
        want_label, want_pred = _CASES[key]
        hit = ew.logical_and(labels if want_label else ew.logical_not(labels),
                             pred_pos if want_pred else ew.logical_not(pred_pos))
        if weights is None:
            counts = cast(hit, dtype)
        else:
            counts = ew.where(hit, weights, 0.0)
        var.assign_add(reduce_sum(counts, axis=1))


class _ConfusionCount(Metric):
    """One weighted count per threshold of one case of the confusion matrix."""

    _case: str = ""

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _thresholds(thresholds, 0.5)
        self.accumulator = self.add_variable((len(self.thresholds),), "zeros",
                                             name="accumulator")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        update_confusion_matrix_variables({self._case: self.accumulator}, y_true, y_pred,
                                          self.thresholds, sample_weight=sample_weight)

    def result(self) -> Any:
        value = self.accumulator.read_value()
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> Any:
        return {**super().get_config(), "thresholds": self.init_thresholds}


def _count(cls_name, case, doc):
    return type(cls_name, (_ConfusionCount,), {"_case": case, "__doc__": doc,
                                               "__module__": __name__})


_COUNT_DOC = """The weighted number of {what} (per threshold: predictions ``> t``).

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.{cls}()([0, 1, 1, 1], [1, 0, 1, 1]))
    {value}
    """
TruePositives = _count("TruePositives", "tp", _COUNT_DOC.format(
    what="true positives", cls="TruePositives", value="2.0"))
FalsePositives = _count("FalsePositives", "fp", _COUNT_DOC.format(
    what="false positives", cls="FalsePositives", value="1.0"))
TrueNegatives = _count("TrueNegatives", "tn", _COUNT_DOC.format(
    what="true negatives", cls="TrueNegatives", value="0.0"))
FalseNegatives = _count("FalseNegatives", "fn", _COUNT_DOC.format(
    what="false negatives", cls="FalseNegatives", value="1.0"))


class _PrecisionRecall(Metric):
    _second: str = ""

    def __init__(self, thresholds: Any = None, top_k: Any = None, class_id: Any = None,
                 name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self.thresholds = _thresholds(thresholds, 0.5 if top_k is None else NEG_INF)
        n = len(self.thresholds)
        self.true_positives = self.add_variable((n,), "zeros", name="true_positives")
        other = "false_positives" if self._second == "fp" else "false_negatives"
        setattr(self, other, self.add_variable((n,), "zeros", name=other))
        self._other = getattr(self, other)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        update_confusion_matrix_variables(
            {"tp": self.true_positives, self._second: self._other}, y_true, y_pred,
            self.thresholds, self.top_k, self.class_id, sample_weight)

    def result(self) -> Any:
        tp = self.true_positives.read_value()
        value = divide_no_nan(tp, tp + self._other.read_value())
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> Any:
        return {**super().get_config(), "thresholds": self.init_thresholds,
                "top_k": self.top_k, "class_id": self.class_id}


class Precision(_PrecisionRecall):
    """``tp / (tp + fp)`` over everything seen, per threshold (0.5 by default).

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.Precision()([0, 1, 1, 1], [1, 0, 1, 1]))
    0.6666666865348816
    """

    _second = "fp"


class Recall(_PrecisionRecall):
    """``tp / (tp + fn)`` over everything seen, per threshold (0.5 by default).

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.Recall()([0, 1, 1, 1], [1, 0, 1, 1]))
    0.6666666865348816
    """

    _second = "fn"
