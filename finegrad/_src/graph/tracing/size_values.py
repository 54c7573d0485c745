"""Integer values a trace knows symbolically: ``shape(x)`` of a value with an open axis, an
element of it (``shape(x)[0]``), ``size(x)``, and their sums, differences, products and
floor quotients with other known ints. An op given such a value as a size (``zeros([b,
3])``, ``reshape(x, [b, -1])``, ``fill``) builds a node whose shape is the symbol (resolved
at each run, graph/compile/symbolic.py) instead of a value guard that keeps the traced size
(`tensor._static_size`)."""
import operator

import numpy as np

from finegrad._src.dims import has_dims
from finegrad._src.ops.math import arithmetic

_ARITH = {arithmetic.add_p: operator.add, arithmetic.subtract_p: operator.sub,
          arithmetic.multiply_p: operator.mul, arithmetic.floordiv_p: operator.floordiv}
_DEPTH = 16


def _const(v):
    a = np.asarray(v)
    if a.dtype.kind not in "iu" or a.ndim > 1:
        return None
    return int(a) if a.ndim == 0 else tuple(int(i) for i in a)


def _shape_value(b, s):
    sh = b.sym.get(s)
    return tuple(sh) if sh is not None else tuple(b.meta[s][0])


def value_of(b, s, depth=0):
    """The value of slot ``s`` of builder ``b``: an int or a tuple of ints and Dims, or
    None when the trace cannot say it."""
    if s in b.consts:
        return _const(b.consts[s])
    i = b.made_by.get(s)
    if i is None or depth > _DEPTH:
        return None
    n = b.nodes[i]
    name, ins = n.prim.name, n.ins
    if name == "shape":
        return _shape_value(b, ins[0])
    if name == "full" and tuple(n.params["shape"]) == ():
        return n.params["value"]
    if name == "cast" and len(ins) == 1:
        return value_of(b, ins[0], depth + 1)
    if name == "strided_slice":
        v = value_of(b, ins[0], depth + 1)
        if not isinstance(v, tuple):
            return None
        try:
            out = np.array(v, dtype=object)[n.params["index"].idx]
        except (IndexError, TypeError):
            return None
        return tuple(out) if np.ndim(out) else out.item() if hasattr(out, "item") else out
    if n.prim in _ARITH and len(ins) == 2:
        u, v = (value_of(b, s2, depth + 1) for s2 in ins)
        if u is None or v is None or isinstance(u, tuple) or isinstance(v, tuple):
            return None
        return _ARITH[n.prim](u, v)
    return None


def symbolic_value(b, t):
    """The symbolic value of traced tensor ``t`` (holding a Dim), or None."""
    s = b.slots.get(id(t))
    if s is None:
        return None
    try:
        v = value_of(b, s)
    except Exception:   # arithmetic a Dim does not have: no symbolic value
        return None
    return v if has_dims(v) else None
