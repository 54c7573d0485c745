"""GPTQ's numerics, as Keras 3.15 computes them, in NumPy (float32; calibration runs on the
host): the Hessian ``2 X^T X / n`` of a layer's inputs, and the column-by-column
quantization of a kernel that spreads each column's rounding error over the columns not yet
quantized through the damped inverse Hessian (blocks of 128 columns, groups of
``group_size`` columns sharing a scale and zero point, optionally in the order of the
Hessian's diagonal: "activation order").

As in Keras 3.15, the error feedback uses the damped inverse Hessian itself, where the GPTQ
paper's reference code uses its upper Cholesky factor: on random data the result can have a
larger output error than plain rounding. finegrad keeps Keras's arithmetic (the tests
compare it with Keras's ``gptq_quantize_matrix``).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np


def quantization_parameters(x: Any, bits: int, symmetric: bool, per_channel: bool,
                            group_size: int) -> tuple[Any, Any, float]:
    """``(scale [rows, groups], zero [rows, groups] uint8, maxq)`` of ``x`` [rows, cols]
    (Keras's ``compute_quantization_parameters``, unsigned)."""
    rows, cols = x.shape
    groups = -(-cols // group_size) if per_channel and group_size > 0 else 1
    if groups > 1:
        padded = np.pad(x, [(0, 0), (0, groups * group_size - cols)])
        blocks = padded.reshape(rows, groups, group_size)
        low, high = blocks.min(axis=2), blocks.max(axis=2)
    else:
        flat = x.reshape(rows, -1) if per_channel else x.reshape(1, -1)
        low, high = flat.min(axis=1), flat.max(axis=1)
    if symmetric:
        top = np.maximum(np.abs(low), high)
        low, high = np.where(low < 0, -top, low), top
    same = low == high
    low, high = np.where(same, low - 1, low), np.where(same, high + 1, high)
    maxq = np.float32(2 ** bits - 1)
    scale = ((high - low) / maxq).astype("float32")
    scale = np.where(scale <= 0, np.float32(1e-8), scale).astype("float32")
    zero = np.full_like(scale, (maxq + 1) / 2) if symmetric else np.round(-low / scale)
    if groups == 1:
        scale, zero = scale.reshape(-1, 1), zero.reshape(-1, 1)
        if not per_channel:
            scale, zero = np.tile(scale, (rows, 1)), np.tile(zero, (rows, 1))
    return scale, zero.astype("int64").astype("uint8"), float(maxq)


def _quantize_column(column, scale, zero, maxq):
    safe = np.where(scale == 0, np.float32(1e-8), scale)
    q = np.clip(np.round(column[:, None] / safe + zero.astype("float32")), 0, maxq)
    return q, (scale * (q - zero.astype("float32")))[:, 0]


def _order(metric):
    n = metric.shape[0]
    jittered = metric + (np.arange(n, dtype="float32") / np.float32(n)) * np.float32(1e-12)
    return np.argsort(-jittered, kind="stable")


def quantize_matrix(weights_t: Any, inv_hessian: Any, params: Any, group_size: int = -1,
                    activation_order: bool = False, order_metric: Any = None,
                    blocksize: int = 128) -> tuple[Any, Any, Any, Any]:
    """GPTQ of ``weights_t`` [units, in]: ``(values [units, in], scale, zero, g_idx)``,
    ``params(slice)`` giving a slice's ``(scale, zero, maxq)``."""
    n = weights_t.shape[1]
    perm = None
    if activation_order:
        metric = np.where(np.isfinite(order_metric), order_metric, 0).astype("float32")
        perm = _order(metric)
        weights_t, inv_hessian = weights_t[:, perm], inv_hessian[perm][:, perm]
    buffer = weights_t.astype("float32").copy()
    values = np.zeros(weights_t.shape, "int64")
    scales, zeros = [], []
    group = n if group_size == -1 else group_size
    for start in range(0, n, blocksize):
        end = min(start + blocksize, n)
        block, errors = buffer[:, start:end].copy(), np.zeros((buffer.shape[0], end - start),
                                                             "float32")
        block_inv = inv_hessian[start:end, start:end]
        cached_start = -1
        for i in range(end - start):
            col = start + i
            group_start = (col // group) * group
            if group_start != cached_start:
                scale, zero, maxq = params(buffer[:, group_start:min(group_start + group, n)])
                scales.append(scale)
                zeros.append(zero)
                cached_start = group_start
            q, dequantized = _quantize_column(block[:, i], scale, zero, maxq)
            values[:, col] = q[:, 0]
            err = (block[:, i] - dequantized) / block_inv[i, i]
            errors[:, i] = err
            block[:, i + 1:] -= np.outer(err, block_inv[i, i + 1:]).astype("float32")
        if end < n:
            buffer[:, end:] -= (errors @ inv_hessian[start:end, end:]).astype("float32")
    g_idx = (np.arange(n) / group).astype("float32")
    if perm is not None:
        inverse = np.argsort(perm)
        g_idx, values = g_idx[inverse], values[:, inverse]
    return values, np.concatenate(scales, axis=1), np.concatenate(zeros, axis=1), g_idx


def damped_inverse(hessian: Any, damping: float) -> tuple[Any, Any]:
    """``(inverse, diagonal)`` of the Hessian with dead inputs' diagonal set to 1 and
    ``damping`` times the mean diagonal added (Keras's ``quantize_and_correct_layer``)."""
    diag = np.diagonal(hessian).copy()
    dead = diag == 0
    diag = np.where(dead, np.float32(1), diag)
    matrix = hessian + np.diag(np.where(dead, np.float32(1), np.float32(0)))
    diag = diag + np.float32(damping) * diag.mean(dtype="float32")
    matrix = matrix - np.diag(np.diagonal(matrix)) + np.diag(diag)
    return np.linalg.inv(matrix.astype("float32")).astype("float32"), np.diagonal(matrix)


class HessianEstimate:
    """The running ``2 X^T X / n`` of the batches a layer sees."""

    def __init__(self, rows: int) -> None:
        self.rows, self.count = rows, 0
        self.hessian = np.zeros((rows, rows), "float32")

    def update(self, x: Any) -> None:
        x = np.asarray(x, "float32").reshape(-1, self.rows)
        total = self.count + x.shape[0]
        gram = x.T @ x
        gram = (gram + gram.T) / np.float32(2)
        if self.count > 0:
            self.hessian = self.hessian * np.float32(self.count / total)
        self.hessian = self.hessian + np.float32(2.0 / total) * gram
        self.count = total


def calibration_windows(tokenizer: Any, sequence_length: int, dataset: Any,
                        num_samples: int, seed: int = 42) -> Any:
    """``num_samples`` windows of ``sequence_length`` tokens [n, 1, length] int32 from the
    dataset (strings tokenized, token arrays flattened, repeated when short), at Keras's
    "strided" starts."""
    if not hasattr(dataset, "__iter__") or isinstance(dataset, (str, bytes)):
        raise TypeError(f"Model.quantize: the GPTQConfig's `dataset` must be an iterable "
                        f"(a list of strings, a generator, or a NumPy array). Got type: "
                        f"{type(dataset).__name__}")
    items = list(dataset)
    if not items:
        raise ValueError("Model.quantize: the GPTQConfig's dataset is empty.")
    if isinstance(items[0], str):
        pieces = [np.asarray(tokenizer.tokenize(s) if hasattr(tokenizer, "tokenize")
                             else tokenizer(s)).reshape(-1) for s in items]
    else:
        pieces = [np.asarray(getattr(s, "numpy", lambda s=s: s)()).reshape(-1) for s in items]
    tokens = np.concatenate(pieces).astype("int32")
    if tokens.size < num_samples * sequence_length:
        tokens = np.tile(tokens, math.ceil(num_samples * sequence_length / max(1, tokens.size)))
    last = tokens.size - sequence_length
    if last < 0:
        raise ValueError(f"Model.quantize: not enough tokens to form one sample of length "
                         f"{sequence_length} (have {tokens.size}).")
    stride = max(1, (last + 1) // num_samples)
    offset = abs(hash(("gptq-calib", seed))) % (last + 1) if last > 0 else 0
    starts = (offset + np.arange(num_samples) * stride) % (last + 1)
    windows = np.lib.stride_tricks.sliding_window_view(tokens, sequence_length)
    return windows[starts].astype("int32")[:, None, :]
