"""``keras.saving``: whole models in Keras 3's ``.keras`` format, configs of any Keras object,
and the registry of custom classes that rebuilding finds by name."""
from finegrad._src.keras.model_files import load_model, save_model
from finegrad._src.keras.object_serialization import (deserialize_keras_object,
                                                      serialize_keras_object)
from finegrad._src.keras.registration import (CustomObjectScope, custom_object_scope,
                                              get_custom_objects, get_registered_name,
                                              get_registered_object,
                                              register_keras_serializable)

__all__ = ["CustomObjectScope", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object", "load_model",
           "register_keras_serializable", "save_model", "serialize_keras_object"]
