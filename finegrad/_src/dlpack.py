"""DLPack in and out: `from_dlpack` and `to_dlpack`, TensorFlow's
``tf.experimental.dlpack`` names.

DLPack is the exchange format of array libraries: a producer hands over its buffer with
its shape, strides and dtype, and the consumer wraps it without a copy. A finegrad tensor
is a producer through ``Tensor.__dlpack__`` and ``__dlpack_device__`` (`interop`), so
``torch.from_dlpack(t)``, ``jax.dlpack.from_dlpack(t)`` and ``np.from_dlpack(t)`` need
nothing from this module; `to_dlpack` is the capsule TensorFlow's own
``tf.experimental.dlpack.from_dlpack`` takes. `from_dlpack` takes either an object that
has ``__dlpack__`` (a NumPy array, a PyTorch tensor, a JAX array) or such a capsule.

Copies: none on the way in (the tensor then shares the producer's buffer, so the producer
must not write into it afterwards: a finegrad tensor is a value), and none on the way out
except for a read-only value given to a consumer of the pre-1.0 protocol (`interop`).
Every finegrad tensor lives on the CPU; a buffer on another device is a BufferError.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src import interop
from finegrad._src.tensor import Tensor, _concrete
from finegrad._src.variables import Variable


class _Capsule:
    """A bare DLPack capsule (what ``to_dlpack`` functions return) as a producer object,
    the form `np.from_dlpack` reads. The capsule's own device field is checked by NumPy."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (interop.CPU, 0)


def _is_capsule(value):
    return type(value).__name__ == "PyCapsule"


def from_dlpack(dlcapsule: Any) -> Tensor:
    """A tensor sharing the buffer of a DLPack producer, without a copy.

    Args:
        dlcapsule: an object with ``__dlpack__`` (a NumPy array, a PyTorch CPU tensor, a JAX
            array on the CPU, ...) or a DLPack capsule (``tf.experimental.dlpack.to_dlpack``,
            ``torch.utils.dlpack.to_dlpack``). A capsule can be consumed once.

    Returns:
        A `Tensor` of the producer's dtype and shape, reading its memory: the producer must
        not write into that memory while the tensor lives.

    Raises:
        TypeError: for an object that is neither a producer nor a capsule (naming its type).
        BufferError: for a buffer not on the CPU, or a dtype NumPy does not have.

    >>> import numpy as np, finegrad as fg
    >>> a = np.arange(3.)
    >>> t = fg.experimental.dlpack.from_dlpack(a)
    >>> t.dtype, np.shares_memory(np.asarray(t), a)
    (finegrad.float64, True)
    """
    if _is_capsule(dlcapsule):
        dlcapsule = _Capsule(dlcapsule)
    elif not hasattr(dlcapsule, "__dlpack__"):
        raise TypeError(f"finegrad.experimental.dlpack.from_dlpack: expected an object with "
                        f"__dlpack__ or a DLPack capsule, got {interop.type_name(dlcapsule)}")
    value = np.from_dlpack(dlcapsule)
    if value.flags.writeable:   # no write through finegrad either: a tensor is a value
        value = value.view()
        value.setflags(write=False)
    return Tensor(value if value.ndim else value[()])   # shape (): a NumPy scalar, as always


def to_dlpack(tf_tensor: Tensor | Variable) -> Any:
    """A DLPack capsule of a tensor's buffer, for a consumer that takes capsules
    (``tf.experimental.dlpack.from_dlpack``, ``torch.utils.dlpack.from_dlpack``).

    No copy: the consumer reads the tensor's memory and must not write into it. A capsule is
    consumed once. Libraries that read ``__dlpack__`` themselves (``torch.from_dlpack(t)``,
    ``jax.dlpack.from_dlpack(t)``, ``np.from_dlpack(t)``) need no capsule.

    Args:
        tf_tensor: a `Tensor` or `Variable` (a Variable's current value, copied).

    Returns:
        A PyCapsule named ``"dltensor"`` (the pre-1.0 protocol, TensorFlow's).

    >>> import finegrad as fg
    >>> capsule = fg.experimental.dlpack.to_dlpack(fg.constant([1., 2.]))
    >>> fg.experimental.dlpack.from_dlpack(capsule).numpy()
    array([1., 2.], dtype=float32)
    """
    if isinstance(tf_tensor, Variable):
        tf_tensor = Tensor(tf_tensor.numpy())   # a copy: the variable may change
    if not isinstance(tf_tensor, Tensor):
        raise TypeError(f"finegrad.experimental.dlpack.to_dlpack: expected a finegrad Tensor "
                        f"or Variable, got {interop.type_name(tf_tensor)}")
    _concrete(tf_tensor, "DLPack export")
    return tf_tensor.__dlpack__()
