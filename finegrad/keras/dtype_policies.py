"""``keras.dtype_policies``: the float policies and the quantized ones a quantized layer
gets (``"int8_from_float32"``, ``"int4/128_from_float32"``, ``"float8_from_float32"``,
``"gptq/4/128_from_float32"``, ``"awq/4/128_from_float32"``)."""
from finegrad._src.keras.dtype_policies import (AWQDTypePolicy, DTypePolicy, GPTQDTypePolicy,
                                                Int4DTypePolicy, QuantizedDTypePolicy,
                                                QuantizedFloat8DTypePolicy, get, serialize)

FloatDTypePolicy = DTypePolicy

__all__ = ["AWQDTypePolicy", "DTypePolicy", "FloatDTypePolicy", "GPTQDTypePolicy",
           "Int4DTypePolicy", "QuantizedDTypePolicy", "QuantizedFloat8DTypePolicy", "get",
           "serialize"]
