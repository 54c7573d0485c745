"""``keras.backend``: global settings (``tf.keras.backend``)."""
from finegrad._src.keras.backend import (backend, clear_session, epsilon, floatx,
                                         image_data_format, is_keras_tensor, set_epsilon,
                                         set_floatx, set_image_data_format)

__all__ = ["backend", "clear_session", "epsilon", "floatx", "image_data_format",
           "is_keras_tensor", "set_epsilon", "set_floatx", "set_image_data_format"]
