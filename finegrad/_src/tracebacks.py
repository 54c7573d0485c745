"""Traceback filtering: an error raised under a public entry point shows the user's frames.

An error from a user's ``grad_fn``, ``f`` or traced function passes through many of
finegrad's frames (the tape's backward pass, the custom-gradient machinery, the tracer)
before it reaches the user. Public entry points (`GradientTape.gradient`, a
`custom_gradient` function, a `finegrad.function` call, ``Session.run``, ...) are wrapped
by `api_boundary`, which on the way out drops the frames of finegrad's own files from the
exception's traceback, as JAX's ``api_boundary`` and TensorFlow's ``filter_traceback`` do;
one frame of this module remains (the re-raise). The filtering is on by default;
``FINEGRAD_TRACEBACK_FILTERING=off`` in the environment, or
`finegrad.debugging.disable_traceback_filtering()`, keeps every frame (for debugging
finegrad itself). Exceptions keep their class, message and chained causes.
"""

from __future__ import annotations

import functools
import os
import sys
import types

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_ENABLED = [os.environ.get("FINEGRAD_TRACEBACK_FILTERING", "on").strip().lower()
            not in ("off", "0", "false", "no")]


def enable_traceback_filtering() -> None:
    """Hide finegrad's internal frames from the tracebacks of errors (the default).

    >>> import finegrad as fg
    >>> fg.debugging.enable_traceback_filtering()
    >>> fg.debugging.is_traceback_filtering_enabled()
    True
    """
    _ENABLED[0] = True


def disable_traceback_filtering() -> None:
    """Show every frame, finegrad's included, in the tracebacks of errors (as
    ``FINEGRAD_TRACEBACK_FILTERING=off`` does from the start).

    >>> import finegrad as fg
    >>> fg.debugging.disable_traceback_filtering()
    >>> fg.debugging.is_traceback_filtering_enabled()
    False
    >>> fg.debugging.enable_traceback_filtering()
    """
    _ENABLED[0] = False


def is_traceback_filtering_enabled() -> bool:
    """Whether finegrad hides its internal frames from tracebacks (TensorFlow's name).

    >>> import finegrad as fg
    >>> fg.debugging.is_traceback_filtering_enabled()
    True
    """
    return _ENABLED[0]


def _internal(tb):
    return tb.tb_frame.f_code.co_filename.startswith(_PACKAGE)


def filtered(tb: Any) -> Any:
    """The traceback ``tb`` without the frames of finegrad's files (None when none is left)."""
    kept = []
    while tb is not None:
        if not _internal(tb):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def api_boundary(fn: F) -> F:
    """``fn``, whose errors leave with finegrad's frames filtered out of their traceback."""
    @functools.wraps(fn)
    def boundary(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            if not _ENABLED[0]:
                raise
            tb = e.__traceback__
            # (e itself again: its cause and context stay as they were)
            raise e.with_traceback(filtered(tb.tb_next if tb is not None else None))  # noqa: B904
    return boundary  # type: ignore[return-value]


def defined_at(f: Any) -> str:
    """Where the user's function ``f`` is defined, for messages about it
    (``" (defined at train.py:12)"``); empty when unknown."""
    code = getattr(getattr(f, "__func__", f), "__code__", None)
    if code is None:
        return ""
    return f" (defined at {os.path.basename(code.co_filename)}:{code.co_firstlineno})"


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` (called by the caller of this function) that
    points at the first frame outside finegrad: the user's line, however many of finegrad's
    frames (an `api_boundary` among them) lie between."""
    frame: types.FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
