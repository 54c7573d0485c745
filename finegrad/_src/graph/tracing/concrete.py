"""ConcreteFunction: one traced graph, run compiled or replayed through `bind`.

A call with no recorder active runs the compiled graph (no Python per op). A call under a
tape or an accumulator replays the graph's nodes through `bind`, so it is differentiable like
eager code, to any order and in forward mode; a `custom_gradient` node's rule is then traced,
once, into a sub-graph of the cotangents and the values it captured, and evaluated with the
call's values. A polymorphic graph (one for every size of its open axes) runs each new size
once op by op and then keeps a compiled form for it.
"""
import collections
import contextlib
import operator
import warnings

import numpy as np

from finegrad._src import core, nest
from finegrad._src.ad import custom
from finegrad._src.graph.compile import symbolic
from finegrad._src.graph.tracing.builder import GraphBuilder
from finegrad._src.graph.ir import OutSlot, current_shadow, read_variable_p, assign_variable_p
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.tensor import Tensor
from finegrad._src.graph.compile import pipeline
from finegrad._src.graph.xla import executable as xla


class ConcreteFunction:
    """One traced graph. Calling it runs the graph; ``.graph`` prints as a listing."""

    def __init__(self, graph, builder, is_tensor):
        self.graph = graph
        self._builder = builder      # keeps trace-time tensors alive for custom rules
        self._is_tensor = is_tensor
        self._compiled = None
        self._assigned = None   # the variables it assigns (locked while it runs)
        self.polymorphic = False   # one graph for every size of its symbolic axes (guarded)
        self._sized = collections.OrderedDict()  # argument shapes -> compiled graph (LRU)
        self._broken = {}   # argument shapes -> the guard they break
        self.jit_compile = False   # True: runs as XLA executables (graph/xla/), if JAX is here
        self._xla = None           # its `xla.XlaFunction`, made at the first compiled call
        self._xla_refused = None   # why XLA cannot run it ("": it can), once asked
        self._all_tensors = all(is_tensor)   # every argument leaf is a tensor
        self._pack = None   # values of the output leaves -> the outputs' structure

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

        Compiled with ``jit_compile=True`` (and JAX installed): the XLA program for the
        traced argument shapes instead, as a jaxpr (`compiled_hlo` gives the StableHLO),
        after a header naming the device, the variables it reads and assigns, and the nodes
        that run as host callbacks (their primitive has no lowering), or ``host callbacks:
        none``.

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
        if self._uses_xla():
            return self._xla_function().listing(self._traced_specs())
        if self._compiled is None:
            self._compiled = pipeline.compiled(self.graph)
        return self._compiled.source

    def _uses_xla(self):
        if not self.jit_compile:
            return False
        why = self._xla_refused   # (decided once, when JAX is here)
        if why is None:
            if not xla.jax_available():
                return False
            why = self._xla_refused = xla.refusal(self.graph) or ""
            if why:
                warnings.warn(f"finegrad.function(jit_compile=True): {self.graph.name} runs on "
                              f"finegrad's executor, not XLA: {why}", UserWarning, stacklevel=5)
        return not why

    def _xla_function(self):
        if self._xla is None:
            self._xla = xla.XlaFunction(self.graph)
        return self._xla

    def _traced_specs(self):
        return [self.graph.meta[s] for s in self.graph.args]

    def compiled_hlo(self):
        """With ``jit_compile=True`` (and JAX installed), the StableHLO text of the XLA
        executable for the traced argument shapes, after the same header as
        `compiled_source` (the device, and the nodes that run as host callbacks)."""
        if not self._uses_xla():
            raise ValueError("finegrad.ConcreteFunction.compiled_hlo: the function is not "
                             "compiled with XLA (finegrad.function(jit_compile=True), with "
                             "JAX installed)")
        return self._xla_function().listing(self._traced_specs(), hlo=True)

    def _tensors(self, args, kwargs):
        if not kwargs and self._all_tensors and len(args) == len(self._is_tensor) and all(
                type(a) is Tensor for a in args):   # (the common case: flat already)
            return args
        leaves = [x for x, is_t in zip(nest.flatten((args, kwargs)), self._is_tensor,
                                       strict=True) if is_t]
        return [x if isinstance(x, Tensor) else convert_to_tensor(x) for x in leaves]

    def __call__(self, *args, **kwargs):
        assigned = self._assigned
        if assigned is None:
            assigned = self._assigned = _assigned_variables(self.graph)
        if not assigned:
            return self._call(args, kwargs)
        if len(assigned) == 1:
            with assigned[0]._lock:
                return self._call(args, kwargs)
        with contextlib.ExitStack() as locks:   # a call's updates are atomic per variable
            for var in assigned:                # (in one order everywhere: no deadlock)
                locks.enter_context(var._lock)
            return self._call(args, kwargs)

    def _call(self, args, kwargs):
        tensors = self._tensors(args, kwargs)
        first = None
        recording = core.active_recorders() or core.current_tracer() is not None
        if self.jit_compile and not recording and (self._xla_refused == "" or
                                                   self._uses_xla()):
            return self._structured(self._call_xla(tensors))
        if self.polymorphic and recording:   # the replay runs it: the guards only (running
            self.check(args, kwargs)         # a new size here too would assign twice)
            compiled = None
        elif self.polymorphic:   # resolves the graph for these sizes (GuardFailed if it can't)
            compiled, first = self._sized_for([t._value for t in tensors])
        else:
            compiled = self._compiled
        if recording:
            values = replay(self.graph, tensors, self._builder)
        elif first is not None:   # the sizes' first call: already run, op by op
            values = [None if v is None else Tensor(v) for v in first]
        else:
            if compiled is None:
                compiled = self._compiled = pipeline.compiled(self.graph)
            values = [None if v is None else Tensor(v)
                      for v in compiled.run([t._value for t in tensors])]
        return self._structured(values)

    def _structured(self, values):
        pack = self._pack
        if pack is None:
            pack = self._pack = _packer(self.graph.outputs)
        return pack(values)

    def _call_xla(self, tensors):
        """The outputs of the XLA executable for these arguments (graph/xla/)."""
        vals = [t._value for t in tensors]
        outs = self.run_xla(vals) if self.polymorphic or self._xla is None else \
            self._xla.run(vals)
        return [None if v is None else Tensor(v) for v in outs]

    def run_xla(self, vals):
        """The output values (NumPy; None for non-tensor leaves) of the XLA executable for
        argument values ``vals``, after this graph's guards on their sizes."""
        if self.polymorphic:
            key = tuple(np.shape(v) for v in vals)
            self._check_guards(key, symbolic.bindings(self.graph, vals))
        return self._xla_function().run(vals)

    def ranks_match(self, args, kwargs):
        """Whether the tensor arguments have the ranks this graph was traced for."""
        g = self.graph
        return all(np.ndim(t._value) == len(g.meta[s][0])
                   for s, t in zip(g.args, self._tensors(args, kwargs), strict=True))

    def check(self, args, kwargs):
        """Raise `GuardFailed` when this polymorphic graph cannot serve these arguments'
        sizes, as far as their sizes tell without running it (guards on sizes that only a
        run gives, of ops with an out-axes rule and no shape rule, are checked by the run)."""
        if self.polymorphic:
            vals = [t._value for t in self._tensors(args, kwargs)]
            key = tuple(np.shape(v) for v in vals)
            if key not in self._sized:
                self._check_guards(key, symbolic.bindings(self.graph, vals))

    def _check_guards(self, key, binding):
        why = self._broken.get(key)
        if why is None:
            guard = symbolic.broken_guard(self.graph, binding)
            if guard is None:
                return
            why = self._broken[key] = guard.describe()
            if len(self._broken) > self.MAX_SIZES:
                self._broken.pop(next(iter(self._broken)))
        raise symbolic.GuardFailed(why)

    #: how many sizes of a polymorphic graph keep a compiled form
    MAX_SIZES = 16

    def _sized_for(self, vals):
        """(The compiled form for the sizes of ``vals``, and the outputs when this call made
        it, else None). A new size checks the trace's guards, runs the graph once op by op
        with its symbolic params resolved, and keeps a compiled form (the compiler plans
        buffers and fusion per shape)."""
        key = tuple(np.shape(v) for v in vals)
        compiled = self._sized.get(key)
        if compiled is not None:
            self._sized.move_to_end(key)
            return compiled, None
        self._check_guards(key, symbolic.bindings(self.graph, vals))
        outs, sized, binding = symbolic.specialize(self.graph, vals)
        self._check_guards(key, binding)   # those on sizes the run gave
        self._sized[key] = pipeline.compiled(sized)
        if len(self._sized) > self.MAX_SIZES:
            self._sized.popitem(last=False)
        return self._sized[key], outs


def _packer(outputs):
    """A function of the values of ``outputs``' leaves (one per leaf, None for those that are
    not tensors) that rebuilds the function's outputs; a plain one for a tensor or a flat
    tuple or list of tensors."""
    if isinstance(outputs, OutSlot):
        return operator.itemgetter(0)
    if type(outputs) in (tuple, list) and all(isinstance(o, OutSlot) for o in outputs):
        return type(outputs)

    def pack(values):
        it = iter(values)
        return nest.map_structure(lambda o: next(it) if isinstance(o, OutSlot) else
                                  (next(it), o)[1], outputs)
    return pack


def replay(graph, tensors, builder, outer=None, effects=True):
    """Run ``graph``'s nodes through `bind`, so active recorders see them (differentiable).
    Symbolic params are resolved from the arguments' shapes (`core.shape_of`: inside an
    enclosing polymorphic trace, its own symbolic sizes). With ``effects=False`` (a replay
    for a derivative, after the graph ran) its variable updates are left out: a read
    after one reads the variable as the run left it."""
    env = dict(zip(graph.args, tensors, strict=True))
    if outer:
        env.update(outer)
    sym = graph.sym
    binding = _bindings(sym, env)
    for s, v in graph.consts.items():
        # the captured tensor itself, so an outer tape or trace sees the connection
        env[s] = builder.captured(s) if builder is not None else Tensor(v)
    for n in graph.nodes:
        if n.prim is read_variable_p or n.prim is assign_variable_p:
            if effects or n.prim is read_variable_p:
                _replay_effect(n, env)
            continue
        ins = [env[s] for s in n.ins]
        params = symbolic.resolve_params(n.params, binding) if sym else n.params
        if n.prim is custom.custom_p:
            params = {"rule": _ReplayRule(n, builder, env, params["rule"])}
        out = core.bind(n.prim, *ins, **params)
        outs = out if n.prim.multiple_results else (out,)
        for s, o in zip(n.outs, outs, strict=True):
            env[s] = o
            if s in sym:
                symbolic.bind_shape(binding, sym[s], core.shape_of(o))
    # one value per output leaf (None where the function returned something else), as the
    # compiled form gives them
    return [env[o.slot] if isinstance(o, OutSlot) else None for o in nest.flatten(graph.outputs)]


def _bindings(sym, env):
    """The symbol bindings from the shapes of the values in ``env`` that have symbolic ones."""
    binding = {}
    for s, t in env.items():
        if s in sym:
            symbolic.bind_shape(binding, sym[s], core.shape_of(t))
    return binding


def _replay_effect(n, env):
    """Replay a variable read or update node on the variable itself; inside a `dry_run`
    (a loop re-run for its derivative), an update goes to the shadow values, and a read of
    a variable updated there reads them."""
    p = n.params
    shadow = current_shadow()
    if shadow is not None and (n.prim is assign_variable_p or id(p["var"]) in shadow):
        out = n.prim.impl(*[getattr(env[s], "_value", env[s]) for s in n.ins], **p)
        if n.prim is read_variable_p:
            env[n.outs[0]] = Tensor(out)
    elif n.prim is read_variable_p:
        env[n.outs[0]] = p["var"].read_value()
    elif "index" in p:    # v[index].assign(value)
        p["var"]._assign_slice(p["index"].idx, env[n.ins[0]])
    else:
        getattr(p["var"], p["mode"])(env[n.ins[0]])


def _assigned_variables(g):
    """The variables graph ``g`` (or a sub-graph of it) assigns, ordered by creation."""
    found = {}
    for n in g.nodes:
        if n.prim is assign_variable_p:
            found[n.params["var"]._unique_id] = n.params["var"]
        for key in ("branches", "parts"):
            for sub in n.params.get(key, ()):
                found.update((v._unique_id, v) for v in _assigned_variables(sub.graph))
    return [found[k] for k in sorted(found)]


class _ReplayRule:
    """A traced custom_gradient rule, evaluated with the values of one replayed call."""

    def __init__(self, node, builder, env, rule):
        self.node, self.builder, self.env, self.rule = node, builder, env, rule
        self.layout, self.name, self.jvp = rule.layout, rule.name, None
        self.cg = getattr(rule, "cg", None)   # the decorated function (its linearity, once)

    def __call__(self, cts):
        if self.node.vjp_graph is None:
            # the rule closes over tensors of the trace, out of scope since it ended: they
            # hold their trace-time values again while it is traced
            with self.builder.revived():
                self.node.vjp_graph = _trace_rule(self.rule, self.node, self.builder)
            self.node.vjp_graph[1].release()
        g, sub, outer, guards = self.node.vjp_graph
        if guards:   # sizes the rule's trace decided (it ran once, at the first call)
            binding = {}
            for s, c in zip(g.args, cts, strict=True):
                if s in g.sym:
                    symbolic.bind_shape(binding, g.sym[s], core.shape_of(c))
            broken = next((x for x in guards if not x.holds(binding)), None)
            if broken is not None:
                raise ValueError(f"finegrad.function: the gradient of custom_gradient function "
                                 f"{self.name} was traced for the sizes of the first call and "
                                 f"cannot serve other sizes of the input_signature's None "
                                 f"dimensions ({broken.describe()}); write its grad_fn with "
                                 f"ops that keep those sizes open (e.g. -1 in reshape), or "
                                 f"leave the dimension fixed in the input_signature")
        return replay(g, list(cts), sub, outer={s: self.env[p] for s, p in outer.items()})


def _trace_rule(rule, node, builder):
    """Trace a custom_gradient rule into a graph of the cotangents and the values it captured
    from the enclosing graph. Returns (graph, its builder, {sub-graph slot: enclosing slot},
    the guards its trace added)."""
    sub = GraphBuilder(f"grad_of_{rule.name}", parent=builder)
    known = len(builder.root.guards)
    cts = [Tensor(np.zeros(shape, dtype) if shape else np.dtype(dtype).type(0))
           for shape, dtype in node.meta]
    with core.tracing(sub):
        for c, s in zip(cts, node.outs, strict=True):
            sub.add_arg(c, shape=builder.sym.get(s))
        res = rule(cts)
    g = sub.finish(list(res), [f"ct{i}" for i in range(len(cts))])
    outer = {sub.slots[k]: builder.slots[k] for k, t in sub.alive.items()
             if sub.slots[k] in sub.outer}
    return g, sub, outer, builder.root.guards[known:]
