"""A `Dense` (or two-axis `EinsumDense`) layer under Keras 3's ``"gptq"`` mode.

``quantize("gptq", config)`` adds the variables Keras adds, ``kernel`` (the quantized
values, uint8 [units, in], two per byte along the units for 4 bits), ``kernel_scale`` and
``kernel_zero`` (uint8) [units, groups] and ``g_idx`` [in] (each input row's group), and the
layer keeps computing with its float kernel until `Model.quantize` calibrates it
(`calibrate`): then the float kernel goes and the layer computes with
``(values - zero[g]) * scale[g]``, transposed.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from finegrad._src.keras import gptq_algorithm as algorithm
from finegrad._src.keras import quantizers as q
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reshape, transpose
from finegrad._src.ops.linalg import products as linalg


def gptq_settings(config: Any, policy: Any) -> tuple[int, int]:
    """(weight bits, group size) from the GPTQConfig, else the layer's policy."""
    if isinstance(config, q.GPTQConfig):
        return config.weight_bits, config.group_size
    return policy.weight_bits, policy.group_size


def build_gptq(layer: Any, config: Any, policy: Any = None) -> None:
    """Add GPTQ's variables (zeros, ones) beside the float kernel.

    Raises:
        NotImplementedError: for a kernel of more than two axes (Keras's attention case).
    """
    if len(layer.kernel.shape) != 2:
        raise NotImplementedError(f"{type(layer).__name__}.quantize: GPTQ of a kernel with "
                                  f"{len(layer.kernel.shape)} axes is not implemented in "
                                  f"finegrad.keras; expected a two-axis kernel")
    bits, group = gptq_settings(config, policy)
    rows, units = layer.kernel.shape
    groups = 1 if group == -1 else math.ceil(rows / group)
    layer.__dict__["_locked"] = False
    try:
        made = {"quantized_kernel": layer.add_weight(
            name="kernel", shape=((units + 1) // 2 if bits == 4 else units, rows),
            dtype="uint8", initializer="zeros", trainable=False)}
        zero = "zero_point" if hasattr(layer, "equation") else "kernel_zero"   # (Keras's)
        for name, weight, dtype, init in (("kernel_scale", "kernel_scale", "float32", "ones"),
                                          ("kernel_zero", zero, "uint8", "zeros")):
            made[name] = layer.add_weight(name=weight, shape=(units, groups), dtype=dtype,
                                          initializer=init, trainable=False)
        made["g_idx"] = layer.add_weight(name="g_idx", shape=(rows,), dtype="float32",
                                         initializer="zeros", trainable=False)
    finally:
        layer.__dict__["_locked"] = True
    for name, v in made.items():
        setattr(layer, name, v)
    layer._gptq_bits, layer._gptq_units = bits, units
    if hasattr(layer, "equation"):      # Keras's EinsumDense records it in its config
        layer.gptq_unpacked_column_size = units
    layer.quantized_kernel_shape = (rows, units)
    layer.is_gptq_calibrated = False


def drop_float_kernel(layer: Any) -> None:
    """After calibration (or when loading a calibrated layer): the float kernel goes."""
    layer.__dict__["_locked"] = False
    try:
        delattr(layer, "_kernel")
    finally:
        layer.__dict__["_locked"] = True
    layer.is_gptq_calibrated = True


def gptq_kernel(layer: Any) -> Any:
    """The kernel a GPTQ layer computes with: the float one before calibration, then the
    dequantized values [in, units] in the compute dtype."""
    if not layer.is_gptq_calibrated:
        return layer.kernel
    values = convert_to_tensor(layer.quantized_kernel)
    if layer._gptq_bits == 4:     # packed along the units
        values = transpose(q.unpack_int4(transpose(values), layer._gptq_units, signed=False))
    w = q.dequantize_groups(values, layer.kernel_scale, layer.kernel_zero, layer.g_idx, axis=-1)
    return cast(transpose(w), layer.compute_dtype)


def gptq_product(layer: Any, inputs: Any) -> Any:
    """``inputs @ kernel`` (an EinsumDense's equation) with `gptq_kernel`."""
    kernel = gptq_kernel(layer)
    if getattr(layer, "equation", None) is not None:
        return linalg.einsum(layer.equation, inputs,
                             reshape(kernel, list(layer.quantized_kernel_shape)))
    return linalg.matmul(inputs, kernel)


def quantize_layer(layer: Any, hessian: Any, config: Any) -> None:
    """Run GPTQ on ``layer``'s float kernel with the Hessian of its calibration inputs and
    store the results in its GPTQ variables."""
    inverse, diagonal = algorithm.damped_inverse(hessian, config.hessian_damping)

    def params(x):
        return algorithm.quantization_parameters(x, config.weight_bits, config.symmetric,
                                                 config.per_channel, config.group_size)
    kernel = np.asarray(layer.kernel.numpy(), "float32")
    values, scale, zero, g_idx = algorithm.quantize_matrix(
        kernel.T, inverse, params, config.group_size, config.activation_order, diagonal)
    values = values.astype("uint8")
    if config.weight_bits == 4:
        values = q.pack_int4(values.T, "uint8").T
    layer.quantized_kernel.assign(values)
    layer.kernel_scale.assign(scale)
    layer.kernel_zero.assign(zero)
    layer.g_idx.assign(g_idx)
    drop_float_kernel(layer)
