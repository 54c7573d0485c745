"""``keras.saving.serialize_keras_object`` / ``deserialize_keras_object``: any Keras object as
Keras 3's JSON-ready config dict, and back.

An object becomes ``{"module", "class_name", "config", "registered_name"}``: ``module`` is
Keras's public module for built-in classes (``"keras.layers"``, ``"keras.optimizers"``...),
the defining module for custom ones, whose ``registered_name`` is ``"package>Name"``
(`register_keras_serializable`). A layer or model adds ``build_config`` (the input shape it was
built for) and a model ``compile_config`` (its ``compile`` arguments, serialized). Built-in
functions (activations, loss functions) are ``{"class_name": "function", "config": name}``,
NumPy arrays ``__numpy__`` and tensors ``__tensor__`` dicts with their values as lists.

Rebuilding finds a class by, in order: ``custom_objects`` (and any open
`custom_object_scope`), the registry, then finegrad's own class of that name under the base
class the Keras module names (so ``keras.losses.MeanSquaredError`` and
``keras.metrics.MeanSquaredError`` stay apart). A Python ``lambda`` is saved as its bytecode
and rebuilt only with ``safe_mode=False`` (`python_code`).
"""
from __future__ import annotations

import inspect
import types
import warnings
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.keras import activations, losses, python_code, registration
from finegrad._src.keras.constraints import Constraint
from finegrad._src.keras.dtype_policies import DTypePolicy
from finegrad._src.keras.initializers import Initializer
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.metrics import serialization as metrics_serialization
from finegrad._src.keras.metrics.base import Metric
from finegrad._src.keras.optimizers import serialization as optimizers_serialization
from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.keras.optimizers.schedules import LearningRateSchedule
from finegrad._src.keras.regularizers import Regularizer
from finegrad._src.tensor import Tensor

# Keras's public module of each family of built-in classes (most specific first)
_FAMILIES: list[tuple[type, str]] = [
    (Optimizer, "keras.optimizers"), (LearningRateSchedule, "keras.optimizers.schedules"),
    (losses.Loss, "keras.losses"), (Metric, "keras.metrics"),
    (Initializer, "keras.initializers"), (Regularizer, "keras.regularizers"),
    (Constraint, "keras.constraints"), (DTypePolicy, "keras"), (Layer, "keras.layers")]
# models: the module and registered name Keras 3.15 writes for its own model classes
_MODELS = {"Functional": ("keras.src.models.functional", "Functional"),
           "Sequential": ("keras", None), "Model": ("keras", None)}
_PLAIN = (str, int, float, bool)


def _builtin(cls: type) -> bool:
    return cls.__module__.startswith("finegrad._src.keras")


def _public_module(cls: type) -> tuple[str, Any]:
    if cls.__name__ in _MODELS and _builtin(cls):
        return _MODELS[cls.__name__]
    for base, module in _FAMILIES:
        if issubclass(cls, base):
            return module, None
    return cls.__module__, None


def _function(fn: Any) -> dict:
    registered = getattr(fn, "_registered_name", None)
    if registered is not None:
        return {"module": fn.__module__, "class_name": "function", "config": registered,
                "registered_name": registered}
    if python_code.is_lambda(fn):   # its bytecode, as Keras stores it
        warnings.warn("The object being serialized includes a `lambda`. This is unsafe. In "
                      "order to reload the object, you will have to pass `safe_mode=False` "
                      "to the loading function. Please avoid using `lambda` in the future, "
                      "and use named Python functions instead.", stacklevel=3)
        return {"class_name": "__lambda__", "config": {"value": python_code.dump(fn)}}
    return {"module": "builtins", "class_name": "function", "config": fn.__name__,
            "registered_name": "function"}


def _array(obj: Any, kind: str) -> dict:
    a = np.asarray(obj.numpy() if isinstance(obj, Tensor) else obj)
    return {"class_name": kind, "config": {"value": a.tolist(), "dtype": str(a.dtype)}}


def _value(obj: Any) -> Any:
    """The config of a value that is not a Keras object (``NotImplemented`` for those)."""
    if obj is None or isinstance(obj, _PLAIN):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [serialize_keras_object(x) for x in obj]
        return tuple(items) if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if isinstance(obj, Tensor):
        return _array(obj, "__tensor__")
    if isinstance(obj, (np.ndarray, np.generic)):
        return _array(obj, "__numpy__") if np.ndim(obj) else np.asarray(obj).item()
    if isinstance(obj, dtypes.DType):
        return obj.name
    if isinstance(obj, slice):
        return {"class_name": "__slice__", "config": {
            "start": serialize_keras_object(obj.start), "stop": serialize_keras_object(obj.stop),
            "step": serialize_keras_object(obj.step)}}
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
        return _function(obj)
    return NotImplemented


def serialize_keras_object(obj: Any) -> Any:
    """Keras 3's config of ``obj`` (JSON-ready: dicts, lists and plain values).

    >>> import finegrad as tf
    >>> config = tf.keras.saving.serialize_keras_object(tf.keras.layers.Dense(2))
    >>> config["module"], config["class_name"], config["config"]["units"]
    ('keras.layers', 'Dense', 2)

    Raises:
        TypeError: for an object that has no ``get_config``.
    """
    value = _value(obj)
    if value is not NotImplemented:
        return value
    if not hasattr(obj, "get_config"):
        raise TypeError(f"keras.saving.serialize_keras_object: cannot serialize {obj!r} of "
                        f"type {type(obj).__name__}; to be serializable, a class must "
                        f"implement `get_config()`")
    cls = type(obj)
    module, registered = _public_module(cls) if _builtin(cls) else (
        cls.__module__, registration.get_registered_name(cls))
    config = {"module": module, "class_name": cls.__name__,
              "config": serialize_keras_object(obj.get_config()),
              "registered_name": registered}
    if hasattr(obj, "get_build_config"):
        build = obj.get_build_config()
        if build is not None:
            config["build_config"] = serialize_keras_object(build)
    if hasattr(obj, "get_compile_config"):
        compiled = obj.get_compile_config()
        if compiled is not None:
            config["compile_config"] = serialize_keras_object(compiled)
    return config


def _subclasses(cls: type) -> list[type]:
    out: list[type] = [cls]
    subs: list[type] = cls.__subclasses__()
    for sub in subs:
        out += _subclasses(sub)
    return out


def _find_class(config: dict, custom_objects: Any) -> Any:
    name, registered = config["class_name"], config.get("registered_name")
    for key in (registered, name):
        found = registration.get_registered_object(key, custom_objects) if key else None
        if found is not None:
            return found
    module = config.get("module") or ""
    bases = [b for b, m in _FAMILIES if module == m] or [b for b, _ in _FAMILIES]
    if module in (m for m, _ in _MODELS.values()) or module.startswith("keras.src.models"):
        bases = [Layer]
    for base in bases:
        found = [c for c in _subclasses(base) if c.__name__ == name]
        if found:
            return ([c for c in found if _builtin(c)] or found)[0]
    raise TypeError(f"Could not locate class '{name}'. Make sure custom classes are "
                    f"decorated with `@keras.saving.register_keras_serializable()`. "
                    f"Full object config: {config}")


def _function_named(name: str, custom_objects: Any) -> Any:
    found = registration.get_registered_object(name, custom_objects)
    if found is not None:
        return found
    for get in (activations.get, losses.get, metrics_serialization.get):
        try:
            fn = get(name)
        except (ValueError, TypeError):
            continue
        if isinstance(fn, types.FunctionType):
            return fn
    raise TypeError(f"Could not locate function '{name}'. Make sure custom functions are "
                    f"decorated with `@keras.saving.register_keras_serializable()`.")


def _special(config: dict, custom_objects: Any, safe_mode: Any = True) -> Any:
    """The object of a ``__numpy__``/``__tensor__``/``function``/``__lambda__`` dict, or
    ``NotImplemented`` for a class's config."""
    kind = config["class_name"]
    inner: Any = config.get("config")
    if kind in ("__numpy__", "__tensor__"):
        value = np.asarray(inner["value"], dtype=inner["dtype"])
        return value if kind == "__numpy__" else Tensor(value)
    if kind == "__bytes__":
        return inner["value"].encode("utf-8")
    if kind == "__ellipsis__":
        return Ellipsis
    if kind == "__slice__":
        return slice(inner["start"], inner["stop"], inner["step"])
    if kind == "__lambda__":   # runs code from the file: refused in safe mode
        return python_code.load_checked(inner["value"], "Python lambda", safe_mode)
    if kind == "function":
        return _function_named(inner, custom_objects)
    return NotImplemented


def _takes_custom_objects(method: Any) -> bool:
    try:
        return "custom_objects" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def deserialize_keras_object(config: Any, custom_objects: Any = None, safe_mode: bool = True,
                             compile: bool = True) -> Any:
    """The object `serialize_keras_object` described: built (``build_config``) and compiled
    (``compile_config``, when ``compile``) as it was.

    >>> import finegrad as tf
    >>> config = tf.keras.saving.serialize_keras_object(tf.keras.optimizers.Adam(0.5))
    >>> opt = tf.keras.saving.deserialize_keras_object(config)
    >>> type(opt).__name__, float(opt.learning_rate)
    ('Adam', 0.5)

    Raises:
        TypeError: for a class that is neither built in nor registered nor in
            ``custom_objects``.
    """
    scoped = python_code.in_safe_mode()   # an enclosing loading call's wins, as in Keras
    safe_mode = scoped if scoped is not None else safe_mode
    if isinstance(config, list):
        return [deserialize_keras_object(c, custom_objects, safe_mode) for c in config]
    if not isinstance(config, dict):
        return config
    if "class_name" not in config or "config" not in config:
        return {k: deserialize_keras_object(v, custom_objects, safe_mode)
                for k, v in config.items()}
    obj = _special(config, custom_objects, safe_mode)
    if obj is not NotImplemented:
        return obj
    cls = _find_class(config, custom_objects)
    inner = config["config"] or {}
    with registration.CustomObjectScope(custom_objects), python_code.safe_mode_scope(safe_mode):
        if isinstance(cls, type) and issubclass(cls, Optimizer) and _builtin(cls):
            obj = optimizers_serialization.deserialize(config, custom_objects)
        elif _takes_custom_objects(cls.from_config):
            obj = cls.from_config(inner, custom_objects=custom_objects)
        else:
            obj = cls.from_config(inner)
        if config.get("build_config") and hasattr(obj, "build_from_config"):
            obj.build_from_config(config["build_config"])
        if compile and config.get("compile_config") and hasattr(obj, "compile_from_config"):
            obj.compile_from_config(config["compile_config"])
    return obj


def json_default(obj: Any) -> Any:
    """``json.dumps``'s fallback for NumPy values left in a config."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")
