"""A backend object: every Keras name bound to its implementation on one framework.

Implementations come in two layers, the second overriding the first: the composites
(`finegrad._src.backends.composite`, Keras ops written once with other ops, for every
backend), and the framework's own modules. A composite takes the backend as its first
argument; a framework module's functions take only Keras's arguments. A Keras name that no
layer implements is a function raising NotImplementedError that names the function, the
backend and where it can be had.
"""
import functools
import types

from finegrad._src.backends import keras_names


def _exported(module):
    """Public callables of ``module`` (not modules, classes or private names)."""
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, (types.ModuleType, type)):
            continue
        if callable(value):
            yield name, value


class Backend:
    """Keras's names on one framework, with ``name``, ``framework`` and where each
    implementation came from (``sources``: name -> 'composite', the framework's function a
    wrapper calls, a function written in the backend's modules, or None where the backend
    lacks the name)."""

    def __init__(self, name, framework, with_backend=(), own=(), **attributes):
        self.name, self.framework = name, framework
        self.sources = {}
        self.__dict__.update(attributes)
        for module in with_backend:
            kind = module.__name__.split(".")[-2]
            for n, fn in _exported(module):
                setattr(self, n, functools.partial(fn, self))
                self.sources[n] = kind
        for module in own:
            for n, fn in _exported(module):
                setattr(self, n, fn)
                self.sources[n] = getattr(fn, "__wrapped__", fn)
        for group, names in keras_names.GROUPS.items():
            for n in names:
                attr = f"image_{n}" if group == "image" else n
                if not hasattr(self, attr):
                    setattr(self, attr, _missing(name, n, group))
                    self.sources[attr] = None


# Keras names no finegrad.ops backend implements yet (docs/backends.md's table)
NOWHERE: frozenset[str] = frozenset()


def _missing(backend, name, group):
    where = f"ops.image.{name}" if group == "image" else f"ops.{name}"
    if name in NOWHERE:
        def nowhere(*args, **kwargs):
            raise NotImplementedError(
                f"finegrad.ops: {where} is not implemented on the {backend!r} backend, nor on "
                f"any other finegrad.ops backend yet; use Keras's own keras.{where} (with "
                f"KERAS_BACKEND={backend if backend != 'finegrad' else 'jax'}), whose tensors "
                f"finegrad.ops accepts on that backend")
        nowhere.__name__ = name
        return nowhere

    def missing(*args, **kwargs):
        other = "tensorflow" if backend == "jax" else "jax"
        raise NotImplementedError(
            f"finegrad.ops: {where} is not implemented on the {backend!r} backend; run it "
            f"on a backend that has it (ops.backend_scope({other!r}); docs/backends.md's "
            f"table lists them), or write it with the ops this backend has")
    missing.__name__ = name
    return missing
