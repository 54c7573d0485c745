"""Keras 3's ``keras.optimizers``."""
from finegrad._src.keras.optimizers.adafactor import Adafactor
from finegrad._src.keras.optimizers.adagrad import Adadelta, Adagrad, RMSprop
from finegrad._src.keras.optimizers.adam import Adam, Adamax, AdamW, Nadam
from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.keras.optimizers.ftrl import Ftrl, Lion
from finegrad._src.keras.optimizers.lamb import Lamb
from finegrad._src.keras.optimizers.loss_scale import LossScaleOptimizer
from finegrad._src.keras.optimizers.multi import MultiOptimizer, OptimizerMap
from finegrad._src.keras.optimizers.muon import Muon
from finegrad._src.keras.optimizers.schedule_free import ScheduleFreeAdamW
from finegrad._src.keras.optimizers.sgd import SGD
from finegrad._src.keras.optimizers.serialization import (
    deserialize, get, serialize)
from finegrad.keras.optimizers import schedules

__all__ = [
    "Adadelta", "Adafactor", "Adagrad", "Lamb", "Muon", "Adam", "AdamW", "Adamax", "Ftrl",
    "Lion", "LossScaleOptimizer", "MultiOptimizer", "OptimizerMap",
    "Nadam", "Optimizer", "RMSprop", "SGD", "ScheduleFreeAdamW", "deserialize", "get",
    "schedules", "serialize"]
