"""Which backend runs an ops call: the active one, after checking that no argument is another
framework's tensor."""

from typing import Any


from finegrad._src import backends as _backends
from finegrad._src.keras.nodes import KerasTensor as _KERAS_TENSOR

# a tensor's framework, from the top-level package of its type's module
_ROOTS = {
    "finegrad": "finegrad",
    "jax": "jax",
    "jaxlib": "jax",
    "torch": "torch",
    "tensorflow": "tensorflow",
    "keras": "keras",
}


# type -> its framework (a `_ROOTS` value) or None: filled as types are met, so that a call
# pays one dict lookup per argument instead of reading and splitting its module's name
_ROOT_OF_TYPE: dict = {}
_UNSEEN = object()


def _learn(kind):
    root = _ROOT_OF_TYPE[kind] = _ROOTS.get(kind.__module__.partition(".")[0])
    return root


def on(*xs: Any) -> Any:
    """The active backend, after checking that no argument (or element of a list or tuple
    argument) is another framework's tensor."""
    backend = _backends.current()
    framework = backend.framework
    for x in xs:
        kind = type(x)
        root = _ROOT_OF_TYPE.get(kind, _UNSEEN)
        if root is _UNSEEN:
            root = _learn(kind)
        if root is not None and (root != framework or kind is _KERAS_TENSOR):
            return _other(backend, x, xs)
        if kind is list or kind is tuple:
            for e in x:
                kind = type(e)
                root = _ROOT_OF_TYPE.get(kind, _UNSEEN)
                if root is _UNSEEN:
                    root = _learn(kind)
                if root is not None and (root != framework or kind is _KERAS_TENSOR):
                    return _other(backend, e, xs)
    return backend


def _other(backend, x, xs):
    if type(x).__name__ == "KerasTensor":
        return _backends.symbolic(x)
    kinds = {_ROOTS.get(type(x).__module__.partition(".")[0])}
    raise TypeError(
        f"finegrad.ops: a {sorted(kinds)[0]} tensor was passed to the "
        f"{backend.name!r} backend, whose tensors are {backend.framework}'s; "
        f"convert it with ops.convert_to_numpy, or select its backend with "
        f"ops.set_backend / ops.backend_scope"
    )


def backend() -> Any:
    """The name of the active backend of this thread: finegrad, jax, torch or tensorflow.

    >>> from finegrad import ops
    >>> ops.backend()
    'finegrad'
    """
    return _backends.current_name()


def set_backend(name: Any) -> Any:
    """Select the backend of every thread (outside ``backend_scope`` blocks); ``"keras"``
    means the backend of the installed Keras (``keras.backend.backend()``).

    Raises:
        ValueError: for an unknown name.
        ImportError: when the backend's framework is not installed (naming the extra).

    >>> from finegrad import ops
    >>> ops.set_backend("finegrad")
    >>> ops.backend()
    'finegrad'
    """
    _backends.set_default(name)


def backend_scope(name: Any) -> Any:
    """A context manager: inside it, this thread's ops calls run on backend ``name``.

    >>> from finegrad import ops
    >>> with ops.backend_scope("finegrad"):
    ...     ops.backend()
    'finegrad'
    """
    return _backends.scope(name)
