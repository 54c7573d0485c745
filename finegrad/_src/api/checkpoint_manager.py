"""``tf.train.CheckpointManager``: numbered checkpoints in one directory, the newest
``max_to_keep`` kept (older ones deleted, unless kept every N hours), recorded in the
directory's ``checkpoint`` file."""
from __future__ import annotations

import glob
import os
import time
from collections.abc import Callable
from typing import Any

from finegrad._src.api.checkpoint import Checkpoint, latest_checkpoint, read_state, write_state

__all__ = ["CheckpointManager"]


class CheckpointManager:
    """Saves ``checkpoint`` as ``directory/checkpoint_name-N`` and keeps the newest few.

    >>> import os, tempfile, finegrad as tf
    >>> ckpt = tf.train.Checkpoint(v=tf.Variable(1.))
    >>> manager = tf.train.CheckpointManager(ckpt, tempfile.mkdtemp(), max_to_keep=2)
    >>> paths = [manager.save() for _ in range(3)]
    >>> [os.path.basename(p) for p in manager.checkpoints]
    ['ckpt-2', 'ckpt-3']
    """

    def __init__(self, checkpoint: Checkpoint, directory: str, max_to_keep: int | None,
                 keep_checkpoint_every_n_hours: float | None = None, checkpoint_name: str = "ckpt",
                 step_counter: Any = None, checkpoint_interval: int | None = None,
                 init_fn: Callable | None = None) -> None:
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager: checkpoint must be a tf.train.Checkpoint, got "
                            f"{type(checkpoint).__name__}")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter, self._interval = step_counter, checkpoint_interval
        self._init_fn = init_fn
        self._last_step: int | None = None
        self._last_preserved = time.time()
        _, recorded = read_state(self._directory)
        self._checkpoints = [p for p in recorded if os.path.exists(p + ".index")]

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The checkpoints kept, oldest first."""
        return list(self._checkpoints)

    @property
    def latest_checkpoint(self) -> str | None:
        return self._checkpoints[-1] if self._checkpoints else None

    @property
    def checkpoint_interval(self) -> int | None:
        return self._interval

    def save(self, checkpoint_number: int | None = None,
             check_interval: bool = True, options: Any = None) -> str | None:
        """Save a new checkpoint (numbered ``checkpoint_number``, else the save counter) and
        delete those beyond ``max_to_keep``; returns its path (None when the interval of
        ``checkpoint_interval`` steps has not passed)."""
        if self._interval is not None and check_interval:
            step = int(self._step_counter.numpy())
            if self._last_step is not None and step < self._last_step + self._interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        self._checkpoints = [p for p in self._checkpoints if p != path] + [path]
        self._sweep()
        write_state(self._directory, path, self._checkpoints)
        return path

    def restore_or_initialize(self) -> str | None:
        """Restore the newest checkpoint, or run ``init_fn`` when there is none."""
        latest = self.latest_checkpoint or latest_checkpoint(self._directory)
        if latest is not None:
            self._checkpoint.restore(latest)
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    def _sweep(self) -> None:
        if self._max_to_keep is None:
            return
        while len(self._checkpoints) > self._max_to_keep:
            old = self._checkpoints.pop(0)
            if self._keep_hours is not None and \
                    time.time() - self._last_preserved > self._keep_hours * 3600:
                self._last_preserved = time.time()
                continue
            for f in glob.glob(glob.escape(old) + ".*"):
                os.remove(f)

