"""The ``[fast]`` path: large elementwise work split over the cores with NumPy's own ufuncs.

NumPy releases the GIL inside a ufunc's inner loop, so ufunc calls on disjoint parts of an
array run in parallel on a small thread pool, each part through NumPy's SIMD loops. Two
users: eager ops (`split`, the one dispatch point `core.bind` calls for a primitive with a
``kernel`` on large arrays) and the fused chains of compiled graphs (`graph/fuse.py` runs each
thread's part block by block with `run_parts`). Each element goes through the same ufunc as
unsplit, so elementwise results are bitwise identical; only a sum absorbed into a fused chain
is added in another order (within float rounding: tests/test_fast.py states the tolerance).

Switch: the environment variable ``FINEGRAD_FAST`` (``1`` on, ``0`` off; unset: on where the
process may use `MIN_CORES` cores or more), read at import and by `refresh`; `switched` turns
it on or off for a block of code. It needs no library beyond NumPy.

Why this and not numexpr or numba (measured on this project's 2-core x86-64 machine, NumPy
2.4, 10^7 float32, the chain of ``sum(log(1 + exp(x)))`` and its gradient): numexpr 2.14's
PyPI wheels have no Intel VML, so exp/log are scalar libm loops, 2-60x slower than NumPy's
SIMD ones (see `graph/fast.py`, which still runs arithmetic-only chains with it when it pays);
numba would add a compiler (llvmlite) to import and compile per chain, and without Intel's
SVML it calls the same scalar libm exp/log. NumPy's loops on two threads cut the fused chain
from 21 ms to 17 ms on the loaded machine (the load of other processes shares the cores).
"""
import contextlib
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

#: elementwise calls (eager) on at least this many elements are split over the threads;
#: measured: below it the hand-off to the pool costs more than half a part's work
SPLIT_MIN = 1 << 17
#: on by default from this many usable cores (measured gain on 2, see the module docstring)
MIN_CORES = 2
#: parts are multiples of this many elements (cache lines and SIMD widths stay aligned)
ALIGN = 1 << 10
#: `split_from` when the path is off: no array is this large
NEVER = 1 << 62

#: `core.bind` splits a kernel call over threads when its inputs hold this many elements
split_from = NEVER

_lock = threading.Lock()
_pool = None
_pool_pid = None


def cores():
    """The number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def wanted():
    """Whether the environment asks for the fast path: ``FINEGRAD_FAST=1`` on, ``=0`` off,
    unset: on from `MIN_CORES` cores."""
    switch = os.environ.get("FINEGRAD_FAST", "")
    if switch in ("0", "1"):
        return switch == "1"
    return cores() >= MIN_CORES


def refresh():
    """Re-read ``FINEGRAD_FAST`` for eager ops (it is read once at import)."""
    global split_from
    split_from = SPLIT_MIN if wanted() else NEVER


@contextlib.contextmanager
def switched(on):
    """Context manager: eager elementwise ops split over threads (``on``) or not, inside it.
    Process-wide, as the environment variable is."""
    global split_from
    saved = split_from
    split_from = SPLIT_MIN if on else NEVER
    try:
        yield
    finally:
        split_from = saved


def workers():
    """How many parts large work is split into: the usable cores."""
    return max(1, cores())


def _executor():
    """The shared pool (``workers() - 1`` threads: the calling thread takes a part too),
    made anew in a forked child, whose copy of the pool has no threads."""
    global _pool, _pool_pid
    pid = os.getpid()
    if _pool is None or _pool_pid != pid:
        with _lock:
            if _pool is None or _pool_pid != pid:
                _pool = ThreadPoolExecutor(max(1, workers() - 1),
                                           thread_name_prefix="finegrad-fast")
                _pool_pid = pid
    return _pool


def bounds(size, parts=None):
    """``parts`` (default `workers`) contiguous ``(start, stop)`` ranges covering
    ``range(size)``, their starts multiples of `ALIGN`; fewer when ``size`` is small."""
    parts = workers() if parts is None else parts
    parts = max(1, min(parts, size // ALIGN))
    step = math.ceil(size / parts / ALIGN) * ALIGN
    return [(lo, min(size, lo + step)) for lo in range(0, size, step)] or [(0, size)]


def run_parts(fn, size):
    """``[fn(start, stop) for each range of bounds(size)]``, the ranges run in parallel (the
    first on the calling thread), under the caller's NumPy error state."""
    ranges = bounds(size)
    if len(ranges) == 1:
        return [fn(*ranges[0])]
    err = np.geterr()

    def task(lo, hi):
        with np.errstate(**err):
            return fn(lo, hi)
    futures = [_executor().submit(task, lo, hi) for lo, hi in ranges[1:]]
    try:
        first = fn(*ranges[0])
    finally:
        rest = [f.result() for f in futures]   # the parts finish (or raise) before we return
    return [first, *rest]


def split(prim, vals, params):
    """The eager dispatch point of the fast path (`core.bind`, for inputs of `split_from`
    elements or more): ``prim``'s kernel over ``vals`` split across threads when it can run
    so, else ``prim.impl``. Splits a parameter-free call of a primitive that declares a
    ``kernel``, on float arrays of one dtype, each either of the call's one shape
    (C-contiguous) or a single element."""
    kernel = prim.kernel
    shape = _split_shape(vals) if kernel is not None and not params else None
    if shape is None:
        return prim.impl(*vals, **params)
    size = math.prod(shape)
    flat = [v.reshape(-1) if v.size == size else v for v in vals]
    # the output's dtype from one element (a kernel may map float to bool, or keep it)
    probe = kernel(*[f[:1] if f.size == size else f for f in flat])
    out = np.empty(size, np.asarray(probe).dtype)

    def part(lo, hi):
        kernel(*[f[lo:hi] if f.size == size else f for f in flat], out=out[lo:hi])
    run_parts(part, size)
    return out.reshape(shape)


def _split_shape(vals):
    """The call's shape when ``vals`` qualify for `split` (see there), else None."""
    shape = None
    dtype = vals[0].dtype
    for v in vals:
        if v.dtype != dtype or v.dtype.kind != "f":
            return None
        if v.size == 1 and v.ndim == 0:
            continue
        if type(v) is not np.ndarray or not v.flags.c_contiguous:
            return None
        if shape is None:
            shape = v.shape
        elif v.shape != shape:
            return None
    if shape is None or math.prod(shape) < SPLIT_MIN:
        return None
    return shape


refresh()
