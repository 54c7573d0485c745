"""The fast path: large elementwise work split over the cores with NumPy's own ufuncs.

NumPy releases the GIL inside a ufunc's inner loop, so ufunc calls on disjoint parts of an
array run in parallel on a small thread pool, each part through NumPy's SIMD loops. Two
users: eager ops (`split`, the one dispatch point: `core.bind` calls it for inputs of
`split_from` elements or more, and it splits calls of primitives that declare a ``kernel``)
and the fused chains of compiled graphs (`graph/compile/fuse.py` runs each piece block by block
with `run_parts`). Each element goes through the same ufunc as unsplit, so elementwise
results are bitwise identical; only a sum absorbed into a fused chain is added in another
order (within float rounding: tests/test_fast.py states the tolerance). Why NumPy's ufuncs
and not numexpr or numba: `graph/compile/fast.py`.

Large eager outputs, with the fast path on or off, are written into buffers `split` handed
out before and nobody holds any more (`recycled`): a fresh 40 MB array costs a page fault
per page, as much again as the pass that fills it, and that, not arithmetic, was most of
what eager ``sum(log(1 + exp(x)))`` with its gradient cost over NumPy by hand (5 fresh
outputs against NumPy's 4; with recycled buffers eager is faster than NumPy by hand).

Switch: the environment variable ``FINEGRAD_FAST`` (``1`` on, ``0`` off; unset: on where the
process may use `MIN_CORES` cores or more), read at import and by `refresh`; `switched` turns
it on or off for a block of code. It needs no library beyond NumPy.

Why it is off by default on 2 cores (measured on this project's 2-core x86-64 machine, NumPy
2.4.6, shared with other busy processes): the compiled gradient of ``sum(log(1 + exp(x)))``
over 10^7 float32 takes 17 ms of CPU on one thread, nearly all of it in the exp and log
loops; in a quiet moment two threads cut its time from 17.3 ms to 10.0-10.8 ms (0.52x to
0.30-0.33x NumPy by hand) and eager's from 20-21 ms to 16-21 ms, but while the other core
was busy they gained nothing at 10^7 elements and lost at 2^18-2^22 (traced 1.1-1.7x, eager
1.8-3x slower): a piece taken by a thread the system then runs late holds up the whole
call. Where a spare core is likely (`MIN_CORES`) the gain should approach the number
of cores, as the work per element is arithmetic, not memory traffic.
"""
import contextlib
import math
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

#: work on fewer elements is not split (eager calls and fused chains alike): measured on 2
#: cores, smaller splits gained little when quiet and lost most when the machine was busy
SPLIT_MIN = 1 << 20
#: on by default from this many usable cores (not on 2: see the module docstring)
MIN_CORES = 4
#: pieces start at multiples of this many elements (cache lines and SIMD widths stay aligned)
#: and are at least this long
ALIGN = 1 << 15
#: pieces per worker thread: the threads take them in turn, so a thread the system runs late
#: costs at most its pieces' share
PIECES = 2
#: at most this many bytes of `split`'s output buffers that nobody holds any more are kept
#: for its next outputs; at most `CACHE_COUNT` buffers are followed at all
CACHE_BYTES = 1 << 28
CACHE_COUNT = 32

#: eager outputs of this many elements or more are written into recycled buffers (a fresh
#: 1 MB array already pays its page faults; threads start only at `SPLIT_MIN`)
RECYCLE_MIN = 1 << 18
#: `core.bind` hands a call to `split` when its inputs hold this many elements
split_from = RECYCLE_MIN

_on = False             # eager calls split over threads (the switch)
_cache: list = []       # the buffers `split` handed out, oldest first (under _lock)
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
    global _on
    _on = wanted()


def on():
    """Whether eager elementwise calls split over threads now."""
    return _on


@contextlib.contextmanager
def switched(on):
    """Context manager: eager elementwise ops split over threads (``on``) or not, inside it.
    Process-wide, as the environment variable is."""
    global _on
    saved = _on
    _on = bool(on)
    try:
        yield
    finally:
        _on = saved


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


def bounds(size):
    """Contiguous ``(start, stop)`` pieces covering ``range(size)``: `PIECES` per worker, of
    `ALIGN` elements or more, their starts multiples of `ALIGN`; one when ``size`` is small."""
    parts = max(1, min(PIECES * workers(), size // ALIGN))
    step = math.ceil(size / parts / ALIGN) * ALIGN
    return [(lo, min(size, lo + step)) for lo in range(0, size, step)] or [(0, size)]


def run_parts(fn, size):
    """``[fn(start, stop) for each piece of bounds(size)]``, under the caller's NumPy error
    state. The calling thread and the pool's threads take the pieces in turn, so when the
    other cores are busy the caller ends up running them all itself instead of waiting for a
    thread that is not scheduled (the pool's late threads find nothing left to take)."""
    ranges = bounds(size)
    if len(ranges) == 1 or workers() == 1 or size < SPLIT_MIN:
        return [fn(lo, hi) for lo, hi in ranges]
    job = _Job(fn, ranges, np.geterr())
    pool = _executor()
    for _ in range(min(workers() - 1, len(ranges) - 1)):
        pool.submit(job.work)
    job.work()
    job.finished.wait()
    if job.errors:
        raise job.errors[0]
    return job.results


class _Job:
    """The pieces of one `run_parts` call, taken in order by whichever thread comes."""

    def __init__(self, fn, ranges, err):
        self.fn, self.ranges, self.err = fn, ranges, err
        self.results = [None] * len(ranges)
        self.errors = []
        self._next = iter(range(len(ranges)))   # next() on it is atomic under the GIL
        self._lock = threading.Lock()
        self._left = len(ranges)
        self.finished = threading.Event()

    def work(self):
        with np.errstate(**self.err):
            for i in self._next:
                try:
                    self.results[i] = self.fn(*self.ranges[i])
                except BaseException as e:     # re-raised on the calling thread
                    self.errors.append(e)
                with self._lock:
                    self._left -= 1
                    if not self._left:
                        self.finished.set()


def split(prim, vals, params):
    """The eager dispatch point of large elementwise calls (`core.bind`, for inputs of
    `split_from` elements or more): ``prim``'s kernel over ``vals`` into a recycled buffer
    (`recycled`), split across threads when the fast path is on, when the call can run so;
    else ``prim.impl``. That is a parameter-free call of a primitive that declares a
    ``kernel``, on float arrays of one dtype, each of the call's one shape (C-contiguous, or a
    broadcast single value: all strides 0) or a single element."""
    kernel = prim.kernel
    shape = _split_shape(vals) if kernel is not None and not params else None
    if shape is None:
        return prim.impl(*vals, **params)
    # the impl on one element of each input: it checks the inputs as on the whole call, and
    # gives the output's dtype; when it returns an input, it does no work on these values
    # (multiplying by a broadcast one), and the whole call is left to it. (Its floating
    # point warnings would come twice: the whole call gives them.)
    ones = [v if v.ndim == 0 else v[(0,) * (v.ndim - 1)][:1] for v in vals]
    with np.errstate(all="ignore"):
        probe = prim.impl(*ones)
    if any(probe is o for o in ones):
        return prim.impl(*vals)
    size = math.prod(shape)
    flat = [(True, v.reshape(-1)) if v.ndim and any(v.strides) else
            (False, v.flat[0] if v.ndim else v) for v in vals]
    out = recycled(size, np.asarray(probe).dtype)

    def part(lo, hi):
        kernel(*[f[lo:hi] if is_array else f for is_array, f in flat], out=out[lo:hi])
    if _on:
        run_parts(part, size)
    else:
        part(0, size)
    return out.reshape(shape)


def recycled(size, dtype):
    """A 1-d buffer for an output of `split`: one it handed out before that nobody holds any
    more (a Tensor, a view, an exported buffer each hold a reference), else a new one. A
    fresh array of 10^7 float32 costs a page fault per page, about as long again as a pass
    that writes it; the buffers kept are bounded by `CACHE_BYTES` (the compiled graphs keep
    theirs the same way: `graph/ir.py`)."""
    dtype = np.dtype(dtype)
    with _lock:
        for i in range(len(_cache)):
            if sys.getrefcount(_cache[i]) <= UNHELD_REFS:
                b = _cache[i]
                if b.size == size and b.dtype == dtype:
                    del _cache[i]
                    _cache.append(b)
                    return b
        b = np.empty(size, dtype)
        _cache.append(b)
        _trim()
        return b


def _trim():
    """Keep `CACHE_COUNT` buffers at most, and `CACHE_BYTES` of those nobody holds."""
    del _cache[:-CACHE_COUNT]
    unheld = 0
    for i in range(len(_cache) - 1, -1, -1):
        if sys.getrefcount(_cache[i]) <= UNHELD_REFS:
            unheld += _cache[i].nbytes
            if unheld > CACHE_BYTES:
                del _cache[i]


def _unheld_refs():
    """``sys.getrefcount`` of an entry of a list that nothing else holds."""
    probe = [np.empty(0)]
    return sys.getrefcount(probe[0])


#: the count `sys.getrefcount` gives for an entry of a list that nothing else holds,
#: measured (interpreters differ: 3.14 borrows some references)
UNHELD_REFS = _unheld_refs()


def _after_fork():
    """In a forked child: a lock another thread held, and no pool threads."""
    global _lock, _pool
    _lock, _pool = threading.Lock(), None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _split_shape(vals):
    """The call's shape when ``vals`` qualify for `split` (see there), else None."""
    shape = None
    dtype = vals[0].dtype
    for v in vals:
        if v.dtype != dtype or v.dtype.kind != "f":
            return None
        if v.ndim == 0:
            continue
        if type(v) is not np.ndarray or (shape is not None and v.shape != shape):
            return None
        if any(v.strides) and not v.flags.c_contiguous:
            return None
        shape = v.shape
    if shape is None or math.prod(shape) < split_from or \
            all(v.ndim == 0 or not any(v.strides) for v in vals):
        return None     # nothing to split, or only broadcast values (the impl keeps them so)
    return shape


refresh()
