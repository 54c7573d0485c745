"""GradientTape: reverse-mode differentiation by recording ops and walking them backwards.

A tape is a recorder (see core.py). While active it keeps, for every op with a watched input, the
entry ``(primitive, inputs, params, output)`` and marks the floating outputs as watched, so
watching spreads forward through the computation. Entries are appended in execution order, which is
already a topological order: the reverse pass walks them backwards, calls each VJP rule with the
output's accumulated cotangent, and adds the results into the inputs' cotangents. The rules are
finegrad ops, so an outer tape (or an accumulator) records the reverse pass itself: that is how
nested tapes give higher derivatives.

The tape holds references to the tensors it recorded (ids stay unique while it lives) and drops
them after a non-persistent gradient, so a loop of tapes keeps memory flat.
"""

from __future__ import annotations

import contextlib
import enum
import itertools
import sys

import numpy as np

from finegrad._src.tracebacks import api_boundary
from finegrad._src import core, dims, nest
from finegrad._src.dtypes import INEXACT_SCALARS
from finegrad._src.ops.array.structural import convert_to_tensor, reshape, zeros_like, transpose
from finegrad._src.ops.array.gather import add_cotangents, dense_cotangent
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


class UnconnectedGradients(enum.Enum):
    """What a gradient is for a source the target does not depend on: None, or zeros.

    >>> import finegrad as fg
    >>> x, y = fg.constant(1.), fg.constant([1., 2.])
    >>> with fg.GradientTape() as t:
    ...     t.watch([x, y])
    ...     z = x * 2.
    >>> t.gradient(z, y, unconnected_gradients=fg.UnconnectedGradients.ZERO).numpy()
    array([0., 0.], dtype=float32)
    """

    NONE = "none"
    ZERO = "zero"


_UNCONNECTED_NONE = UnconnectedGradients.NONE   # (an Enum member lookup costs a call)


def _is_float(t):
    v = t._value
    return type(v) in INEXACT_SCALARS or v.dtype.kind in "fc"


class GradientTape(core.Recorder):
    """Record operations for reverse-mode differentiation (TensorFlow's ``tf.GradientTape``).

    Args:
        persistent: allow several ``gradient``/``jacobian`` calls (else one, then freed).
        watch_accessed_variables: watch trainable variables automatically when they are read.

    >>> import finegrad as fg
    >>> x = fg.constant(3.)
    >>> with fg.GradientTape() as t2:
    ...     t2.watch(x)
    ...     with fg.GradientTape() as t1:
    ...         t1.watch(x)
    ...         y = x ** 3
    ...     dy = t1.gradient(y, x)
    >>> dy.numpy(), t2.gradient(dy, x).numpy()
    (np.float32(27.0), np.float32(18.0))
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        # a persistent tape may differentiate grad_fn's ops, which use f's tensors, later
        self.inner_ops = self._persistent
        self.runs_rules = False   # (as the class says; an instance attribute is read faster)
        self._watch_accessed = bool(watch_accessed_variables)
        self._reset_state()
        self._active = False

    def _reset_state(self):
        self._watched = {}    # id(tensor) -> tensor: the tensors gradients can flow through
        self._entries = []    # (primitive, inputs, params, output) in execution order
        self._variables = {}  # id(variable) -> variable, watched explicitly or when read
        self._reads = {}      # id(variable) -> tensors its reads produced
        self._sites = {}      # id(tensor) -> (code, offset) of the watch() call, for messages
        self._released = False

    # --- the recorder protocol ----------------------------------------------------------------

    def __enter__(self) -> Any:
        if self._active:
            raise ValueError("finegrad.GradientTape: the tape is still recording; a tape "
                             "cannot be entered again inside its own `with` block")
        if self._released:
            self._reset_state()
        core.push_recorder(self)
        self._active = True
        return self

    def __exit__(self, *exc: Any) -> None:
        core.pop_recorder(self)
        self._active = False

    def record(self, prim: Any, ins: Any, params: TensorLike, out: Any) -> None:
        watched = self._watched
        for t in ins:
            if id(t) in watched:
                break
        else:
            return
        if prim.nondiff and prim.gradient_override is None:
            return
        self._entries.append((prim, ins, params, out))
        if prim.multiple_results:
            for o in out:
                if _is_float(o):
                    watched[id(o)] = o
        elif type(out._value) in INEXACT_SCALARS or out._value.dtype.kind in "fc":
            watched[id(out)] = out

    def variable_read(self, variable: Any, tensor: TensorLike) -> None:
        if id(variable) in self._variables or (self._watch_accessed and variable.trainable):
            self._variables[id(variable)] = variable
            self._reads.setdefault(id(variable), []).append(tensor)
            if _is_float(tensor):
                self._watched[id(tensor)] = tensor

    def watches(self, tensor: TensorLike) -> bool:
        return id(tensor) in self._watched

    def watch_site(self, tensor: TensorLike) -> Any:
        site = self._sites.get(id(tensor))
        return None if site is None else (site[0].co_filename, _line_of(*site))

    def mark(self, inputs: Any = ()) -> Any:
        watched = self._watched
        n = len(watched)
        if n == 0 or n <= len(inputs) and set(map(id, inputs)).issuperset(watched):
            return None   # it watches only inputs: no tensor it watches can be captured
        return self._entries, len(self._entries), watched, n

    def captured_since(self, mark: Any, known: Any) -> Any:
        # a tensor watched before the mark is one of the first n0 keys of `_watched` (it only
        # grows, in insertion order, and holds its tensors, so their ids stay theirs); the
        # ones watched since are counted from the end. An op that consumed a watched tensor
        # was recorded (nondifferentiable ones aside), so the entries since the mark hold all
        # such uses. A reset or released tape (new containers) reports nothing.
        # Linear in the ops since the mark, whatever the tape's size: never a scan of all it
        # watched (a chain of custom_gradient calls under one tape would be quadratic).
        entries, start, watched, n0 = mark
        if entries is not self._entries or watched is not self._watched:
            return []
        used = {id(t) for e in entries[start:] for t in e[1]}
        used.difference_update(known, itertools.islice(reversed(watched), len(watched) - n0))
        if not any(k in watched for k in used):   # the common case: nothing captured (not
            return []                               # set.isdisjoint(dict): it walks the dict)
        out = {id(t): t for e in entries[start:] for t in e[1]
               if id(t) in used and id(t) in watched}
        return list(out.values())

    # --- public API ---------------------------------------------------------------------------

    def watch(self, tensor: TensorLike) -> None:
        """Watch a tensor, a Variable, or a nested structure of them.

        >>> import finegrad as fg
        >>> x = fg.constant(2.)
        >>> with fg.GradientTape() as t:
        ...     t.watch(x)
        ...     y = x * x
        >>> t.gradient(y, x).numpy()
        np.float32(4.0)

        Raises:
            ValueError: for anything that is not a tensor or variable (e.g. a Python float).
        """
        caller = sys._getframe(1)
        site = (caller.f_code, caller.f_lasti)  # its line is found only for a warning
        for t in ((tensor,) if type(tensor) is Tensor else nest.flatten(tensor)):
            if type(t) is Tensor:
                if _is_float(t):
                    self._watched[id(t)] = t
                    self._sites[id(t)] = site
            elif isinstance(t, Variable):
                self._variables[id(t)] = t
            else:
                raise ValueError(f"finegrad.GradientTape.watch: expected a Tensor or Variable, "
                                 f"got {type(t).__name__} {t!r:.40}; convert it with "
                                 f"finegrad.constant first")

    def watched_variables(self) -> Any:
        """The variables this tape watches, in the order they were first watched or read.

        >>> import finegrad as fg
        >>> a, b = fg.Variable(1., name="a"), fg.Variable(2., name="b")
        >>> with fg.GradientTape() as t:
        ...     y = b * a
        >>> [v.name for v in t.watched_variables()]
        ['b:0', 'a:0']
        """
        return tuple(self._variables.values())

    def stop_recording(self) -> Any:
        """Context manager: ops inside it are not recorded on this tape.

        >>> import finegrad as fg
        >>> x = fg.constant(2.)
        >>> with fg.GradientTape() as t:
        ...     t.watch(x)
        ...     with t.stop_recording():
        ...         y = x * x
        >>> print(t.gradient(y, x))
        None
        """
        if not self._active:
            raise RuntimeError("finegrad.GradientTape.stop_recording: the tape is not "
                               "recording; use it inside the tape's `with` block")
        return core.without(self)

    def reset(self) -> None:
        """Forget everything recorded so far (watched tensors included).

        >>> import finegrad as fg
        >>> x = fg.constant(3.)
        >>> with fg.GradientTape() as t:
        ...     t.watch(x)
        ...     y = x * x
        ...     t.reset()
        ...     t.watch(x)
        ...     y = x * 2.
        >>> t.gradient(y, x).numpy()
        np.float32(2.0)
        """
        self._reset_state()

    def _check_usable(self, fn):
        if self._released:
            raise RuntimeError(f"finegrad.GradientTape.{fn}: a non-persistent GradientTape "
                               f"can compute gradients only once; create the tape with "
                               f"persistent=True to call it several times")

    def _release(self):
        if not self._persistent:
            # (a consuming pass, `_take`, has already handed over entries and watched tensors)
            if self._entries or self._watched or self._reads:
                self._watched, self._entries, self._reads = {}, [], {}
            self._released = True

    @api_boundary
    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """d(sum of ``target``)/d``sources``, as a vector-Jacobian product.

        Args:
            target: a tensor or nested structure of tensors; several targets are summed (a
                Variable is read as if inside the tape, as in TensorFlow).
            sources: a tensor, Variable or nested structure of them (the result has its shape).
            output_gradients: upstream gradients, one per target (default: ones).
            unconnected_gradients: ``UnconnectedGradients.NONE`` (default) or ``ZERO``.

        >>> import finegrad as fg
        >>> x = fg.constant([1., 2.])
        >>> with fg.GradientTape() as t:
        ...     t.watch(x)
        ...     y = x * x
        >>> t.gradient(y, {"x": x}, output_gradients=fg.constant([1., 10.]))["x"].numpy()
        array([ 2., 40.], dtype=float32)

        Raises:
            RuntimeError: on a second call of a non-persistent tape.
            TypeError: when ``target`` is None.
            LookupError: when the path crosses a primitive without a gradient rule.
        """
        if self._released:
            self._check_usable("gradient")
        if type(target) is Tensor and type(sources) is Tensor and output_gradients is None \
                and unconnected_gradients is _UNCONNECTED_NONE:
            return self._gradient_of_one(target, sources)
        unconnected = _unconnected(unconnected_gradients)
        targets = [self._read(t) if isinstance(t, Variable) else t for t in nest.flatten(target)]
        _check_targets(target, targets)
        flat_sources = nest.flatten(sources)
        cts = _initial_cotangents(targets, output_gradients)
        with self._pass_scope():
            grads = self._backward(targets, cts, flat_sources, consume=not self._persistent)
        self._release()
        return nest.pack_sequence_as(sources, _finish(grads, flat_sources, unconnected))

    def _gradient_of_one(self, target, source):
        """The common case, one tensor target and one tensor source, without the general
        path's structure handling (nor its context managers: this is most of a small
        program's gradient cost)."""
        if not (_is_float(target) and _is_float(source)):
            self._release()
            return None
        consume = not self._persistent
        entries, watched = self._take(consume)
        saved = None if self._records_own_pass() else core.pause(self)
        try:
            ct = _cotangents(entries, watched, {id(target): _ones_seed(target)}, (id(source),),
                             consume)
        finally:
            if saved is not None:
                core.restore(saved)
        self._release()
        return ct.get(id(source))

    def _records_own_pass(self):
        """Whether this tape records its own reverse pass: a persistent tape asked for a
        gradient inside its ``with`` block does, as in TensorFlow, so that a later call
        differentiates the earlier one (derivatives of any order from one tape)."""
        return self._persistent and self._active

    def _pass_scope(self):
        """The recorders active during a reverse pass: all but this tape, unless it records
        its own pass."""
        return contextlib.nullcontext() if self._records_own_pass() else core.without(self)

    def _take(self, consume):
        """The entries and watched ids for a reverse pass; with ``consume`` the tape hands
        them over (keeping only the ids), so the pass frees each op's tensors as it goes.
        A tape recording its own pass hands over a snapshot of the entries (the pass appends
        to them)."""
        if not consume:
            if self._records_own_pass():
                return list(self._entries), self._watched
            return self._entries, self._watched
        entries, watched = self._entries, set(self._watched)
        self._entries, self._watched = [], {}
        return entries, watched

    def _read(self, variable):
        """A variable used as a target is read as if inside the tape, as in TensorFlow."""
        if self in core.active_recorders():
            return variable.read_value()
        core.push_recorder(self)
        try:
            return variable.read_value()
        finally:
            core.pop_recorder(self)

    def _source_keys(self, sources):
        keys = []
        for s in sources:
            if isinstance(s, Variable):
                keys.append([id(r) for r in self._reads.get(id(s), ())])
            elif type(s) is Tensor:
                keys.append([id(s)] if _is_float(s) else [])
            else:
                raise ValueError(f"finegrad.GradientTape.gradient: sources must be tensors or "
                                 f"variables, got {type(s).__name__}")
        return keys

    def _backward(self, targets, cts, sources, consume=False, batch=()):
        """`reverse_pass` over this tape's entries. ``consume`` (a non-persistent tape's one
        gradient) hands the entries over to it, so each op's saved tensors are freed as soon
        as it is processed; ``batch`` is the shape of the leading axes the cotangents carry."""
        keys = self._source_keys(sources)
        entries, watched = self._take(consume)
        return reverse_pass(entries, watched, targets, cts, keys, consume=consume, batch=batch)

    @api_boundary
    def jacobian(self, target: Any, sources: Any,
                 unconnected_gradients: Any = UnconnectedGradients.NONE,
                 parallel_iterations: Any = None, experimental_use_pfor: bool = True) -> Any:
        """The full Jacobian of ``target`` w.r.t. each source: shape target.shape + source.shape.

        Computed in one vectorized reverse pass when every recorded rule accepts batched
        cotangents, else one reverse pass per target element.

        >>> import finegrad as fg
        >>> x = fg.constant([1., 2.])
        >>> with fg.GradientTape() as t:
        ...     t.watch(x)
        ...     y = x * x
        >>> t.jacobian(y, x).numpy()
        array([[2., 0.],
               [0., 4.]], dtype=float32)
        """
        self._check_usable("jacobian")
        unconnected = _unconnected(unconnected_gradients)
        target = _single_target(self._read(target) if isinstance(target, Variable) else target,
                                "jacobian")
        flat_sources = nest.flatten(sources)
        tshape = target._value.shape
        n = int(np.prod(tshape, dtype=np.int64))
        for t in [target] + flat_sources:   # its shape holds the sizes of both
            if isinstance(t, Tensor):
                dims.pin(core.shape_of(t), "a Jacobian of or with respect to a tensor with a "
                                           "dynamic axis (its shape is the sizes of both)")
        if not _is_float(target):
            grads = [None] * len(flat_sources)
        else:
            eye = Tensor(np.eye(n, dtype=target._value.dtype).reshape((n,) + tshape))
            grads = self._batched(target, eye, flat_sources, (n,))
        self._release()
        out = []
        for g, s in zip(grads, flat_sources, strict=True):
            sshape = _shape_of(s)
            if g is None:
                out.append(None if unconnected is UnconnectedGradients.NONE else
                           Tensor(np.zeros(tshape + sshape, _dtype_of(s))))
            else:
                out.append(reshape(g, tshape + sshape))
        return nest.pack_sequence_as(sources, out)

    @api_boundary
    def batch_jacobian(self, target: Any, source: Any,
                       unconnected_gradients: Any = UnconnectedGradients.NONE,
                       parallel_iterations: Any = None, experimental_use_pfor: Any = True) -> Any:
        """Per-example Jacobians: ``target[i]`` w.r.t. ``source[i]``, shape (B,) + t[1:] + s[1:].

        Assumes, as TensorFlow does, that target example i depends only on source example i.

        >>> import finegrad as fg
        >>> x = fg.constant([[1., 2.], [3., 4.]])
        >>> with fg.GradientTape() as t:
        ...     t.watch(x)
        ...     y = x * x
        >>> t.batch_jacobian(y, x).shape
        TensorShape([2, 2, 2])
        """
        self._check_usable("batch_jacobian")
        unconnected = _unconnected(unconnected_gradients)
        target = _single_target(self._read(target) if isinstance(target, Variable) else target,
                                "batch_jacobian")
        tshape, sshape = target._value.shape, source._value.shape
        for t in (target, source):
            dims.pin(core.shape_of(t), "batch_jacobian of a tensor with a dynamic axis")
        if not tshape or not sshape or tshape[0] != sshape[0]:
            raise ValueError(f"finegrad.GradientTape.batch_jacobian: target and source need the "
                             f"same first (batch) dimension, got shapes {tshape} and {sshape}")
        b, m = tshape[0], int(np.prod(tshape[1:], dtype=np.int64))
        g = None
        if _is_float(target):
            eye = np.eye(m, dtype=target._value.dtype).reshape((m, 1) + tshape[1:])
            ct = Tensor(np.broadcast_to(eye, (m,) + tshape).copy())
            (g,) = self._batched(target, ct, [source], (m,))
        self._release()
        if g is None:
            return None if unconnected is UnconnectedGradients.NONE else \
                Tensor(np.zeros((b,) + tshape[1:] + sshape[1:], _dtype_of(source)))
        g = reshape(g, (m, b) + sshape[1:])
        ns = len(sshape) - 1
        g = transpose(g, (1, 0) + tuple(range(2, 2 + ns)))
        return reshape(g, (b,) + tshape[1:] + sshape[1:])

    def _batched(self, target, ct, sources, batch):
        """Reverse pass with cotangents carrying leading ``batch`` axes (or a loop if needed)."""
        if all(p.batch_rule and p.gradient_override is None for p, *_ in self._entries):
            with self._pass_scope():
                return self._backward([target], [ct], sources, batch=batch)
        rows = []
        with self._pass_scope():
            for i in range(batch[0]):
                rows.append([dense_cotangent(g) for g in
                             self._backward([target], [ct[i]], sources)])
        out = []
        for j, s in enumerate(sources):
            col = [r[j] for r in rows]
            if all(g is None for g in col):
                out.append(None)
                continue
            z = _zeros_for(s)
            from finegrad._src.ops.array.structural import stack
            out.append(stack([z if g is None else g for g in col]))
        return out


def _line_of(code, offset):
    """The line of the instruction at byte ``offset`` of ``code`` (a frame's ``f_lasti``)."""
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line
    return code.co_firstlineno


def _single_target(target, fn):
    """The one tensor a Jacobian is taken of (a list would be converted to a new, unrecorded
    tensor and give a silent None)."""
    if type(target) is not Tensor:
        raise TypeError(f"finegrad.GradientTape.{fn}: target must be one tensor, got "
                        f"{type(target).__name__}; stack several targets inside the tape, or "
                        f"call {fn} once per target")
    return target


def _dtype_of(s):
    return s._storage.dtype if isinstance(s, Variable) else s._value.dtype


def _unconnected(u):
    if isinstance(u, str):
        try:
            return UnconnectedGradients(u.lower())
        except ValueError:
            pass
    if isinstance(u, UnconnectedGradients):
        return u
    raise ValueError(f"finegrad: unconnected_gradients must be UnconnectedGradients.NONE or "
                     f".ZERO, got {u!r}")


def _check_targets(target, targets):
    """Targets are tensors (or Variables, already read): anything else is a TypeError, as in
    TensorFlow, never a silent None."""
    for i, t in enumerate(targets):
        if not isinstance(t, Tensor):
            where = "" if len(targets) == 1 and t is target else \
                f" (element {i} of {type(target).__name__} {target!r:.60})"
            raise TypeError(f"finegrad.GradientTape.gradient: target must be a tensor, a "
                            f"Variable or a nested structure of them, got "
                            f"{type(t).__name__} {t!r:.40}{where}")


def _initial_cotangents(targets, output_gradients):
    if output_gradients is None:
        return [_ones_seed(t) if isinstance(t, Tensor) and _is_float(t) else None
                for t in targets]
    ogs = nest.flatten(output_gradients)
    if len(ogs) != len(targets):
        raise ValueError(f"finegrad.GradientTape.gradient: {len(targets)} targets but "
                         f"{len(ogs)} output_gradients")
    cts = []
    for t, g in zip(targets, ogs, strict=True):
        if g is None:
            cts.append(_ones_seed(t) if _is_float(t) else None)
            continue
        g = convert_to_tensor(g, dtype_hint=t.dtype) if not isinstance(g, Tensor) else g
        if g._value.dtype != t._value.dtype:
            raise TypeError(f"finegrad.GradientTape.gradient: output_gradients[{len(cts)}] has "
                            f"dtype {g.dtype.name} but its target has dtype {t.dtype.name}; "
                            f"cast it with finegrad.cast")
        if g._value.shape != t._value.shape:
            g = _broadcast_ct(g, t)
        cts.append(g)
    return cts


def _ones_seed(t):
    """The default cotangent: ones, as a stride-0 broadcast (no memory pass; multiply by it is
    free, see arithmetic.multiply)."""
    v = t._value
    if type(v) is not np.ndarray:   # a NumPy scalar: a new tensor of a shared one
        one = _ONES.get(type(v))
        if one is None:
            one = _ONES[type(v)] = v.dtype.type(1)
        return Tensor(one)
    if v.ndim == 0:
        return Tensor(v.dtype.type(1))
    if dims.is_symbolic(core.shape_of(t)):   # a shape-polymorphic trace: sized at each call
        from finegrad._src.ops.array.structural import ones_like
        return ones_like(t)
    return Tensor(np.broadcast_to(np.ones((), v.dtype), v.shape))


_ONES: dict = {}   # NumPy scalar type -> its one (immutable, so shared by the seeds)


def _broadcast_ct(g, t):
    try:
        np.broadcast_shapes(g._value.shape, t._value.shape)
    except ValueError:
        raise ValueError(f"finegrad.GradientTape.gradient: output_gradients of shape "
                         f"{tuple(g._value.shape)} do not match the target's shape "
                         f"{tuple(t._value.shape)}") from None
    from finegrad._src.ops.array.structural import broadcast_as
    return broadcast_as(g, t)


def _finish(grads, sources, unconnected):
    out = []
    for g, s in zip(grads, sources, strict=True):
        if g is None and unconnected is UnconnectedGradients.ZERO:
            g = _zeros_for(s)
        out.append(g)
    return out


def _zeros_for(s):
    """Zeros shaped like source ``s`` (a tensor or a variable)."""
    if isinstance(s, Variable):
        return Tensor(np.zeros(s._storage.shape, s._storage.dtype))
    return zeros_like(s)


def _shape_of(s):
    """The shape of source ``s`` (a tensor or a variable)."""
    return s._storage.shape if isinstance(s, Variable) else s._value.shape


def reverse_pass(entries, watched, targets, target_cts, source_keys, consume=False,
                 blocked=(), batch=()):
    """The reverse pass behind every gradient: `GradientTape.gradient`, `GradientTape.jacobian`
    (one vectorized pass, or one per row) and `finegrad.gradients` inside a trace.

    ``entries`` are ``(primitive, inputs, params, output)`` in execution order (a tape's, or
    a graph builder's); ``watched`` the ids of the tensors a cotangent may reach; one
    cotangent per target seeds the walk. ``source_keys`` has one list of tensor ids per
    source (one id for a tensor, one per read for a variable). Returns per source the sum of
    the cotangents its ids received, or None when none did. ``consume``, ``blocked`` and
    ``batch`` are `_cotangents`'.
    """
    keep = {k for ks in source_keys for k in ks}
    ct = _cotangents(entries, watched, _seeded(targets, target_cts), keep, consume, blocked,
                     batch)
    out = []
    for ks in source_keys:
        gs = [ct[k] for k in ks if k in ct]
        g = gs[0] if gs else None
        for other in gs[1:]:
            g = add_cotangents(g, other)
        out.append(g)
    return out


def _seeded(targets, target_cts):
    """{id(target): its cotangent} for the floating targets with one (several cotangents
    of one target are summed): where `_cotangents` starts."""
    ct = {}
    for t, c in zip(targets, target_cts, strict=True):
        if c is None or not isinstance(t, Tensor) or t._value.dtype.kind not in "fc":
            continue
        k = id(t)
        ct[k] = c if k not in ct else ct[k] + c
    return ct


def _cotangents(entries, watched, ct, keep, consume=False, blocked=(), batch=()):
    """Walk ``entries`` backwards from ``ct`` ({id(tensor): cotangent}, updated in place).

    ``keep``: the ids whose cotangents survive (sources); others go once consumed. With
    ``consume``, entries are popped as processed (freed as in a hand-written backward pass).
    Rules get ``needs`` (which inputs want a cotangent) and ``batch`` (the leading axes of a
    whole Jacobian). ``blocked`` tensors receive cotangents but pass none on. A gather's
    cotangent may be an IndexedSlices (rules get it dense).
    """
    # the entries, last first; with ``consume``, popped as reached (a C-level iterator)
    walk = map(entries.pop, itertools.repeat(-1, len(entries))) if consume else \
        reversed(entries)
    for prim, ins, params, out in walk:
        if not prim.multiple_results:
            k = id(out)
            c = ct.get(k)
            if c is None or k in blocked:
                continue
            if k not in keep:
                del ct[k]
            if type(c) is not Tensor:   # rules take dense cotangents, never IndexedSlices
                c = dense_cotangent(c)
        else:
            c = _output_cotangents(out, ct, keep)
            if c is None:
                continue
        if prim.nondiff and prim.gradient_override is None:
            continue   # (entries of a trace include ops no tape would record)
        # an entry is on a tape because an input is watched: with one input, it is needed
        n = len(ins)
        needs = _ONE_NEEDED if n == 1 else \
            (id(ins[0]) in watched, id(ins[1]) in watched) if n == 2 else \
            [id(t) in watched for t in ins]
        in_cts = prim.run_vjp(c, ins, out, params, needs, batch)
        for t, g in zip(ins, in_cts):  # noqa: B905 (run_vjp checked the lengths)
            if g is None:
                continue
            k = id(t)
            if k not in watched:
                continue
            prev = ct.get(k)
            ct[k] = g if prev is None else add_cotangents(prev, g)
    return ct


def _output_cotangents(out, ct, keep):
    """The cotangents of a multi-output entry's ``out`` (zeros for a float output that got
    none), taken off ``ct`` unless kept, dense; None when no output has one."""
    if len(out) == 1:   # the common case (a custom_gradient of one output): no loops
        c = ct.get(id(out[0])) if id(out[0]) in keep else ct.pop(id(out[0]), None)
        return None if c is None else (c if type(c) is Tensor else dense_cotangent(c),)
    cs = [ct.get(id(o)) for o in out]
    if all(c is None for c in cs):
        return None
    for o in out:
        if id(o) not in keep:
            ct.pop(id(o), None)
    return tuple(zeros_like(o) if c is None and _is_float(o) else dense_cotangent(c)
                 for o, c in zip(out, cs, strict=True))


_ONE_NEEDED = (True,)
