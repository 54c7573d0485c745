"""Aligned staging buffers for the large NumPy arguments of a compiled function on the CPU.

XLA's CPU runtime reads an argument in place only when its data is 64-byte aligned; NumPy's
large arrays come from ``malloc``, usually 16 bytes past a page, and JAX then copies them
into a new buffer of its own on every call (an allocation of the argument's size, with its
page faults, and a single-threaded copy). `Staging` keeps, per executable and argument
position, one aligned buffer: a large unaligned (or non-contiguous) argument is copied into
it (``np.copyto``, into memory already mapped) and JAX reads that in place. Measured on the
2-core machine, the gradient of ``sum(log1pexp(x))`` on 10^7 float32: about 120 ms a call
with the argument as NumPy made it, 65-70 ms staged (the copy itself about 6 ms).

Safety: a buffer is taken out of the pool while a call uses it (a concurrent or nested call
of the same function stages into a new one), the call's results are complete before it
goes back, and a result that holds its memory is copied first (`unalias`: JAX 0.10's compiled
executables copy an argument returned unchanged, but a JAX that forwards it, as ``jax.jit``
does for its own calls, would hand back the staged buffer itself).
"""
import numpy as np

from finegrad._src import interop

#: arguments smaller than this are passed as they are: JAX's copy of a buffer under glibc's
#: mmap threshold (128 KiB) costs no more than staging it. At and above it JAX's copy costs
#: far more (measured on the 2-core machine, CPU time a call of a program that reads one
#: float64 argument: 128 KiB: 72 us passed as it is, 16 us staged; 1 MiB: 167 us, 43 us;
#: 96 KiB: 10.5 us, 11.4 us)
MIN_BYTES = interop.ALIGNED_BYTES
#: the alignment XLA's CPU runtime needs to read a host buffer in place
ALIGN = 64


def aligned_empty(shape, dtype):
    """An uninitialized C-contiguous array whose data starts at a multiple of `ALIGN`."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(n + ALIGN, np.uint8)
    start = (-raw.ctypes.data) % ALIGN
    return raw[start:start + n].view(dtype).reshape(shape)


def needs_staging(v):
    """Whether JAX would copy NumPy array ``v`` and it is large enough to stage."""
    return (isinstance(v, np.ndarray) and v.nbytes >= MIN_BYTES and v.dtype.kind in "biufc"
            and (v.ctypes.data % ALIGN != 0 or not v.flags.c_contiguous))


class Staging:
    """The staging buffers of one executable, by argument position (see the module)."""

    __slots__ = ("_free",)

    def __init__(self):
        self._free = {}   # position -> an aligned buffer not in use

    def stage(self, vals):
        """``vals`` with each large unaligned array replaced by an aligned copy, and the
        ``(position, buffer)`` pairs now in use (hand them back with `release`)."""
        used = []
        out = list(vals)
        for k, v in enumerate(vals):
            if not needs_staging(v):
                continue
            buf = self._free.pop(k, None)
            if buf is None or buf.shape != v.shape or buf.dtype != v.dtype:
                buf = aligned_empty(v.shape, v.dtype)
            np.copyto(buf, v)
            out[k] = buf
            used.append((k, buf))
        return out, used

    def release(self, used):
        """Hand the buffers of `stage` back to the pool, once the call's results are
        complete and none of them holds a buffer's memory (`unalias`)."""
        for k, buf in used:
            self._free[k] = buf


def unalias(values, used):
    """``values`` (JAX arrays or None), each one that holds the memory of a staged buffer in
    ``used`` (an argument JAX forwarded as a result) replaced by a copy; all complete."""
    if not used:
        return values
    import jax
    ptrs = {buf.ctypes.data for _, buf in used}
    out = [v if v is None or v.unsafe_buffer_pointer() not in ptrs else v.copy()
           for v in values]
    return jax.block_until_ready(out)
