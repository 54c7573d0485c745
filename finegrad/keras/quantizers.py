"""``keras.quantizers``: the configs of `Model.quantize` / ``Layer.quantize`` (``"int8"``,
``"int4"`` with its ``block_size``, ``"float8"``, ``"gptq"``, ``"awq"``) and the weight and
activation quantizers they take (`AbsMaxQuantizer`, or a `Quantizer` subclass of one's
own)."""
from finegrad._src.keras.quantizers import (AbsMaxQuantizer, AWQConfig,
                                            Float8QuantizationConfig, GPTQConfig,
                                            Int4QuantizationConfig, Int8QuantizationConfig,
                                            QuantizationConfig, Quantizer, abs_max_quantize,
                                            deserialize, get, serialize)

__all__ = ["AWQConfig", "AbsMaxQuantizer", "Float8QuantizationConfig", "GPTQConfig",
           "Int4QuantizationConfig", "Int8QuantizationConfig", "QuantizationConfig",
           "Quantizer", "abs_max_quantize", "deserialize", "get", "serialize"]
