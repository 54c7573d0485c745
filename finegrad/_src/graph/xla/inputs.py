"""Arrays of other libraries as arguments of a `function(jit_compile=True)`: taken as tensors
through DLPack, without a host copy.

A JAX array, a PyTorch tensor or any other DLPack producer on the CPU given as an argument
(at the top level of the positional or keyword arguments) becomes a finegrad tensor that
shares its buffer (`finegrad.experimental.dlpack.from_dlpack`): the function's signature is
then its shape and dtype, as for a NumPy array, instead of the object's identity (a new
trace for every new array), and XLA reads that buffer in place where it is 64-byte aligned
(JAX's own CPU arrays and PyTorch's are; a smaller alignment is copied by JAX, a large one
into `staging`'s buffer). The producer must not write into the buffer while the call runs.
A producer on another device (a GPU array), or one that refuses to export (a PyTorch tensor
that requires grad), stays a Python argument, as for ``jit_compile=None``.
"""
import numpy as np

from finegrad._src import interop
from finegrad._src.dlpack import from_dlpack
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable


def _producer(x):
    """Whether ``x`` is a DLPack producer on the CPU that finegrad does not already take as
    a tensor (a NumPy array, a `Tensor`, a `Variable`)."""
    if isinstance(x, (Tensor, Variable, np.ndarray, np.generic)):
        return False
    device = getattr(x, "__dlpack_device__", None)
    if device is None or not hasattr(x, "__dlpack__"):
        return False
    try:
        return device()[0] == interop.CPU
    except Exception:   # (a producer that cannot say: not one to take)
        return False


def _adopt(x):
    try:
        return from_dlpack(x)
    except (BufferError, RuntimeError, TypeError, ValueError):   # it refused to export
        return x


def adopt_arrays(args, kwargs):
    """``(args, kwargs)`` with each CPU DLPack producer among them a tensor sharing its
    buffer (the same objects when there is none)."""
    if any(type(a) is not Tensor and _producer(a) for a in args):
        args = tuple(_adopt(a) if _producer(a) else a for a in args)
    if kwargs and any(_producer(v) for v in kwargs.values()):
        kwargs = {k: _adopt(v) if _producer(v) else v for k, v in kwargs.items()}
    return args, kwargs
