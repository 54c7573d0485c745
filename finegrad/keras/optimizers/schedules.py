"""Keras 3's ``keras.optimizers.schedules``."""
from finegrad._src.keras.optimizers.schedules import (
    CosineDecay, CosineDecayRestarts, ExponentialDecay, InverseTimeDecay,
    LearningRateSchedule, PiecewiseConstantDecay, PolynomialDecay, deserialize, serialize)

__all__ = [
    "CosineDecay", "CosineDecayRestarts", "ExponentialDecay", "InverseTimeDecay",
    "LearningRateSchedule", "PiecewiseConstantDecay", "PolynomialDecay", "deserialize",
    "serialize"]
