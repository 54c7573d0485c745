"""TensorFlow's ``tf.config`` namespace: soft device placement."""
from finegrad._src.api.placement import get_soft_device_placement, set_soft_device_placement

__all__ = ["get_soft_device_placement", "set_soft_device_placement"]
