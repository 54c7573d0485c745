"""Keras callbacks (``tf.keras.callbacks``)."""
from finegrad._src.keras.callbacks.base import (Callback, CallbackList, History, LambdaCallback,
                                                ProgbarLogger)
from finegrad._src.keras.callbacks.checkpoint import ModelCheckpoint
from finegrad._src.keras.callbacks.csv_logger import CSVLogger
from finegrad._src.keras.callbacks.learning_rate import (LearningRateScheduler,
                                                         ReduceLROnPlateau)
from finegrad._src.keras.callbacks.monitor import EarlyStopping, TerminateOnNaN

__all__ = ["CSVLogger", "Callback", "CallbackList", "EarlyStopping", "History",
           "LambdaCallback", "LearningRateScheduler", "ModelCheckpoint", "ProgbarLogger",
           "ReduceLROnPlateau", "TerminateOnNaN"]
