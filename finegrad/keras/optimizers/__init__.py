"""Keras 3's ``keras.optimizers``."""
from finegrad._src.keras.optimizers.adagrad import Adadelta, Adagrad, RMSprop
from finegrad._src.keras.optimizers.adam import Adam, Adamax, AdamW, Nadam
from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.keras.optimizers.ftrl import Ftrl, Lion
from finegrad._src.keras.optimizers.loss_scale import LossScaleOptimizer
from finegrad._src.keras.optimizers.sgd import SGD
from finegrad._src.keras.optimizers.serialization import (
    deserialize, get, serialize)
from finegrad.keras.optimizers import schedules

__all__ = [
    "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Lion", "LossScaleOptimizer",
    "Nadam", "Optimizer", "RMSprop", "SGD", "deserialize", "get", "schedules", "serialize"]
