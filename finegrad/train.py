"""TensorFlow's ``tf.train`` namespace (TF2): object-based checkpoints
(``Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``, ``list_variables``,
``load_variable``). TensorFlow 1's optimizers and ``Saver`` are in ``compat.v1.train``."""
from finegrad._src.api.checkpoint import (Checkpoint, latest_checkpoint, list_variables,
                                          load_variable)
from finegrad._src.api.checkpoint_manager import CheckpointManager

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint", "list_variables",
           "load_variable"]
