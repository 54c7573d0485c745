"""Python lambdas in Keras 3's configs: the bytecode Keras stores for a ``lambda`` (a
`Lambda` layer's function, or any lambda `serialize_keras_object` meets), and the safe mode
that refuses to run it when loading.

A lambda is saved as ``[code, defaults, closure]``: its code object marshalled and base64
encoded, its default values, the values its closure cells hold. Marshalled code is specific to
a Python version: a file loads where the Python that wrote it matches (Keras's limitation too).
Loading such code runs whatever the file holds, so it is refused unless ``safe_mode=False``
is given to the loading function (or unsafe deserialization is enabled for the session).
"""
from __future__ import annotations

import base64
import contextlib
import marshal
import types
from typing import Any

_state: dict[str, Any] = {"safe_mode": None}   # None: no scope (safe)

LAMBDA_REFUSED = ("Requested the deserialization of a {what}. This carries a potential risk "
                  "of arbitrary code execution and thus it is disallowed by default. If you "
                  "trust the source of the artifact, you can override this error by passing "
                  "`safe_mode=False` to the loading function, or calling "
                  "`keras.config.enable_unsafe_deserialization().")


def is_lambda(fn: Any) -> bool:
    """Whether ``fn`` is a Python ``lambda`` (Keras stores its bytecode)."""
    return isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>"


def dump(fn: Any) -> list:
    """``[code, defaults, closure]`` of the function ``fn``, JSON-ready but for the values
    its defaults and closure hold.

    >>> from finegrad._src.keras.python_code import dump, load
    >>> load(*dump(lambda x, k=3: x * k))(2)
    6
    """
    code = base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii")
    closure = [c.cell_contents for c in fn.__closure__] if fn.__closure__ else None
    return [code, list(fn.__defaults__) if fn.__defaults__ else fn.__defaults__, closure]


def _cell(value: Any) -> Any:
    return (lambda: value).__closure__[0]   # type: ignore[index]


def load(code: Any, defaults: Any = None, closure: Any = None) -> Any:
    """The function `dump` described (``code`` may be the whole ``[code, defaults,
    closure]``), its globals this module's, as Keras's."""
    if isinstance(code, (list, tuple)):
        code, defaults, closure = code
    try:
        raw = base64.decodebytes(code.encode("ascii"))
    except (UnicodeEncodeError, ValueError):
        raw = code.encode("raw_unicode_escape")
    code_object = marshal.loads(raw)
    cells = tuple(_cell(v) for v in closure) if closure is not None else None
    return types.FunctionType(code_object, globals(), code_object.co_name,
                              tuple(defaults) if defaults is not None else None, cells)


def in_safe_mode() -> Any:
    """The enclosing loading call's ``safe_mode`` (None outside any)."""
    return _state["safe_mode"]


@contextlib.contextmanager
def safe_mode_scope(safe_mode: Any) -> Any:
    """Within it, `in_safe_mode` is ``safe_mode`` (Keras's ``SafeModeScope``)."""
    before = _state["safe_mode"]
    _state["safe_mode"] = safe_mode
    try:
        yield
    finally:
        _state["safe_mode"] = before


def enable_unsafe_deserialization() -> None:
    """Allow lambdas to load for the rest of the session (Keras's
    ``keras.config.enable_unsafe_deserialization``)."""
    _state["safe_mode"] = False


def load_checked(code: Any, what: str, safe_mode: Any = None, defaults: Any = None,
                 closure: Any = None) -> Any:
    """`load`, or Keras's ValueError when safe mode is on (``safe_mode``, else the enclosing
    scope's, else on)."""
    effective = safe_mode if safe_mode is not None else in_safe_mode()
    if effective is not False:
        raise ValueError(LAMBDA_REFUSED.format(what=what))
    return load(code, defaults, closure)
