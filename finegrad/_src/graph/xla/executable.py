"""`XlaFunction`: one traced graph as XLA executables, one per input signature.

The graph is simplified (`compile.simplify`: dead code, common subexpressions, constants
folded; not a shape-polymorphic graph, whose params are resolved at lowering), lowered with
`lower.lower_graph` inside one function of (the tensor arguments, the values of the
variables it only reads, the values of those it assigns) that returns (the outputs, the
assigned variables' new values), and compiled ahead of time by ``jax.jit`` for the
arguments' shapes and dtypes and the device. The executable is kept per signature: a second
call with the same shapes and dtypes compiles nothing; a graph for every size of an
input_signature's None dimensions is compiled once per concrete size (each one cached).

Dtypes are kept as finegrad has them: lowering and every call run with JAX's 64-bit types
enabled (``jax.enable_x64``, a thread-local switch), so float64 graphs compute in float64.
Variables' values stay on the device between calls (kept while the variable holds the
value they were made from; the variable holds a host copy). On a GPU the assigned
variables' buffers are donated to the executable. On the CPU large NumPy arguments that are
not 64-byte aligned go through an aligned staging buffer, which JAX reads in place
(`staging`), and the buffers of large results (and of large intermediate values, where XLA
would store them in a temporary buffer above glibc's mmap threshold) are kept from one call
to the next and donated back, so that a call writes into memory already mapped (`reuse`).
"""
import collections
import warnings

import numpy as np

from finegrad._src import nest
from finegrad._src.api import contexts, placement
from finegrad._src.graph import ir
from finegrad._src.graph.compile import algebra, rewrite
from finegrad._src.graph.compile.simplify import scalarize_constants, simplify
from finegrad._src.graph.compile.structure import diagonal_matmuls
from finegrad._src.graph.xla import lower, reuse
from finegrad._src.graph.xla.dispatch import run_inline
from finegrad._src.graph.xla.heap import keep_freed_memory
from finegrad._src.graph.xla.staging import MIN_BYTES, Staging, unalias

_NO_JAX: list[bool] = []   # non-empty once the warning that JAX is missing was given
_DEVICES: dict = {}   # a finegrad.device string (or None) -> the JAX device it places on


def jax_available():
    """Whether JAX can be imported; if not, warn once that ``jit_compile=True`` runs
    finegrad's own executor."""
    try:
        import jax  # noqa: F401
        return True
    except ImportError:
        if not _NO_JAX:
            _NO_JAX.append(True)
            warnings.warn('finegrad.function(jit_compile=True): compiling with XLA needs JAX '
                          '(pip install "finegrad[xla]"); running finegrad\'s own graph '
                          'executor instead', UserWarning, stacklevel=4)
        return False


def x64():
    """JAX's 64-bit types switched on for a block (thread-local): ``jax.enable_x64(True)``,
    or ``jax.experimental.enable_x64()`` in JAX versions before it."""
    import jax
    try:
        return jax.enable_x64(True)
    except TypeError:   # (older JAX: a flag, not a context manager)
        from jax.experimental import enable_x64
        return enable_x64()


def jax_device(name):
    """The JAX device a `finegrad.device` string names (``"/GPU:0"``), or the default one;
    a device JAX does not have gives the default (TensorFlow's soft placement; with it off,
    ``InvalidArgumentError``)."""
    import jax
    kind, index = contexts.device_kind(name) if name else (None, 0)
    if kind is not None:
        placement.check_device(name, kind, index)   # (soft placement off: raises)
        try:
            found = jax.devices(kind.lower())
        except RuntimeError:   # no such backend here
            found = []
        if index < len(found):
            return found[index]
    return jax.devices()[0]


def refusal(g):
    """Why graph ``g`` cannot be compiled with XLA (a value of a dtype XLA has no type for:
    strings, Python objects), or None."""
    for shape_dtype in g.meta.values():
        dtype = np.dtype(shape_dtype[1])
        if dtype.kind in "OSUV":
            return f"it holds {dtype} values (strings or objects), which XLA has no type for"
    for n in g.nodes:
        for key in ("branches", "parts"):
            for sub in n.params.get(key, ()):
                why = refusal(sub.graph)
                if why is not None:
                    return why
    return None


class _Entry:
    """One signature's executable, what its lowering made, and its host callbacks; the
    results it writes into donated buffers (`reuse`) and their pool (None: no such); and
    what a call of it needs, decided once: whether it may stage arguments (`staging`: on the
    CPU, with an argument large enough) and whether JAX's 64-bit types must be on while it
    runs (an argument, a variable or a kept buffer of a 64-bit type, which JAX would
    otherwise take as 32-bit, or a host callback). Otherwise a call runs without entering
    ``jax.enable_x64`` (about a microsecond): the executable's types were fixed when it was
    compiled."""

    __slots__ = ("callbacks", "device", "donated", "exe", "jaxpr", "lowered", "pool",
                 "staging", "stages", "wide")

    def __init__(self, built, device, dtypes, donated=(), pool=()):
        self.exe, self.lowered, self.jaxpr, self.callbacks = built
        self.device, self.donated = device, list(donated)
        self.staging = Staging()   # aligned copies of large unaligned arguments (CPU)
        self.pool = reuse.BufferPool(pool) if pool else None
        self.stages = device.platform == "cpu" and any(
            int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize >= MIN_BYTES
            for shape, dtype in dtypes[0])
        # (host callbacks too: JAX checks their results' dtypes with its own switch)
        self.wide = bool(self.callbacks) or any(
            _wide(d) for d in [d for _, d in dtypes[0]] + dtypes[1] + [d for _, d in pool])


def _rewritten(g):
    """``g`` after the executor's passes that keep every value identical and help XLA too
    (`compile.pipeline`): whole-array constants of one value as scalars (not passed in as
    arrays), negations and scalar factors folded (fewer operations a fused loop does per
    element), products with a Jacobian's diagonal seed as scalings, and slices' cotangents
    added into zeros as one node (lowered as an interleave where the slices tile an axis)."""
    g = rewrite.fold_negations(scalarize_constants(simplify(g)))
    g = algebra.fold_scalar_factors(algebra.commute_operands(algebra.drop_identities(g)))
    return rewrite.merge_scatters(diagonal_matmuls(g))


def _wide(dtype):
    """Whether JAX takes values of ``dtype`` as 32-bit ones unless its 64-bit types are on."""
    dtype = np.dtype(dtype)
    return dtype.itemsize == (16 if dtype.kind == "c" else 8) and dtype.kind in "iufc"


class XlaFunction:
    """A traced graph run as XLA executables (see the module's docstring)."""

    #: how many signatures keep an executable (least recently used dropped first)
    MAX_SIGNATURES = 64

    def __init__(self, graph):
        keep_freed_memory()   # (each call's buffers reuse the last one's pages: `heap`)
        run_inline()   # (no dispatch thread: finegrad waits for every result: `dispatch`)
        # (a graph for every size of its open axes keeps its symbolic params as they are:
        # simplify's constant folding is for resolved graphs)
        # (products with a diagonal chain, a Jacobian's identity seed: scalings, `structure`)
        self.graph = graph if graph.sym else _rewritten(graph)
        variables = lower.graph_variables(self.graph)
        assigned = {id(v) for v in lower.graph_variables(self.graph, assigned_only=True)}
        self.assigned = [v for v in variables if id(v) in assigned]
        self.read_only = [v for v in variables if id(v) not in assigned]
        self._cache = collections.OrderedDict()   # (JAX device, signature) -> _Entry
        self.variables = bool(variables)
        self._on_device = {}   # (id(var), device) -> (its host value, that value there)
        self._last = None   # (device name, specs, _Entry) of the last call
        self.compilations = 0

    def entry(self, specs):
        """The `_Entry` for arguments of ``specs`` ((shape, dtype) each) on the current
        `finegrad.device`, compiled if new (once per device: device strings that name the
        same one, or that fall back to the default, share it)."""
        name = contexts.current_device()
        last = self._last
        # (the last call's entry, unless a device must be looked up again: soft placement
        # off raises for one this machine lacks)
        if last is not None and last[0] == name and last[1] == specs and (
                not name or placement.get_soft_device_placement()):
            return last[2]
        device = _DEVICES.get(name)
        if device is None or name and not placement.get_soft_device_placement():
            device = _DEVICES[name] = jax_device(name)
        key = (device, tuple(specs))
        e = self._cache.get(key)
        if e is None:
            e = self._cache[key] = self._compile(specs, device)
            if len(self._cache) > self.MAX_SIGNATURES:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        self._last = (name, list(specs), e)
        return e

    def run(self, vals):
        """The graph's outputs (NumPy values; None for non-tensor leaves) for argument
        values ``vals``; assigned variables take their new values."""
        e = self.entry([(v.shape, v.dtype) for v in vals])
        if e.callbacks:
            lower.clear_callback_error()
        if e.wide:
            with x64():   # (64-bit values stay 64-bit on the way in)
                outs = self._execute(e, vals)
        else:
            outs = self._execute(e, vals)
        return [None if o is None else _host(o) for o in outs]

    def _execute(self, e, vals):
        """Run entry ``e``'s executable on ``vals`` and the variables' values; the assigned
        variables take their new values; the outputs (JAX arrays or None)."""
        dev = e.device
        used = None
        if e.stages:
            vals, used = e.staging.stage(vals)
        try:
            if self.variables:
                shadow = ir.current_shadow()
                reads = [self._device_value(v, dev, shadow) for v in self.read_only]
                assigned = [self._device_value(v, dev, shadow) for v in self.assigned]
            else:
                reads, assigned = [], []
            bufs = e.pool.take(dev) if e.pool is not None else []
            outs, taps, new = e.exe(list(vals), reads, assigned, bufs)
            if used:
                outs, new = unalias(outs, used), unalias(new, used)
                e.staging.release(used)
            if e.pool is not None:
                e.pool.keep([outs[k] for k in e.donated] + list(taps))
        except Exception:
            for v in self.assigned:   # (their buffers may have been donated)
                self._on_device.pop((id(v), dev), None)
            if e.callbacks:   # (the error a host callback raised, as it was)
                lower.raise_callback_error()
            raise
        if self.assigned:
            self._store(new, dev)
        return outs

    def _store(self, new, dev):
        """The assigned variables take their new values ``new`` (kept on ``dev`` too)."""
        shadow = ir.current_shadow()
        for var, value in zip(self.assigned, new, strict=True):
            if shadow is None:
                var._set(np.asarray(value))
                host = var._storage
            else:   # a TF1 session's values (`ir.dry_run`)
                host = shadow[id(var)] = np.asarray(value)
            self._on_device[(id(var), dev)] = (host, value)

    def _device_value(self, var, device, shadow):
        """``var``'s value on ``device``: the array this function last gave it or put there,
        while the variable still holds that value (its storage is never written in place:
        a new value is a new array), else its host value put there now. Inside a TF1
        session's run (`ir.dry_run`: ``shadow``, its values) the host value is the
        session's."""
        host = var._storage if shadow is None else shadow.get(id(var), var._storage)
        kept = self._on_device.get((id(var), device))
        if kept is not None and kept[0] is host:
            return kept[1]
        import jax
        value = jax.device_put(host, device)
        self._on_device[(id(var), device)] = (host, value)
        return value

    def _compile(self, specs, device):
        """The `_Entry` for ``specs`` on ``device``: on the CPU its large results written into
        donated buffers, and where XLA's temporary buffer is above glibc's mmap threshold,
        a second compilation that stores the large values read twice in kept buffers,
        used if it shrinks that buffer (`reuse`)."""
        self.compilations += 1
        cpu = device.platform == "cpu" and not self.graph.sym
        metas = self._result_metas()
        donated = reuse.donated_results(metas) if cpu else []
        pool = [metas[k] for k in donated]
        dtypes = (list(specs), [v._storage.dtype for v in self.read_only + self.assigned])
        built = self._build(specs, device, pool, [])
        taps = reuse.tap_candidates(self.graph) if cpu else []
        plain = reuse.temp_bytes(built[0]) if taps else 0
        if plain >= reuse.TEMP_BYTES:
            tapped = self._build(specs, device, pool, taps)
            if reuse.worth_tapping(plain, tapped[0], taps):
                return _Entry(tapped, device, dtypes, donated, pool + [m for _, m in taps])
        return _Entry(built, device, dtypes, donated, pool)

    def _result_metas(self):
        """(shape, dtype) of each output leaf (None for a non-tensor leaf)."""
        return [self.graph.meta[o.slot] if isinstance(o, ir.OutSlot) else None
                for o in nest.flatten(self.graph.outputs)]

    def _build(self, specs, device, results, taps):
        """(executable, lowered, jaxpr, host callbacks) of the graph for ``specs`` on
        ``device``, which takes donated buffers for the large results (``results``: their
        (shape, dtype)) and for the ``taps`` ((slot, (shape, dtype)) each, returned as extra
        results after the outputs)."""
        import jax
        made = []
        pool = list(results) + [m for _, m in taps]

        def fn(args, reads, assigned, bufs):
            low = lower.Lowering(self.read_only + self.assigned, list(reads) + list(assigned))
            tapped = dict.fromkeys(s for s, _ in taps)
            with low.active():
                outs = lower.lower_graph(self.graph, list(args), taps=tapped)
            made.append(low)
            return outs, list(tapped.values()), [low.values[id(v)] for v in self.assigned]

        donate = (2,) if device.platform != "cpu" else (3,) if pool else ()
        sharding = jax.sharding.SingleDeviceSharding(device)

        def spec(shape, dtype):
            return jax.ShapeDtypeStruct(tuple(shape), np.dtype(dtype), sharding=sharding)
        with x64():
            traced = jax.jit(fn, donate_argnums=donate, keep_unused=bool(pool)).trace(
                [spec(*s) for s in specs],
                [spec(v._storage.shape, v._storage.dtype) for v in self.read_only],
                [spec(v._storage.shape, v._storage.dtype) for v in self.assigned],
                [spec(*m) for m in pool])
            lowered = traced.lower()
            exe = lowered.compile()
        return exe, lowered, traced.jaxpr, made[-1].callbacks

    def listing(self, specs, hlo=False):
        """The text of the compiled function for ``specs`` on the current `finegrad.device`:
        a header (the device, and the one asked for where it is not here; the host
        callbacks, i.e. the nodes without a lowering) and the jaxpr (``hlo``: StableHLO)."""
        e = self.entry(specs)
        head = [f"# XLA through jax.jit on {e.device}; variables read: "
                f"{[v.name for v in self.read_only]}, assigned: "
                f"{[v.name for v in self.assigned]}"]
        asked = contexts.current_device()
        kind = contexts.device_kind(asked)[0] if asked else None
        if kind is not None and kind.lower() != e.device.platform:
            head.append(f"# finegrad.device({asked!r}): no such device here; placed on the "
                        f"default device (TensorFlow's soft placement)")
        if e.pool is not None:
            head.append(f"# buffers kept between calls (reuse): {len(e.donated)} results, "
                        f"{len(e.pool.specs) - len(e.donated)} values XLA would store")
        if e.callbacks:
            head.append(f"# host callbacks ({len(e.callbacks)} nodes run on the host):")
            head += [f"#   {c}" for c in e.callbacks]
        else:
            head.append("# host callbacks: none")
        body = e.lowered.as_text() if hlo else str(e.jaxpr)
        return "\n".join(head) + "\n" + body


def _host(o):
    """A NumPy value of JAX array ``o`` (a 0-d one as a NumPy scalar, as the executor)."""
    a = np.asarray(o)
    return a if a.ndim else a[()]
