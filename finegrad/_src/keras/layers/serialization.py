"""A layer as Keras's config dict (module, class name, config) and back, for the layers that
hold other layers (Bidirectional, TimeDistributed, StackedRNNCells)."""
import importlib


def serialize_layer(layer):
    """``{"module", "class_name", "config", "registered_name"}`` of ``layer``."""
    return {"module": type(layer).__module__, "class_name": type(layer).__name__,
            "config": layer.get_config(), "registered_name": None}


def deserialize_layer(config):
    """A layer from `serialize_layer`'s dict: its class found by module and name, else (a
    Keras module name such as "keras.layers") among finegrad's built-in layers."""
    name = config["class_name"]
    for module_name in (config.get("module"), "finegrad.keras.layers"):
        try:
            cls = getattr(importlib.import_module(module_name), name, None) if module_name \
                else None
        except ImportError:
            cls = None
        if cls is not None:
            return cls.from_config(config["config"])
    raise ValueError(f"keras.layers: unknown layer class {name!r} (module "
                     f"{config.get('module')!r})")
