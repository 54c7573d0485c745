"""``keras.metrics.get``, ``serialize`` and ``deserialize``: metrics by name or config."""
import re

from typing import Any
from finegrad._src.keras.metrics import accuracy as A
from finegrad._src.keras.metrics import loss_metrics as LM
from finegrad._src.keras.metrics.at_operating_point import (
    PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity)
from finegrad._src.keras.metrics.auc import AUC
from finegrad._src.keras.metrics.correlation import ConcordanceCorrelation, PearsonCorrelation
from finegrad._src.keras.metrics.base import Metric
from finegrad._src.keras.metrics.confusion import (FalseNegatives, FalsePositives, Precision,
                                                   Recall, TrueNegatives, TruePositives)
from finegrad._src.keras.metrics.iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from finegrad._src.keras.metrics.reduction import Mean, MeanMetricWrapper, Sum
from finegrad._src.keras.metrics.scores import F1Score, FBetaScore, R2Score

_CLASSES = (Metric, Mean, Sum, MeanMetricWrapper, A.Accuracy, A.BinaryAccuracy,
            A.CategoricalAccuracy, A.SparseCategoricalAccuracy, A.TopKCategoricalAccuracy,
            A.SparseTopKCategoricalAccuracy, TruePositives, FalsePositives, TrueNegatives,
            FalseNegatives, Precision, Recall, AUC, LM.MeanSquaredError,
            LM.RootMeanSquaredError, LM.MeanAbsoluteError, LM.MeanAbsolutePercentageError,
            LM.MeanSquaredLogarithmicError, LM.CosineSimilarity, LM.LogCoshError,
            LM.BinaryCrossentropy, LM.CategoricalCrossentropy, LM.SparseCategoricalCrossentropy,
            LM.KLDivergence, LM.Poisson, LM.Hinge, LM.SquaredHinge, LM.CategoricalHinge,
            FBetaScore, F1Score, R2Score, IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU,
            PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity,
            SpecificityAtSensitivity, PearsonCorrelation, ConcordanceCorrelation)


def _snake(name):
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


_BY_NAME = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update({_snake(cls.__name__): cls for cls in _CLASSES})
_BY_NAME.update(bce=LM.BinaryCrossentropy, BCE=LM.BinaryCrossentropy,
                mse=LM.MeanSquaredError, MSE=LM.MeanSquaredError,
                mae=LM.MeanAbsoluteError, MAE=LM.MeanAbsoluteError,
                mape=LM.MeanAbsolutePercentageError, MAPE=LM.MeanAbsolutePercentageError,
                msle=LM.MeanSquaredLogarithmicError, MSLE=LM.MeanSquaredLogarithmicError)


def serialize(metric: Any) -> dict:
    """Keras's config dict of a metric.

    >>> import finegrad as fg
    >>> fg.keras.metrics.serialize(fg.keras.metrics.AUC())["class_name"]
    'AUC'
    """
    return {"module": "keras.metrics", "class_name": type(metric).__name__,
            "config": metric.get_config(), "registered_name": None}


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The metric a `serialize` dict (or a name) describes.

    >>> import finegrad as fg
    >>> fg.keras.metrics.deserialize({"class_name": "Mean", "config": {"name": "m"}}).name
    'm'

    Raises:
        ValueError: for an unknown class name.
    """
    if isinstance(config, str):
        return get(config)
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"keras.metrics.deserialize: unknown metric {name!r}")
    return cls.from_config(config.get("config", {}))


def get(identifier: Any) -> Any:
    """A metric from None, a name (``"auc"``, ``"mse"``, a class name: an instance), a
    config dict, a class (instantiated) or a callable (returned).

    >>> import finegrad as fg
    >>> type(fg.keras.metrics.get("mae")).__name__
    'MeanAbsoluteError'

    Raises:
        ValueError: for an identifier that names no metric.
    """
    if identifier is None:
        return None
    obj = identifier
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = _BY_NAME.get(identifier)
    if isinstance(obj, type):
        obj = obj()
    if callable(obj):
        return obj
    raise ValueError(f"keras.metrics.get: could not interpret metric identifier: "
                     f"{identifier!r}")
