"""What Keras 3 saves for a layer with LoRA on: the weight with ``(lora_alpha / rank) * a @ b``
merged in (re-quantized for an int8 or int4 layer, with new scales and zero points), and not
the LoRA factors, which loading sets back to zeros.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src.keras.layers import int4_and_float8


class SavedValue:
    """A value saved in a variable's place (``numpy``); loading assigns the variable, then
    runs ``on_load`` (which zeroes the LoRA factors)."""

    def __init__(self, variable: Any, value: Any, on_load: Any = None) -> None:
        self.variable, self.value, self.on_load = variable, np.asarray(value), on_load
        self.name, self.shape, self.dtype = variable.name, variable.shape, variable.dtype

    def numpy(self) -> Any:
        return self.value.astype(self.dtype._np)

    def assign(self, value: Any) -> None:
        self.variable.assign(value)
        if self.on_load is not None:
            self.on_load()


def _float_weight(layer):
    mode = layer.quantization_mode
    if mode == "int4":
        return int4_and_float8.int4_numpy_weight(layer)
    base = layer._stored_weight().numpy()
    if mode == "int8":
        return np.asarray(base, "float32") / layer._int8_scale_in_weight_layout()
    return base


def _requantized(layer, merged):
    """{name: array} of the merged float weight quantized again in the layer's mode."""
    w = layer._adapted
    if layer.quantization_mode == "int8":
        values, scale = int4_and_float8.q.abs_max_numpy(merged.astype("float32"),
                                                        layer._weight_reduced_axes())
        return {w: values, f"{w}_scale": layer._scale_for_storage(scale)}
    if layer.quantization_mode == "int4":
        flat = int4_and_float8.flat_kernel(layer, merged.astype("float32"))
        values, scale, zero = int4_and_float8.int4_arrays(flat, w == "embeddings",
                                                          layer._int4_block_size)
        out = {w: int4_and_float8.q.pack_int4(values), f"{w}_scale": scale}
        if zero is not None:
            out[f"{w}_zero"] = zero
        return out
    return {w: merged}


def merged_lora_weights(layer: Any) -> list:
    """The saved values of a LoRA layer, in Keras's order (see `SavedValue`)."""
    a, b = (getattr(layer, n) for n in layer._lora_names())
    delta = (layer.lora_alpha / layer.lora_rank) * np.matmul(a.numpy(), b.numpy())
    values = _requantized(layer, _float_weight(layer) + delta)

    def zero_factors():
        a.assign(np.zeros(a.shape, a.dtype._np))
        b.assign(np.zeros(b.shape, b.dtype._np))
    out = []
    for template in int4_and_float8.SAVED_ORDER[layer.quantization_mode]:
        name = template.format(w=layer._adapted)
        v = layer.stored(name)
        if v is not None:
            out.append(SavedValue(v, values[name], zero_factors) if name in values else v)
    return out
