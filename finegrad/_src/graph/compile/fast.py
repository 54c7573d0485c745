"""The compiler's side of the fast path: whether fused chains run on threads, and the
arithmetic spelling of scalar steps.

With the fast path on (`threads`: ``FINEGRAD_FAST``, on by default from 4 cores), a fused
chain of a compiled graph (`graph/compile/fuse.py`) splits its elements over a small thread pool,
each thread running NumPy's ufuncs block by block over its part, and sums over all axes of
the chain's values are computed per block inside the chain. Decided when a graph is
compiled (`threaded`), in one place; `disabled` compiles without it.

Why NumPy's own ufuncs on threads, and not numexpr or numba, the two libraries that run
fused elementwise expressions multi-threaded (measured interleaved on this project's shared
2-core x86-64 machine, NumPy 2.4.6, 10^7 float32; loaded by other processes, so the ratios
are noisy, the ranking was the same in every run):

- the softplus sum and its gradient (``sum(log(1 + exp(x)))``, ``exp(x) / (1 + exp(x))``):
  NumPy by hand 1.0x; numexpr 2.14 (two threads) 3.2x, and its float32 sum was off by 3e-4
  relative (one float32 accumulator); numba 0.68 (``parallel=True, fastmath=True``) 1.7x,
  after 0.5 s to import and 2.2 s to compile the loop; NumPy's ufuncs block by block on two
  threads 0.8x on the loaded machine (0.51x in a quiet moment, against 0.63x on one thread;
  as built here, with the sum absorbed into the chain: 0.30-0.33x against 0.52x).
  All give the gradient within float rounding of NumPy's. numexpr's PyPI wheels have no
  Intel VML, so its exp and log are scalar libm loops; numba without Intel's SVML calls the
  same scalar functions. NumPy's float32 exp and log are SIMD loops.
- an arithmetic chain (``sum(y (1 - x^2) + x / y)`` and its two gradients, benchmark g6):
  numexpr (two threads) 0.88x NumPy by hand; the blocked NumPy chain 0.43x on two threads,
  0.46x on one (the machine was loaded: threads gained little, numexpr lost anyway).

So the threads need no library beyond NumPy. Chains of plain arithmetic are another matter:
there numba's loop reads and writes each element once and computes in registers, where each
ufunc is a pass over memory, and no transcendental function is involved; the ``finegrad[fast]``
extra installs numba for them (`graph/compile/jit.py`).
"""
import contextlib
import re
import threading

from finegrad._src import threads

_OFF = threading.local()
_ARITHMETIC = re.compile(r"(\{\d\}|[\d\s()+\-*/])+")


def threaded():
    """Whether graphs compiled now split fused chains over threads and compute the sums of
    their values block by block (`graph/compile/fuse.py`, `threads`): the environment asks for the
    fast path and `disabled` is not in force."""
    return not is_disabled() and threads.wanted()


def is_disabled():
    """Whether `disabled` is in force on this thread (graphs compile without any fast path:
    no threads, no absorbed sums, no compiled chains)."""
    return getattr(_OFF, "off", False)


@contextlib.contextmanager
def disabled():
    """Context manager: graphs compiled inside it run their fused chains on one thread, with
    no sum absorbed and no chain compiled (`graph/compile/jit.py`), on this thread."""
    saved = getattr(_OFF, "off", False)
    _OFF.off = True
    try:
        yield
    finally:
        _OFF.off = saved


def arithmetic(prim):
    """``prim``'s ``numexpr=`` spelling when it is plain arithmetic (operators, parentheses
    and integer literals over ``{0}``, ``{1}``, ...), else None. On NumPy scalars the same
    text is Python arithmetic that runs the same ufunc loops in the same order as the
    kernel: the generated code of a compiled graph spells scalar steps so
    (`graph/compile/codegen.py`)."""
    spelling = getattr(prim, "numexpr", None)
    if spelling is None or not _ARITHMETIC.fullmatch(spelling):
        return None
    return spelling
