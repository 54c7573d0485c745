"""``keras.utils.register_keras_serializable`` (also ``keras.saving``'s in Keras 3): custom
classes found by name when a config is rebuilt (``Model.from_config``,
``Sequential.from_config``)."""

from typing import Any

_registry: dict[str, type] = {}


def serialize_object(obj: Any, module: str) -> dict | None:
    """Keras's config dict of an initializer, regularizer or constraint
    (``{"module", "class_name", "config", "registered_name"}``); None for None, as Keras."""
    if obj is None:
        return None
    return {"module": module, "class_name": type(obj).__name__, "config": obj.get_config(),
            "registered_name": None}


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
    return getattr(cls, "_registered_name", cls.__name__)


def get_registered_object(name: Any, custom_objects: Any = None) -> Any:
    """The class registered (or given in ``custom_objects``) as ``name``, or None."""
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in _registry:
        return _registry[name]
    matches = [c for k, c in _registry.items() if k.split(">", 1)[-1] == name]
    return matches[0] if matches else None


def get_custom_objects() -> Any:
    """The registry itself (a dict from registered names to classes), as Keras returns."""
    return _registry
