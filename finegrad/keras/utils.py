"""``keras.utils``: the progress bar, one-hot labels, seeding, registering custom classes
for configs, and the structure helpers training code calls."""
from finegrad._src.keras.backend import set_random_seed
from finegrad._src.keras.callbacks.progbar import Progbar
from finegrad._src.keras.data_adapters import (pack_x_y_sample_weight, to_categorical,
                                               unpack_x_y_sample_weight)
from finegrad._src.keras.registration import (CustomObjectScope, custom_object_scope,
                                              get_custom_objects, get_registered_name,
                                              get_registered_object,
                                              register_keras_serializable)

__all__ = ["CustomObjectScope", "Progbar", "custom_object_scope", "get_custom_objects",
           "get_registered_name", "get_registered_object", "pack_x_y_sample_weight",
           "register_keras_serializable", "set_random_seed", "to_categorical",
           "unpack_x_y_sample_weight"]
