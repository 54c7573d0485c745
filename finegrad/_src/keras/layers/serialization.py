"""A layer inside another layer's config (Bidirectional's, TimeDistributed's, an RNN's cell,
StackedRNNCells' cells) as Keras 3 writes it: `serialize_keras_object`'s dict (Keras's module
name, class, config and ``build_config``), and back."""
from finegrad._src.keras.object_serialization import (deserialize_keras_object,
                                                      serialize_keras_object)


def serialize_layer(layer):
    """``{"module", "class_name", "config", "registered_name", "build_config"}`` of
    ``layer``."""
    return serialize_keras_object(layer)


def deserialize_layer(config):
    """A layer from `serialize_layer`'s dict (a built-in class by its name, a custom one from
    the registry or an open `custom_object_scope`), built as its ``build_config`` says."""
    return deserialize_keras_object(config)
