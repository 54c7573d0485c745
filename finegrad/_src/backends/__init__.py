"""Backends of `finegrad.ops`: which framework runs an ops call, chosen per thread.

A backend is a module of this package (``native`` for finegrad's own engine, ``jax``,
``torch``, ``tensorflow``) exposing Keras 3's `keras.ops` names on that framework's tensors,
plus ``custom_gradient``, ``value_and_grad`` and ``is_tensor``. A backend module imports its
framework at its own import, and is imported only when selected, so importing `finegrad.ops`
imports no framework. The active backend is the innermost ``backend_scope`` of this thread,
else the last ``set_backend``, else the ``FINEGRAD_BACKEND`` environment variable, else
``finegrad``.
"""
import importlib
import os
import threading

# backend name -> (package under finegrad._src.backends, framework to import, pip extra)
_KNOWN = {"finegrad": ("native", "numpy", None),
          "jax": ("jax", "jax", "jax"),
          "torch": ("torch", "torch", "torch"),
          "tensorflow": ("tensorflow", "tensorflow", "tensorflow")}


class _Selection(threading.local):
    """The process-wide default (``set_backend``) and this thread's scopes."""

    default = None

    def __init__(self):
        self.scopes = []


_SELECTION = _Selection()
_LOADED: dict = {}   # backend name -> its module, once imported


def names():
    """The backend names, in documentation order."""
    return tuple(_KNOWN)


def _check_name(name):
    if name == "keras":   # whatever the installed Keras runs on
        return importlib.import_module("finegrad._src.backends.keras_graph").keras_backend_name()
    if name not in _KNOWN:
        raise ValueError(f"finegrad.ops: unknown backend {name!r}; choose one of "
                         f"{', '.join(_KNOWN)}, or keras (Keras's own backend)")
    return name


def symbolic(tensor=None):
    """The stand-in backend for calls with symbolic tensors: ``tensor`` (the symbolic argument)
    finegrad.keras's (`native_graph.NativeSymbolic`) or Keras's (`keras_graph.Symbolic`)."""
    module = "native_graph" if type(tensor).__module__.startswith("finegrad") else "keras_graph"
    return importlib.import_module(f"finegrad._src.backends.{module}").SYMBOLIC


def load(name):
    """The backend ``name`` (an `assemble.Backend`), importing its framework (ImportError
    naming the extra)."""
    loaded = _LOADED.get(name)
    if loaded is not None:
        return loaded
    module, framework, extra = _KNOWN[_check_name(name)]
    try:
        package = importlib.import_module(f"finegrad._src.backends.{module}")
        loaded = _LOADED[name] = package.BACKEND
        return loaded
    except ImportError as e:
        if e.name is not None and e.name.split(".")[0] != framework:
            raise
        raise ImportError(f"finegrad.ops: the {name!r} backend needs {framework}, which is not "
                          f"installed; install it with `pip install finegrad[{extra}]`") from e


def current_name():
    """The name of this thread's active backend."""
    if _SELECTION.scopes:
        return _SELECTION.scopes[-1]
    if _Selection.default is None:
        _Selection.default = _check_name(os.environ.get("FINEGRAD_BACKEND", "finegrad"))
    return _Selection.default


def current():
    """This thread's active backend module (the path every ops call takes: no call beyond
    the dictionary lookup once the backend is loaded)."""
    scopes = _SELECTION.scopes
    name = scopes[-1] if scopes else _Selection.default
    loaded = _LOADED.get(name)
    return loaded if loaded is not None else load(current_name())


def set_default(name):
    """Make ``name`` the backend of every thread outside a ``scope``; it is loaded now
    (``"keras"``: the backend the installed Keras runs on)."""
    name = _check_name(name)
    load(name)
    _Selection.default = name


class scope:  # (used as a function: `with scope("jax"):`)
    """Within the block, this thread's ops calls run on backend ``name``."""

    __slots__ = ("name",)

    def __init__(self, name):
        if name not in _LOADED or name not in _KNOWN:   # (a loaded one's is checked)
            name = _check_name(name)
            load(name)
        self.name = name

    def __enter__(self):
        _SELECTION.scopes.append(self.name)
        return self.name

    def __exit__(self, *exc):
        _SELECTION.scopes.pop()
