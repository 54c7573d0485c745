"""Fused arithmetic chains compiled to one loop, with numba (the ``finegrad[fast]`` extra).

A fused chain (`graph/compile/fuse.py`) whose every step is plain arithmetic (``+ - * /``, negation,
squares: the primitives whose ``numexpr`` spelling `fast.arithmetic` accepts) over float32 or
float64 values becomes `CompiledChain`: one loop over the elements, compiled by numba, in
which each element is read once, goes through the whole chain in registers and is written
once. NumPy's ufuncs make a pass over memory per step instead. Each step is the same IEEE
operation, in the same order and rounded to the same dtype (the loop casts each step's result
to the dtype the graph gives it), as the ufunc it replaces: numba's defaults contract nothing
(no fused multiply-add without fast-math), and ``error_model="numpy"`` keeps IEEE division
(``1 / 0`` is ``inf``, as in NumPy). So results are bitwise identical to the NumPy path.

Why only arithmetic (measured on this project's 2-core x86-64 machine, NumPy 2.4.6, numba
0.68): the Rosenbrock Hessian-vector product's chain (11 arithmetic steps over 5·10^4
float64, benchmark g4) runs in about a third of the time of its ufuncs; the softplus chain
(``exp``, ``log``: benchmark g2) runs slower compiled, as the loop calls the scalar libm
functions where NumPy's float32 ``exp`` and ``log`` are SIMD loops (`graph/compile/fast.py`): those
chains keep NumPy's ufuncs, block by block.

Switch: used when numba can be imported and ``FINEGRAD_FAST`` is not ``0`` (whatever the
cores: the loop runs on the calling thread, split over threads only with the fast path on),
and not inside `fast.disabled`. Each chain compiles on its first call (numba's first import
takes about 0.3 s, a chain about 0.5 s); kernels are shared by chains with the same source.
"""
import functools
import os
import re

import numpy as np

from finegrad._src import threads
from finegrad._src.graph.compile import fast

#: chains over fewer elements stay NumPy ufuncs (a compiled call costs a few microseconds)
JIT_MIN = 1 << 13
_TYPES = {np.dtype(np.float32): "f4", np.dtype(np.float64): "f8"}
_LITERAL = re.compile(r"(?<![{\d])\d+(?![}\d])")   # an integer in a spelling, not a {k}


@functools.lru_cache(maxsize=1)
def _installed():
    """Whether numba imports (asked once, when a graph first has a chain it could compile)."""
    try:
        import numba  # noqa: F401
    except Exception:   # (missing, or built for another NumPy)
        return False
    return True


def enabled():
    """Whether graphs compiled now run their arithmetic chains as compiled loops."""
    return os.environ.get("FINEGRAD_FAST", "") != "0" and not fast.is_disabled() and \
        _installed()


def takes(n, meta):
    """Whether node ``n`` may be a step of a compiled chain: plain arithmetic (its
    primitive's spelling) on float32 or float64 inputs of its result's dtype."""
    dtype = np.dtype(n.meta[0][1])
    if fast.arithmetic(n.prim) is None or dtype not in _TYPES:
        return False
    return all(np.dtype(meta[x][1]) == dtype for x in n.ins)


def source(chain, arrays):
    """The Python source of ``chain``'s loop (a `fuse.Fused` of arithmetic steps), for
    external inputs that are arrays where ``arrays`` is True, scalars elsewhere: arguments
    ``n`` (the element count), ``x0, x1, ...`` (the inputs), ``y0, y1, ...`` (the arrays
    that receive the values that leave the chain)."""
    name = {s: (f"a{k}" if a else f"x{k}")
            for k, (s, a) in enumerate(zip(chain.ext, arrays, strict=True))}
    written = chain.full + [s for s, _ in (chain.scatter[1] if chain.scatter else ())]
    args = ["n"] + [f"x{k}" for k in range(len(chain.ext))] + \
        [f"y{k}" for k in range(len(written))]
    lines = [f"def chain({', '.join(args)}):", "    for i in range(n):"]
    lines += [f"        a{k} = x{k}[i]" for k, a in enumerate(arrays) if a]
    for j, n in enumerate(chain.nodes):
        t = _TYPES[np.dtype(n.meta[0][1])]   # literals of the step's dtype: ops stay in it
        spelling = _LITERAL.sub(lambda m, t=t: f"{t}({m.group(0)})", fast.arithmetic(n.prim))
        expr = spelling.format(*[f"({name[x]})" for x in n.ins])
        name[n.outs[0]] = f"v{j}"
        lines.append(f"        v{j} = {t}({expr})")
    for k, s in enumerate(written):   # (a scattered value is written as 0 + v, as scattered)
        zero = "" if k < len(chain.full) else f"{_TYPES[np.dtype(chain.meta[s][1])]}(0) + "
        lines.append(f"        y{k}[i] = {zero}{name[s]}")
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=512)
def kernel(src):
    """The compiled loop of ``src`` (from `source`), made once per source."""
    import numba
    env = {"f4": np.float32, "f8": np.float64}
    exec(compile(src, "<finegrad compiled chain>", "exec"), env)
    return numba.njit(nogil=True, error_model="numpy")(env["chain"])


def run(chain, vals, outs):
    """Run compiled chain ``chain`` (a `fuse.Fused` with ``compiled=True``) on the values of
    its external inputs; ``outs``: one buffer or None per escaping value. Returns them."""
    size, shape = chain.size, chain.shape
    args, arrays = [], []
    for v in vals:
        if type(v) is np.ndarray and v.shape == shape and any(v.strides):
            # 1-D any strides; else flattened (a copy when it is not contiguous)
            args.append(v if v.ndim == 1 else v.reshape(-1))
            arrays.append(True)
        else:   # a scalar, or a broadcast one
            args.append(v.flat[0] if type(v) is np.ndarray else v)
            arrays.append(False)
    given = dict(zip(chain.escaping, outs or [None] * len(chain.escaping), strict=True))
    result = {s: np.empty(chain.meta[s][0], chain.meta[s][1]) if given[s] is None else
              given[s] for s in chain.escaping}
    flat = [result[s].reshape(-1) for s in chain.full]
    if chain.scatter is not None:   # views of the new array, 1-D as the chain is
        z = result[chain.scatter[0]]
        flat += [z[index.idx] for _, index in chain.scatter[1]]
    arrays = tuple(arrays)
    fn = chain.kernels.get(arrays)
    if fn is None:
        fn = chain.kernels[arrays] = kernel(source(chain, arrays))
    if chain.threaded:
        def part(lo, hi):
            fn(hi - lo, *[a[lo:hi] if isinstance(a, np.ndarray) else a for a in args],
               *[y[lo:hi] for y in flat])
        threads.run_parts(part, size)
    else:
        fn(size, *args, *flat)
    return tuple(result[s] for s in chain.escaping)
