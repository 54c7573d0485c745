"""``tf.config``'s devices and its eager switch for functions.

The devices finegrad lists are the ones it can place work on: the CPU (its own ops run
there), and the GPUs and TPUs JAX sees, where functions compiled with ``jit_compile=True``
run (`placement.has_device`; none without JAX). Scripts ask ``list_physical_devices("GPU")``
to decide what to do, and call ``set_memory_growth`` or ``set_visible_devices`` on what they
get: those are accepted and kept (finegrad allocates no device memory ahead, so growth is
what it does anyway).

`run_functions_eagerly` (TensorFlow's debugging switch): every `finegrad.function` call runs
its Python function eagerly, so breakpoints and prints in it run on each call.
"""
from __future__ import annotations

import collections
from typing import Any

from finegrad._src.api.placement import has_device

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration", ["memory_limit", "experimental_priority",
                                       "experimental_device_ordinal"])):
    """A logical device's settings (kept; finegrad splits no device)."""

    def __new__(cls, memory_limit: Any = None, experimental_priority: Any = None,
                experimental_device_ordinal: Any = None) -> LogicalDeviceConfiguration:
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


_EAGER = [False]   # run_functions_eagerly, process-wide as in TensorFlow
_VISIBLE: dict[str, list] = {}   # device type -> the devices set_visible_devices kept
_GROWTH: dict[str, bool] = {}
_LOGICAL: dict[str, list] = {}
_KINDS = ("CPU", "GPU", "TPU")


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Run every `finegrad.function` call as its plain Python function (True), or traced
    (False, the default): TensorFlow's debugging switch.

    >>> import finegrad as fg
    >>> fg.config.run_functions_eagerly(True)
    >>> fg.config.functions_run_eagerly()
    True
    >>> fg.config.run_functions_eagerly(False)
    """
    _EAGER[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether `run_functions_eagerly` is on."""
    return _EAGER[0]


def _kinds(device_type: str | None) -> list[str]:
    """The device types ``device_type`` names (None: all; an unknown one: none, as in
    TensorFlow's lists)."""
    if device_type is None:
        return list(_KINDS)
    kind = str(device_type).upper()
    if kind not in _KINDS:
        return []
    return [kind]


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The devices of ``device_type`` ("CPU", "GPU", "TPU"; None: all) finegrad can use.

    >>> import finegrad as fg
    >>> fg.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    out = []
    for kind in _kinds(device_type):
        index = 0
        while has_device(kind, index):
            out.append(PhysicalDevice(f"/physical_device:{kind}:{index}", kind))
            index += 1
    return out


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The logical devices (one per visible physical device).

    >>> import finegrad as fg
    >>> fg.config.list_logical_devices("CPU")
    [LogicalDevice(name='/device:CPU:0', device_type='CPU')]
    """
    return [LogicalDevice(d.name.replace("/physical_device:", "/device:"), d.device_type)
            for d in get_visible_devices(device_type)]


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The physical devices visible to finegrad (all, unless `set_visible_devices` chose)."""
    out = []
    for kind in _kinds(device_type):
        out += _VISIBLE.get(kind, list_physical_devices(kind))
    return out


def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """Keep ``devices`` (a `PhysicalDevice` or a list of them) as the visible ones of their
    type (``device_type``: the type to set, all of its devices hidden for an empty list)."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        if not isinstance(d, PhysicalDevice):
            raise TypeError(f"finegrad.config.set_visible_devices: devices must be "
                            f"PhysicalDevices (from list_physical_devices), got {d!r:.60}")
    kinds = _kinds(device_type) if device_type else \
        sorted({d.device_type for d in devices})
    for kind in kinds:
        _VISIBLE[kind] = [d for d in devices if d.device_type == kind]


def set_memory_growth(device: Any, enable: bool) -> None:
    """Kept for a GPU (finegrad reserves no GPU memory ahead: JAX's own allocator serves
    compiled functions); a ValueError for any other device, as in TensorFlow."""
    if not isinstance(device, PhysicalDevice) or device.device_type != "GPU":
        raise ValueError("finegrad.config.experimental.set_memory_growth: Cannot set memory "
                         "growth on non-GPU and non-Pluggable devices")
    _GROWTH[device.name] = bool(enable)


def get_memory_growth(device: Any) -> bool:
    """What `set_memory_growth` kept for ``device`` (False before)."""
    if not isinstance(device, PhysicalDevice) or device.device_type != "GPU":
        raise ValueError("finegrad.config.experimental.get_memory_growth: Cannot get memory "
                         "growth on non-GPU and non-Pluggable devices")
    return _GROWTH.get(device.name, False)


def set_logical_device_configuration(device: Any, logical_devices: Any) -> None:
    """Kept (finegrad splits no physical device into logical ones)."""
    if not isinstance(device, PhysicalDevice):
        raise TypeError(f"finegrad.config.set_logical_device_configuration: device must be a "
                        f"PhysicalDevice, got {device!r:.60}")
    _LOGICAL[device.name] = list(logical_devices or [])


def get_logical_device_configuration(device: Any) -> Any:
    """What `set_logical_device_configuration` kept for ``device`` (None before)."""
    return _LOGICAL.get(str(getattr(device, "name", "")))
