"""The assertion node: a check of tensors' values that a graph runs each time it runs (and
the print node, ``tf.print`` in a graph, made the same way).

Eagerly, `tf.debugging`'s value assertions (`Assert`, `assert_equal`, `assert_positive`...,
`check_numerics`) check at once. Inside a `finegrad.function` trace or a TF1 graph they are
this node instead, as TensorFlow's Assert op: it holds the check (a function of the NumPy
values of its inputs that raises `InvalidArgumentError`) and no outputs, and it runs at each
call or ``Session.run`` even though nothing reads it (`graph.ir.has_effects`). While a trace
holds made-up values (a TF1 graph's placeholders, a trace from `TensorSpec`s: the tracer's
``examples``), the check waits for the real ones.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.state import state as _state
from finegrad._src.tensor import convert_to_tensor

assert_p = def_nondiff(Primitive("assert", multiple_results=True, fresh=True, unify=False,
                                 stateful=True, effects=True,
                                 shape_rule=lambda *shapes, **params: []))


@assert_p.def_impl
def _assert_impl(*values, check):
    tracer = _state.tracer
    if tracer is None or not tracer.examples:
        check(*[np.asarray(v) for v in values])
    return ()


def run_check(check: Callable[..., Any], *tensors: Any) -> Any:
    """Run ``check`` (it raises `InvalidArgumentError` on a failed condition) on the NumPy
    values of ``tensors``: now when eager, at each run of the graph when tracing. Returns
    the assertion's `Operation` in a TF1 graph (for ``control_dependencies``, or to run it),
    else None."""
    ts = [convert_to_tensor(t) for t in tensors]
    if _state.tracer is None:
        check(*[np.asarray(t._value) for t in ts])
        return None
    bind(assert_p, *ts, check=check)
    # (a TF1 graph's recorder names the node it just recorded as an Operation)
    graph = getattr(_state.tracer, "v1_graph", None)
    return None if graph is None else graph.get_operations()[-1]


# --- the print node: tf.print inside a graph ---------------------------------------------------
# Like the assertion node it has no outputs and runs at each call (a TF1 graph: when a fetch
# depends on it). It writes only while the graph runs, never while a trace computes values
# (the trace's own call would print once more than TensorFlow, which prints at run time only).

print_p = def_nondiff(Primitive("print", multiple_results=True, fresh=True, unify=False,
                                stateful=True, effects=True,
                                shape_rule=lambda *shapes, **params: []))


@print_p.def_impl
def _print_impl(*values, emit):
    if _state.tracer is None:
        emit(*[np.asarray(v) for v in values])
    return ()


def run_print(emit: Callable[..., Any], *tensors: Any) -> Any:
    """A print node that calls ``emit`` on the NumPy values of ``tensors`` each time the
    graph being traced runs; its `Operation` in a TF1 graph, else None."""
    bind(print_p, *[convert_to_tensor(t) for t in tensors], emit=emit)
    graph = getattr(_state.tracer, "v1_graph", None)
    return None if graph is None else graph.get_operations()[-1]


# --- check_numerics: the value itself, checked for NaN and infinity ---------------------------
# Unlike the other assertions it sits on the data path (TensorFlow's CheckNumerics op returns
# its input), so a TF1 session that fetches the result runs the check, and gradients flow
# through it: the gradient is the cotangent, itself checked (TensorFlow's message).

# (no XLA lowering: a compiled program cannot raise, so it runs as a host callback there)
check_numerics_p = Primitive("check_numerics", batch_rule=True, stateful=True, unify=False,
                             effects=True, shape_rule=lambda shape, **params: shape)
GRADIENT_MESSAGE = "Not a number (NaN) or infinity (Inf) values detected in gradient. "


def check_numerics_of(x: Any, message: str) -> Any:
    """``x`` (a float tensor) through a `check_numerics_p` node with ``message``."""
    return bind(check_numerics_p, x, message=message)


@check_numerics_p.def_impl
def _check_numerics_impl(x, *, message):
    tracer = _state.tracer
    a = np.asarray(x)
    if (tracer is None or not tracer.examples) and not np.all(np.isfinite(a)):
        kind = "NaN" if np.any(np.isnan(a)) else "Inf"
        raise InvalidArgumentError(f"{message} : Tensor had {kind} values")
    return x


check_numerics_p.def_jvp(lambda primals, tangents, *, out, message: tangents[0])
check_numerics_p.def_vjp(lambda ct, x, *, out, needs, batch, message: (
    bind(check_numerics_p, ct, message=GRADIENT_MESSAGE + message),))
