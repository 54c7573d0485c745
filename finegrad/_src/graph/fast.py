"""The optional ``finegrad[fast]`` extra: fused elementwise chains as one numexpr kernel.

With numexpr installed (``pip install finegrad[fast]``), a fused chain of a compiled graph
(`graph/fuse.py`) whose primitives all declare a ``numexpr=`` spelling runs as numexpr
expressions (one per value the chain hands on: blocked, one pass, multi-threaded) instead of
NumPy ufuncs over cache-sized blocks, when its arrays are large (`NUMEXPR_MIN`). Without
numexpr, or with the environment variable ``FINEGRAD_FAST=0``, or inside `disabled()`,
everything runs as before; with fewer than `MIN_CORES` cores it is off unless
``FINEGRAD_FAST=1``. Results agree with the NumPy path within float rounding (numexpr
may evaluate ``a * b + c`` in another order of roundings); tests/test_fast.py states and
checks the tolerance.

When it pays (measured on a shared 2-core x86-64 machine, numexpr 2.14 from PyPI, NumPy 2.4):
on plain NumPy, numexpr's ``y * (1 - x x) + x`` is 0.75x NumPy's separate passes at 10^7
float32 but 2-4x slower at 2^16-2^20 elements; against finegrad's own blocked fusion of the
same chain (`graph/fuse.py`) it lost at every size (1.2-1.8x slower at 10^7, quiet or loaded:
its two threads wait for each other), hence `MIN_CORES`. Without Intel's VML its
transcendental functions (exp, log, tanh) are 2-60x slower than NumPy's SIMD loops, so a chain
that calls one stays on NumPy unless numexpr was built with VML. Which chains go to numexpr
is decided here, in one place, when a graph is compiled.
"""
import contextlib
import os
import re
import threading

import numpy as np

from finegrad._src import threads

#: arrays smaller than this keep the blocked NumPy path (numexpr's thread start-up and its
#: unvectorized float32 loops lose below it; measured, see the module docstring)
NUMEXPR_MIN = 1 << 22
#: numexpr's gain is its threads: on fewer cores it lost every measurement here (a 2-core
#: machine: 1.2-1.8x slower than the blocked NumPy path at 10^7 float32, quiet or loaded), so
#: it is used by default only from this many cores on (not measured: no such machine was at
#: hand); ``FINEGRAD_FAST=1`` forces it
MIN_CORES = 4
#: a chain's expression longer than this (internal values inlined) stays on the NumPy path
MAX_EXPRESSION = 2000

_OFF = threading.local()
_FUNCTION = re.compile(r"[A-Za-z_]\w*\s*\(")
_ARITHMETIC = re.compile(r"(\{\d\}|[\d\s()+\-*/])+")


def numexpr():
    """The numexpr module when the fast path is on, else None: ``FINEGRAD_FAST=1`` turns it
    on, ``FINEGRAD_FAST=0`` off; unset, it is on where numexpr sees `MIN_CORES` cores."""
    switch = os.environ.get("FINEGRAD_FAST", "")
    if switch == "0" or getattr(_OFF, "off", False):
        return None
    try:
        import numexpr as ne
    except ImportError:
        return None
    if switch != "1" and ne.detect_number_of_cores() < MIN_CORES:
        return None
    return ne


def threaded():
    """Whether graphs compiled now split fused chains over threads and compute the sums of
    their values block by block (`graph/fuse.py`, `threads`): the environment asks for the
    fast path and `disabled` is not in force."""
    return not getattr(_OFF, "off", False) and threads.wanted()


@contextlib.contextmanager
def disabled():
    """Context manager: graphs compiled inside it use neither numexpr nor threads (on this
    thread)."""
    saved = getattr(_OFF, "off", False)
    _OFF.off = True
    try:
        yield
    finally:
        _OFF.off = saved


def arithmetic(prim):
    """``prim``'s numexpr spelling when it is plain arithmetic (operators, parentheses and
    integer literals over ``{0}``, ``{1}``, ...), else None. On NumPy scalars the same text is
    Python arithmetic that runs the same ufunc loops in the same order as the kernel: the
    generated code of a compiled graph spells scalar steps so (`graph/codegen.py`)."""
    spelling = getattr(prim, "numexpr", None)
    if spelling is None or not _ARITHMETIC.fullmatch(spelling):
        return None
    return spelling


def _pays(ne, spelling):
    """Whether numexpr's evaluation of ``spelling`` is worth it (see the module docstring)."""
    return bool(getattr(ne, "use_vml", False)) or not _FUNCTION.search(spelling)


class NumexprChain:
    """A fused chain as numexpr expressions: one per escaping value, in chain order; values
    used only inside the chain are inlined, escaping ones computed earlier are read back."""

    def __init__(self, ne, exprs, dtype):
        self.ne, self.exprs, self.dtype = ne, exprs, dtype

    def run(self, vals, outs, shape):
        """Evaluate into ``outs`` (a buffer or None each); the escaping values, in order."""
        env = {}
        for k, v in enumerate(vals):
            a = np.asarray(v)
            if a.dtype != self.dtype:
                return None
            env[f"a{k}"] = a
        results = []
        for j, expr in enumerate(self.exprs):
            buf = outs[j] if outs and outs[j] is not None else np.empty(shape, self.dtype)
            self.ne.evaluate(expr, local_dict=env, out=buf, casting="safe")
            env[f"o{j}"] = buf
            results.append(buf)
        return tuple(results)


def compile_chain(fused):
    """A `NumexprChain` for `fuse.Fused` chain ``fused``, or None when it stays on NumPy."""
    if int(np.prod(fused.shape)) < NUMEXPR_MIN:
        return None
    ne = numexpr()      # imported only for chains this large
    if ne is None:
        return None
    dtypes = {np.dtype(fused.meta[s][1]) for n in fused.nodes for s in (*n.ins, *n.outs)}
    if len(dtypes) != 1 or next(iter(dtypes)) not in (np.float32, np.float64):
        return None
    ref = {s: f"a{k}" for k, s in enumerate(fused.ext)}
    exprs = []
    for n in fused.nodes:
        spelling = getattr(n.prim, "numexpr", None)
        if spelling is None or not _pays(ne, spelling):
            return None
        text = "(" + spelling.format(*[ref[x] for x in n.ins]) + ")"
        out = n.outs[0]
        if out in fused.escaping:
            ref[out] = f"o{len(exprs)}"
            exprs.append(text)
        else:
            ref[out] = text
        if len(text) > MAX_EXPRESSION:
            return None
    order = [fused.escaping.index(s) for n in fused.nodes for s in n.outs
             if s in fused.escaping]
    if order != list(range(len(fused.escaping))):
        return None
    return NumexprChain(ne, exprs, next(iter(dtypes)))
