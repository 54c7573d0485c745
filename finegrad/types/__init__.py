"""Types for annotations (TensorFlow's ``tf.types``): `experimental.TensorLike`."""
from finegrad.types import experimental

__all__ = ["experimental"]
