"""Keras 3's ``keras.metrics``."""
from finegrad._src.keras.loss_functions import (
    binary_crossentropy, binary_focal_crossentropy, categorical_crossentropy,
    categorical_focal_crossentropy, categorical_hinge, hinge, huber, kl_divergence, log_cosh,
    mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
    mean_squared_logarithmic_error, poisson, sparse_categorical_crossentropy, squared_hinge)
from finegrad._src.keras.metrics.accuracy import (
    Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy, TopKCategoricalAccuracy, binary_accuracy,
    categorical_accuracy, sparse_categorical_accuracy, sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy)
from finegrad._src.keras.metrics.at_operating_point import (
    PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity)
from finegrad._src.keras.metrics.auc import AUC
from finegrad._src.keras.metrics.correlation import (
    ConcordanceCorrelation, PearsonCorrelation, concordance_correlation, pearson_correlation)
from finegrad._src.keras.metrics.base import Metric
from finegrad._src.keras.metrics.confusion import (
    FalseNegatives, FalsePositives, Precision, Recall, TrueNegatives, TruePositives)
from finegrad._src.keras.metrics.loss_metrics import (
    BinaryCrossentropy, CategoricalCrossentropy, CategoricalHinge, CosineSimilarity, Hinge,
    KLDivergence, LogCoshError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredError, MeanSquaredLogarithmicError, Poisson, RootMeanSquaredError,
    SparseCategoricalCrossentropy, SquaredHinge)
from finegrad._src.keras.metrics.iou import (
    BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU)
from finegrad._src.keras.metrics.reduction import Mean, MeanMetricWrapper, Sum
from finegrad._src.keras.metrics.scores import F1Score, FBetaScore, R2Score
from finegrad._src.keras.metrics.serialization import deserialize, get, serialize

__all__ = [
    "AUC", "Accuracy", "F1Score", "FBetaScore", "R2Score", "BinaryIoU", "IoU", "MeanIoU",
    "OneHotIoU", "OneHotMeanIoU", "PrecisionAtRecall", "RecallAtPrecision",
    "SensitivityAtSpecificity", "ConcordanceCorrelation", "PearsonCorrelation",
    "concordance_correlation", "pearson_correlation",
    "SpecificityAtSensitivity", "BinaryAccuracy",
    "BinaryCrossentropy", "CategoricalAccuracy",
    "CategoricalCrossentropy", "CategoricalHinge", "CosineSimilarity", "FalseNegatives",
    "FalsePositives", "Hinge", "KLDivergence", "LogCoshError", "Mean", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanMetricWrapper", "MeanSquaredError",
    "MeanSquaredLogarithmicError", "Metric", "Poisson", "Precision", "Recall",
    "RootMeanSquaredError", "SparseCategoricalAccuracy", "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy", "SquaredHinge", "Sum", "TopKCategoricalAccuracy",
    "TrueNegatives", "TruePositives", "binary_accuracy", "binary_crossentropy",
    "binary_focal_crossentropy", "categorical_accuracy", "categorical_crossentropy",
    "categorical_focal_crossentropy", "categorical_hinge", "deserialize", "get", "hinge",
    "huber", "kl_divergence", "log_cosh", "mean_absolute_error",
    "mean_absolute_percentage_error", "mean_squared_error", "mean_squared_logarithmic_error",
    "poisson", "serialize", "sparse_categorical_accuracy", "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy", "squared_hinge", "top_k_categorical_accuracy"]
