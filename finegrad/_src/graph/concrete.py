"""ConcreteFunction: one traced graph, run compiled or replayed through `bind`.

A call with no recorder active runs the compiled graph (no Python per op). A call under a
tape or an accumulator replays the graph's nodes through `bind`, so it is differentiable like
eager code, to any order and in forward mode; a `custom_gradient` node's rule is then traced,
once, into a sub-graph of the cotangents and the values it captured, and evaluated with the
call's values. A polymorphic graph (one for every size of its open axes) runs each new size
once op by op and then keeps a compiled form for it.
"""
import collections

import numpy as np

from finegrad._src import core, nest
from finegrad._src.ad import custom
from finegrad._src.graph import ir
from finegrad._src.graph.builder import GraphBuilder
from finegrad._src.graph.ir import OutSlot, read_variable_p, assign_variable_p
from finegrad._src.ops.array import convert_to_tensor
from finegrad._src.tensor import Tensor


class ConcreteFunction:
    """One traced graph. Calling it runs the graph; ``.graph`` prints as a listing."""

    def __init__(self, graph, builder, is_tensor):
        self.graph = graph
        self._builder = builder      # keeps trace-time tensors alive for custom rules
        self._is_tensor = is_tensor
        self._compiled = None
        self.polymorphic = False   # one graph for every size of its dynamic axes
        self.poly_failed = None    # why not, when the signature asked for it
        self._sized = collections.OrderedDict()  # argument shapes -> compiled graph (LRU)

    @property
    def structured_outputs(self):
        return self.graph.outputs

    @property
    def compiled_source(self):
        """The Python source of the function that runs this graph when it is called.

        A compiled graph is one generated function: straight-line code over locals, each
        step a NumPy call (``out=`` a dying input's buffer or one recycled from this thread's
        pool of buffers), NumPy-scalar arithmetic on scalars, and ``del`` where a value dies
        (its name may then hold a later value).
        Kernels and constants (``c2`` is the ``2.``) are bound as default arguments.

        >>> import finegrad as tf
        >>> @tf.function
        ... def f(x):
        ...     return tf.reduce_sum(tf.exp(x) * 2.)
        >>> print(f.get_concrete_function(tf.constant([0., 1.])).compiled_source)
        def f(args, outer, pool, escaped, *, ndarray=ndarray, c2=c2, exp=exp, multiply=multiply,
                reduce_sum=reduce_sum, key=key):
            x, = args
            pool0 = pool[key]
            v1 = exp(x, out=pool0.pop()) if pool0 else exp(x)
            v2 = multiply(v1, c2, out=v1)
            del v1
            v1 = reduce_sum(v2, axis=(0,), keepdims=False)
            if type(v2) is ndarray: pool0.append(v2)
            del v2
            return [v1]
        <BLANKLINE>
        """
        if self._compiled is None:
            self._compiled = self.graph.compiled()
        return self._compiled.source

    def __call__(self, *args, **kwargs):
        leaves = [x for x, is_t in zip(nest.flatten((args, kwargs)), self._is_tensor,
                                       strict=True) if is_t]
        tensors = [x if isinstance(x, Tensor) else convert_to_tensor(x) for x in leaves]
        if core.active_recorders() or core.current_tracer() is not None:
            values = replay(self.graph, tensors, self._builder)
        else:
            vals = [t._value for t in tensors]
            compiled = self._compiled_for(vals)
            if compiled is None:    # a new size of a dynamic axis: run it once, op by op
                values = self._specialize(vals)
            else:
                values = [None if v is None else Tensor(v) for v in compiled.run(vals)]
        it = iter(values)
        return nest.map_structure(lambda o: next(it) if isinstance(o, OutSlot) else
                                  (next(it), o)[1], self.graph.outputs)

    #: how many sizes of a polymorphic graph keep a compiled form
    MAX_SIZES = 16

    def _compiled_for(self, vals):
        g = self.graph
        if not self.polymorphic or all(np.shape(v) == g.meta[s][0]
                                       for s, v in zip(g.args, vals, strict=True)):
            if self._compiled is None:
                self._compiled = g.compiled()
            return self._compiled
        key = tuple(np.shape(v) for v in vals)
        compiled = self._sized.get(key)
        if compiled is not None:
            self._sized.move_to_end(key)
        return compiled

    def _specialize(self, vals):
        """Run the graph on arguments of new sizes once, op by op, and keep a compiled form
        of it for those sizes (the compiler plans buffers and fusion per shape)."""
        outs, sized = ir.specialize(self.graph, vals)
        self._sized[tuple(np.shape(v) for v in vals)] = sized.compiled()
        if len(self._sized) > self.MAX_SIZES:
            self._sized.popitem(last=False)
        return [None if v is None else Tensor(v) for v in outs]


def replay(graph, tensors, builder, outer=None):
    """Run ``graph``'s nodes through `bind`, so active recorders see them (differentiable)."""
    env = dict(zip(graph.args, tensors, strict=True))
    if outer:
        env.update(outer)
    for s, v in graph.consts.items():
        # the captured tensor itself, so an outer tape or trace sees the connection
        env[s] = builder.captured(s) if builder is not None else Tensor(v)
    for n in graph.nodes:
        if n.prim is read_variable_p:
            env[n.outs[0]] = n.params["var"].read_value()
            continue
        if n.prim is assign_variable_p:
            p = n.params
            getattr(p["var"], p["mode"])(env[n.ins[0]])
            continue
        ins = [env[s] for s in n.ins]
        params = n.params
        if n.prim is custom.custom_p:
            params = {"rule": _ReplayRule(n, builder, env, params["rule"])}
        out = core.bind(n.prim, *ins, **params)
        outs = out if n.prim.multiple_results else (out,)
        for s, o in zip(n.outs, outs, strict=True):
            env[s] = o
    # one value per output leaf (None where the function returned something else), as the
    # compiled form gives them
    return [env[o.slot] if isinstance(o, OutSlot) else None for o in nest.flatten(graph.outputs)]


class _ReplayRule:
    """A traced custom_gradient rule, evaluated with the values of one replayed call."""

    def __init__(self, node, builder, env, rule):
        self.node, self.builder, self.env, self.rule = node, builder, env, rule
        self.layout, self.name, self.jvp = rule.layout, rule.name, None

    def __call__(self, cts):
        if self.node.vjp_graph is None:
            self.node.vjp_graph = _trace_rule(self.rule, self.node, self.builder)
        g, sub, outer = self.node.vjp_graph
        if sub.poly_failed is not None and any(
                c._value.shape != m[0] for c, m in zip(cts, self.node.meta, strict=True)):
            raise ValueError(f"finegrad.function: the gradient of custom_gradient function "
                             f"{self.name} was traced for the sizes of the first call and "
                             f"cannot serve other sizes of the input_signature's None "
                             f"dimensions ({sub.poly_failed}); write its grad_fn with ops "
                             f"that keep those sizes open (e.g. -1 in reshape), or leave the "
                             f"dimension fixed in the input_signature")
        return replay(g, list(cts), sub, outer={s: self.env[p] for s, p in outer.items()})


def _trace_rule(rule, node, builder):
    """Trace a custom_gradient rule into a graph of the cotangents and the values it captured
    from the enclosing graph. Returns (graph, its builder, {sub-graph slot: enclosing slot})."""
    sub = GraphBuilder(f"grad_of_{rule.name}", parent=builder)
    cts = [Tensor(np.zeros(shape, dtype) if shape else np.dtype(dtype).type(0))
           for shape, dtype in node.meta]
    with core.tracing(sub):
        for c, s in zip(cts, node.outs, strict=True):
            sub.add_arg(c, builder.dyn.get(s, ()))
        res = rule(cts)
    g = sub.finish(list(res), [f"ct{i}" for i in range(len(cts))])
    outer = {sub.slots[k]: builder.slots[k] for k, t in sub.alive.items()
             if sub.slots[k] in sub.outer}
    return g, sub, outer
