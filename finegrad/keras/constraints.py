"""Keras 3's ``keras.constraints``."""
from finegrad._src.keras.constraints import (
    Constraint, MaxNorm, NonNeg, UnitNorm, MinMaxNorm, max_norm, non_neg, unit_norm,
    min_max_norm, serialize, deserialize, get)

__all__ = [
    "Constraint", "MaxNorm", "NonNeg", "UnitNorm", "MinMaxNorm", "max_norm", "non_neg",
    "unit_norm", "min_max_norm", "serialize", "deserialize", "get"]
