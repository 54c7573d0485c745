"""The core: primitives, `bind`, and the thread-local stack of active recorders.

Every operation in finegrad is a `Primitive`: a name, a forward implementation on NumPy
values, and its differentiation rules (a VJP rule for reverse mode, a JVP rule for forward
mode), written with finegrad ops so that they can be differentiated again. `bind(p, *args)`
is the single dispatch point: it converts the arguments to tensors, runs the implementation,
and, when any recorder is active, lets each one record the op.

A *recorder* is anything that observes ops: a `GradientTape` (keeps the ops whose inputs it
watches, like PyTorch's autograd graph but per tape as in TensorFlow), a `ForwardAccumulator`
(computes a tangent beside each primal, like JAX's `JVPTrace`), or a `GraphBuilder` (the
tracer of `finegrad.function`); variable reads also go to a *read listener*
(`listen`), with which `custom_gradient` sees the variables its function reads.
Recorders form a stack, outermost first. When the recorder at position `i` runs a rule (a
JVP while an op executes, a VJP while a tape takes a gradient), only the recorders outside
it stay active, so the rule's own ops are recorded by the outer ones: that is how nesting
gives derivatives of any order and how forward-over-reverse works.
"""
import numpy as np
from numpy import ndarray

from finegrad._src import dims, interop, made_up, threads
from finegrad._src.state import state as _state
from finegrad._src.errors import InvalidArgumentError, OpError
from finegrad._src.tensor import Tensor, convert_to_tensor, convert_like, to_numpy_value


_PRIMITIVES: dict = {}


class Primitive:
    """An operation with a NumPy implementation and its differentiation rules.

    Rules, each registered with a decorator next to the primitive, all called one way
    (`run_vjp` and `run_jvp` are the callers):

    - ``impl(*values, **params)``: NumPy values in, a NumPy value (or a tuple of them when
      ``multiple_results``) out;
    - ``vjp(ct, *inputs, out, needs, batch, **params)``: the cotangent first, then the input
      tensors, then the forward output; ``needs`` has one bool per input (False: nobody uses
      that input's cotangent, so the rule may return None for it, skipping e.g. a matmul),
      and ``batch`` is the shape of the extra leading axes ``ct`` carries (``()`` but while
      a tape computes a whole Jacobian in one pass). Returns one cotangent (or ``None``) per
      input, each with the ``batch`` axes in front;
    - ``jvp(primals, tangents, *, out, **params)``: returns the output's tangent; a tangent
      is None (a symbolic zero) for an input without one, and at least one is not None
      (a rule that needs them all materializes the zeros with
      `ops.zeros_and_axes.instantiate_zeros`).

    ``unify=True`` makes all inputs share one dtype (Python scalars take the tensors' dtype,
    by `tensor.convert_like`; a mismatch between tensors is a TypeError); a tuple of
    positions unifies just those.
    ``batch_rule=True`` declares that the VJP handles a non-empty ``batch``
    (`finegrad.jacobian` then runs one vectorized reverse pass; otherwise it loops).

    The forward batching rule of `finegrad.vectorized_map` (not the VJP's ``batch``), set with
    the ``def_vmap`` decorator: ``vmap(args, batched, **params)`` gets the input tensors and
    one bool per input (at least one True); a batched input carries the batch (the mapped
    slices) as an extra axis 0 in front of its per-slice shape, an unbatched one is the same
    for every slice and has its per-slice shape. It returns the output (a tuple with
    ``multiple_results``) for the whole batch, batch at axis 0, computed with finegrad ops
    or `bind` (so that it is differentiable), or ``NotImplemented`` for the per-slice
    fallback (bind once per slice, then stack). Without a rule, an ``elementwise`` primitive
    aligns the ranks and binds once; any other primitive (and every ``stateful`` one) takes
    the fallback.

    What compiled graphs (`finegrad.function`) need to know, declared here too:

    - ``kernel``: a NumPy ufunc (or a function with a ufunc's ``out=`` keyword) that computes
      the primitive elementwise on parameter-free calls, as ``impl`` does; the executor calls
      it directly, writes it into recycled buffers and fuses chains of kernels. Implies
      ``elementwise`` and ``fresh``.
    - ``numexpr``: the kernel as an expression over ``{0}``, ``{1}``, ... (the inputs), in
      numexpr's syntax, e.g. ``"{0} * {1}"``: when it is plain arithmetic, compiled graphs
      spell the primitive's scalar steps with it (`graph/compile/fast.py: arithmetic`).
    - ``elementwise=True``: the output's shape is the NumPy broadcast of the inputs' shapes
      (its default shape rule).
    - ``fresh=True``: what the executor runs for it (its kernel, else ``impl``) always returns
      new arrays (never an input or a view of one), so the executor may recycle a value once
      every consumer of it is fresh.
    - ``reducer``: a ufunc whose ``reduce`` computes the primitive (a reduction with
      parameters ``axis`` and ``keepdims``) as ``impl`` does, but for the order of its
      operations: with the fast path (`threads`), a reduction over all axes of a fused
      chain's value is computed block by block inside the chain (`graph/compile/fuse.py`).
    - ``into_pool=True``: its ``impl`` (not elementwise) accepts ``out=``, a buffer of the
      output's shape and dtype, so the executor hands it a recycled one (graph-only
      primitives of the rewrite passes, `graph/compile/rewrite.py`).
    - ``stateful=True``: each run may give new values for the same inputs (random ops draw
      from a stream): compiled graphs never fold it into a constant nor merge two of its nodes.
    - ``effects=True``: running it does something besides its outputs (a host function's
      side effects, an assertion's error), so a graph runs it at each run even when nothing
      reads its outputs, as TensorFlow runs stateful ops (`graph.ir.has_effects`).
    - ``shape_rule``: ``rule(*shapes, **params)`` giving the output's shape (a list of them
      with ``multiple_results``) from the inputs' shapes, whose sizes may be symbolic
      (`dims.Dim`) inside a shape-polymorphic trace; asked only then. Also set with the
      ``def_shape`` decorator. Elementwise primitives get NumPy's broadcasting. ``None``
      (and not elementwise): a symbolic input size is kept at its traced value (a guard).
    - ``lower_jax``: how ``function(jit_compile=True)`` lowers it to XLA through JAX (also
      set with the ``def_lowering`` decorator): a string naming a JAX function, resolved when
      first lowered (``"exp"``: ``jax.numpy.exp``, ``"lax.erf_inv"``: ``jax.lax.erf_inv``,
      ``"scipy.special.ndtri"``: ``jax.scipy.special.ndtri``) and called ``f(*args,
      **params)``; or a callable ``fn(*args, **params)`` taking JAX arrays in input order and
      the node's params (as ``impl`` gets them), returning what ``impl`` would (shape, dtype;
      a tuple with ``multiple_results``). It imports jax inside itself (op modules import
      without jax), and may return ``NotImplemented`` for a call it does not lower (an
      integer division whose error XLA cannot raise). ``None`` (or ``NotImplemented``): the
      compiled function calls ``impl`` back on the host (an ordered callback when
      ``stateful``) and its listing names the node.
    """

    def __init__(self, name, *, multiple_results=False, unify=True, batch_rule=False,
                 kernel=None, elementwise=False, fresh=False, shape_rule=None,
                 stateful=False, numexpr=None, into_pool=False, reducer=None,
                 lower_jax=None, effects=False):
        if name in _PRIMITIVES:
            raise ValueError(f"finegrad: a primitive named {name!r} already exists")
        self.name = name
        self.effects = effects
        self.multiple_results = multiple_results
        self.unify = unify  # True: all inputs; a tuple: those input positions; False: none
        self.batch_rule = batch_rule
        self.impl = None
        self.vjp = None
        self.jvp = None
        self.kernel = kernel
        self.numexpr = numexpr
        self.elementwise = elementwise or kernel is not None
        self.fresh = fresh or kernel is not None
        self.stateful = stateful
        self.into_pool = into_pool
        self.reducer = reducer
        self.lower_jax = lower_jax   # str (a JAX function's name) or callable; see above
        if shape_rule is None and self.elementwise:
            shape_rule = broadcast_shape_rule
        self.shape_rule = shape_rule
        self.vmap = None   # the forward batching rule of vectorized_map (def_vmap)
        self.nondiff = False
        self.gradient_override = None  # set by RegisterGradient / no_gradient
        _PRIMITIVES[name] = self

    def def_impl(self, fn):
        self.impl = fn
        return fn

    def def_vjp(self, fn):
        self.vjp = fn
        return fn

    def def_jvp(self, fn):
        self.jvp = fn
        return fn

    def def_vmap(self, fn):
        """Declare the forward batching rule (see ``vmap`` above)."""
        self.vmap = fn
        return fn

    def def_shape(self, fn):
        """Declare the shape rule (see ``shape_rule``)."""
        self.shape_rule = fn
        return fn

    def def_lowering(self, fn):
        """Declare the XLA lowering through JAX (see ``lower_jax``)."""
        self.lower_jax = fn
        return fn

    def bind(self, *args, **params):
        return bind(self, *args, **params)

    def run_vjp(self, ct, ins, out, params, needs, batch=()):
        """The cotangents of ``ins`` for cotangent ``ct`` of ``out`` (one per input, None
        where there is none): the registered gradient (`RegisterGradient`) if any, else the
        VJP rule, called with ``needs`` (one bool per input) and ``batch`` (the shape of the
        leading axes ``ct`` carries). The one place rules are called in reverse mode."""
        rule = self.gradient_override
        if rule is None:
            rule = self.vjp
            if rule is None:
                raise LookupError(f"finegrad: no gradient (VJP rule) defined for primitive "
                                  f"'{self.name}'; register one with finegrad.RegisterGradient"
                                  f"('{self.name}') or wrap the computation in "
                                  f"finegrad.stop_gradient")
        if params or len(ins) > 2:
            in_cts = rule(ct, *ins, out=out, needs=needs, batch=batch, **params)
        elif len(ins) == 2:   # the same call; positional arguments are passed faster than *ins
            in_cts = rule(ct, ins[0], ins[1], out=out, needs=needs, batch=batch)
        else:
            in_cts = rule(ct, *ins, out=out, needs=needs, batch=batch)
        if len(in_cts) != len(ins):
            raise ValueError(f"finegrad: the gradient of primitive '{self.name}' returned "
                             f"{len(in_cts)} values for {len(ins)} inputs")
        return in_cts

    def run_jvp(self, ins, tangents, out, params):
        """The JVP rule's tangent of ``out``; ``tangents`` has one per input, None for a
        symbolic zero. The one place JVP rules are called."""
        return self.jvp(ins, tangents, out=out, **params)

    def __repr__(self):
        return f"Primitive({self.name!r})"


def def_nondiff(prim):
    """Declare ``prim`` not differentiable (argmax, comparisons, ...): no gradient flows."""
    prim.nondiff = True
    return prim


def broadcast_shape_rule(*shapes, **params):
    """Shape rule of NumPy broadcasting (elementwise primitives)."""
    return dims.broadcast_shape(*shapes)


def reduction_shape_rule(shape, *, axis, keepdims, **params):
    """Shape rule of a reduction over ``axis`` (with ``keepdims``)."""
    return dims.reduced_shape(shape, axis, keepdims)


def same_shape_rule(x, **params):
    """Shape rule of an op whose output has its input's shape (softmax, cumsum)."""
    return tuple(x)


def primitives():
    """All registered primitives, by name."""
    return dict(_PRIMITIVES)


def find_primitive(name):
    """The primitive named ``name``, or None."""
    return _PRIMITIVES.get(name)


def get_primitive(name, fn="finegrad"):
    try:
        return _PRIMITIVES[name]
    except KeyError:
        raise LookupError(f"{fn}: no primitive named {name!r}; known: "
                          f"{', '.join(sorted(_PRIMITIVES))}") from None


_new = object.__new__   # an instance without calling __init__ (see `bind`)


# --- dispatch --------------------------------------------------------------------------------

def bind(prim, *args, **params):
    """Run ``prim`` on ``args`` and let the active recorders see it. Returns Tensor(s).

    The eager path: one or two tensors (or a tensor and a Python scalar) run without building
    lists or raising, as most of a program's ops do; other calls take `_run_many`. With a
    recorder active, `_record_op` shows it the op. Inside a shape-polymorphic trace,
    ``params`` may hold `Dim` sizes: the implementation gets their values in this trace, the
    recorders the symbolic params."""
    recs = _state.recorders
    iparams = params if not params or not recs or _state.tracer is None else \
        _impl_params(params)
    n = len(args)
    if n == 2:
        a, b = args
        if type(a) is Tensor and type(b) is Tensor:
            va, vb = a._value, b._value
            if prim.unify is True and (type(va) is not type(vb) or type(va) is ndarray) and \
                    va.dtype != vb.dtype:   # (one NumPy scalar type: one numeric dtype)
                raise _mixed_dtypes(prim, (va, vb))
        else:   # converted: with ``unify``, to one dtype already
            args = a, b = _scalar_pair(prim, a, b) or _convert_inputs(prim, args)
            va, vb = a._value, b._value
        try:   # (large inputs: split over threads; two NumPy scalars never are)
            out = threads.split(prim, (va, vb), iparams) if (type(va) is ndarray or type(vb)
                  is ndarray) and va.size + vb.size >= threads.split_from else \
                prim.impl(va, vb, **iparams) if iparams else prim.impl(va, vb)
        except (ValueError, TypeError) as e:
            out = made_up.retried(prim, (va, vb), iparams, e)
            if out is None:
                raise _impl_error(prim, (va, vb), e) from None
    elif n == 1 and type(args[0]) is Tensor:
        va = args[0]._value
        try:
            out = threads.split(prim, (va,), iparams) if type(va) is ndarray and \
                va.size >= threads.split_from else \
                prim.impl(va, **iparams) if iparams else prim.impl(va)
        except (ValueError, TypeError) as e:
            out = made_up.retried(prim, (va,), iparams, e)
            if out is None:
                raise _impl_error(prim, (va,), e) from None
    else:
        args, out = _run_many(prim, args, iparams)
    if prim.multiple_results:
        out = tuple(map(Tensor, out))
    else:   # Tensor(value) without the Python frame of its __init__: most tensors start here
        value, out = out, _new(Tensor)
        out._value = value
    if recs:
        _record_op(prim, args, params, out, recs)
    return out


def _record_op(prim, ins, params, out, recs):
    """`bind`'s recording path: the active recorders see ``prim`` applied to ``ins`` (under
    a gradient override map, the primitive it maps to). One recorder that runs no rules
    records directly; otherwise `record` lets each one that cares see the op."""
    if _OVERRIDE_SCOPES and _state.gradient_overrides:
        prim = _state.gradient_overrides.get(prim, prim)
    if len(recs) == 1 and not recs[0].runs_rules:
        recs[0].record(prim, ins, params, out)
    else:
        record(prim, ins, params, out)


def _impl_error(prim, vals, e):
    """The error a primitive's implementation raised, as finegrad reports it: a ValueError
    as a shape error, a TypeError as a dtype error, both naming the primitive."""
    return _shape_error(prim, vals, e) if isinstance(e, ValueError) else \
        _dtype_error(prim, vals, e)


def _run_many(prim, args, iparams):
    """`bind`'s other calls (none, or three and more inputs, or one that is not a tensor):
    the input tensors and ``prim``'s result on their values."""
    ins = args if all(type(a) is Tensor for a in args) else _convert_inputs(prim, args)
    vals = [a._value for a in ins]
    if prim.unify is True:
        _check_same_dtype(prim, vals)
    elif prim.unify:
        _check_same_dtype(prim, [vals[i] for i in prim.unify if i < len(vals)])
    try:
        return ins, prim.impl(*vals, **iparams)
    except ValueError as e:
        out = made_up.retried(prim, vals, iparams, e)
        if out is None:
            raise _shape_error(prim, vals, e) from None
        return ins, out
    except TypeError as e:
        raise _dtype_error(prim, vals, e) from None


def _impl_params(params):
    """``params`` with every `Dim` replaced by its value in the current trace."""
    return dims.concrete(params) if _state.tracer.poly else params


def shape_of(t):
    """The shape of tensor ``t`` for internal code: ``t``'s NumPy shape, but inside a
    shape-polymorphic trace a tuple whose open sizes are `Dim` objects (symbolic sizes a
    rule computes with and passes to `bind` as params). ``Tensor.shape`` (public) shows
    those sizes as None instead, as TensorFlow does."""
    tr = _state.tracer
    if tr is None or not tr.poly:
        return t._value.shape
    return tr.shape_of(t)


def same_shape(a, b):
    """Whether shapes ``a`` and ``b`` (from `shape_of`) are the same: ``a == b`` eagerly; the
    same expressions inside a shape-polymorphic trace (no guard)."""
    tr = _state.tracer
    if tr is None or not tr.poly:
        return a == b
    return dims.same_shape(a, b)


def size_of(t, axis):
    """``shape_of(t)[axis]``."""
    return shape_of(t)[axis]


def _shape_error(prim, vals, e):
    """A ValueError from a kernel restated with the op's name: NumPy's broadcasting errors
    as incompatible shapes, a singular matrix as TensorFlow's InvalidArgumentError; the
    kernel's own finegrad errors pass unchanged."""
    if isinstance(e, OpError) or str(e).startswith("finegrad"):
        return e
    shapes = " and ".join(str(tuple(np.shape(v))) for v in vals)
    if isinstance(e, np.linalg.LinAlgError):
        return InvalidArgumentError(f"finegrad.{prim.name}: the input is not invertible "
                                    f"({e}; input of shape {shapes})")
    if "broadcast" not in str(e) and "shape" not in str(e):
        return ValueError(f"finegrad.{prim.name}: {e} (inputs of shapes {shapes})")
    return ValueError(f"finegrad.{prim.name}: incompatible inputs of shapes {shapes}: {e}")


def _dtype_error(prim, vals, e):
    """A TypeError from NumPy (an op without a kernel for a dtype, e.g. floor of a complex
    tensor) restated with the op's name; finegrad's own TypeErrors pass unchanged."""
    if str(e).startswith("finegrad"):
        return e
    dts = " and ".join("string" if np.asarray(v).dtype.kind == "O" else str(np.asarray(v).dtype)
                       for v in vals)
    return TypeError(f"finegrad.{prim.name}: not defined for inputs of dtype {dts} ({e})")


_SCALARS: dict = {}  # (value, key) -> constant Tensor: Python scalars in hot loops cost a lookup


def _scalar_pair(prim, a, b):
    """Fast path for ``tensor op python_float`` (and reversed) on a float tensor: the scalar
    takes the tensor's dtype, as a cached constant. The cache key is the value and the
    tensor's NumPy scalar type (which fixes the dtype: reading it costs less than the dtype),
    or its array's dtype."""
    if prim.unify is not True:
        return None
    ta, tb = type(a), type(b)
    if ta is Tensor and (tb is float or tb is int):
        t, value = a, b
    elif tb is Tensor and (ta is float or ta is int):
        t, value = b, a
    else:
        return None
    x = t._value
    key = (value, type(x) if type(x) is not ndarray else x.dtype)
    c = _SCALARS.get(key)
    if c is None:
        dt = x.dtype
        if dt.kind != "f":
            return None
        c = Tensor(convert_like(value, dt, f"finegrad.{prim.name}"))
        if value:   # 0.0 == -0.0 as keys, but not as IEEE values: never cache zeros
            if len(_SCALARS) > 4096:
                _SCALARS.clear()
            _SCALARS[key] = c
    return (t, c) if t is a else (c, t)


def _mixed_dtypes(prim, vals):
    if any(v.dtype.kind == "O" for v in vals):   # a string beside numbers: say so
        return TypeError(f"finegrad.{prim.name}: not defined for string tensors, got a string "
                         f"beside a {next(str(v.dtype) for v in vals if v.dtype.kind != 'O')} "
                         f"input")
    names = sorted({str(v.dtype) for v in vals})
    return TypeError(f"finegrad.{prim.name}: inputs have different dtypes "
                     f"({' and '.join(names)}); cast one with finegrad.cast")


def _check_same_dtype(prim, vals):
    if len(vals) > 1 and any(v.dtype != vals[0].dtype for v in vals):
        raise _mixed_dtypes(prim, vals)


def _convert_inputs(prim, args):
    """Convert arguments to Tensors; with ``unify``, Python scalars take the tensors' dtype."""
    fn = f"finegrad.{prim.name}"
    if not prim.unify:
        return tuple(_to_tensor(a, fn) for a in args)
    if prim.unify is True:
        return unify_args(prim, args)
    out = [_to_tensor(a, fn) for a in args]
    idx = [i for i in prim.unify if i < len(args)]
    for i, t in zip(idx, unify_args(prim, [args[i] for i in idx]), strict=True):
        out[i] = t
    return tuple(out)


def unify_args(prim, args):
    """Tensors for ``args`` sharing one dtype: Python scalars take the tensors' dtype."""
    fn = f"finegrad.{prim.name}"
    strong = [_to_tensor(a, fn) if _is_strong(a) else None for a in args]
    known = [t._value.dtype for t in strong if t is not None]
    if not known:   # no tensor: NumPy arrays fix the dtype, as they would on their own
        strong = [_to_tensor(a, fn) if isinstance(a, np.ndarray) or interop.is_array_like(a)
                  else None for a in args]
        known = [t._value.dtype for t in strong if t is not None]
    if known:
        dt = known[0]
        if any(d != dt for d in known):
            raise _mixed_dtypes(prim, [t._value for t in strong if t is not None])
        return tuple(s if s is not None else Tensor(convert_like(a, dt, fn))
                     for a, s in zip(args, strong, strict=True))
    # only Python scalars: TensorFlow converts each with its default dtype, then unifies
    ts = [_to_tensor(a, fn) for a in args]
    kinds = {t._value.dtype for t in ts}
    if len(kinds) > 1:
        dt = max(kinds, key=lambda d: "biufc".index(d.kind))
        ts = [Tensor(to_numpy_value(a, dt, fn)) for a in args]
    return tuple(ts)


def _to_tensor(a, fn):
    """``convert_to_tensor(a)``, with errors naming the op ``fn`` that was given ``a``."""
    if type(a) is Tensor or hasattr(type(a), "_as_tensor"):
        return convert_to_tensor(a)
    return Tensor(to_numpy_value(a, None, fn))


def _is_strong(a):
    """Tensors and Variables fix the dtype; NumPy arrays beside them take it (TensorFlow's
    conversion of a NumPy operand, by `convert_like`), and so do Python and NumPy scalars and
    other libraries' arrays (a pandas Series, a PyTorch tensor: NumPy arrays to TensorFlow)."""
    if isinstance(a, (list, tuple)):
        return _contains_strong(a)
    if isinstance(a, (int, float, complex, np.generic, np.ndarray)):
        return False
    return isinstance(a, Tensor) or hasattr(type(a), "_as_tensor") or \
        not interop.is_array_like(a)


def _contains_strong(a):
    return any(_contains_strong(x) if isinstance(x, (list, tuple)) else _is_strong(x) for x in a)


# --- recorders -------------------------------------------------------------------------------

class Recorder:
    """Base of everything that observes ops (tapes, accumulators, watchers)."""

    runs_rules = False  # True when `record` runs ops of its own (JVP rules)

    def record(self, prim, ins, params, out):
        """Observe one op; ``out`` is a Tensor, or a tuple for multiple results."""

    def variable_read(self, variable, tensor):
        """Observe a read of ``variable`` that produced ``tensor``."""

    def watches(self, tensor):
        """Whether gradients taken by this recorder can flow through ``tensor``."""
        return False

    def watch_site(self, tensor):
        """Where ``tensor`` was explicitly watched, as (file, line), or None."""
        return None

    def mark(self, inputs=()):
        """A position in what this recorder has recorded, for `captured_since`; None when
        it keeps no record of the ops it saw, or when nothing it watches could be captured
        (all of it is among ``inputs``, the arguments of the call that asks)."""
        return None

    #: whether this recorder needs the ops inside a `custom_gradient` call that it records as
    #: one op, when it watched only the call's arguments (`mark` gave None). A graph builder
    #: does (they are the graph); a tape that differentiates once does not
    inner_ops = True

    def captured_since(self, mark, known):
        """The tensors, watched before ``mark``, that ops recorded since consumed, less those
        whose ids are in ``known``, in first-use order (`custom_gradient`'s capture check)."""
        return []


def record(prim, ins, params, out):
    """Let every active recorder observe an op that has already been computed.

    A recorder that runs rules while recording (an accumulator) runs with only the recorders
    outside it active (see the module docstring); a tape only stores the op.
    """
    recs = _state.recorders
    for i, r in enumerate(recs):
        if r.runs_rules:
            with inner_stack(recs[:i]):
                r.record(prim, ins, params, out)
        else:
            r.record(prim, ins, params, out)


def notify_variable_read(variable, tensor):
    """Tell the read listener (`listen`), then every active recorder, of a variable read."""
    listener = _state.read_listener
    if listener is not None:
        listener.variable_read(variable, tensor)
    recs = _state.recorders
    for i, r in enumerate(recs):
        with inner_stack(recs[:i]):
            r.variable_read(variable, tensor)


class inner_stack:
    """Context manager: make ``recorders`` the active stack, then restore the previous one."""

    __slots__ = ("_recs", "_saved")

    def __init__(self, recorders):
        self._recs = recorders

    def __enter__(self):
        self._saved = _state.recorders
        _state.recorders = self._recs

    def __exit__(self, *exc):
        _state.recorders = self._saved


class recorded_as:
    """Context manager: ops of a primitive that is a key of ``overrides`` are recorded as
    the primitive it maps to (the same computation with another gradient, made by
    ``gradient_override_map``), on top of the overrides already active."""

    __slots__ = ("_overrides", "_saved")

    def __init__(self, overrides):
        self._overrides = overrides

    def __enter__(self):
        self._saved = _state.gradient_overrides
        _state.gradient_overrides = {**self._saved, **self._overrides}
        _OVERRIDE_SCOPES.append(self)

    def __exit__(self, *exc):
        _state.gradient_overrides = self._saved
        _OVERRIDE_SCOPES.remove(self)


# the `recorded_as` scopes open on any thread: while there is none, `bind` does not read the
# (thread-local, so slower to read) overrides at all. Appends and removes are atomic.
_OVERRIDE_SCOPES: list = []


def listen(listener, recorders=None):
    """Make ``listener`` the read listener: ``listener.variable_read(variable, tensor)`` hears
    every variable read (`notify_variable_read`) until `unlisten`, without being a recorder,
    so ops keep their cost. It gets the listener it replaces as ``listener.outer`` (to pass
    reads on to it). Unless None, ``recorders`` become the active stack meanwhile (in the
    same call: a custom_gradient call running its function unrecorded). Returns what
    `unlisten` gives back."""
    outer = listener.outer = _state.read_listener
    _state.read_listener = listener
    if recorders is None:
        return outer, None
    stack, _state.recorders = _state.recorders, recorders
    return outer, stack


def unlisten(saved):
    """Give back the read listener `listen` replaced, and the stack if it replaced that."""
    _state.read_listener, stack = saved
    if stack is not None:
        _state.recorders = stack


def push_recorder(rec):
    _state.recorders = _state.recorders + (rec,)


def pop_recorder(rec):
    recs = _state.recorders
    if recs and recs[-1] is rec:   # the common case: the innermost one
        _state.recorders = recs[:-1]
    elif rec in recs:
        _state.recorders = tuple(r for r in recs if r is not rec)


def without(rec):
    """Context manager: the active stack with ``rec`` paused (e.g. a tape taking its gradient)."""
    recs = _state.recorders
    if len(recs) == 1 and recs[0] is rec:   # the common case: rec alone
        return inner_stack(())
    return inner_stack(tuple(r for r in recs if r is not rec))


def pause(rec):
    """`without` for code that avoids a context manager's calls (a tape's reverse pass):
    pause ``rec``, returning the active stack, which `restore` gives back."""
    saved = _state.recorders
    if saved:
        _state.recorders = () if len(saved) == 1 and saved[0] is rec else \
            tuple(r for r in saved if r is not rec)
    return saved


def restore(saved):
    """Make ``saved`` (from `pause`) the active stack again."""
    _state.recorders = saved


def active_recorders():
    return _state.recorders


def current_tracer():
    """The graph builder tracing on this thread (`finegrad.function`), or None."""
    return _state.tracer


class tracing:
    """Context manager: ``builder`` is the current tracer and the only active recorder."""

    __slots__ = ("_builder", "_saved")

    def __init__(self, builder):
        self._builder = builder

    def __enter__(self):
        self._saved = (_state.tracer, _state.recorders)
        _state.tracer, _state.recorders = self._builder, (self._builder,)

    def __exit__(self, *exc):
        _state.tracer, _state.recorders = self._saved


class hidden:
    """Context manager: no recorder, nor the read listener, sees what runs inside (a
    computation whose gradient is defined elsewhere, e.g. `grad_pass_through`)."""

    __slots__ = ("_saved",)

    def __enter__(self):
        self._saved = (_state.recorders, _state.read_listener)
        _state.recorders, _state.read_listener = (), None

    def __exit__(self, *exc):
        _state.recorders, _state.read_listener = self._saved
