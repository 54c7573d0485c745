"""Symbolic sizes (`Dim`) for shape-polymorphic traces, and guards on them.

Inside a `finegrad.function` traced for an input_signature with None dimensions, each open
axis of an argument is a symbol, and every size computed from it is a `Dim`: its value in
this trace and an expression over the symbols (a polynomial with integer coefficients whose
atoms are symbols and the ``//``, ``%`` and max of sub-expressions). Rules compute with these
shapes (`core.shape_of`) as they do eagerly and pass them as parameters; the graph keeps the
expressions and resolves them at each call from the argument sizes, as JAX's shape
polymorphism and tinygrad's symbolic variables do. A Dim used as a Python int, or compared
where the answer depends on the size, is decided at its trace value and recorded as a guard
on the trace (as torch.compile's dynamic shapes do): a call whose sizes break a guard traces
again. Comparisons the expressions decide alone (the same expression) record nothing.
"""
import operator

import numpy as np

from finegrad._src.state import state as _state

def _poly_of(x):
    """The expression of an int or a Dim: a sorted tuple of (monomial, coefficient), where a
    monomial is a sorted tuple of atoms (symbol names, or ``(op, poly, poly)``)."""
    if isinstance(x, Dim):
        return x.poly
    x = operator.index(x)
    return (((), x),) if x else ()


def _norm(terms):
    return tuple(sorted(((m, c) for m, c in terms.items() if c), key=repr))


def _padd(p, q, sign=1):
    terms = dict(p)
    for m, c in q:
        terms[m] = terms.get(m, 0) + sign * c
    return _norm(terms)


def _pmul(p, q):
    terms = {}
    for m1, c1 in p:
        for m2, c2 in q:
            m = tuple(sorted(m1 + m2, key=repr))
            terms[m] = terms.get(m, 0) + c1 * c2
    return _norm(terms)


def _const(p):
    """The int a constant expression stands for, else None."""
    if not p:
        return 0
    return p[0][1] if len(p) == 1 and p[0][0] == () else None


def _make(value, poly):
    c = _const(poly)
    return c if c is not None else Dim(value, poly)


def _value(x):
    return x.value if isinstance(x, Dim) else operator.index(x)


def _is_size(x):
    return isinstance(x, (Dim, int, np.integer)) and not isinstance(x, (bool, np.bool_))


def evaluate(poly, env):
    """The value of expression ``poly`` with symbols bound by ``env`` ({name: int or Dim})."""
    total = 0
    for mono, c in poly:
        term = c
        for atom in mono:
            term = term * (env[atom] if isinstance(atom, str) else _eval_atom(atom, env))
        total = total + term
    return total


def _eval_atom(atom, env):
    op, p, q = atom
    a, b = evaluate(p, env), evaluate(q, env)
    if op == "idx":
        return slice_bound(a, b)
    if op == "ridx":
        return reverse_slice_bound(a, b)
    return a // b if op == "//" else a % b if op == "%" else max(a, b)


def _atom_str(atom):
    if isinstance(atom, str):
        return atom
    op, p, q = atom
    if op in ("max", "idx", "ridx"):
        return f"{op}({_poly_str(p)}, {_poly_str(q)})"
    return f"({_paren(p)} {op} {_paren(q)})"


def _paren(p):
    s = _poly_str(p)
    return f"({s})" if len(p) > 1 else s


def _poly_str(p):
    if not p:
        return "0"
    parts = []
    for mono, c in p:
        factors = [_atom_str(a) for a in mono]
        if c != 1 or not factors:
            factors.insert(0, str(c))
        parts.append("*".join(factors))
    return " + ".join(parts).replace("+ -", "- ")


def symbols_of(poly):
    """The symbol names expression ``poly`` depends on."""
    out = set()
    for mono, _ in poly:
        for atom in mono:
            out.update((atom,) if isinstance(atom, str) else symbols_of(atom[1]) |
                       symbols_of(atom[2]))
    return out


class Dim:
    """A size left open by a shape-polymorphic trace: its value in this trace and an
    expression over the trace's symbols (one per ``None`` dimension of the input_signature).

    Internal: rules see Dims in `core.shape_of`; ``Tensor.shape`` shows None there, as in
    TensorFlow.

    >>> from finegrad._src.dims import Dim
    >>> n = Dim.symbol("n", 4)
    >>> m = (n * 3 + 2) // 1
    >>> m, m.value, (n * 3) // 3 == n, n + m
    (3*n + 2, 14, True, 4*n + 2)
    """

    __slots__ = ("value", "poly")

    def __init__(self, value, poly):
        self.value, self.poly = value, poly

    @staticmethod
    def symbol(name, value):
        return Dim(int(value), (((name,), 1),))

    def symbol_name(self):
        """The name, when this Dim is one symbol (not an expression of them); else None."""
        p = self.poly
        return p[0][0][0] if len(p) == 1 and p[0][1] == 1 and len(p[0][0]) == 1 and \
            isinstance(p[0][0][0], str) else None

    def evaluate(self, env):
        return evaluate(self.poly, env)

    def solve(self, size):
        """``(symbol, value)`` making this Dim ``size`` when it is ``a*symbol + c`` (e.g. a
        loop's outputs with a spare row, ``n + 1``); else None."""
        name = self.symbol_name()
        if name is not None:
            return name, size
        terms = dict(self.poly)
        c = terms.pop((), 0)
        if len(terms) != 1:
            return None
        (mono, a), = terms.items()
        if len(mono) != 1 or not isinstance(mono[0], str) or (size - c) % a:
            return None
        return mono[0], (size - c) // a

    def __add__(self, other):
        if not _is_size(other):
            return NotImplemented
        return _make(self.value + _value(other), _padd(self.poly, _poly_of(other)))

    __radd__ = __add__

    def __sub__(self, other):
        if not _is_size(other):
            return NotImplemented
        return _make(self.value - _value(other), _padd(self.poly, _poly_of(other), -1))

    def __rsub__(self, other):
        if not _is_size(other):
            return NotImplemented
        return _make(_value(other) - self.value, _padd(_poly_of(other), self.poly, -1))

    def __neg__(self):
        return _make(-self.value, _padd((), self.poly, -1))

    def __mul__(self, other):
        if not _is_size(other):
            return NotImplemented
        return _make(self.value * _value(other), _pmul(self.poly, _poly_of(other)))

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return _divide(self, other, "//") if _is_size(other) else NotImplemented

    def __rfloordiv__(self, other):
        return _divide(other, self, "//") if _is_size(other) else NotImplemented

    def __mod__(self, other):
        return _divide(self, other, "%") if _is_size(other) else NotImplemented

    def __rmod__(self, other):
        return _divide(other, self, "%") if _is_size(other) else NotImplemented

    def __eq__(self, other):
        if not _is_size(other):
            return NotImplemented
        q = _poly_of(other)
        if q == self.poly:
            return True
        if _known(self.poly, q, "==") is False:
            return False
        return _decide(self.poly, "==", q, self.value == _value(other))

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __lt__(self, other):
        return _compare(self, other, "<")

    def __le__(self, other):
        return _compare(self, other, "<=")

    def __gt__(self, other):
        return _compare(self, other, ">")

    def __ge__(self, other):
        return _compare(self, other, ">=")

    def __bool__(self):
        return self != 0

    def __index__(self):
        """Used as a Python int: decided at the trace's value, which the trace then keeps."""
        return _decide(self.poly, "==", _poly_of(self.value), True) and self.value

    __int__ = __index__

    def __hash__(self):
        return hash(self.poly)

    def __repr__(self):     # as graph listings show params: the expression
        return _poly_str(self.poly)

    __str__ = __repr__


_COMPARE = {"==": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt,
            ">=": operator.ge}


def _compare(a, b, op):
    if not _is_size(b):
        return NotImplemented
    q = _poly_of(b)
    if q == a.poly:
        return op in ("<=", ">=")
    known = _known(a.poly, q, op)
    if known is not None:
        return known
    return _decide(a.poly, op, q, _COMPARE[op](a.value, _value(b)))


def _atom_nonneg(atom):
    """Whether an atom is never negative: a symbol, an ``idx``, a max with a side that is
    never negative, ``//`` and ``%`` of expressions that are never negative."""
    if isinstance(atom, str) or atom[0] == "idx":
        return True
    if atom[0] == "ridx":   # -1 before the first entry
        return False
    op, p, q = atom
    ok = [_known(e, (), ">=") is True for e in (p, q)]
    return any(ok) if op == "max" else all(ok)


def _known(p, q, op):
    """``p op q`` when the expressions decide it at every size (symbols and the atoms over
    them that are never negative: `_atom_nonneg`), else None: e.g. ``n + 1 > n``,
    ``n >= 0``, ``n != -1``; ``(n - 3) // 2 >= 0`` is not decided."""
    d = _padd(p, q, -1)
    if not all(_atom_nonneg(a) for m, _ in d for a in m):
        return None
    c = next((k for m, k in d if m == ()), 0)
    rest = [k for m, k in d if m != ()]
    if all(k >= 0 for k in rest):     # p - q >= c
        if c > 0:
            return op in (">", ">=")
        if c == 0 and op in ("<", ">="):
            return op == ">="
    if all(k <= 0 for k in rest):     # p - q <= c
        if c < 0:
            return op in ("<", "<=")
        if c == 0 and op in (">", "<="):
            return op == "<="
    return None


def _divide(a, b, op):
    pa, pb = _poly_of(a), _poly_of(b)
    va, vb = _value(a), _value(b)
    value = va // vb if op == "//" else va % vb
    k = _const(pb)
    if k and all(c % k == 0 for _, c in pa):
        return _make(value, _norm({m: c // k for m, c in pa}) if op == "//" else ())
    if k == 1:
        return a if op == "//" else 0
    return _make(value, ((((op, pa, pb),), 1),))


def dim_max(a, b):
    """The larger of two sizes (ints or Dims), symbolic when they differ symbolically."""
    if not isinstance(a, Dim) and not isinstance(b, Dim):
        return max(a, b)
    pa, pb = _poly_of(a), _poly_of(b)
    if pa == pb:
        return a
    return _make(max(_value(a), _value(b)), (((("max",) + tuple(sorted((pa, pb), key=repr)),),
                                              1),))


def never_negative(x):
    """Whether size ``x`` (an int or a Dim) is >= 0 at every size, decided by its expression
    alone (no guard)."""
    return x >= 0 if not isinstance(x, Dim) else _known(x.poly, (), ">=") is True


def at_least_zero(x):
    """``max(x, 0)`` of a size (an int or a Dim): ``x`` itself when the expression is never
    negative, else symbolic (no guard)."""
    if not isinstance(x, Dim):
        return max(operator.index(x), 0)
    return x if never_negative(x) else dim_max(x, 0)


def size_min(a, b):
    """The smaller of two sizes, symbolic when they differ symbolically (no guard)."""
    if not isinstance(a, Dim) and not isinstance(b, Dim):
        return min(a, b)
    pa, pb = _poly_of(a), _poly_of(b)
    if pa == pb or _known(pa, pb, "<=") is True:
        return a
    if _known(pa, pb, ">=") is True:
        return b
    return a + b - dim_max(a, b)


def slice_bound(i, n):
    """Bound ``i`` of a slice with a positive step on an axis of size ``n``, as Python and
    TensorFlow normalise it: ``i + n`` when ``i`` is negative, then clamped to ``[0, n]``.
    Symbolic (an ``idx`` atom, never negative) when a Dim's sign or size is not known; no
    guard either way.

    >>> n = Dim.symbol("n", 4)
    >>> slice_bound(n - 1, n), slice_bound(-1, n), slice_bound(n - 6, n).value
    (idx(n - 1, n), max(n - 1, 0), 2)
    """
    if not isinstance(i, Dim) and not isinstance(n, Dim):
        i, n = operator.index(i), operator.index(n)
        return min(max(i + n if i < 0 else i, 0), n)
    pi, pn = _poly_of(i), _poly_of(n)
    if _known(pi, (), ">=") is True:
        return size_min(i, n)
    if _known(pi, (), "<") is True:
        return at_least_zero(i + n)
    return _make(slice_bound(_value(i), _value(n)), (((("idx", pi, pn),), 1),))


def reverse_slice_bound(i, n):
    """Bound ``i`` of a slice with a negative step on an axis of size ``n``: ``i + n`` when
    ``i`` is negative, then clamped to ``[-1, n - 1]`` (symbolic, an ``ridx`` atom that may
    be -1, when a Dim's sign is not known; no guard)."""
    if not isinstance(i, Dim) and not isinstance(n, Dim):
        i, n = operator.index(i), operator.index(n)
        return min(max(i + n if i < 0 else i, -1), n - 1)
    pi, pn = _poly_of(i), _poly_of(n)
    if _known(pi, (), "<") is True:   # wraps: i + n, at most n - 1; clamped below at -1
        return dim_max(i + n + 1, 0) - 1 if not never_negative(i + n) else i + n
    if _known(pi, (), ">=") is True:
        return size_min(i, n - 1)
    return _make(reverse_slice_bound(_value(i), _value(n)), (((("ridx", pi, pn),), 1),))


def _decide(lhs, op, rhs, result):
    """``result`` of comparing two expressions, recorded as a guard on the current trace."""
    tracer = _state.tracer
    if tracer is not None:
        tracer.add_guard(Guard(lhs, op, rhs, bool(result)))
    return result


class Guard:
    """A comparison of sizes a trace decided at its values: the graph serves only calls
    whose sizes give the same answer."""

    __slots__ = ("lhs", "op", "rhs", "result", "reason")

    def __init__(self, lhs, op, rhs, result, reason=None):
        self.lhs, self.op, self.rhs, self.result, self.reason = lhs, op, rhs, result, reason

    def holds(self, env):
        try:
            return _COMPARE[self.op](evaluate(self.lhs, env), evaluate(self.rhs, env)) == \
                self.result
        except KeyError:   # a symbol not bound (yet)
            return True

    def describe(self):
        if self.reason:
            return self.reason
        rel = self.op if self.result else {"==": "!=", "<": ">=", "<=": ">", ">": "<=",
                                            ">=": "<"}[self.op]
        return f"sizes decided while tracing ({_poly_str(self.lhs)} {rel} " \
               f"{_poly_str(self.rhs)})"


def is_symbolic(shape):
    """Whether a shape (a tuple of sizes) holds a Dim."""
    for d in shape:
        if type(d) is Dim:
            return True
    return False


def concrete(x):
    """``x`` (a size, or tuples, lists, dicts and slices of them) with every Dim replaced by
    its trace value, without recording a guard."""
    return resolve(x, None)


def resolve(x, env):
    """``x`` with every Dim replaced by its value under symbol bindings ``env`` (its trace
    value when ``env`` is None); containers are rebuilt only when they hold a Dim."""
    t = type(x)
    if t is Dim:
        return x.value if env is None else evaluate(x.poly, env)
    if t is tuple or t is list:
        if not any(_has_dim(v) for v in x):
            return x
        return t(resolve(v, env) for v in x)
    if t is dict:
        if not any(_has_dim(v) for v in x.values()):
            return x
        return {k: resolve(v, env) for k, v in x.items()}
    if t is slice:
        return slice(resolve(x.start, env), resolve(x.stop, env), resolve(x.step, env))
    resolver = getattr(x, "_resolve_dims", None)
    return x if resolver is None else resolver(lambda v: resolve(v, env))


def _has_dim(x):
    t = type(x)
    if t is Dim:
        return True
    if t is tuple or t is list:
        return any(_has_dim(v) for v in x)
    if t is dict:
        return any(_has_dim(v) for v in x.values())
    if t is slice:
        return _has_dim(x.start) or _has_dim(x.stop) or _has_dim(x.step)
    return hasattr(x, "_resolve_dims") and x._has_dims()


has_dims = _has_dim


# --- shape rules shared by many primitives --------------------------------------------------------

def same_size(a, b):
    """Whether sizes ``a`` and ``b`` are the same expression (no guard: a structural test)."""
    return _poly_of(a) == _poly_of(b)


def broadcast_shape(*shapes):
    """NumPy's broadcast of shapes whose sizes may be Dims: the shape rule of elementwise
    primitives. Static 1s broadcast; sizes that are the same expression match without a
    guard; two different expressions are compared at their values (a guard)."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        uniq = []
        for s in shapes:
            j = i - rank + len(s)
            if j < 0:
                continue
            e = s[j]
            if type(e) is not Dim and e == 1:
                continue
            if not any(same_size(e, u) for u in uniq):
                uniq.append(e)
        # different expressions: decided at the trace's sizes (equal ones first, so that
        # the guard holds at every size they share, 1 included), else a size 1 broadcasts
        if len(uniq) > 1 and not all(u == uniq[0] for u in uniq[1:]):
            uniq = [u for u in uniq if u != 1] or [1]
        out.append(uniq[0] if uniq else 1)
    return tuple(out)


def reduced_shape(shape, axis, keepdims):
    """The shape of a reduction of ``shape`` over the axes ``axis``."""
    if keepdims:
        return tuple(1 if i in axis else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axis)


def size_product(shape):
    """The number of elements of ``shape`` (an int, or a Dim)."""
    n = 1
    for d in shape:
        n = d * n
    return n


def size_quotient(numerator, denominator):
    """``size_product(numerator) // size_product(denominator)`` with the factors the two
    share (the same expression) cancelled first: a reshape's -1 (``(n, 3)`` to ``(n, -1)``
    is 3, also when n is 0, as TensorFlow gives it)."""
    rest = list(denominator)
    kept = []
    for d in numerator:
        match = next((i for i, e in enumerate(rest) if same_size(d, e)), None)
        if match is None:
            kept.append(d)
        else:
            del rest[match]
    return size_product(kept) // size_product(rest)


class reason:
    """Context manager: the guards recorded inside name ``text`` as their reason (the
    warning of a retrace says it)."""

    __slots__ = ("_text", "_root", "_saved")

    def __init__(self, text):
        self._text = text

    def __enter__(self):
        tr = _state.tracer
        self._root = None if tr is None else tr.root
        if self._root is not None:
            self._saved, self._root._rule = self._root._rule, self._text

    def __exit__(self, *exc):
        if self._root is not None:
            self._root._rule = self._saved


def pin(shape, why):
    """Keep the symbolic sizes of ``shape`` at their trace values (guards named ``why``):
    what a rule does when the graph it writes cannot follow a size. Returns the concrete
    shape."""
    with reason(why):
        return tuple(operator.index(d) for d in shape)


def clamp(i, n):
    """``i`` clamped to ``[0, n]`` (a slice bound), decided at the trace's sizes."""
    return 0 if i < 0 else n if i > n else i


def same_shape(a, b):
    """Whether two shapes are the same expressions (no guard)."""
    return len(a) == len(b) and all(same_size(x, y) for x, y in zip(a, b, strict=True))


def dims_in(x):
    """The Dims in ``x`` (params: sizes, tuples, lists, dicts and slices of them)."""
    t = type(x)
    if t is Dim:
        return [x]
    if t is tuple or t is list:
        return [d for v in x for d in dims_in(v)]
    if t is dict:
        return [d for v in x.values() for d in dims_in(v)]
    if t is slice:
        return dims_in((x.start, x.stop, x.step))
    return []
