"""Keras 3's ``keras.losses``."""
from finegrad._src.keras.losses import (
    Loss, MeanSquaredError, MeanAbsoluteError,
    MeanAbsolutePercentageError, MeanSquaredLogarithmicError, LogCosh, KLDivergence, Poisson,
    Hinge, SquaredHinge, CategoricalHinge, CosineSimilarity, Huber, BinaryCrossentropy,
    BinaryFocalCrossentropy, CategoricalCrossentropy, CategoricalFocalCrossentropy,
    SparseCategoricalCrossentropy, mse, MSE, mean_squared_error, mae, MAE, mean_absolute_error,
    mape, MAPE, mean_absolute_percentage_error, msle, MSLE, mean_squared_logarithmic_error,
    kld, KLD, kl_divergence, kullback_leibler_divergence, logcosh, log_cosh, huber, poisson,
    cosine_similarity, hinge, squared_hinge, categorical_hinge, binary_crossentropy,
    categorical_crossentropy, sparse_categorical_crossentropy, binary_focal_crossentropy,
    categorical_focal_crossentropy, serialize, deserialize, get, Dice, Tversky,
    CategoricalGeneralizedCrossEntropy,
    dice, tversky, categorical_generalized_cross_entropy, CTC, Circle, ctc, circle)

__all__ = [
    "Loss", "MeanSquaredError", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "LogCosh", "KLDivergence",
    "Poisson", "Hinge", "SquaredHinge", "CategoricalHinge", "CosineSimilarity", "Huber",
    "BinaryCrossentropy", "BinaryFocalCrossentropy", "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy", "SparseCategoricalCrossentropy", "mse", "MSE",
    "mean_squared_error", "mae", "MAE", "mean_absolute_error", "mape", "MAPE",
    "mean_absolute_percentage_error", "msle", "MSLE", "mean_squared_logarithmic_error", "kld",
    "KLD", "kl_divergence", "kullback_leibler_divergence", "logcosh", "log_cosh", "huber",
    "poisson", "cosine_similarity", "hinge", "squared_hinge", "categorical_hinge",
    "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
    "binary_focal_crossentropy", "categorical_focal_crossentropy", "serialize", "deserialize",
    "get", "Dice", "Tversky", "CategoricalGeneralizedCrossEntropy",
    "dice", "tversky", "categorical_generalized_cross_entropy", "CTC", "Circle", "ctc",
    "circle"]
