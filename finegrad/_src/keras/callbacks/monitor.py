"""Callbacks that watch one logged value (``monitor``): `EarlyStopping`, `TerminateOnNaN`,
and the base they share with the learning-rate and checkpoint callbacks."""
from typing import Any

import operator
import warnings

import numpy as np

from finegrad._src.keras.callbacks.base import Callback


class MonitorCallback(Callback):
    """Compares ``logs[monitor]`` with the best value so far (``mode``: "min", "max", or
    "auto": min for losses, the metric's direction otherwise)."""

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto "
                          f"mode.", stacklevel=2)
            mode = "auto"
        self.monitor, self.mode, self.best = monitor, mode, baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self):
        if self.mode == "min":
            self.monitor_op = operator.lt
        elif self.mode == "max":
            self.monitor_op = operator.gt
        else:
            name = self.monitor.removeprefix("val_")
            if name == "loss" or name.endswith("_loss"):
                self.monitor_op = operator.lt
            for m in _all_metrics(self.model):
                if getattr(m, "name", None) == name and hasattr(m, "_direction"):
                    self.monitor_op = operator.gt if m._direction == "up" else operator.lt
            if self.monitor_op is None:
                raise ValueError(f"{type(self).__name__} callback received monitor="
                                 f"{self.monitor}, but Keras isn't able to automatically "
                                 f"determine whether that metric should be maximized or "
                                 f"minimized. Pass `mode='max'` in order to monitor based on "
                                 f"the highest metric value, or pass `mode='min'` in order to "
                                 f"use the lowest value.")
        if self.monitor_op is operator.lt:
            self.min_delta *= -1

    def _is_improvement(self, value, reference):
        return reference is None or bool(self.monitor_op(value - self.min_delta, reference))


def _all_metrics(model):
    out = []
    for m in getattr(model, "metrics", None) or []:
        out += list(getattr(m, "metrics", None) or [m])
    return out


class EarlyStopping(MonitorCallback):
    """Stop training when ``monitor`` has not improved for ``patience`` epochs.

    Args:
        monitor: the logged value to watch (``"val_loss"``).
        min_delta: the least change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: 1 prints when it stops.
        mode: "auto", "min" or "max".
        baseline: a value the monitored one must beat.
        restore_best_weights: put back the weights of the best epoch at the end.
        start_from_epoch: epochs to wait before watching.

    >>> import finegrad as tf
    >>> cb = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=1)
    >>> cb.monitor, cb.patience
    ('loss', 1)
    """

    def __init__(self, monitor: Any = "val_loss", min_delta: Any = 0, patience: Any = 0,
                 verbose: Any = 0, mode: Any = "auto", baseline: Any = None,
                 restore_best_weights: Any = False, start_from_epoch: Any = 0) -> None:
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience, self.verbose, self.baseline = patience, verbose, baseline
        self.wait, self.stopped_epoch = 0, 0
        self.restore_best_weights, self.best_weights = restore_best_weights, None
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs: Any = None) -> Any:
        self.wait, self.stopped_epoch, self.best = 0, 0, None
        self.best_weights, self.best_epoch = None, 0

    def on_epoch_end(self, epoch: Any, logs: Any = None) -> Any:
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights, self.best_epoch = self.model.get_weights(), epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: Any = None) -> Any:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: "
                      f"{self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs: Any) -> Any:
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not "
                          f"available. Available metrics are: {','.join(logs)}", stacklevel=2)
        return value


class TerminateOnNaN(Callback):
    """Stop training at the first batch whose loss is NaN or infinite.

    Args:
        raise_error: raise RuntimeError instead of stopping quietly.

    >>> import finegrad as tf
    >>> tf.keras.callbacks.TerminateOnNaN().raise_error
    False
    """

    def __init__(self, raise_error: Any = False) -> None:
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch: Any, logs: Any = None) -> Any:
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: "
                                   f"{loss}. Terminating training immediately.")
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
