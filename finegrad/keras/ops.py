"""Keras 3's ``keras.ops`` under ``finegrad.keras``: every name of `finegrad.ops` (its
functions, ``custom_gradient``, backends and the ``nn``, ``numpy``, ``linalg``, ``math``,
``core`` and ``image`` namespaces), the same objects, as Keras 3's ``keras.ops`` is its ops
namespace. ``from finegrad.keras import ops`` and ``import finegrad.keras.ops`` both work.

>>> from finegrad.keras import ops
>>> from finegrad import ops as fg_ops
>>> ops.custom_gradient is fg_ops.custom_gradient and ops.nn is fg_ops.nn
True
>>> float(ops.add(1.0, 2.0))
3.0
"""
from typing import Any as _Any

from finegrad import ops as _ops

__all__ = list(_ops.__all__)


def __getattr__(name: str) -> _Any:
    """`finegrad.ops`'s attribute ``name``."""
    try:
        return getattr(_ops, name)
    except AttributeError:
        raise AttributeError(f"module 'finegrad.keras.ops' has no attribute {name!r} "
                             f"(finegrad.ops has none either)") from None


def __dir__() -> list:
    return sorted(set(__all__) | {n for n in globals() if n.startswith("_")})
