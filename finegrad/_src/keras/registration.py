"""``keras.utils.register_keras_serializable`` (also ``keras.saving``'s in Keras 3): custom
classes found by name when a config is rebuilt (``Model.from_config``,
``Sequential.from_config``, ``keras.saving.load_model``), and ``custom_object_scope``: the
``custom_objects`` that nested lookups see while a config is rebuilt."""

import threading
from typing import Any

_registry: dict[str, Any] = {}
_scopes = threading.local()   # .stack: the custom_objects dicts of the open scopes


def serialize_object(obj: Any, module: str) -> dict | None:
    """Keras's config dict of an initializer, regularizer or constraint
    (``{"module", "class_name", "config", "registered_name"}``); None for None, as Keras."""
    if obj is None:
        return None
    return {"module": module, "class_name": type(obj).__name__, "config": obj.get_config(),
            "registered_name": None}


def deserialize_object(config: dict, by_name: dict, kind: str,
                       custom_objects: Any = None) -> Any:
    """The object a Keras config dict describes: its class (from ``custom_objects`` or
    ``by_name``) made by ``from_config``; ``kind`` names the module in errors."""
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or by_name.get(name)
    if cls is None:
        raise ValueError(f"keras.{kind}s.deserialize: unknown {kind} {name!r}")
    return cls.from_config(config.get("config", {}))


def get_object(identifier: Any, by_name: dict, kind: str, deserialize: Any) -> Any:
    """Keras's ``get``: None stays None; a config dict is deserialized, a name looked up in
    ``by_name``, a class instantiated; the result must be callable."""
    if identifier is None:
        return None
    obj = identifier
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = by_name.get(identifier)
    if isinstance(obj, type):
        obj = obj()
    if callable(obj):
        return obj
    raise ValueError(f"keras.{kind}s.get: could not interpret {kind} identifier: "
                     f"{identifier!r}")


def register_keras_serializable(package: Any = "Custom", name: Any = None) -> Any:
    """A class decorator registering the class as ``"<package>>/<name>"`` (and by its bare
    name) for deserialization.

    >>> import finegrad as tf
    >>> @tf.keras.utils.register_keras_serializable(package="demo")
    ... class Twice(tf.keras.layers.Layer):
    ...     def call(self, x):
    ...         return 2 * x
    >>> tf.keras.utils.get_registered_name(Twice)
    'demo>Twice'
    """
    def decorator(cls):
        key = f"{package}>{name or cls.__name__}"
        if key in _registry and _registry[key] is not cls:
            raise ValueError(f"{key} has already been registered to {_registry[key]}")
        _registry[key] = cls
        cls._registered_name = key
        return cls
    return decorator


def get_registered_name(cls: Any) -> str:
    """The name ``cls`` (a class or function) was registered under, else its own name."""
    return getattr(cls, "_registered_name", cls.__name__)


def get_registered_object(name: Any, custom_objects: Any = None) -> Any:
    """The class registered (or given in ``custom_objects``, or in an open
    `custom_object_scope`) as ``name``, or None."""
    for objects in [custom_objects] + list(reversed(getattr(_scopes, "stack", []))):
        if objects and name in objects:
            return objects[name]
    if name in _registry:
        return _registry[name]
    matches = [c for k, c in _registry.items() if k.split(">", 1)[-1] == name]
    return matches[0] if matches else None


def get_custom_objects() -> Any:
    """The registry itself (a dict from registered names to classes), as Keras returns."""
    return _registry


class CustomObjectScope:
    """Context manager: inside it, configs are rebuilt with ``custom_objects`` (dicts of name
    -> class or function) found by name, as if passed to every ``from_config`` and
    ``deserialize`` (``keras.saving.custom_object_scope``).

    >>> import finegrad as tf
    >>> def twice(x):
    ...     return 2 * x
    >>> with tf.keras.saving.custom_object_scope({"twice": twice}):
    ...     tf.keras.utils.get_registered_object("twice") is twice
    True
    """

    def __init__(self, custom_objects: Any) -> None:
        self.custom_objects = dict(custom_objects or {})

    def __enter__(self) -> "CustomObjectScope":
        if not hasattr(_scopes, "stack"):
            _scopes.stack = []
        _scopes.stack.append(self.custom_objects)
        return self

    def __exit__(self, *exc: Any) -> None:
        _scopes.stack.pop()


custom_object_scope = CustomObjectScope
