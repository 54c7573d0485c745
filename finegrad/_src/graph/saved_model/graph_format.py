"""Traced graphs as JSON plus arrays: what a finegrad SavedModel stores for each function.

A graph becomes ``{"name", "args", "arg_names", "consts", "nodes", "outputs", "meta", "outer",
"sym", "dyn", "guards"}``. A node is ``{"prim": name, "ins", "outs", "meta", "params"}``; the
primitive is found again by name (`core.primitives`). Parameter values are written as JSON
with tagged objects for what JSON lacks: tuples ``{"t": [...]}``, dicts ``{"d": [[k, v]]}``,
dtypes, NumPy arrays (``{"a": key}``: the array is stored beside the JSON in a ``.npz``),
symbolic sizes ``{"dim": [value, expression]}``, slices, and variables ``{"var": key}`` (the
variable's checkpoint key). A `custom_gradient` node keeps its layout and its rule *traced*
into a graph of the cotangents (``"vjp"``, encoded the same way), so the loaded function
differentiates with the rule without running the user's Python. Control-flow nodes keep
their sub-graphs (``{"sub": [graph, outer index]}``), encoded the same way. A parameter of any
other kind (a Python callable: ``numpy_function``) cannot be stored and is a `ValueError`
naming the op at save time.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src import core, dtypes
from finegrad._src.ad import custom
from finegrad._src.dims import Dim, Guard
from finegrad._src.graph.ir import Graph, Node, OutSlot
from finegrad._src.graph.tracing.concrete import _trace_rule
from finegrad._src.graph.tracing.subgraph import SubGraph
from finegrad._src.variables import Variable

__all__ = ["GraphEncoder", "decode_graph"]


def _freeze(x: Any) -> Any:
    """JSON lists back to the tuples a symbolic expression is made of."""
    return tuple(_freeze(v) for v in x) if isinstance(x, list) else x


class GraphEncoder:
    """Encodes graphs into JSON-ready dicts, collecting their arrays in ``arrays`` and asking
    ``variable_key(var)`` for the key of each variable a graph reads or assigns.

    ``custom_gradients``: keep each custom_gradient node and its traced rule (True), or drop
    the node so that gradients go through the recorded forward computation (False).
    """

    def __init__(self, variable_key: Any, custom_gradients: bool = True, where: str = "") -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.variable_key = variable_key
        self.custom_gradients = custom_gradients
        self.where = where
        self._alias: dict[int, int] = {}   # the graph being encoded: dropped nodes' outputs

    def _array(self, value: Any) -> dict:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.asarray(value)
        return {"a": key}

    def value(self, v: Any, op: str = "") -> Any:   # noqa: C901 (one case per kind of value)
        """The JSON form of one parameter value."""
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, (np.bool_, np.integer, np.floating)):
            return {"s": [v.item(), v.dtype.str]}
        if isinstance(v, tuple):
            return {"t": [self.value(x, op) for x in v]}
        if isinstance(v, list):
            return [self.value(x, op) for x in v]
        if isinstance(v, dict):
            return {"d": [[self.value(k, op), self.value(x, op)] for k, x in v.items()]}
        if isinstance(v, np.dtype):
            return {"np_dtype": v.str}
        if isinstance(v, dtypes.DType):
            return {"dtype": v.name}
        if isinstance(v, np.ndarray):
            return self._array(v)
        if isinstance(v, Dim):
            return {"dim": [v.value, v.poly]}
        if isinstance(v, slice):
            return {"slice": [self.value(v.start), self.value(v.stop), self.value(v.step)]}
        if v is Ellipsis:
            return {"ellipsis": True}
        if isinstance(v, Variable):
            return {"var": self.variable_key(v)}
        if isinstance(v, OutSlot):
            return {"out": self._alias.get(v.slot, v.slot)}
        if isinstance(v, SubGraph):   # a cond branch, a loop's condition or body
            return {"sub": [self.graph(v.graph, v.builder),
                            [[s, i] for s, i in v.outer_index.items()]]}
        raise ValueError(f"saved_model.save: {self.where} has an op `{op}` whose parameter "
                         f"{v!r} ({type(v).__name__}) cannot be stored: a SavedModel holds "
                         f"graphs of finegrad ops only (no Python code such as a "
                         f"numpy_function or py_function body), and loading runs no user "
                         f"Python")

    def graph(self, g: Graph, builder: Any = None) -> dict:
        """The JSON form of graph ``g`` (``builder``: the one that traced it, needed to trace
        the rules of its custom_gradient nodes)."""
        saved, alias = self._alias, {}   # type: ignore[var-annotated]
        nodes = []
        for n in g.nodes:
            if n.prim is custom.custom_p and not self.custom_gradients:
                passed = n.params["rule"].layout.outputs(n.ins)   # f's own outputs
                alias.update(zip(n.outs, (alias.get(s, s) for s in passed), strict=True))
                continue
            nodes.append(self._node(n, builder, alias))
        self._alias = alias
        try:
            out = self.value(g.outputs)
        finally:
            self._alias = saved
        return {"name": g.name, "args": list(g.args), "arg_names": list(g.arg_names),
                "consts": [[s, self._array(v)] for s, v in g.consts.items()],
                "nodes": nodes, "outputs": out, "outer": list(g.outer),
                "meta": [[s, list(m[0]), np.dtype(m[1]).str] for s, m in g.meta.items()],
                "sym": [[s, self.value(tuple(shape))] for s, shape in g.sym.items()],
                "dyn": [[s, sorted(axes)] for s, axes in g.dyn.items()],
                "guards": [[x.lhs, x.op, x.rhs, x.result, x.reason] for x in g.guards]}

    def _node(self, n: Node, builder: Any, alias: dict) -> dict:
        op = n.prim.name
        params = dict(n.params)
        entry: dict[str, Any] = {"prim": op, "ins": [alias.get(s, s) for s in n.ins],
                                 "outs": list(n.outs),
                                 "meta": [[list(m[0]), np.dtype(m[1]).str] for m in n.meta]}
        if n.prim is custom.custom_p:
            rule = params.pop("rule")
            vjp = n.vjp_graph
            if vjp is None:
                if builder is None:
                    raise ValueError(f"saved_model.save: {self.where}: the gradient of "
                                     f"custom_gradient function {rule.name} cannot be traced")
                with builder.revived():
                    vjp = n.vjp_graph = _trace_rule(rule, n, builder)
            g, sub, outer, guards = vjp
            layout = rule.layout
            entry["custom"] = {"name": rule.name, "layout": [layout.n_args, layout.n_vars,
                                                              layout.n_outs],
                               "vjp": self.graph(g, sub),
                               "outer": [[a, b] for a, b in outer.items()],
                               "guards": [[x.lhs, x.op, x.rhs, x.result, x.reason]
                                          for x in guards]}
        entry["params"] = [[k, self.value(v, op)] for k, v in params.items()]
        return entry


class LoadedRule:
    """The rule of a loaded custom_gradient node: its layout and name. Its traced gradient
    graph is on the node (``vjp_graph``), where a replay finds it (`concrete._ReplayRule`)."""

    cg = None
    jvp = None

    def __init__(self, name: str, layout: Any) -> None:
        self.name, self.layout = name, layout

    def __call__(self, cts: Any) -> Any:
        raise ValueError(f"the loaded custom_gradient function {self.name} differentiates "
                         f"through its saved gradient graph (replayed under a tape)")

    def __repr__(self) -> str:
        return f"<loaded custom gradient of {self.name}>"


class GraphDecoder:
    """Decodes what `GraphEncoder` wrote: ``arrays`` its arrays, ``variables`` {key: var}."""

    def __init__(self, arrays: Any, variables: dict) -> None:
        self.arrays, self.variables = arrays, variables
        self.prims = core.primitives()

    def value(self, v: Any) -> Any:   # noqa: C901 (one case per tag)
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if not isinstance(v, dict):
            return v
        tag: str = next(iter(v)) if len(v) == 1 else "?"
        x: Any = v.get(tag)
        if tag == "t":
            return tuple(self.value(i) for i in x)
        if tag == "d":
            return {self.value(k): self.value(i) for k, i in x}
        if tag == "s":
            return np.dtype(x[1]).type(x[0])
        if tag == "np_dtype":
            return np.dtype(x)
        if tag == "dtype":
            return dtypes.as_dtype(x)
        if tag == "a":
            return np.asarray(self.arrays[x])
        if tag == "dim":
            return Dim(x[0], _freeze(x[1]))
        if tag == "slice":
            return slice(*(self.value(i) for i in x))
        if tag == "ellipsis":
            return Ellipsis
        if tag == "var":
            return self.variables[x]
        if tag == "out":
            return OutSlot(x)
        if tag == "sub":
            return SubGraph(self.graph(x[0]), None, {s: i for s, i in x[1]})
        return {k: self.value(i) for k, i in v.items()}

    def graph(self, d: dict) -> Graph:
        """The Graph `GraphEncoder.graph` described."""
        meta = {s: (tuple(shape), np.dtype(dt)) for s, shape, dt in d["meta"]}
        consts = {s: self.value(a) for s, a in d["consts"]}
        nodes = [self._node(n) for n in d["nodes"]]
        outputs = self.value(d["outputs"])
        g = Graph(d["name"], list(d["args"]), list(d["arg_names"]), consts, nodes, outputs,
                  meta, outer=tuple(d["outer"]))
        g.sym = {s: self.value(shape) for s, shape in d["sym"]}
        g.dyn = {s: frozenset(axes) for s, axes in d["dyn"]}
        g.guards = [_guard(x) for x in d["guards"]]
        return g

    def _node(self, d: dict) -> Node:
        prim = self.prims.get(d["prim"])
        if prim is None:
            raise ValueError(f"saved_model.load: the graph uses an op `{d['prim']}` this "
                             f"version of finegrad does not have")
        params = {k: self.value(v) for k, v in d["params"]}
        node = Node(prim, list(d["ins"]), params, list(d["outs"]),
                    [(tuple(shape), np.dtype(dt)) for shape, dt in d["meta"]])
        if "custom" in d:
            c = d["custom"]
            params["rule"] = LoadedRule(c["name"], custom.CustomLayout(*c["layout"]))
            node.vjp_graph = (self.graph(c["vjp"]), None, {a: b for a, b in c["outer"]},
                              [_guard(x) for x in c["guards"]])
        return node


def _guard(x: list) -> Guard:
    return Guard(_freeze(x[0]), x[1], _freeze(x[2]), x[3], x[4])


def decode_graph(d: dict, arrays: Any, variables: dict) -> Graph:
    """The Graph of `GraphEncoder.graph`'s dict (``variables``: {key: Variable})."""
    return GraphDecoder(arrays, variables).graph(d)
