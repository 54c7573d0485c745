"""TensorFlow's ``tf.config`` namespace: soft device placement, the devices finegrad can use,
and running functions eagerly (TensorFlow's debugging switch)."""
from finegrad._src.api.device_config import (LogicalDevice, LogicalDeviceConfiguration,
                                             PhysicalDevice, functions_run_eagerly,
                                             get_logical_device_configuration,
                                             get_visible_devices, list_logical_devices,
                                             list_physical_devices, run_functions_eagerly,
                                             set_logical_device_configuration,
                                             set_visible_devices)
from finegrad._src.api.placement import get_soft_device_placement, set_soft_device_placement
from finegrad.config import experimental

experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly

__all__ = ["LogicalDevice", "LogicalDeviceConfiguration", "PhysicalDevice", "experimental",
           "experimental_functions_run_eagerly", "experimental_run_functions_eagerly",
           "functions_run_eagerly", "get_logical_device_configuration",
           "get_soft_device_placement", "get_visible_devices", "list_logical_devices",
           "list_physical_devices", "run_functions_eagerly", "set_logical_device_configuration",
           "set_soft_device_placement", "set_visible_devices"]
