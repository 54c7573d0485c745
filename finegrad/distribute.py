"""TensorFlow's ``tf.distribute`` on one machine: the default strategy, ``OneDeviceStrategy``
and ``MirroredStrategy`` (one replica), replica contexts and their collectives."""
from finegrad._src.api.distribute import (DistributedDataset, InputContext, InputOptions,
                                          MirroredStrategy, OneDeviceStrategy, ReduceOp,
                                          ReplicaContext, Strategy, experimental_set_strategy,
                                          get_replica_context, get_strategy, has_strategy,
                                          in_cross_replica_context)

__all__ = ["DistributedDataset", "InputContext", "InputOptions", "MirroredStrategy",
           "OneDeviceStrategy", "ReduceOp", "ReplicaContext", "Strategy",
           "experimental_set_strategy", "get_replica_context", "get_strategy", "has_strategy",
           "in_cross_replica_context"]
