"""Lowering a traced graph to JAX: each node becomes its primitive's ``lower_jax`` (see
`core.Primitive`) applied to JAX values, inside one function that ``jax.jit`` compiles.

A primitive without a lowering runs its ``impl`` on the host from inside the compiled code:
``jax.pure_callback``, or ``jax.experimental.io_callback(ordered=True)`` for a ``stateful``
one (random draws, ``numpy_function``), which XLA runs exactly once per execution and in
program order, so a random stream gives the draws the uncompiled graph gives. Each such node
is listed (`Lowering.callbacks`). An exception raised by a callback is kept and re-raised
by the caller (`raise_callback_error`) with its own type, rather than XLA's wrapper.

Variables are values too: their current values come in as arguments (`Lowering.values`,
keyed by ``id(var)``), ``read_variable`` reads the current one and ``assign_variable``
replaces it, so the compiled function returns the final values of the variables it
assigns. Control-flow lowerings (`control_flow/`) lower their sub-graphs with
`lower_graph` and carry the variables a sub-graph assigns through ``lax.cond`` /
``lax.while_loop`` (`Lowering.carried`).

Symbolic sizes (a graph for every size of an input_signature's None dimensions): every
compilation has concrete shapes, so the symbolic params are resolved from the arguments'
shapes as in `tracing.concrete.replay`.
"""
import contextlib
import functools
import threading

import numpy as np

from finegrad._src import dims, nest
from finegrad._src.graph import ir
from finegrad._src.graph.compile import symbolic

_STATE = threading.local()   # .lowering: the Lowering being traced; .error: a callback's
_LAST_ERROR = [None]         # the last exception a callback raised, on any thread


@functools.cache
def _resolve(name):
    """The JAX function a ``lower_jax`` string names: looked up on ``jax.numpy`` first
    (``"exp"``, ``"linalg.det"``), then on ``jax`` (``"lax.erf_inv"``,
    ``"scipy.special.ndtri"``)."""
    import jax
    import jax.numpy as jnp
    import jax.scipy.special
    for root in (jnp, jax):
        obj = root
        try:
            for part in name.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            continue
        return obj
    raise AttributeError(f"finegrad.function(jit_compile=True): lower_jax={name!r} names "
                         f"no function of jax.numpy or jax")


def jax_lowering(prim):
    """``prim``'s lowering as a callable ``fn(*jax_args, **params)``, or None."""
    low = prim.lower_jax
    return _resolve(low) if isinstance(low, str) else low


class Lowering:
    """The state of one graph's lowering: the variables' current (JAX) values by
    ``id(var)``, the variables themselves, and the nodes that became host callbacks."""

    def __init__(self, variables, values):
        self.variables = {id(v): v for v in variables}
        self.values = dict(zip(self.variables, values, strict=True))
        self.callbacks = []   # "prim (node k of graph g): why" per host callback

    @contextlib.contextmanager
    def active(self):
        saved = getattr(_STATE, "lowering", None)
        _STATE.lowering = self
        try:
            yield self
        finally:
            _STATE.lowering = saved

    def carried(self, graphs):
        """The ids of the variables that ``graphs`` (sub-graphs) assign, in a fixed order:
        a control-flow lowering carries their values through the loop or the branches."""
        return [k for k in self.variables if any(k in assigned_ids(g) for g in graphs)]


def current():
    """The `Lowering` being traced (control-flow lowerings use it)."""
    return _STATE.lowering


def assigned_ids(g):
    """The ids of the variables graph ``g`` (or a sub-graph of it) assigns."""
    return {id(v) for v in graph_variables(g, assigned_only=True)}


def graph_variables(g, assigned_only=False):
    """The variables graph ``g`` and its sub-graphs read or assign (or only assign), ordered
    by creation."""
    found = {}
    for n in g.nodes:
        if n.prim is ir.assign_variable_p or n.prim is ir.read_variable_p and not assigned_only:
            found[n.params["var"]._unique_id] = n.params["var"]
        for key in ("branches", "parts"):
            for sub in n.params.get(key, ()):
                found.update((v._unique_id, v) for v in graph_variables(sub.graph, assigned_only))
    return [found[k] for k in sorted(found)]


def lower_graph(g, args, outer=None, taps=None):
    """``g``'s output values (one per output leaf, None for a non-tensor leaf) computed with
    JAX from argument values ``args`` (and ``outer``: slot -> value of a sub-graph's outer
    slots), inside the current `Lowering`; ``taps`` (a dict keyed by slots of ``g``) gets
    those slots' values too."""
    import jax.numpy as jnp
    env = dict(zip(g.args, args, strict=True))
    env.update(outer or {})
    for s, v in g.consts.items():
        env[s] = jnp.asarray(v)
    sym = g.sym
    binding = _bindings(sym, env)
    for k, n in enumerate(g.nodes):
        params = symbolic.resolve_params(n.params, binding) if sym else n.params
        ins = [env[s] for s in n.ins]
        meta = [(_shape(sym.get(s), m[0], binding), m[1]) for s, m in zip(n.outs, n.meta,
                                                                        strict=True)]
        outs = lower_node(n, ins, params, meta, f"node {k} of {g.name}")
        for s, o in zip(n.outs, outs, strict=True):
            env[s] = o
            if s in sym:
                symbolic.bind_shape(binding, sym[s], o.shape)
    for s in taps or ():
        taps[s] = env[s]
    return [env[o.slot] if isinstance(o, ir.OutSlot) else None for o in nest.flatten(g.outputs)]


def _bindings(sym, env):
    binding = {}
    for s, v in env.items():
        if s in sym:
            symbolic.bind_shape(binding, sym[s], np.shape(v))
    return binding


def _shape(sym_shape, traced, binding):
    """A value's shape for this compilation: its symbolic shape resolved, else the traced."""
    if sym_shape is None:
        return tuple(traced)
    return tuple(int(d) for d in dims.resolve(tuple(sym_shape), binding))


def lower_node(n, ins, params, meta, where):
    """The output values (a list) of node ``n`` on JAX values ``ins``."""
    prim = n.prim
    if prim is ir.read_variable_p:
        return [current().values[id(params["var"])]]
    if prim is ir.assign_variable_p:
        _assign(ins[0], **params)
        return []
    fn = jax_lowering(prim)
    out = NotImplemented if fn is None else fn(*ins, **params)
    if out is NotImplemented:
        out = host_callback(prim, ins, params, meta, where, declined=fn is not None)
    outs = list(out) if prim.multiple_results else [out]
    return [_checked(o, m, prim) for o, m in zip(outs, meta, strict=True)]


def _checked(o, meta, prim):
    """Output ``o`` of a lowering, which must have the shape and dtype ``impl`` gives (not
    weakly typed: loop carries and branches must agree exactly)."""
    import jax
    import jax.numpy as jnp
    o = jnp.asarray(o)
    shape, dtype = meta
    if tuple(o.shape) != tuple(shape) or o.dtype != np.dtype(dtype):
        raise TypeError(f"finegrad.function(jit_compile=True): the lowering of primitive "
                        f"{prim.name!r} gave {o.dtype}{list(o.shape)}, its impl gives "
                        f"{np.dtype(dtype)}{list(shape)} (a lowering must match its impl)")
    if getattr(o, "weak_type", False):
        o = jax.lax.convert_element_type(o, o.dtype)
    return o


def tensor_outputs(g, values):
    """Of ``g``'s output values (`lower_graph`'s), those of its tensor leaves: a cond's or a
    loop's results."""
    leaves = nest.flatten(g.outputs)
    return [v for v, o in zip(values, leaves, strict=True) if isinstance(o, ir.OutSlot)]


def branch_function(branch, carried):
    """A sub-graph (a cond branch, a loop's condition or body: ``branch.graph``, with
    ``branch.outer_index`` saying which captured input feeds each outer slot) as a function
    ``(state, args, captured) -> (tensor outputs, state)`` for ``lax.cond`` or
    ``lax.while_loop``: ``state`` holds the values of the variables ``carried`` (ids, from
    `Lowering.carried`), which the sub-graph may assign."""
    def run(state, args, captured):
        low = current()
        saved = dict(low.values)
        low.values.update(zip(carried, state, strict=True))
        outer = {s: captured[i] for s, i in branch.outer_index.items()}
        try:
            outs = tensor_outputs(branch.graph, lower_graph(branch.graph, list(args), outer))
            new = [low.values[k] for k in carried]
        finally:
            low.values = saved
        return outs, new
    return run


def _assign(value, *, var, mode, index=None):
    """``assign_variable``: the variable's value replaced (added to, subtracted from, or a
    slice of it set) in the current `Lowering`."""
    import jax.numpy as jnp
    low = current()
    cur = low.values[id(var)]
    value = jnp.asarray(value)
    if index is not None:
        new = cur.at[index.idx].set(value.astype(cur.dtype))
    elif mode == "assign_add":
        new = cur + value
    elif mode == "assign_sub":
        new = cur - value
    else:
        new = value
    low.values[id(var)] = jnp.broadcast_to(new, cur.shape).astype(cur.dtype)


def host_callback(prim, ins, params, meta, where, declined=False):
    """``prim``'s impl run on the host from the compiled code (see the module's docstring);
    the node is listed in the current `Lowering`."""
    import jax
    from jax.experimental import io_callback
    # effects (a variable assigned in a sub-graph, a size check) are never dropped either
    ordered = prim.stateful or ir.has_effects(ir.Node(prim, (), params, (), ()))
    why = "its lowering declined these inputs" if declined else "no lowering"
    current().callbacks.append(f"{prim.name} ({where}): {why}; "
                               f"{'io_callback(ordered=True)' if ordered else 'pure_callback'}")
    specs = tuple(jax.ShapeDtypeStruct(tuple(s), np.dtype(d)) for s, d in meta)

    def run(*vals):
        try:
            out = prim.impl(*[np.asarray(v) for v in vals], **params)
            outs = out if prim.multiple_results else (out,)
            return tuple(np.asarray(o, dtype=d).reshape(s) for o, (s, d) in
                         zip(outs, meta, strict=True))
        except BaseException as e:
            _STATE.error = _LAST_ERROR[0] = e
            raise
    if ordered:
        out = io_callback(run, specs, *ins, ordered=True)
    else:
        out = jax.pure_callback(run, specs, *ins)
    return tuple(out) if prim.multiple_results else out[0]


def raise_callback_error():
    """Re-raise the exception a host callback raised during the last run, if any (the
    compiled call failed with XLA's wrapper of it). On the CPU callbacks run on the calling
    thread (its own record); a runtime that runs them on a thread of its own leaves the
    process's last one."""
    e = getattr(_STATE, "error", None) or _LAST_ERROR[0]
    clear_callback_error()
    if e is not None:
        raise e.with_traceback(None)


def clear_callback_error():
    _STATE.error = _LAST_ERROR[0] = None
