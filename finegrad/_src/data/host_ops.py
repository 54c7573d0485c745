"""Functions that read their inputs' values on the host (file names, serialized bytes),
made safe inside a `finegrad.function` trace or a TF1 graph.

Eagerly such a function just runs. A trace would run it once, on the values it sees while
tracing, and keep its result as a constant (and a file write would happen once, at the
trace). `on_host` turns the call into a `numpy_function` node instead, so each run of the
graph reads that run's values, as TensorFlow's kernels do.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.graph.pyfunc import TraceOnly, numpy_function
from finegrad._src.state import state as _state
from finegrad._src.tensor import Tensor, convert_to_tensor


def tracing() -> bool:
    """Whether ops are being recorded into a graph (a function's trace, a TF1 graph)."""
    return _state.tracer is not None


def on_host(inputs: tuple[str, ...], tout: Any, stateful: bool = False,
            shaped_like: str | None = None) -> Callable:
    """Decorator: the wrapped function's arguments named ``inputs`` are tensors whose values
    it reads; while tracing, it runs as a `numpy_function` node of result dtype ``tout``
    (a dtype, a callable of the bound arguments giving one, or None for no result).
    ``shaped_like``: the input whose shape the result has (an elementwise function): a
    trace over made-up values (a TF1 graph's placeholders) then never calls the function
    on them, where it could refuse them (an empty string is no number)."""
    def wrap(fn: Callable) -> Callable:
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not tracing():
                return fn(*args, **kwargs)
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            given = dict(bound.arguments)
            dtype = tout(given) if callable(tout) else tout
            ins = [convert_to_tensor(given[k]) for k in inputs]

            made_up = [shaped_like is not None and dtype is not None
                       and bool(getattr(_state.tracer, "examples", False))]

            def run(*vals: np.ndarray) -> Any:
                if made_up[0]:   # (stand-ins of the result's dtype and shape: `TraceOnly`)
                    like = np.shape(vals[inputs.index(shaped_like)])
                    dt = dtypes.as_dtype(dtype)
                    raise TraceOnly([np.full(like, b"", object) if dt == dtypes.string
                                     else np.zeros(like, dt._np)])
                got = fn(**{**given, **{k: Tensor(np.asarray(v)) for k, v in
                                        zip(inputs, vals, strict=True)}})
                return [] if got is None else np.asarray(got._value)
            out = numpy_function(run, ins, [] if dtype is None else dtypes.as_dtype(dtype),
                                 stateful=stateful)
            made_up[0] = False
            return None if dtype is None else out
        return call
    return wrap
