"""``tf.optimizers``: TensorFlow 2.21's alias of Keras 3's ``keras.optimizers``."""
from finegrad.keras.optimizers import (
    Adadelta, Adagrad, Adam, AdamW, Adamax, Ftrl, Lion, LossScaleOptimizer, Nadam, Optimizer,
    RMSprop, SGD, deserialize, get, serialize)
from finegrad.optimizers import schedules

__all__ = [
    "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Lion", "LossScaleOptimizer",
    "Nadam", "Optimizer", "RMSprop", "SGD", "deserialize", "get", "schedules", "serialize"]
