"""``keras.optimizers.get``, ``serialize`` and ``deserialize``: optimizers by name or config."""
from typing import Any
from finegrad._src.keras.optimizers.adafactor import Adafactor
from finegrad._src.keras.optimizers.adagrad import Adadelta, Adagrad, RMSprop
from finegrad._src.keras.optimizers.adam import Adam, Adamax, AdamW, Nadam
from finegrad._src.keras.optimizers.base import Optimizer, serialize  # noqa: F401
from finegrad._src.keras.optimizers.ftrl import Ftrl, Lion
from finegrad._src.keras.optimizers.lamb import Lamb
from finegrad._src.keras.optimizers.loss_scale import LossScaleOptimizer
from finegrad._src.keras.optimizers.multi import MultiOptimizer, OptimizerMap
from finegrad._src.keras.optimizers.muon import Muon
from finegrad._src.keras.optimizers.schedule_free import ScheduleFreeAdamW
from finegrad._src.keras.optimizers.sgd import SGD

_CLASSES = (Optimizer, SGD, Adam, AdamW, Adamax, Nadam, Adagrad, Adadelta, RMSprop, Ftrl,
            Lion, LossScaleOptimizer, Adafactor, Lamb, Muon,
            ScheduleFreeAdamW, MultiOptimizer)
_BY_NAME: dict[str, Any] = {cls.__name__.lower(): cls for cls in _CLASSES}


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The optimizer a `serialize` dict describes (class names match case-insensitively).

    >>> import finegrad as fg
    >>> opt = fg.keras.optimizers.deserialize({"class_name": "Adam",
    ...                                        "config": {"learning_rate": 0.5}})
    >>> float(opt.learning_rate)
    0.5

    Raises:
        ValueError: for an unknown class name.
    """
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(str(name).lower())
    if cls is None:
        raise ValueError(f"keras.optimizers.deserialize: unknown optimizer {name!r}")
    cfg = dict(config.get("config", {}))
    if cls is LossScaleOptimizer:
        inner = deserialize(cfg.pop("inner_optimizer"), custom_objects)
        return LossScaleOptimizer(inner, **cfg)
    if cls is MultiOptimizer:
        cfg["optimizer_map"] = _optimizer_map(cfg["optimizer_map"], custom_objects)
        return MultiOptimizer(**cfg)
    return cls.from_config(cfg, custom_objects)


def _optimizer_map(config, custom_objects):
    """An `OptimizerMap` from its serialized dict (a function is kept as it is)."""
    if not isinstance(config, dict):
        return config
    inner = config["config"]
    return OptimizerMap(deserialize(inner["default_optimizer"], custom_objects),
                        {k: deserialize(v, custom_objects)
                         for k, v in inner["optimizer_map"].items()})


def get(identifier: Any) -> Any:
    """An optimizer from a name (``"adam"``), a config dict or an optimizer (returned).

    >>> import finegrad as fg
    >>> type(fg.keras.optimizers.get("rmsprop")).__name__
    'RMSprop'

    Raises:
        ValueError: for an identifier that names no optimizer.
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"keras.optimizers.get: could not interpret optimizer identifier: "
                     f"{identifier!r}")
