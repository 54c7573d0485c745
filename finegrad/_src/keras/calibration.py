"""`Model.quantize("gptq" | "awq", config=...)`'s calibration, as Keras 3.15 runs it: token
windows from the config's dataset go through the structure's ``pre_block_layers``, then
block by block each target layer's inputs are recorded (GPTQ: their Hessian; AWQ: each input
channel's largest magnitude), the layer is quantized, and the block's outputs (through the
quantized layers) feed the next block.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src.keras import awq_algorithm
from finegrad._src.keras import gptq_algorithm as algorithm
from finegrad._src.keras.layers import calibrated_layers
from finegrad._src.ops.array.structural import convert_to_tensor, expand_dims

_NAMES = {"gptq": "GPTQ", "awq": "AWQ"}


def structure_of(model: Any, config: Any) -> Any:
    """The config's ``quantization_layer_structure``, else the model's
    ``get_quantization_layer_structure(mode)``.

    Raises:
        ValueError: when neither gives one.
    """
    structure = config.quantization_layer_structure
    if structure is None and hasattr(model, "get_quantization_layer_structure"):
        structure = model.get_quantization_layer_structure(config.mode)
    if structure is None:
        raise ValueError(f"{type(model).__name__}.quantize: For mode='{config.mode}', a valid "
                         f"quantization structure must be provided either via "
                         f"`config.quantization_layer_structure` or by overriding "
                         f"`model.get_quantization_layer_structure(mode)`. The structure "
                         f"should be a dictionary with keys 'pre_block_layers' and "
                         f"'sequential_blocks'.")
    return structure


def _targets(block, picked, mode):
    """The layers (leaves) of ``block`` in ``mode`` not calibrated yet that ``picked``
    keeps."""
    return [layer for layer in block._flatten_layers(include_self=True)
            if not list(layer._flatten_layers(include_self=False))
            and getattr(layer, "quantization_mode", None) == mode
            and not calibrated_layers.is_calibrated(layer) and picked(layer)]


def _record(layers, inputs, block, mode):
    """Run ``block`` on each input with each layer's inputs recorded: their statistics
    (Hessians, or largest magnitudes)."""
    kind = awq_algorithm.MagnitudeEstimate if mode == "awq" else algorithm.HessianEstimate
    estimates = [kind(calibrated_layers.rows_of(layer)) for layer in layers]
    for layer, estimate in zip(layers, estimates, strict=True):
        original = layer.call

        def hook(*args, _original=original, _estimate=estimate, **kwargs):
            _estimate.update(np.asarray((args[0] if args else kwargs["inputs"]).numpy()))
            return _original(*args, **kwargs)
        layer.__dict__["call"] = hook
    try:
        for x in inputs:
            block(x)
    finally:
        for layer in layers:
            layer.__dict__.pop("call", None)
    return [e.magnitudes if mode == "awq" else e.hessian for e in estimates]


def calibrate(model: Any, config: Any, picked: Any) -> None:
    """Quantize the model's GPTQ or AWQ layers block by block from the config's dataset.

    Raises:
        ValueError: without a structure, its blocks, a dataset or a tokenizer.
    """
    structure = structure_of(model, config)
    where = f"{type(model).__name__}.quantize"
    mode = config.mode
    if config.dataset is None or config.tokenizer is None:
        raise ValueError(f"{where}: {_NAMES[mode]} quantization requires a dataset and a "
                         f"tokenizer. Please provide them in the `{_NAMES[mode]}Config`.")
    blocks = structure.get("sequential_blocks", [])
    if not blocks:
        raise ValueError(f"{where}: No sequential blocks found in the provided structure to "
                         f"quantize.")
    windows = algorithm.calibration_windows(config.tokenizer, config.sequence_length,
                                            config.dataset, config.num_samples)
    inputs = []
    for batch in windows[:config.num_samples]:
        x = convert_to_tensor(batch, "int32")
        for layer in structure.get("pre_block_layers", []):
            x = layer(x)
        inputs.append(x if len(x.shape) != 2 else expand_dims(x, 0))
    for i, block in enumerate(blocks):
        layers = _targets(block, picked, mode)
        if layers:
            for layer, stat in zip(layers, _record(layers, inputs, block, mode), strict=True):
                calibrated_layers.quantize_layer(layer, stat, config)
        if i < len(blocks) - 1:
            outputs = [block(x)[0] for x in inputs]
            inputs = [y if len(y.shape) != 2 else expand_dims(y, 0) for y in outputs]
