"""``tf.metrics``: TensorFlow 2.21's alias of Keras 3's ``keras.metrics``."""
from finegrad.keras.metrics import (
    BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU,
    PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity,
    ConcordanceCorrelation, PearsonCorrelation, concordance_correlation, pearson_correlation,
    AUC, Accuracy, F1Score, FBetaScore, R2Score, BinaryAccuracy, BinaryCrossentropy,
    CategoricalAccuracy,
    CategoricalCrossentropy, CategoricalHinge, CosineSimilarity, FalseNegatives, FalsePositives,
    Hinge, KLDivergence, LogCoshError, Mean, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanMetricWrapper, MeanSquaredError, MeanSquaredLogarithmicError, Metric, Poisson,
    Precision, Recall, RootMeanSquaredError, SparseCategoricalAccuracy,
    SparseCategoricalCrossentropy, SparseTopKCategoricalAccuracy, SquaredHinge, Sum,
    TopKCategoricalAccuracy, TrueNegatives, TruePositives, binary_accuracy, binary_crossentropy,
    binary_focal_crossentropy, categorical_accuracy, categorical_crossentropy,
    categorical_focal_crossentropy, categorical_hinge, deserialize, get, hinge, huber, poisson,
    serialize, sparse_categorical_accuracy, sparse_categorical_crossentropy,
    sparse_top_k_categorical_accuracy, squared_hinge, top_k_categorical_accuracy)
from finegrad._src.keras.losses import (
    KLD, MAE, MAPE, MSE, MSLE, kld, kullback_leibler_divergence, logcosh, mae, mape, mse, msle)

__all__ = [
    "BinaryIoU", "IoU", "MeanIoU", "OneHotIoU", "OneHotMeanIoU",
    "PrecisionAtRecall", "RecallAtPrecision", "SensitivityAtSpecificity",
    "SpecificityAtSensitivity", "ConcordanceCorrelation", "PearsonCorrelation",
    "concordance_correlation", "pearson_correlation",
    "AUC", "Accuracy", "F1Score", "FBetaScore", "R2Score", "BinaryAccuracy",
    "BinaryCrossentropy", "CategoricalAccuracy",
    "CategoricalCrossentropy", "CategoricalHinge", "CosineSimilarity", "FalseNegatives",
    "FalsePositives", "Hinge", "KLD", "KLDivergence", "LogCoshError", "MAE", "MAPE", "MSE",
    "MSLE", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanMetricWrapper",
    "MeanSquaredError", "MeanSquaredLogarithmicError", "Metric", "Poisson", "Precision",
    "Recall", "RootMeanSquaredError", "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy", "SparseTopKCategoricalAccuracy", "SquaredHinge", "Sum",
    "TopKCategoricalAccuracy", "TrueNegatives", "TruePositives", "binary_accuracy",
    "binary_crossentropy", "binary_focal_crossentropy", "categorical_accuracy",
    "categorical_crossentropy", "categorical_focal_crossentropy", "categorical_hinge",
    "deserialize", "get", "hinge", "huber", "kld", "kullback_leibler_divergence", "logcosh",
    "mae", "mape", "mse", "msle", "poisson", "serialize", "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy", "sparse_top_k_categorical_accuracy", "squared_hinge",
    "top_k_categorical_accuracy"]
