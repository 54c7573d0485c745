"""TensorFlow's ``tf.compat.v1.train``: TensorFlow 1's optimizers, the global step and
``Saver``; and, as in TensorFlow's namespace, the names it shares with ``tf.train``
(object-based checkpoints, the ``Example`` protos of TFRecord data)."""
from finegrad._src.api.checkpoint import (Checkpoint, list_variables, load_variable)
from finegrad._src.api.checkpoint_manager import CheckpointManager
from finegrad._src.data.example_protos import (BytesList, Example, Feature, Features, FloatList,
                                               Int64List)
from finegrad._src.v1.moving_average import ExponentialMovingAverage
from finegrad._src.v1.train.optimizers import (
    Optimizer, GradientDescentOptimizer, MomentumOptimizer, AdamOptimizer, RMSPropOptimizer,
    AdagradOptimizer, get_global_step, create_global_step, get_or_create_global_step,
    exponential_decay)
from finegrad._src.v1.train.saver import Saver, latest_checkpoint, checkpoint_exists

__all__ = ["ExponentialMovingAverage",
           "Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
           "RMSPropOptimizer", "AdagradOptimizer", "get_global_step", "create_global_step",
           "get_or_create_global_step", "exponential_decay", "Saver", "latest_checkpoint",
           "checkpoint_exists", "Checkpoint", "CheckpointManager", "list_variables",
           "load_variable", "BytesList", "Example", "Feature", "Features", "FloatList",
           "Int64List"]
