"""``keras.quantizers``: the configs of `Model.quantize` / ``Layer.quantize`` (``"int8"``,
``"int4"`` with its ``block_size``, ``"float8"``, ``"gptq"``); AWQ is not implemented."""
from finegrad._src.keras.quantizers import (AbsMaxQuantizer, Float8QuantizationConfig,
                                            GPTQConfig, Int4QuantizationConfig,
                                            Int8QuantizationConfig, QuantizationConfig,
                                            deserialize, serialize)

__all__ = ["AbsMaxQuantizer", "Float8QuantizationConfig", "GPTQConfig", "Int4QuantizationConfig",
           "Int8QuantizationConfig", "QuantizationConfig", "deserialize", "serialize"]
