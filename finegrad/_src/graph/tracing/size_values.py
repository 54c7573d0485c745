"""Integer values a trace knows symbolically: ``shape(x)`` of a value with an open axis, an
element of it (``shape(x)[0]``), ``size(x)``, and their sums, differences, products and
floor quotients with other known ints. An op given such a value as a size (``zeros([b,
3])``, ``reshape(x, [b, -1])``, ``fill``) builds a node whose shape is the symbol (resolved
at each run, graph/compile/symbolic.py) instead of a value guard that keeps the traced size
(`tensor._static_size`)."""
import operator

import numpy as np

from finegrad._src.dims import has_dims
from finegrad._src.ops.array import indexing, shape_queries, structural
from finegrad._src.ops.math import arithmetic
from finegrad._src.ops.zeros_and_axes import full_p

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
    if n.prim is shape_queries.shape_p:
        return _shape_value(b, n.ins[0])
    if n.prim is full_p:
        return n.params["value"] if tuple(n.params["shape"]) == () else None
    ins = [value_of(b, s2, depth + 1) for s2 in n.ins]
    if any(v is None for v in ins):
        return None
    if n.prim in _ARITH:
        return _arith(n, ins)
    rule = _RULES.get(n.prim)
    return rule(n, ins) if rule is not None else None


def _arith(n, ins):
    if len(ins) != 2 or any(isinstance(v, tuple) for v in ins):
        return None
    return _ARITH[n.prim](*ins)


def _cast(n, ins):
    return ins[0] if len(ins) == 1 else None


def _slice(n, ins):
    if not isinstance(ins[0], tuple):
        return None
    try:
        out = np.array(ins[0], dtype=object)[n.params["index"].idx]
    except (IndexError, TypeError):
        return None
    return tuple(out) if np.ndim(out) else out


def _reshape(n, ins):   # stack([b, 3]) is reshapes of the scalars to (1,)...
    if len(n.params["shape"]) != 1:
        return None
    return ins[0] if isinstance(ins[0], tuple) else (ins[0],)


def _concat(n, ins):    # ...and a concat of them
    if n.params.get("axis") not in (0, -1) or not all(isinstance(v, tuple) for v in ins):
        return None
    return tuple(d for v in ins for d in v)


_RULES = {structural.cast_p: _cast, indexing.getitem_p: _slice, structural.reshape_p: _reshape,
          structural.concat_p: _concat}


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
