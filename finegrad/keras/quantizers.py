"""``keras.quantizers``: the configs of `Model.quantize` / ``Layer.quantize`` (``"int8"``,
``"int4"`` with its ``block_size``, ``"float8"``, ``"gptq"``, ``"awq"``) and the quantizers
they take."""
from finegrad._src.keras.quantizers import (AbsMaxQuantizer, AWQConfig,
                                            Float8QuantizationConfig, GPTQConfig,
                                            Int4QuantizationConfig, Int8QuantizationConfig,
                                            QuantizationConfig, deserialize, serialize)

__all__ = ["AWQConfig", "AbsMaxQuantizer", "Float8QuantizationConfig", "GPTQConfig",
           "Int4QuantizationConfig", "Int8QuantizationConfig", "QuantizationConfig",
           "deserialize", "serialize"]
