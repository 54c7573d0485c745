"""TensorFlow's ``tf.experimental`` names that finegrad has: `dlpack`."""
from finegrad.experimental import dlpack

__all__ = ["dlpack"]
