"""``keras.config``: the session's settings (float type, epsilon, image layout, backend) and
``enable_unsafe_deserialization`` (lambdas in saved configs load without ``safe_mode=False``)."""
from finegrad._src.keras.backend import (backend, epsilon, floatx, image_data_format,
                                         set_epsilon, set_floatx, set_image_data_format)
from finegrad._src.keras.python_code import enable_unsafe_deserialization

__all__ = ["backend", "enable_unsafe_deserialization", "epsilon", "floatx",
           "image_data_format", "set_epsilon", "set_floatx", "set_image_data_format"]
