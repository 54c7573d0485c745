"""``tf.losses``: TensorFlow 2.21's alias of Keras 3's ``keras.losses``."""
from finegrad.keras.losses import (
    Loss, MeanSquaredError, MeanAbsoluteError,
    MeanAbsolutePercentageError, MeanSquaredLogarithmicError, LogCosh, KLDivergence, Poisson,
    Hinge, SquaredHinge, CategoricalHinge, CosineSimilarity, Huber, BinaryCrossentropy,
    BinaryFocalCrossentropy, CategoricalCrossentropy, CategoricalFocalCrossentropy,
    SparseCategoricalCrossentropy, mse, MSE, mae, MAE,
    mape, MAPE, msle, MSLE,
    kld, KLD, kullback_leibler_divergence, logcosh, huber, poisson,
    cosine_similarity, hinge, squared_hinge, categorical_hinge, binary_crossentropy,
    categorical_crossentropy, sparse_categorical_crossentropy, binary_focal_crossentropy,
    categorical_focal_crossentropy, serialize, deserialize, get, Dice, Tversky,
    CategoricalGeneralizedCrossEntropy,
    dice, tversky, categorical_generalized_cross_entropy)

__all__ = [
    "Loss", "MeanSquaredError", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "LogCosh", "KLDivergence",
    "Poisson", "Hinge", "SquaredHinge", "CategoricalHinge", "CosineSimilarity", "Huber",
    "BinaryCrossentropy", "BinaryFocalCrossentropy", "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy", "SparseCategoricalCrossentropy", "mse", "MSE",
    "mae", "MAE", "mape", "MAPE",
    "msle", "MSLE", "kld",
    "KLD", "kullback_leibler_divergence", "logcosh", "huber",
    "poisson", "cosine_similarity", "hinge", "squared_hinge", "categorical_hinge",
    "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
    "binary_focal_crossentropy", "categorical_focal_crossentropy", "serialize", "deserialize",
    "get", "Dice", "Tversky", "CategoricalGeneralizedCrossEntropy",
    "dice", "tversky", "categorical_generalized_cross_entropy"]
