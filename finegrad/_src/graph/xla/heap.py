"""Keeping large freed buffers in the process's heap for XLA's next call (Linux, glibc).

XLA's CPU runtime allocates each call's output and temporary buffers with ``malloc`` and
frees them when they die. glibc serves an allocation of more than ``M_MMAP_THRESHOLD``
(dynamic, at most 32 MiB) with a fresh ``mmap`` and returns it to the system on ``free``:
each call then touches new pages, and the kernel's page faults (a zeroed 4 KiB page each)
cost more than the compiled loop. Measured on the 2-core machine, ``exp`` of 10^7 float32
through ``jax.jit``: 9,766 page faults and about 30 ms of CPU a call, against 7.7 ms with the
memory kept (TensorFlow's allocator keeps its memory the same way).

`keep_freed_memory` raises glibc's mmap and trim thresholds (``mallopt``) once, when the
first XLA function is made (before JAX starts its CPU runtime's threads where it can), so
that buffers up to `MAX_KEPT` bytes come from the heap and freed memory up to `MAX_KEPT`
stays there for the next call; and it has threads that allocate for the first time share
the main heap (``M_ARENA_MAX`` 1): JAX runs a program on a dispatch thread of its own, and a
thread's own heap (an "arena" of at most 64 MiB) is unmapped again when its last buffer is
freed, whatever the thresholds. The switch is process-wide (NumPy's own large arrays reuse
that memory too; threads allocate under one lock); the price is that up to `MAX_KEPT` bytes
of freed memory stay mapped in the process instead of going back to the system. Measured
with it: 1 page fault a call instead of 9,766 for the gradient of ``sum(log1pexp(x))`` on
10^7 float32, and 21 ms of CPU instead of 40.

Without it, a function's own kept buffers (`reuse`) already spare a call the page faults of
its large results (where the caller dropped them) and of the large values XLA would store in
its temporary buffer; this switch still helps with what they cannot reach (results the caller
holds for many calls, other temporaries).

It is opt-in: ``FINEGRAD_XLA_KEEP_MEMORY=1`` in the environment turns it on. A library that
changed how the whole process allocates (one arena for every thread, a gigabyte kept mapped)
just because a function was compiled would surprise a program with its own threads (data
loaders, servers); large-array users who want XLA's speed ask for it. On other C libraries
nothing is changed.
"""
import ctypes
import ctypes.util
import os
import sys

#: the largest buffer served from the heap, and the most freed memory kept at its top
MAX_KEPT = 1 << 30
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8   # glibc's mallopt names
_DONE: list[bool] = []


def keep_freed_memory():
    """Raise glibc's mmap and trim thresholds to `MAX_KEPT` (once per process, only with
    ``FINEGRAD_XLA_KEEP_MEMORY=1``; see the module). Returns whether they are raised."""
    if _DONE:
        return _DONE[0]
    _DONE.append(False)
    if (not sys.platform.startswith("linux")
            or os.environ.get("FINEGRAD_XLA_KEEP_MEMORY", "0") != "1"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):   # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    _DONE[0] = all([mallopt(_M_MMAP_THRESHOLD, MAX_KEPT), mallopt(_M_TRIM_THRESHOLD, MAX_KEPT),
                    mallopt(_M_ARENA_MAX, 1)])
    return _DONE[0]
