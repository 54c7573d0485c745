"""Keras 3's ``keras.regularizers``."""
from finegrad._src.keras.regularizers import (
    Regularizer, L1, L2, L1L2, OrthogonalRegularizer, l1, l2, l1_l2, orthogonal_regularizer,
    serialize, deserialize, get)

__all__ = [
    "Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2",
    "orthogonal_regularizer", "serialize", "deserialize", "get"]
