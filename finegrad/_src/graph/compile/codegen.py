"""Compiled graphs as generated Python code: one function per graph, compiled once.

`generate` turns the `ir.Step` records of a compiled graph (after simplify, fusion and the
buffer plan) into the source of one Python function: straight-line code over local
variables, one statement per step, as torch.fx does. Kernels, constants and parameters that
are not plain literals are bound as keyword-only default arguments, so every lookup is a
local one (``LOAD_FAST``); scalar steps are NumPy-scalar arithmetic (``a * b``: the same ufunc
loop as ``np.multiply`` without its call overhead); a value's buffer goes back to its pool and
its local is deleted (``del``) right after its last use, and its name then holds a later value
(few locals: CPython gives a frame too big for its 16 KiB stack chunk a fresh mmap'ed chunk on
every call, which costs more than the steps of a scalar graph). The function's signature is
``(args, outer, pool, escaped)``: the argument values, the enclosing graph's values of a
sub-graph (a dict by slot), this thread's buffer pools (a dict by buffer key, one list each)
and a list that receives ``(array, key)`` for each output array the caller may give back.
"""
import keyword
import math
import operator

import numpy as np

#: scalar steps as infix arithmetic on NumPy scalars (`ir.SCALAR_OPS` maps ufuncs to these)
_INFIX = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/"}

_SIGNATURE = ("args", "outer", "pool", "escaped", "ndarray")


def _literal(v):
    """Source text that evaluates to ``v`` exactly (same type and value), else None."""
    t = type(v)
    if v is None or t in (bool, int, str):
        return repr(v)
    if t is float and math.isfinite(v):
        return repr(v)
    if t is tuple:
        parts = [_literal(x) for x in v]
        if any(p is None for p in parts):
            return None
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return None


def _identifier(hint):
    s = "".join(c if c.isalnum() or c == "_" else "_" for c in str(hint)) or "v"
    if s[0].isdigit():
        s = "_" + s
    return s + "_" if keyword.iskeyword(s) else s


class _Names:
    """The generated function's names: values (by slot index), pools and bound objects."""

    def __init__(self):
        self.taken = set(_SIGNATURE)
        self.bound = {}          # name -> the object it is bound to
        self._by_id = {}
        self.value = {}          # slot index -> the name (or literal) holding its value
        self.locals = set()      # the names of values held in locals (deleted when dead)
        self.spare = []          # names of deleted locals, free for later values

    def local(self, i, hint=None):
        """Name the local that holds the value of slot index ``i``: the name of a value
        deleted earlier when there is one (few locals keep the frame small: CPython puts a
        frame that does not fit its 16 KiB stack chunk in a fresh mmap'ed chunk per call)."""
        if hint is None and self.spare:
            name = self.spare.pop()
        else:
            name = self.fresh(hint or f"v{len(self.locals)}")
        self.value[i] = name
        self.locals.add(name)
        return name

    def drop(self, name):
        """``name``'s value was deleted: the name may hold a later value."""
        self.spare.append(name)

    def fresh(self, hint):
        base = _identifier(hint)
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}_{k}", k + 1
        self.taken.add(name)
        return name

    def bind(self, obj, hint):
        """The name of a default argument holding ``obj`` (one per object)."""
        name = self._by_id.get(id(obj))
        if name is None:
            name = self.fresh(hint)
            self.bound[name] = obj
            self._by_id[id(obj)] = name
        return name


class _Emitter:
    """Builds the function body, one step at a time (see `generate`)."""

    def __init__(self, names, pool_keys, wrap):
        self.names, self.wrap, self.lines = names, wrap, []
        self.pools = {}          # buffer key -> the local holding its pool list
        self.pool_keys = pool_keys

    def pool(self, key):
        """The local holding the pool list of buffer ``key`` (loaded once, at the top)."""
        if key not in self.pools:
            self.pools[key] = self.names.fresh(f"pool{len(self.pools)}")
        return self.pools[key]

    def fn(self, step):
        fn = step.fn if self.wrap is None else self.wrap(step.fn, step)
        return self.names.bind(fn, step.name)

    def call(self, step, extra=""):
        """``fn(ins..., params..., extra)`` as source text."""
        v = self.names.value
        parts = [v[i] for i in step.ins]
        params = step.params or {}
        if all(k.isidentifier() and not keyword.iskeyword(k) for k in params):
            for k, p in params.items():
                lit = _literal(p)
                parts.append(f"{k}={lit if lit is not None else self.names.bind(p, k)}")
        else:
            parts.append("**" + self.names.bind(dict(params), "params"))
        if extra:
            parts.append(extra)
        return f"{self.fn(step)}({', '.join(parts)})"

    def define(self, step):
        return [self.names.local(i) for i in step.outs]

    def step(self, step):
        emit = getattr(self, "_" + step.kind)
        emit(step)
        self._release(step)

    def _call(self, step):
        (out,) = self.define(step)
        self.lines.append(f"{out} = {self.call(step)}")

    def _scalar(self, step):
        ins = [self.names.value[i] for i in step.ins]
        if step.expr is not None and self.wrap is None and \
                all(name in self.names.locals or name in self.names.bound for name in ins):
            # the kernel's arithmetic spelled out on NumPy scalars (not on Python literals,
            # whose arithmetic among themselves would not be NumPy's)
            (out,) = self.define(step)
            self.lines.append(f"{out} = {step.expr.format(*ins)}")
            return
        op = _INFIX.get(step.fn)
        if op is None or self.wrap is not None or len(ins) != 2:
            return self._call(step)
        (out,) = self.define(step)
        self.lines.append(f"{out} = {ins[0]} {op} {ins[1]}")

    def _inplace(self, step):
        target = self.names.value[step.key]
        (out,) = self.define(step)
        self.lines.append(f"{out} = {self.call(step, f'out={target}')}")

    def _call_into_pool(self, step):
        p = self.pool(step.key)
        (out,) = self.define(step)
        plain = self.call(step)
        self.lines.append(f"{out} = {self.call(step, f'out={p}.pop()')} if {p} else {plain}")

    def _multi(self, step):
        outs = self.define(step)
        call = self.call(step)
        if not outs:
            self.lines.append(call)
        else:
            self.lines.append(f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = {call}")

    def _fused(self, step):
        bufs = ", ".join(f"{p}.pop() if {p} else None" for p in map(self.pool, step.key))
        outs = self.define(step)
        call = self.call(step, f"outs=[{bufs}]")
        self.lines.append(f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = {call}")

    def _release(self, step):
        """Recycle the buffers that die here, then drop the locals."""
        v = self.names.value
        for i in step.recycle:
            self.lines.append(f"if type({v[i]}) is ndarray: {self.pool(self.pool_keys[i])}"
                              f".append({v[i]})")
        dead = list(dict.fromkeys(v[i] for i in step.free if v[i] in self.names.locals))
        if dead:
            self.lines.append(f"del {', '.join(dead)}")
            for name in dead:
                self.names.drop(name)


def _header(c, names, em):
    """The argument unpacking and pool loads that open the function."""
    lines = []
    arg_names = []
    for k, i in enumerate(c.arg_idx):
        hint = c.graph.arg_names[k] if k < len(c.graph.arg_names) else f"arg{k}"
        arg_names.append(names.local(i, hint))
    if arg_names:
        lines.append(f"{', '.join(arg_names)}{',' if len(arg_names) == 1 else ''} = args")
    for s, i in c.outer_idx.items():
        names.local(i, f"outer{s}")
        lines.append(f"{names.value[i]} = outer[{s}]")
    for i, v in c.const_items:
        lit = _literal(v)
        names.value[i] = lit if lit is not None else names.bind(v, f"c{i}")
    return lines


def _footer(c, names, em):
    v = names.value
    lines = []
    for i, key in c.escape_keys:
        lines.append(f"if type({v[i]}) is ndarray: escaped.append(({v[i]}, "
                     f"{names.bind(key, 'key')}))")
    leaves = ", ".join("None" if i is None else v[i] for i in c.out_leaves)
    lines.append(f"return [{leaves}]")
    return lines


def _signature(name, bound):
    """``def name(args, outer, pool, escaped, *, ndarray=ndarray, k=k, ...):``, wrapped."""
    parts = ["args", "outer", "pool", "escaped", "*", "ndarray=ndarray"]
    parts += [f"{k}={k}" for k in bound]
    lines, line = [], f"def {name}("
    for k, p in enumerate(parts):
        piece = p + (", " if k < len(parts) - 1 else "):")
        if len(line) + len(piece) > 99:
            lines.append(line.rstrip())
            line = "        "
        line += piece
    lines.append(line)
    return lines


def generate(c, steps, wrap=None):
    """(source, function) for `executor.Compiled` ``c`` running ``steps``; ``wrap(fn, step)``, when
    given, replaces each step's callable (scalar steps are then calls too: for profiling)."""
    names = _Names()
    em = _Emitter(names, c.pool_keys, wrap)
    head = _header(c, names, em)
    for step in steps:
        em.step(step)
    foot = _footer(c, names, em)
    pools = []
    for key, p in em.pools.items():
        pools.append(f"{p} = pool[{names.bind(key, 'key')}]")
    fname = _identifier(c.graph.name)
    body = head + pools + em.lines + foot
    source = "\n".join(_signature(fname, names.bound) + ["    " + ln for ln in body]) + "\n"
    namespace = dict(names.bound, ndarray=np.ndarray)
    code = compile(source, f"<finegrad graph {c.graph.name}>", "exec")
    exec(code, namespace)  # our own generated source, from the graph's steps
    return source, namespace[fname], [key for key in em.pools]
