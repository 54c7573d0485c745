"""TensorFlow 2's graph-era context names that TF2 code still calls: ``device``,
``init_scope``, ``inside_function``, ``group`` and ``tuple``.

finegrad runs on the CPU, in program order, eagerly or inside a `finegrad.function` trace, so
devices place nothing (but for functions compiled with ``jit_compile=True``, which run on the
device the innermost ``device`` block names, when JAX has it) and groups order nothing; these
names validate their arguments and do what TensorFlow 2 does in eager mode. ``init_scope`` is
the one with an effect: inside a trace it runs its block eagerly, out of the trace (the per-
thread state of `state.py`: no tracer, no recorder, no read listener; the trace it left is kept
as ``state.lifted``), as TensorFlow lifts it out of the function's graph.
"""

from __future__ import annotations

import contextlib
import threading

from finegrad._src import core
from finegrad._src.api import placement
from finegrad._src.ops.array.structural import identity
from finegrad._src.state import state as _state

from collections.abc import Iterator
from typing import Any

_DEVICE_TYPES = ("CPU", "GPU", "TPU")   # the types a bare "/gpu:0" component may name


def _device_parts(name):
    """TensorFlow's reading of a device string (``/job:j/replica:r/task:t/device:GPU:0``,
    ``/cpu:0``, ``gpu:*``): (its device type in capitals or None, its index); a ValueError
    for a component it does not know."""
    kind, index = None, 0
    for part in name.split("/"):
        fields = part.split(":")
        n = len(fields)
        if n == 2 and fields[0] in ("job", "replica", "task"):
            continue
        if n in (1, 2) and fields[0].upper() in _DEVICE_TYPES or n == 3 and fields[0] == "device":
            if kind is not None:
                raise ValueError(f"finegrad.device: device_name {name!r} names two device "
                                 f"types ({kind} and {part}); expected one")
            kind = fields[-2 if n == 3 else 0].upper()
            digits = fields[-1] if n > 1 and fields[-1] != "*" else "0"
            if not digits.lstrip("-").isdigit():
                raise ValueError(f"finegrad.device: device_name {name!r} has the device index "
                                 f"{fields[-1]!r}; expected an integer or '*'")
            index = int(digits)
        elif part:
            raise ValueError(f"finegrad.device: device_name {name!r} has the unknown component "
                             f"{fields[0]!r}; expected job:, replica:, task:, device:TYPE:N or "
                             f"one of {', '.join(_DEVICE_TYPES)} (as in '/GPU:0')")
    return kind, index


def device_kind(name):
    """(The device type, e.g. ``"GPU"``, or None; its index) of a device string."""
    return _device_parts(name)


_DEVICE = threading.local()   # .name: the innermost `device` block's string, per thread


def current_device():
    """The device string of the innermost `device` block of this thread, or None."""
    return getattr(_DEVICE, "name", None)


@contextlib.contextmanager
def _device_scope(name):
    saved = current_device()
    _DEVICE.name = name
    try:
        yield None
    finally:
        _DEVICE.name = saved


def device(device_name: Any) -> Any:
    """A context manager that places the ops of its block on ``device_name`` (a device string
    such as ``"/cpu:0"``, ``"/GPU:0"`` or ``"/job:localhost/device:CPU:0"``, or None).

    finegrad computes on the CPU with NumPy, so the string is checked (as TensorFlow
    parses it) and the block runs as it is; ``with`` gives None, as in TensorFlow. A function
    compiled with ``jit_compile=True`` called in the block runs on the device it names when
    JAX has one (``"/GPU:0"``: JAX's first GPU), else on JAX's default device (TensorFlow's
    soft placement); None leaves the enclosing block's device.

    >>> import finegrad as fg
    >>> with fg.device("/GPU:0"):
    ...     y = fg.constant(2.) * 3.
    >>> float(y)
    6.0

    Raises:
        ValueError: when ``device_name`` is not a string or None, or names a component
            TensorFlow does not know (``"/foo:0"``) or two device types.
        InvalidArgumentError: when soft device placement is off
            (``finegrad.config.set_soft_device_placement(False)``) and the machine does not
            have the device (TensorFlow raises it at the block's first op).
        RuntimeError: for a function (TensorFlow 2 does not support device functions).
    """
    if callable(device_name):
        raise RuntimeError("finegrad.device: device_name must be a device string; device "
                           "functions are not supported (nor in TensorFlow 2)")
    if device_name is not None:
        if not isinstance(device_name, str):
            raise ValueError(f"finegrad.device: device_name must be a string or None, got "
                             f"{type(device_name).__name__} ({device_name!r:.60})")
        kind, index = _device_parts(device_name)
        placement.check_device(device_name, kind, index)
        return _device_scope(device_name)
    return contextlib.nullcontext()


class _Lifted(core.Recorder):
    """The one recorder while `init_scope` runs out of a trace: it records nothing, and it
    refuses an op on one of the trace's tensors, whose value there is only the trace's example
    (TensorFlow raises the same TypeError for a graph tensor used out of its graph)."""

    def __init__(self, tracer):
        self.tracer = tracer

    def record(self, prim, ins, params, out):
        for t in ins:
            b = self.tracer
            while b is not None:   # the trace, and the traces around it (a cond's branch)
                s = b.slots.get(id(t))
                if s is not None:
                    if s in b.consts:
                        break
                    raise TypeError(f"finegrad.init_scope: {prim.name} was given a tensor of "
                                    f"the trace of {b.root.name!r}; the block of init_scope "
                                    f"runs out of the function, where that tensor has no "
                                    f"value. Pass it values made outside the function")
                b = b.parent


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """A context manager that runs its block out of every `finegrad.function` trace, eagerly,
    with gradient tapes and forward accumulators paused, as TensorFlow's ``tf.init_scope``.

    Inside a trace, the block's ops compute values once, at trace time (a traced function
    does not run them again); tensors made there and used after the block are captured by the
    graph as constants, which is what one wants for initial values. Variables created there
    follow `finegrad.function`'s rule for variables (only its first trace may create them).
    A traced tensor (an argument, or an op on one) used in the block raises TypeError: its
    value is only known when the graph runs. `executing_eagerly` is True in the block and
    `inside_function` stays True, as in TensorFlow; the name scope is kept.

    >>> import finegrad as fg
    >>> @fg.function
    ... def f(x):
    ...     with fg.init_scope():
    ...         eager = fg.executing_eagerly()
    ...         c = fg.constant(2.) * 3.      # computed once, a constant of the graph
    ...     return x * c, eager
    >>> y, eager = f(fg.constant(1.))
    >>> float(y), eager
    (6.0, True)
    """
    lifted = core.current_tracer() or _state.lifted
    saved = (_state.tracer, _state.recorders, _state.read_listener, _state.lifted)
    _state.tracer, _state.read_listener, _state.lifted = None, None, lifted
    _state.recorders = (_Lifted(lifted),) if lifted is not None else ()
    try:
        yield
    finally:
        _state.tracer, _state.recorders, _state.read_listener, _state.lifted = saved


def inside_function() -> bool:
    """Whether the code runs while `finegrad.function` traces (TensorFlow's
    ``tf.inside_function``); it stays True in an `init_scope` block during a trace, as in
    TensorFlow.

    >>> import finegrad as fg
    >>> @fg.function
    ... def f(x):
    ...     return x, fg.inside_function()
    >>> fg.inside_function(), f(fg.constant(1.))[1]
    (False, True)
    """
    return core.current_tracer() is not None or _state.lifted is not None


def group(*inputs: Any, **kwargs: Any) -> None:
    """Groups ``inputs`` (tensors, ops or lists of them) into one op that waits for them all.

    finegrad runs ops in program order, eagerly and in traced functions, so there is nothing
    to wait for: this returns None, as eager TensorFlow 2 does (the value of `no_op`).

    >>> import finegrad as fg
    >>> fg.group(fg.constant(1.), [fg.constant(2.)]) is None
    True

    Raises:
        TypeError: for a keyword argument other than ``name``.
    """
    unknown = sorted(k for k in kwargs if k != "name")
    if unknown:
        raise TypeError(f"finegrad.group: unknown keyword arguments {unknown}; expected only "
                        f"'name'")
    graph = getattr(core.current_tracer(), "v1_graph", None)
    if graph is not None:   # a TF1 graph: one op that runs them all (v1/graphs.py)
        return graph.group(inputs, kwargs.get("name"))
    del inputs


def tuple_(tensors: Any, control_inputs: Any = None, name: str | None = None) -> Any:
    """``tensors``, each value available once all of them are (TensorFlow's ``tf.tuple``).
    Eagerly the same object comes back, as in TensorFlow 2; inside a `finegrad.function`
    trace, a list of `identity` copies (None entries stay None), as TensorFlow's graph gives.

    >>> import finegrad as fg
    >>> a, b = fg.tuple([fg.constant(1.), fg.constant(2.)])
    >>> float(a), float(b)
    (1.0, 2.0)

    Raises:
        TypeError: when ``tensors`` is not a list or tuple, or ``control_inputs`` is not a
            list, tuple or None.
    """
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"finegrad.tuple: tensors must be a list or tuple of tensors, got "
                        f"{type(tensors).__name__}")
    if control_inputs is not None and not isinstance(control_inputs, (list, tuple)):
        raise TypeError(f"finegrad.tuple: control_inputs must be a list, tuple or None, got "
                        f"{type(control_inputs).__name__}")
    if core.current_tracer() is None:
        return tensors
    return [None if t is None else identity(t) for t in tensors]
