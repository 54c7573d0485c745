"""TensorFlow's ``tf.compat`` namespace: ``compat.v1``, ``dimension_value`` and
``dimension_at_index``."""
from finegrad._src.shapes import dimension_at_index, dimension_value
from finegrad.compat import v1

__all__ = ["dimension_at_index", "dimension_value", "v1"]
