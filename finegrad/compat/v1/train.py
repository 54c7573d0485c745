"""TensorFlow's ``tf.compat.v1.train``: TensorFlow 1's optimizers, the global step and
``Saver``."""
from finegrad._src.v1.train.optimizers import (
    Optimizer, GradientDescentOptimizer, MomentumOptimizer, AdamOptimizer, RMSPropOptimizer,
    AdagradOptimizer, get_global_step, create_global_step, get_or_create_global_step,
    exponential_decay)
from finegrad._src.v1.train.saver import Saver, latest_checkpoint, checkpoint_exists

__all__ = ["Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
           "RMSPropOptimizer", "AdagradOptimizer", "get_global_step", "create_global_step",
           "get_or_create_global_step", "exponential_decay", "Saver", "latest_checkpoint",
           "checkpoint_exists"]
