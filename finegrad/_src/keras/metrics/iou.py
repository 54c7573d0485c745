"""Keras 3's intersection-over-union metrics: ``IoU``, ``MeanIoU``, ``BinaryIoU``,
``OneHotIoU`` and ``OneHotMeanIoU``, from a running ``num_classes x num_classes`` confusion
matrix (integer counts by default, as Keras keeps them)."""
from typing import Any
import numpy as np

from finegrad._src.keras.loss_functions import EPSILON
from finegrad._src.keras.metrics.base import Metric
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, ones_like,
                                                reduce_sum, reshape)
from finegrad._src.ops.linalg.diag_inv_det import diag_part
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.counting import confusion_matrix
from finegrad._src.ops.math.sorting import argmax


class IoU(Metric):
    """The mean over ``target_class_ids`` of ``TP / (TP + FP + FN)`` per class, from the
    confusion matrix of class ids (``sparse_y_true``/``sparse_y_pred`` False: the arg max
    of scores along ``axis``); entries of ``ignore_class`` or out of range are left out.

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.IoU(num_classes=2, target_class_ids=[0])
    >>> round(float(m([0, 0, 1, 1], [0, 1, 0, 1])), 4)
    0.3333

    Raises:
        ValueError: for a target class id not below ``num_classes``.
    """

    def __init__(self, num_classes: Any, target_class_ids: Any, name: str | None = None,
                 dtype: Any = None, ignore_class: Any = None,
                 sparse_y_true: bool = True, sparse_y_pred: bool = True, axis: Any = -1) -> None:
        super().__init__(name=name, dtype="int64" if dtype in (None, "int") else dtype)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"IoU: target_class_ids must be below num_classes={num_classes}, "
                             f"got {list(target_class_ids)}")
        self.num_classes, self.ignore_class, self.axis = num_classes, ignore_class, axis
        self.sparse_y_true, self.sparse_y_pred = sparse_y_true, sparse_y_pred
        self.target_class_ids = list(target_class_ids)
        self.total_cm = self.add_variable((num_classes, num_classes), "zeros",
                                          name="total_confusion_matrix")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
        if not self.sparse_y_true:
            y_true = argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = argmax(y_pred, axis=self.axis)
        y_true = reshape(cast(y_true, self.dtype), [-1])
        y_pred = reshape(cast(y_pred, self.dtype), [-1])
        w = convert_to_tensor(1 if sample_weight is None else sample_weight)
        w = cast(reshape(w, [-1]) if len(w.shape) > 1 else w, self.dtype) * ones_like(y_true)
        keep = ew.logical_and(ew.logical_and(y_true >= 0, y_true < self.num_classes),
                              ew.logical_and(y_pred >= 0, y_pred < self.num_classes))
        if self.ignore_class is not None:
            keep = ew.logical_and(keep, ew.not_equal(y_true, self.ignore_class))
        zero = y_true * 0
        cm = confusion_matrix(ew.where(keep, y_true, zero), ew.where(keep, y_pred, zero),
                              self.num_classes, weights=ew.where(keep, w, w * 0),
                              dtype=self.dtype)
        self.total_cm.assign_add(cm)

    def result(self) -> Any:
        cm = self.total_cm.read_value()
        tp = cast(diag_part(cm), "float32")
        denominator = cast(reduce_sum(cm, axis=0) + reduce_sum(cm, axis=1), "float32") - tp
        ids = convert_to_tensor(np.asarray(self.target_class_ids, np.int32))
        tp, denominator = gather(tp, ids), gather(denominator, ids)
        valid = denominator > 1e-9
        iou = ew.where(valid, tp / (denominator + EPSILON), tp * 0)
        return reduce_sum(iou, axis=self.axis) / (reduce_sum(cast(valid, "float32")) + EPSILON)

    def get_config(self) -> Any:
        return {**super().get_config(), "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class MeanIoU(IoU):
    """The mean IoU over all ``num_classes`` classes.

    >>> import finegrad as fg
    >>> round(float(fg.keras.metrics.MeanIoU(num_classes=2)([0, 0, 1, 1], [0, 1, 0, 1])), 4)
    0.3333
    """

    def __init__(self, num_classes: Any, name: str | None = None, dtype: Any = None,
                 ignore_class: Any = None,
                 sparse_y_true: bool = True, sparse_y_pred: bool = True, axis: Any = -1) -> None:
        super().__init__(num_classes, list(range(num_classes)), name, dtype, ignore_class,
                         sparse_y_true, sparse_y_pred, axis)

    def get_config(self) -> Any:
        config = super().get_config()
        del config["target_class_ids"]
        return config


class BinaryIoU(IoU):
    """IoU of binary labels against ``y_pred >= threshold``, over ``target_class_ids``.

    >>> import finegrad as fg
    >>> round(float(fg.keras.metrics.BinaryIoU()([0, 1, 1], [0.2, 0.7, 0.4])), 4)
    0.5
    """

    def __init__(self, target_class_ids: Any = (0, 1), threshold: Any = 0.5,
                 name: str | None = None, dtype: Any = None) -> None:
        super().__init__(2, target_class_ids, name, dtype)
        self.threshold = threshold

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_pred = cast(cast(convert_to_tensor(y_pred), "float32") >= self.threshold, self.dtype)
        return super().update_state(y_true, y_pred, sample_weight)

    def get_config(self) -> Any:
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold,
                "name": self.name, "dtype": self.dtype}


class OneHotIoU(IoU):
    """`IoU` of one-hot labels (and scores, unless ``sparse_y_pred``).

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.OneHotIoU(num_classes=2, target_class_ids=[1])
    >>> round(float(m([[0., 1.], [1., 0.]], [[0.2, 0.8], [0.9, 0.1]])), 4)
    1.0
    """

    def __init__(self, num_classes: Any, target_class_ids: Any, name: str | None = None,
                 dtype: Any = None, ignore_class: Any = None,
                 sparse_y_pred: bool = False, axis: Any = -1) -> None:
        super().__init__(num_classes, target_class_ids, name, dtype, ignore_class, False,
                         sparse_y_pred, axis)

    def get_config(self) -> Any:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """`MeanIoU` of one-hot labels (and scores, unless ``sparse_y_pred``).

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.OneHotMeanIoU(2)
    >>> round(float(m([[0., 1.], [1., 0.]], [[.2, .8], [.9, .1]])), 4)
    1.0
    """

    def __init__(self, num_classes: Any, name: str | None = None, dtype: Any = None,
                 ignore_class: Any = None,
                 sparse_y_pred: bool = False, axis: Any = -1) -> None:
        super().__init__(num_classes, name, dtype, ignore_class, False, sparse_y_pred, axis)

    def get_config(self) -> Any:
        config = super().get_config()
        del config["sparse_y_true"]
        return config
