"""TensorFlow's ``tf.config.experimental``: the device functions scripts still call there
(``set_memory_growth`` above all)."""
from finegrad._src.api.device_config import (get_memory_growth, get_visible_devices,
                                             list_logical_devices, list_physical_devices,
                                             set_memory_growth, set_visible_devices)

__all__ = ["get_memory_growth", "get_visible_devices", "list_logical_devices",
           "list_physical_devices", "set_memory_growth", "set_visible_devices"]
