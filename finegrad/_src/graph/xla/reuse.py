"""Large buffers of a compiled function kept from one call to the next (the CPU), without
touching how the rest of the process allocates memory.

XLA's CPU runtime allocates each call's results and its temporary buffer with ``malloc``;
glibc maps a block above its mmap threshold (at most 32 MiB) afresh and unmaps it when it
is freed, so each call of a program on 10^7 float32 values touches new pages: one page fault
(a zeroed 4 KiB page) per page, which costs more than the compiled loop. Measured on the
2-core machine, the gradient of ``sum(log1pexp(x))`` on 10^7 float32, CPU time a call:
53 ms and 19,500 page faults as XLA allocates (a 40 MB result and a 40 MB temporary), 35 ms
and 9,800 with the result's buffer reused, 14 ms and none with both reused (TensorFlow's
XLA, whose allocator keeps its memory: 13 ms).

`BufferPool` gets there with JAX's buffer donation instead of changing ``malloc``:

- **results**: the executable takes one donated argument of each large result's shape and
  dtype (`donated_results`), which XLA aliases to that result. Each call passes the array
  the last call gave at that position; where the caller no longer holds it (nor a NumPy
  view of it), XLA writes the new result into its memory, already mapped. Where the caller
  still holds it, JAX declines the donation (a buffer with an outside reference is never
  donated; verified in test_xla_reuse.py) and XLA allocates a new one, as without this.
- **large intermediates**: when the compiled program's temporary buffer is above glibc's
  mmap threshold, the values XLA is likely to materialize (large values with several
  consumers, `tap_candidates`) become extra results of the program, each one written into
  a donated buffer this pool alone holds. The executable with them is kept only when its
  temporary buffer shrank by at least their size (`worth_tapping`: XLA stored them anyway,
  so no memory traffic is added), else the plain one.

The price: a function keeps its last results' memory (and the taps') after the caller
drops them, until the next call or until the function itself is freed; a result the
caller keeps costs what it costs without this. The first call has nothing to donate: it
passes placeholders, which XLA does not alias (zero-copy views of unwritten NumPy
memory: JAX declines to donate them), and allocates as usual.
"""
import sys

import numpy as np

from finegrad._src import dims, nest
from finegrad._src.graph import ir
from finegrad._src.graph.xla.staging import MIN_BYTES, aligned_empty

#: glibc's largest dynamic mmap threshold: a temporary buffer this large is always a fresh
#: mapping, and the large values that make it up are worth computing into kept buffers
TEMP_BYTES = 32 << 20


def nbytes(shape, dtype):
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


def donated_results(metas):
    """The positions of the results (``metas``: (shape, dtype) each, None for a non-tensor
    leaf) large enough to write into a donated buffer: `MIN_BYTES` or more."""
    return [k for k, m in enumerate(metas)
            if m is not None and nbytes(*m) >= MIN_BYTES and np.dtype(m[1]).kind in "biufc"]


def tap_candidates(g):
    """The slots of graph ``g`` (its top level; fully shaped) XLA may store in its temporary
    buffer: values of `TEMP_BYTES` / 4 bytes or more that several nodes read, other than the
    arguments, the constants and the outputs (results already)."""
    uses: dict = {}
    for n in g.nodes:
        for s in set(n.ins):
            uses[s] = uses.get(s, 0) + 1
    skip = set(g.args) | set(g.consts)
    skip.update(o.slot for o in nest.flatten(g.outputs) if isinstance(o, ir.OutSlot))
    out = []
    for n in g.nodes:
        for s, (shape, dtype) in zip(n.outs, n.meta, strict=True):
            if (s in skip or uses.get(s, 0) < 2 or dims.is_symbolic(tuple(shape))
                    or np.dtype(dtype).kind not in "biufc"):
                continue
            if nbytes(shape, dtype) >= TEMP_BYTES // 4:
                out.append((s, (tuple(shape), np.dtype(dtype))))
    return out


def temp_bytes(exe):
    """The size of the compiled executable ``exe``'s temporary buffer (0 if unknown)."""
    try:
        return int(exe.memory_analysis().temp_size_in_bytes)
    except Exception:   # (a runtime without memory analysis)
        return 0


def worth_tapping(plain_temp, tapped_exe, taps):
    """Whether the executable with the ``taps`` ((slot, (shape, dtype)) each) as results is
    better than the plain one, whose temporary buffer has ``plain_temp`` bytes: its own
    temporary buffer is smaller by at least the taps' size (they replace stored values)."""
    tapped = sum(nbytes(*m) for _, m in taps)
    return temp_bytes(tapped_exe) + tapped <= plain_temp


class BufferPool:
    """One executable's kept buffers: at each donated position, the arrays of the last
    `DEPTH` calls (see the module)."""

    #: how many calls' arrays each position keeps: two, so that a loop that holds one result
    #: while it makes the next (``y = f(x)``) finds the one before it free
    DEPTH = 2

    __slots__ = ("_kept", "specs")

    def __init__(self, specs):
        self.specs = list(specs)   # (shape, dtype) of each donated buffer, in order
        self._kept: list[list] = [[] for _ in self.specs]

    def take(self, device):
        """The buffers to donate to this call, one per position: a kept array nobody else
        holds (taken out of the pool: a concurrent call finds another), else a placeholder
        (XLA then allocates, as without the pool)."""
        import jax
        out = []
        for kept, (shape, dtype) in zip(self._kept, self.specs, strict=True):
            buf = _pop_unheld(kept)
            out.append(buf if buf is not None else
                       jax.device_put(aligned_empty(shape, dtype), device))
        return out

    def keep(self, arrays):
        """Keep this call's arrays (one per position) for the next calls: at most `DEPTH`
        each, dropping first those the caller holds (they live on with the caller)."""
        for kept, a in zip(self._kept, arrays, strict=True):
            kept.append(a)
            while len(kept) > self.DEPTH:
                held = [i for i in range(len(kept)) if not _unheld(kept, i)]
                kept.pop(held[0] if held else 0)

    def clear(self):
        for kept in self._kept:
            kept.clear()


def _unheld(kept, i):
    """Whether ``kept[i]`` (a JAX array) is referenced by ``kept`` alone: no caller holds it,
    nor a NumPy view of it (a view's memoryview references the array). CPython's count: the
    list's reference and getrefcount's argument."""
    return sys.getrefcount(kept[i]) <= 2 and not kept[i].is_deleted()


def _pop_unheld(kept):
    """The oldest array of ``kept`` nobody else holds, taken out of it; None if none."""
    for i in range(len(kept)):
        if _unheld(kept, i):
            return kept.pop(i)
    return None
