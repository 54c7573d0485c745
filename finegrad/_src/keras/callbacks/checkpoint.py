"""`ModelCheckpoint`: save the model (a ``.keras`` file) or its weights during training (every
epoch, every few batches, or only when the monitored value improves)."""
from typing import Any

import os
import warnings

from finegrad._src.keras.callbacks.monitor import MonitorCallback


class ModelCheckpoint(MonitorCallback):
    """Save the model (``model.save``) or its weights to ``filepath`` (formatted with
    ``epoch`` and the logs, e.g. ``"ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5"``).

    Args:
        filepath: where to save; must end in ``.keras`` (whole model), or in ``.weights.h5``
            (or ``.npz``) with ``save_weights_only=True``.
        monitor: the logged value ``save_best_only`` compares.
        verbose: 1 prints each save.
        save_best_only: save only when ``monitor`` improves.
        save_weights_only: save the weights only (else the whole model).
        mode: "auto", "min" or "max".
        save_freq: "epoch", or a number of batches.
        initial_value_threshold: the value the first save must beat.

    >>> import finegrad as tf
    >>> tf.keras.callbacks.ModelCheckpoint("w.weights.h5", save_weights_only=True).filepath
    'w.weights.h5'
    """

    def __init__(self, filepath: Any, monitor: Any = "val_loss", verbose: Any = 0,
                 save_best_only: Any = False, save_weights_only: Any = False, mode: Any = "auto",
                 save_freq: Any = "epoch", initial_value_threshold: Any = None) -> None:
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose, self.filepath = verbose, os.fspath(filepath)
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.save_freq = save_freq
        self._since_save, self._last_batch, self._current_epoch = 0, None, 0
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are "
                             f"'epoch' or integer values")
        if save_weights_only and not self.filepath.endswith((".weights.h5", ".npz")):
            raise ValueError(f"When using `save_weights_only=True` in `ModelCheckpoint`, the "
                             f"filepath provided must end in `.weights.h5` (Keras weights "
                             f"format). Received: filepath={self.filepath}")
        if not save_weights_only and not self.filepath.endswith(".keras"):
            raise ValueError(f"The filepath provided must end in `.keras` (Keras model "
                             f"format), or use `save_weights_only=True` for weights. "
                             f"Received: filepath={self.filepath}")

    def on_epoch_begin(self, epoch: Any, logs: Any = None) -> Any:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: Any, logs: Any = None) -> Any:
        if self.save_freq == "epoch":
            return
        step = batch + 1 if self._last_batch is None or batch <= self._last_batch \
            else batch - self._last_batch
        self._since_save += step
        self._last_batch = batch
        if self._since_save >= self.save_freq:
            self._since_save = 0
            self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch: Any, logs: Any = None) -> Any:
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _should_save(self, epoch, logs, filepath):
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.",
                          stacklevel=2)
            return True
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                      f"{current:.5f}, saving model to {filepath}")
            self.best = current
            return True
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False

    def _save(self, epoch, batch, logs):
        logs = logs or {}
        try:
            extra = {} if batch is None or "batch" in logs else {"batch": batch + 1}
            filepath = self.filepath.format(epoch=epoch + 1, **extra, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f'Reason: {e}') from e
        if not self._should_save(epoch, logs, filepath):
            return
        if os.path.isdir(filepath):
            raise OSError(f"Please specify a non-directory filepath for ModelCheckpoint. "
                          f"Filepath used is an existing directory: {filepath}")
        dirname = os.path.dirname(filepath)
        if dirname:
            os.makedirs(dirname, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")
