"""A `Dense` or `EinsumDense` layer under Keras 3's calibrated modes, ``"gptq"`` and
``"awq"``.

``quantize(mode, config)`` adds the variables Keras adds: ``kernel`` (the quantized values,
uint8 [columns, rows], two per byte along the columns for 4 bits), ``kernel_scale`` and
``kernel_zero`` (uint8; an EinsumDense names it ``zero_point``) [columns, groups], for AWQ
``awq_scales`` [rows], and ``g_idx`` [rows] (each row's group). The layer keeps computing
with its float kernel until `Model.quantize` calibrates it (`calibration`): then the float
kernel goes and the layer computes with ``(values - zero[g]) * scale[g]``, transposed (and
for AWQ divided by ``awq_scales`` along the rows), in the kernel's own shape.

A kernel is seen as a matrix [rows, columns] as Keras sees it: a two-axis one as it is, a
three-axis one (an attention projection) split at its largest axis: [in, heads, head_dim]
when the largest comes first (rows ``in``), else [heads, head_dim, out] (columns ``out``).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from finegrad._src.keras import awq_algorithm
from finegrad._src.keras import gptq_algorithm as algorithm
from finegrad._src.keras import quantizers as q
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, expand_dims, reshape,
                                                transpose)
from finegrad._src.ops.linalg import products as linalg


def matrix_shape(shape: Any, where: str) -> tuple[int, int]:
    """(rows, columns) of a kernel of ``shape`` as GPTQ and AWQ see it.

    Raises:
        ValueError: for a kernel of more than three axes.
    """
    shape = [int(d) for d in shape]
    if len(shape) == 2:
        return shape[0], shape[1]
    if len(shape) == 3:
        if shape.index(max(shape)) == 0:      # [in, heads, head_dim]
            return shape[0], shape[1] * shape[2]
        return shape[0] * shape[1], shape[2]  # [heads, head_dim, out]
    raise ValueError(f"{where}: GPTQ and AWQ quantization only support 2D or 3D kernels; "
                     f"got a kernel of shape {tuple(shape)}")


def calibration_settings(mode: str, config: Any, policy: Any) -> tuple[int, int]:
    """(weight bits, group size) from the GPTQConfig/AWQConfig, else the layer's policy."""
    if isinstance(config, (q.GPTQConfig, q.AWQConfig)):
        return config.weight_bits, config.group_size
    return (policy.weight_bits if mode == "gptq" else 4), policy.group_size


def is_calibrated(layer: Any) -> bool:
    return bool(getattr(layer, f"is_{layer.quantization_mode}_calibrated", False))


def build_calibrated(layer: Any, mode: str, config: Any, policy: Any = None) -> None:
    """Add GPTQ's or AWQ's variables (zeros, ones) beside the float kernel.

    Raises:
        ValueError: for a kernel of more than three axes.
    """
    shape = tuple(layer._stored_weight().shape)
    rows, columns = matrix_shape(shape, f"{type(layer).__name__}.quantize")
    bits, group = calibration_settings(mode, config, policy)
    groups = 1 if group == -1 else math.ceil(rows / group)
    zero = "zero_point" if hasattr(layer, "equation") else "kernel_zero"   # (Keras's)
    packed = (columns + 1) // 2 if bits == 4 else columns
    specs: list[tuple[str, str, tuple[int, ...], str, str]] = [
        ("quantized_kernel", "kernel", (packed, rows), "uint8", "zeros"),
        ("kernel_scale", "kernel_scale", (columns, groups), "float32", "ones"),
        ("kernel_zero", zero, (columns, groups), "uint8", "zeros")]
    if mode == "awq":
        specs.append(("awq_scales", "awq_scales", (rows,), "float32", "ones"))
    specs.append(("g_idx", "g_idx", (rows,), "float32", "zeros"))
    layer.__dict__["_locked"] = False
    try:
        made = {attr: layer.add_weight(name=name, shape=s, dtype=dtype, initializer=init,
                                       trainable=False)
                for attr, name, s, dtype, init in specs}
    finally:
        layer.__dict__["_locked"] = True
    for name, v in made.items():
        setattr(layer, name, v)
    layer._calibrated_bits, layer._calibrated_columns = bits, columns
    if hasattr(layer, "equation"):      # Keras's EinsumDense records it (GPTQ: in its config)
        setattr(layer, f"{mode}_unpacked_column_size", columns)
    layer.original_kernel_shape = shape
    setattr(layer, f"is_{mode}_calibrated", False)


def drop_float_kernel(layer: Any) -> None:
    """After calibration (or when loading a calibrated layer): the float kernel goes."""
    layer.__dict__["_locked"] = False
    try:
        if "_kernel" in layer.__dict__:
            delattr(layer, "_kernel")
    finally:
        layer.__dict__["_locked"] = True
    setattr(layer, f"is_{layer.quantization_mode}_calibrated", True)


def quantized_values(layer: Any) -> Any:
    """The quantized values [columns, rows] uint8 (unpacked: Keras's ``layer.kernel`` of a
    calibrated layer)."""
    values = convert_to_tensor(layer.quantized_kernel)
    if layer._calibrated_bits == 4:     # packed along the columns
        values = transpose(q.unpack_int4(transpose(values), layer._calibrated_columns,
                                         signed=False))
    return values


def calibrated_kernel(layer: Any) -> Any:
    """The kernel a GPTQ/AWQ layer computes with: the float one before calibration, then
    the dequantized values in the kernel's shape and the compute dtype."""
    if not is_calibrated(layer):
        return layer._stored_weight()
    w = q.dequantize_groups(quantized_values(layer), layer.kernel_scale, layer.kernel_zero,
                            layer.g_idx, axis=-1)
    w = transpose(w)
    if layer.quantization_mode == "awq":
        w = w / expand_dims(convert_to_tensor(layer.awq_scales), -1)
    return cast(reshape(w, list(layer.original_kernel_shape)), layer.compute_dtype)


def calibrated_product(layer: Any, inputs: Any) -> Any:
    """``inputs @ kernel`` (an EinsumDense's equation) with `calibrated_kernel`."""
    kernel = calibrated_kernel(layer)
    if getattr(layer, "equation", None) is not None:
        return linalg.einsum(layer.equation, inputs, kernel)
    return linalg.matmul(inputs, kernel)


def rows_of(layer: Any) -> int:
    """The kernel's rows (the width of the inputs its statistics are gathered over)."""
    return matrix_shape(layer.original_kernel_shape, type(layer).__name__)[0]


def _float_matrix(layer):
    rows = rows_of(layer)
    return np.asarray(layer._stored_weight().numpy(), "float32").reshape(rows, -1)


def quantize_layer(layer: Any, statistic: Any, config: Any) -> None:
    """Run GPTQ (``statistic``: the Hessian of the calibration inputs) or AWQ (the largest
    input magnitudes) on the layer's float kernel and store the results in its variables."""
    kernel = _float_matrix(layer)
    if config.mode == "awq":
        values, scale, zero, awq_scales, g_idx = awq_algorithm.quantize_matrix(
            kernel.T, statistic, config.num_grid_points, config.group_size)
        layer.awq_scales.assign(awq_scales)
    else:
        inverse, diagonal = algorithm.damped_inverse(statistic, config.hessian_damping)

        def params(x):
            return algorithm.quantization_parameters(x, config.weight_bits, config.symmetric,
                                                     config.per_channel, config.group_size)
        values, scale, zero, g_idx = algorithm.quantize_matrix(
            kernel.T, inverse, params, config.group_size, config.activation_order, diagonal)
    values = values.astype("uint8")
    if layer._calibrated_bits == 4:
        values = q.pack_int4(values.T, "uint8").T
    layer.quantized_kernel.assign(values)
    layer.kernel_scale.assign(scale)
    layer.kernel_zero.assign(zero)
    layer.g_idx.assign(g_idx)
    drop_float_kernel(layer)
