"""AWQ's numerics (activation-aware weight quantization), as Keras 3.15 computes them, in
NumPy (float32; calibration runs on the host).

A layer's calibration inputs give each input channel its largest magnitude ``x_max``
(`MagnitudeEstimate`). A grid search over ``ratio`` in ``0, 1/n, ..., 1`` tries the channel
scales ``s = max(x_max ** ratio, 1e-4)``, normalized by ``sqrt(max(s) min(s))``: the kernel
[units, in] is multiplied by ``s`` along its inputs, quantized to 4 bits (asymmetric, per
output unit or per group of ``group_size`` inputs), dequantized and divided by ``s`` again;
the scales whose error ``mean((w - w_hat)^2 x_max^2)`` is smallest (the first such on a
tie) win (`search_scales`). The layer keeps the 4-bit values of ``w * s``, their scales and
zero points, and ``s`` (``awq_scales``), and computes with ``dequantized / s``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src.keras.gptq_algorithm import quantization_parameters


def _group_index(n: int, group_size: int) -> Any:
    return np.arange(n) // group_size


def quantize_scaled(w: Any, group_size: int) -> tuple[Any, Any, Any, Any]:
    """``(values [units, in] float32 in [0, 15], scale, zero uint8, dequantized)`` of ``w``
    [units, in] at 4 bits (Keras's ``quantize_with_zero_point`` / ``..._with_sz_map``)."""
    scale, zero, maxq = quantization_parameters(w, 4, False, True, group_size)
    if group_size != -1:
        g = _group_index(w.shape[1], group_size)
        scale_cols, zero_cols = scale[:, g], zero[:, g]
    else:
        scale_cols, zero_cols = scale, zero
    safe = np.where(scale_cols == 0, np.float32(1e-8), scale_cols)
    zero_f = zero_cols.astype("float32")
    values = np.clip(np.round(w / safe + zero_f), 0, maxq).astype("float32")
    return values, scale, zero, ((values - zero_f) * scale_cols).astype("float32")


def _candidate(x_max: Any, ratio: float) -> Any:
    scales = np.ones_like(x_max) if ratio == 0 else np.power(x_max, np.float32(ratio))
    scales = np.maximum(scales, np.float32(1e-4))
    mean = np.maximum(np.sqrt(scales.max() * scales.min()), np.float32(1e-8))
    return (scales / mean).astype("float32")


def search_scales(w: Any, magnitudes: Any, num_grid_points: int = 20,
                  group_size: int = -1) -> Any:
    """The per-input scales [in] (float32) of the grid search over ``num_grid_points + 1``
    ratios for the kernel ``w`` [units, in] and the channel magnitudes [in].

    >>> w = np.array([[1.0, -0.01, 0.3]], "float32")
    >>> search_scales(w, np.zeros(3, "float32"), 4).tolist()    # no magnitudes: ones
    [1.0, 1.0, 1.0]
    """
    w = np.asarray(w, "float32")
    x_max = np.asarray(magnitudes, "float32")
    x_max = np.where(x_max < np.float32(1e-8), np.float32(1), x_max)
    weight = np.square(x_max)
    best_loss, best = None, np.ones_like(x_max)
    for i in range(num_grid_points + 1):
        scales = _candidate(x_max, i / num_grid_points)
        *_, dequantized = quantize_scaled(w * scales, group_size)
        loss = np.mean(np.square(w - dequantized / scales) * weight, dtype="float32")
        if best_loss is None or loss < best_loss:
            best_loss, best = loss, scales
    return best


def quantize_matrix(w: Any, magnitudes: Any, num_grid_points: int = 20,
                    group_size: int = -1) -> tuple[Any, Any, Any, Any, Any]:
    """AWQ of ``w`` [units, in]: ``(values [units, in] uint8, scale [units, groups],
    zero [units, groups] uint8, awq_scales [in], g_idx [in] float32)`` (Keras's
    ``awq_quantize_matrix``)."""
    w = np.asarray(w, "float32")
    awq_scales = search_scales(w, magnitudes, num_grid_points, group_size)
    values, scale, zero, _ = quantize_scaled(w * awq_scales, group_size)
    n = w.shape[1]
    g_idx = np.zeros(n, "float32") if group_size == -1 else \
        _group_index(n, group_size).astype("float32")
    return values.astype("uint8"), scale, zero, awq_scales, g_idx


class MagnitudeEstimate:
    """The running largest magnitude of each of ``rows`` input channels over the batches a
    layer sees (Keras's ``AWQ.update_activation_magnitudes``)."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.magnitudes = np.zeros((rows,), "float32")

    def update(self, x: Any) -> None:
        x = np.asarray(x, "float32").reshape(-1, self.rows)
        self.magnitudes = np.maximum(self.magnitudes, np.abs(x).max(axis=0))
