"""TensorFlow's ``tf.compat`` namespace: ``compat.v1``, ``compat.v2`` (finegrad's own
namespace, as TensorFlow's ``tf.compat.v2`` is TensorFlow 2's), ``dimension_value`` and
``dimension_at_index``."""
from finegrad._src.shapes import dimension_at_index, dimension_value
from finegrad.compat import v1, v2

__all__ = ["dimension_at_index", "dimension_value", "v1", "v2"]
