"""Keras 3's ``keras.optimizers``."""
from finegrad._src.keras.optimizers.adagrad import Adadelta, Adagrad, RMSprop  # noqa: F401
from finegrad._src.keras.optimizers.adam import Adam, Adamax, AdamW, Nadam  # noqa: F401
from finegrad._src.keras.optimizers.base import Optimizer  # noqa: F401
from finegrad._src.keras.optimizers.ftrl import Ftrl, Lion  # noqa: F401
from finegrad._src.keras.optimizers.loss_scale import LossScaleOptimizer  # noqa: F401
from finegrad._src.keras.optimizers.sgd import SGD  # noqa: F401
from finegrad._src.keras.optimizers.serialization import (  # noqa: F401
    deserialize, get, serialize)
from finegrad.keras.optimizers import schedules  # noqa: F401

__all__ = [
    "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Lion", "LossScaleOptimizer",
    "Nadam", "Optimizer", "RMSprop", "SGD", "deserialize", "get", "schedules", "serialize"]
