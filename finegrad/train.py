"""TensorFlow's ``tf.train`` namespace (TF2): object-based checkpoints
(``Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``, ``list_variables``,
``load_variable``) and the ``Example`` protos of TFRecord data (``Example``, ``Features``,
``Feature``, ``BytesList``, ``FloatList``, ``Int64List``). TensorFlow 1's optimizers and
``Saver`` are in ``compat.v1.train``."""
from finegrad._src.api.checkpoint import (Checkpoint, latest_checkpoint, list_variables,
                                          load_variable)
from finegrad._src.api.checkpoint_manager import CheckpointManager
from finegrad._src.v1.moving_average import ExponentialMovingAverage
from finegrad._src.data.example_protos import (BytesList, Example, Feature, Features, FloatList,
                                               Int64List)

__all__ = ["ExponentialMovingAverage",
           "BytesList", "Checkpoint", "CheckpointManager", "Example", "Feature", "Features",
           "FloatList", "Int64List", "latest_checkpoint", "list_variables", "load_variable"]
