"""Callbacks that set the optimizer's learning rate: `LearningRateScheduler` (a schedule of
epochs) and `ReduceLROnPlateau` (divide it when a value stops improving)."""
from typing import Any

import warnings

import numpy as np

from finegrad._src.keras.callbacks.base import Callback
from finegrad._src.keras.callbacks.monitor import MonitorCallback


def _lr(optimizer):
    return float(np.asarray(optimizer.learning_rate))


def _optimizers(model):
    opt = model.optimizer
    return [(o, o.name) for o in opt.optimizers] if hasattr(opt, "optimizers") else [(opt, "")]


class LearningRateScheduler(Callback):
    """At each epoch's start, set the learning rate to ``schedule(epoch, lr)`` (or
    ``schedule(epoch)``); the rate is logged as ``learning_rate``.

    Args:
        schedule: a function of the epoch (from 0) and the current rate, returning a float.
        verbose: 1 prints each new rate.

    >>> import finegrad as tf
    >>> cb = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    >>> cb.schedule(0, 1.0)
    0.5
    """

    def __init__(self, schedule: Any, verbose: Any = 0) -> None:
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def _update(self, optimizer, epoch):
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            lr = self.schedule(epoch, _lr(optimizer))
        except TypeError:   # a schedule of the epoch only
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.float32, np.float64)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: "
                             f"{lr}")
        optimizer.learning_rate = lr
        return lr

    def on_epoch_begin(self, epoch: Any, logs: Any = None) -> Any:
        for opt, name in _optimizers(self.model):
            lr = self._update(opt, epoch)
            if self.verbose > 0:
                who = f"{name} learning rate" if name else "learning rate"
                print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting {who} to {lr}.")

    def on_epoch_end(self, epoch: Any, logs: Any = None) -> Any:
        if logs is not None:
            for opt, name in _optimizers(self.model):
                logs[f"learning_rate_{name}" if name else "learning_rate"] = _lr(opt)


class ReduceLROnPlateau(MonitorCallback):
    """Multiply the learning rate by ``factor`` when ``monitor`` has not improved for
    ``patience`` epochs (not below ``min_lr``; then wait ``cooldown`` epochs).

    >>> import finegrad as tf
    >>> tf.keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5).factor
    0.5
    """

    def __init__(self, monitor: Any = "val_loss", factor: Any = 0.1, patience: Any = 10,
                 verbose: Any = 0, mode: Any = "auto", min_delta: Any = 1e-4, cooldown: Any = 0,
                 min_lr: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received "
                             f"factor={factor}")
        self.factor, self.min_lr, self.patience = factor, min_lr, patience
        self.verbose, self.cooldown = verbose, cooldown
        self.cooldown_counter, self.wait = 0, 0

    def on_train_begin(self, logs: Any = None) -> Any:
        self.best, self.cooldown_counter, self.wait = None, 0, 0

    def _reduce(self, optimizer, epoch, name):
        old = _lr(optimizer)
        if old <= np.float32(self.min_lr):
            return False
        new = max(old * self.factor, self.min_lr)
        optimizer.learning_rate = new
        if self.verbose > 0:
            who = f" {name}" if name else ""
            print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing{who} learning rate to "
                  f"{new}.")
        return True

    def on_epoch_end(self, epoch: Any, logs: Any = None) -> Any:
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = {} if logs is None else logs
        for opt, name in _optimizers(self.model):
            logs[f"learning_rate_{name}" if name else "learning_rate"] = _lr(opt)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Learning rate reduction is conditioned on metric `{self.monitor}` "
                          f"which is not available. Available metrics are: {','.join(logs)}.",
                          stacklevel=2)
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                reduced = [self._reduce(o, epoch, n) for o, n in _optimizers(self.model)]
                if any(reduced):
                    self.cooldown_counter, self.wait = self.cooldown, 0

    def in_cooldown(self) -> Any:
        return self.cooldown_counter > 0
