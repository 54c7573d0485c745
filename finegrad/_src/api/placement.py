"""Soft device placement: ``finegrad.config.set_soft_device_placement`` and
``get_soft_device_placement``, TensorFlow's switch for what a device that this machine does
not have means.

On (the default, as in TensorFlow 2), a `finegrad.device` block naming a device the machine
lacks runs its ops where they can run: finegrad's own ops on the CPU always, a function
compiled with ``jit_compile=True`` on JAX's default device. Off, naming such a device raises
TensorFlow's ``InvalidArgumentError`` ("could not satisfy device specification"): TensorFlow
raises it at the block's first op, finegrad when the block is entered (and again when a
compiled function would run there). The devices a machine has: the CPU, and the GPUs and
TPUs JAX sees (none without JAX installed).
"""
from __future__ import annotations

import threading

from finegrad._src.errors import InvalidArgumentError

_SOFT = [True]   # process-wide, as TensorFlow's context setting
_LOCK = threading.Lock()


def set_soft_device_placement(enabled: bool) -> None:
    """Turn soft device placement on or off (TensorFlow's ``tf.config`` function).

    On (the default), a device the machine does not have is replaced by one it has; off,
    `finegrad.device` with such a device raises ``InvalidArgumentError``.

    >>> import finegrad as fg
    >>> fg.config.set_soft_device_placement(False)
    >>> fg.config.get_soft_device_placement()
    False
    >>> fg.config.set_soft_device_placement(True)

    Raises:
        TypeError: when ``enabled`` is not a bool (TensorFlow refuses other types too).
    """
    if type(enabled).__name__ not in ("bool", "bool_"):
        raise TypeError(f"finegrad.config.set_soft_device_placement: enabled must be a bool, "
                        f"got {type(enabled).__name__} ({enabled!r:.40})")
    with _LOCK:
        _SOFT[0] = bool(enabled)


def get_soft_device_placement() -> bool:
    """Whether soft device placement is on (TensorFlow's ``tf.config`` function; True unless
    `set_soft_device_placement` turned it off).

    >>> import finegrad as fg
    >>> fg.config.get_soft_device_placement()
    True
    """
    return _SOFT[0]


def has_device(kind: str, index: int) -> bool:
    """Whether this machine has device ``kind:index`` (``"CPU"``: index 0 only, as
    TensorFlow lists one CPU; ``"GPU"``, ``"TPU"``: JAX's, when JAX is installed)."""
    if kind == "CPU":
        return index == 0
    try:
        import jax
    except ImportError:
        return False
    try:
        return index < len(jax.devices(kind.lower()))
    except RuntimeError:   # (no such backend here)
        return False


def check_device(name: str, kind: str | None, index: int) -> None:
    """Raise ``InvalidArgumentError`` for device string ``name`` (of ``kind:index``) when
    soft placement is off and the machine does not have it."""
    if kind is None or _SOFT[0] or has_device(kind, index):
        return
    raise InvalidArgumentError(f"finegrad.device: could not satisfy device specification "
                               f"{name!r}: this machine has no {kind}:{index}, and soft device "
                               f"placement is off (finegrad.config.set_soft_device_placement)")
