"""``tf.print``: print tensors' values (not their reprs), with TensorFlow's formatting.

Each tensor prints as its values, summarized to ``summarize`` items at each end of every
axis; floats print in their shortest form (``1``, ``0.5``); Python strings print as they are.
"""

from __future__ import annotations

import sys

import numpy as np

from finegrad._src import core, nest
from finegrad._src.ops.assertion import run_print
from finegrad._src.tensor import Tensor

from typing import Any


def format_float(v: Any) -> str:
    """A float as TensorFlow prints it: its shortest text, without a trailing ``.0``."""
    s = str(v)
    return s[:-2] if s.endswith(".0") else s


def _format_value(value, summarize):
    if isinstance(value, str):
        return value
    if nest.is_nested(value):
        if isinstance(value, dict):
            items = ", ".join(f"{k!r}: {_format_value(v, summarize)}" for k, v in value.items())
            return "{" + items + "}"
        inner = ", ".join(_format_value(v, summarize) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if not isinstance(value, Tensor) and not hasattr(type(value), "_as_tensor") and \
            not isinstance(value, (np.ndarray, np.generic)):
        return str(value)
    a = np.asarray(value._as_tensor()._value if hasattr(type(value), "_as_tensor")
                   else getattr(value, "_value", value))
    if a.ndim == 0:
        return format_float(a[()]) if a.dtype.kind == "f" else str(a[()])
    edge = a.size if summarize is None or summarize < 0 else summarize
    return np.array2string(a, separator=" ", threshold=0 if edge < a.size else a.size + 1,
                           edgeitems=max(edge, 1), max_line_width=sys.maxsize,
                           formatter={"float_kind": format_float})


def print_(*inputs: Any, output_stream: Any = None, summarize: int = 3, sep: str = " ",
           end: str = "\n", name: str | None = None) -> None:
    """Print the values of tensors (and other objects) as TensorFlow's ``tf.print`` does.

    Args:
        *inputs: tensors, variables, NumPy arrays, strings or nested structures of them.
        output_stream: a file-like object (default ``sys.stderr``, as in TensorFlow) or a
            function taking the formatted string (``logging.info``).
        summarize: how many items to show at each end of every axis (-1 or None: all).
        sep, end: as for Python's ``print``.
        name: accepted and ignored.

    Inside a `finegrad.function` (and a TF1 graph) it is a graph node that prints each time
    the graph runs, as TensorFlow's; in a TF1 graph it returns that `Operation` (for
    ``control_dependencies`` or ``Session.run``).

    >>> import sys, finegrad as fg
    >>> fg.print("x:", fg.constant([1., 2.5]), fg.range(10), output_stream=sys.stdout)
    x: [1 2.5] [0 1 2 ... 7 8 9]
    """
    del name
    stream = sys.stderr if output_stream is None else output_stream
    if not hasattr(stream, "write") and not callable(stream):
        raise TypeError(f"finegrad.print: output_stream must be a file-like object or a "
                        f"function, got {type(stream).__name__}")
    if core.current_tracer() is not None:   # a node: the values when the graph runs
        flat = nest.flatten(list(inputs))
        shown = [k for k, x in enumerate(flat) if _is_tensor(x)]

        def emit(*values: Any) -> None:
            leaves = list(flat)
            for k, v in zip(shown, values, strict=True):
                leaves[k] = v
            _write(nest.pack_sequence_as(list(inputs), leaves), stream, summarize, sep, end)
        return run_print(emit, *[flat[k] for k in shown])
    _write(inputs, stream, summarize, sep, end)
    return None


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor) or hasattr(type(x), "_as_tensor")


def _write(inputs: Any, stream: Any, summarize: Any, sep: str, end: str) -> None:
    """The formatted ``inputs`` written to ``stream`` (a file, or a function of the text)."""
    text = sep.join(_format_value(x, summarize) for x in inputs) + end
    if hasattr(stream, "write"):
        stream.write(text)
    else:
        stream(text[:-len(end)] if end and text.endswith(end) else text)
