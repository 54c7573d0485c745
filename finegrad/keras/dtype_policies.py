"""``keras.dtype_policies``: the float policies and the quantized ones a quantized layer
gets (``"int8_from_float32"``, ``"int4/128_from_float32"``, ``"float8_from_float32"``)."""
from finegrad._src.keras.dtype_policies import (DTypePolicy, Int4DTypePolicy,
                                                QuantizedDTypePolicy,
                                                QuantizedFloat8DTypePolicy, get, serialize)

FloatDTypePolicy = DTypePolicy

__all__ = ["DTypePolicy", "FloatDTypePolicy", "Int4DTypePolicy", "QuantizedDTypePolicy",
           "QuantizedFloat8DTypePolicy", "get", "serialize"]
