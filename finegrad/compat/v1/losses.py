"""TensorFlow's ``tf.compat.v1.losses``: TensorFlow 1's weighted losses."""
from finegrad._src.v1.losses import (
    Reduction, compute_weighted_loss, add_loss, get_losses, get_regularization_losses,
    get_regularization_loss, get_total_loss, mean_squared_error, absolute_difference, log_loss,
    huber_loss, hinge_loss, sigmoid_cross_entropy, softmax_cross_entropy,
    sparse_softmax_cross_entropy, cosine_distance)

__all__ = ["Reduction", "compute_weighted_loss", "add_loss", "get_losses",
           "get_regularization_losses", "get_regularization_loss", "get_total_loss",
           "mean_squared_error", "absolute_difference", "log_loss", "huber_loss", "hinge_loss",
           "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy",
           "cosine_distance"]
