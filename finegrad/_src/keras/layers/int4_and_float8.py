"""Keras 3's ``"int4"`` and ``"float8"`` quantization of `Dense`, `EinsumDense` (float8) and
`Embedding` (int4): the variables each mode makes and the products the layers compute.

int4: the kernel [in, units] (an embedding table [rows, dim]) becomes int8 bytes holding two
int4 values each along its last axis, shape [in, ceil(units / 2)], with a float scale per
output unit (``block_size`` -1) or a scale, an int8 zero point and ``g_idx`` (the group of
each contracted row, float32) per group of ``block_size`` rows (the default, 128). No
variable is trainable but the bias (and LoRA's); the inputs' gradient is that of the
dequantized kernel (Keras's custom gradient).

float8: the float kernel stays and is trained; the layer adds, for its inputs, its kernel and
its outputs' gradient, a scale () and an amax history (amax_history_length,), float32,
trainable, ``overwrite_with_gradient``: their "gradients" are the next values (delayed
scaling), which the optimizer writes in place of an update. Inputs and kernel are rounded
through float8_e4m3fn, the outputs' gradient through float8_e5m2; in training the scales
move to ``max(history) / float8 max`` and the histories record this step's ``max |x|``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src.ad.custom import custom_gradient
from finegrad._src.keras import dtype_policies
from finegrad._src.keras import quantizers as q
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, expand_dims, reshape,
                                                transpose)
from finegrad._src.ops.linalg import products as linalg
from finegrad._src.ops.math.reductions import reduce_max


def block_size_of(config: Any, policy: Any) -> Any:
    """int4's block size: the config's, else the policy's (None: one scale per unit)."""
    if isinstance(config, q.Int4QuantizationConfig):
        return config.block_size
    size = getattr(policy, "block_size", None)
    return None if size in (None, -1) else size


def _add(layer, name, shape, dtype="float32", initializer="zeros", **options):
    return layer.add_weight(name=name, shape=tuple(shape), dtype=dtype, initializer=initializer,
                            **options)


def int4_arrays(w: Any, table: bool, block: Any,
                quantized: Any = None) -> tuple[Any, Any, Any]:
    """(values in [-8, 7], scale, zero point or None) of a kernel (``table``: an embedding
    table, whose groups run along each row); ``quantized``: the (values, scale) a custom
    weight quantizer gave (per output unit)."""
    if block in (None, -1):
        values, scale = quantized if quantized is not None else \
            q.abs_max_numpy(w, -1 if table else 0, (-8, 7))
        return values, np.squeeze(scale, -1 if table else 0), None
    if table:
        values, scale, zero = q.grouped_quantize(w.T, block)
        return values.T, scale.T, zero.T
    return q.grouped_quantize(w, block)


def flat_kernel(layer: Any, w: Any) -> Any:
    """An EinsumDense kernel as Keras quantizes it in int4: reshaped (not transposed) to
    [product of the contracted axes' sizes, the rest]; other weights as they are."""
    if getattr(layer, "_int8_layout", None) is None:
        return w
    reduced = layer._int8_layout.reduced(layer._int8_layout.w)
    rows = int(np.prod([w.shape[i] for i in reduced]))
    return w.reshape(rows, -1)


def int4_numpy_weight(layer: Any) -> Any:
    """The dequantized float weight of an int4 layer, as a NumPy array."""
    values = q.unpack_int4(layer._stored_weight(), layer._int4_length).numpy()
    table = layer._adapted == "embeddings"
    scale = getattr(layer, f"{layer._adapted}_scale").numpy()
    if layer._int4_block_size is None:
        out = values / (scale[:, None] if table else scale)
    else:
        zero = getattr(layer, f"{layer._adapted}_zero").numpy().astype(scale.dtype)
        g = layer.g_idx.numpy().astype("int64")
        out = (values - zero[:, g]) * scale[:, g] if table else (values - zero[g]) * scale[g]
    return out.reshape(layer._int4_shape)


def quantize_int4(layer: Any, config: Any) -> None:
    """Replace the layer's float weight by int4 bytes, scales (and zero points, ``g_idx``)."""
    original = np.asarray(layer._stored_weight().numpy())
    w = flat_kernel(layer, original)
    block = block_size_of(config, None)
    custom = None     # (Keras's EinsumDense ignores a weight quantizer in int4)
    if getattr(config, "weight_quantizer", None) is not None and \
            getattr(layer, "_int8_layout", None) is None:
        custom = layer.quantized_weight(config, None, None)
    values, scale, zero = int4_arrays(w, layer._adapted == "embeddings", block, custom)
    layer.inputs_quantizer = config.activation_quantizer
    table = layer._adapted == "embeddings"
    rows = w.shape[-1] if table else w.shape[0]
    layer.__dict__["_locked"] = False
    try:
        delattr(layer, f"_{layer._adapted}")
        stored = _add(layer, layer._adapted, values.shape[:-1] + (-(-w.shape[-1] // 2),), "int8",
                      trainable=False)
        made = {layer._adapted: stored,
                f"{layer._adapted}_scale": _add(layer, f"{layer._adapted}_scale", scale.shape,
                                                initializer="ones", trainable=False)}
        if zero is not None:
            made[f"{layer._adapted}_zero"] = _add(layer, f"{layer._adapted}_zero", zero.shape,
                                                  "int8", trainable=False)
            made["g_idx"] = _add(layer, "g_idx", (rows,), trainable=False)
    finally:
        layer.__dict__["_locked"] = True
    stored.assign(q.pack_int4(values))
    made[f"{layer._adapted}_scale"].assign(scale)
    if zero is not None:
        made[f"{layer._adapted}_zero"].assign(zero)
        made["g_idx"].assign((np.arange(rows) // block).astype("float32"))
    for name, v in made.items():
        setattr(layer, name, v)
    layer._int4_block_size = None if block in (None, -1) else block
    layer._int4_length, layer._int4_shape = w.shape[-1], original.shape


def int4_float_kernel(layer: Any, packed: Any, scale: Any, zero: Any = None,
                      g_idx: Any = None) -> Any:
    """The dequantized kernel [in, units] in the compute dtype."""
    unpacked = q.unpack_int4(packed, layer._int4_length)
    if zero is None:
        return cast(unpacked, layer.compute_dtype) / scale
    return cast(q.dequantize_groups(unpacked, scale, zero, g_idx, axis=0), layer.compute_dtype)


def int4_matmul(layer: Any, inputs: Any) -> Any:
    """A `Dense` layer's int4 product (before the bias), the inputs' gradient through the
    dequantized kernel; LoRA's update added. (An EinsumDense's: `int4_einsum`.)"""
    grouped = layer._int4_block_size is not None
    extra = [convert_to_tensor(layer.kernel_zero), convert_to_tensor(layer.g_idx)] \
        if grouped else []
    compute = layer.compute_dtype
    quantizer = layer.inputs_quantizer

    @custom_gradient
    def product(x, k, k_scale, *group):
        float_kernel = int4_float_kernel(layer, k, k_scale, *group)

        def grad(upstream):
            return (linalg.matmul(upstream, transpose(float_kernel)),) + (None,) * (2 + len(group))
        if grouped:
            return linalg.matmul(x, float_kernel), grad
        unpacked = q.unpack_int4(k, layer._int4_length)
        if quantizer is None:
            return cast(linalg.matmul(x, cast(unpacked, x.dtype)), compute) / k_scale, grad
        xq, x_scale = quantizer(x, axis=-1)      # an activation quantizer: int8 x int4
        y = cast(q.integer_product(linalg.matmul, xq, unpacked), compute)
        return y / (k_scale * x_scale), grad
    x = product(inputs, convert_to_tensor(layer._stored_weight()),
                convert_to_tensor(layer.kernel_scale), *extra)
    if layer.lora_enabled:
        lora = linalg.matmul(linalg.matmul(inputs, layer.lora_kernel_a), layer.lora_kernel_b)
        x = cast(x + (layer.lora_alpha / layer.lora_rank) * lora, compute)
    return x


def int4_einsum(layer: Any, inputs: Any) -> Any:
    """An int4 `EinsumDense`'s product (before the bias): the kernel dequantized in its
    [rows, columns] form and reshaped back; the inputs' gradient through it."""
    layout = layer._int8_layout
    equation = f"{layout.x},{layout.w}->{layout.out}"
    grouped = layer._int4_block_size is not None
    extra = [convert_to_tensor(layer.kernel_zero), convert_to_tensor(layer.g_idx)] \
        if grouped else []

    @custom_gradient
    def product(x, k, k_scale, *group):
        float_kernel = reshape(int4_float_kernel(layer, k, k_scale, *group),
                               list(layer._int4_shape))

        def grad(upstream):
            back = linalg.einsum(f"{layout.out},{layout.w}->{layout.x}", upstream, float_kernel)
            return (back,) + (None,) * (2 + len(group))
        if layer.inputs_quantizer is None or grouped:
            return linalg.einsum(equation, x, float_kernel), grad
        xq, x_scale = layer.inputs_quantizer(x, axis=layout.reduced(layout.x))
        x_scale = layout.to_output_layout(x_scale, layout.x, reshape, transpose,
                                          lambda t: [-1 if d is None else d for d in t.shape])
        y = linalg.einsum(equation, cast(xq, float_kernel.dtype), float_kernel)
        return cast(y, layer.compute_dtype) / x_scale, grad
    x = product(inputs, convert_to_tensor(layer._stored_weight()),
                convert_to_tensor(layer.kernel_scale), *extra)
    if layer.lora_enabled:
        x = cast(x + linalg.einsum(equation, inputs, layer._lora_delta()), layer.compute_dtype)
    return x


def int4_lookup(layer: Any, ids: Any) -> Any:
    """An int4 `Embedding`'s rows for ``ids``, dequantized (LoRA's update added)."""
    compute = layer.compute_dtype
    rows = gather(q.unpack_int4(layer._stored_weight(), layer._int4_length), ids)
    scale = gather(layer.embeddings_scale, ids)
    if layer._int4_block_size is None:
        out = cast(rows, compute) / expand_dims(scale, -1)
    else:
        out = q.dequantize_groups(cast(rows, compute), scale,
                                  gather(layer.embeddings_zero, ids), layer.g_idx, axis=-1)
    if layer.lora_enabled:
        lora = linalg.matmul(gather(layer.lora_embeddings_a, ids), layer.lora_embeddings_b)
        out = cast(out + (layer.lora_alpha / layer.lora_rank) * lora, compute)
    return out


# --- float8 -------------------------------------------------------------------------------

FLOAT8_NAMES = ("inputs_scale", "inputs_amax_history", "kernel_scale", "kernel_amax_history",
                "outputs_grad_scale", "outputs_grad_amax_history")


# Keras's ``variable_serialization_spec``: the order of a layer's saved variables by mode
# ("{w}": the kernel or the embeddings; a name the layer does not have is skipped)
SAVED_ORDER = {None: ("{w}", "bias"), "int8": ("{w}", "bias", "{w}_scale"),
               "int4": ("{w}", "bias", "{w}_scale", "{w}_zero", "g_idx"),
               "float8": ("{w}", "bias") + FLOAT8_NAMES,
               "gptq": ("bias", "quantized_kernel", "{w}_scale", "{w}_zero", "g_idx"),
               "awq": ("bias", "quantized_kernel", "{w}_scale", "{w}_zero", "awq_scales",
                       "g_idx")}


def build_float8(layer: Any, policy: Any = None) -> None:
    """Add float8's scales (ones) and amax histories (zeros), float32, never autocast."""
    length = getattr(policy, "amax_history_length",
                     dtype_policies.QuantizedFloat8DTypePolicy.default_amax_history_length)
    layer.__dict__["_locked"] = False
    try:
        for name in FLOAT8_NAMES:
            history = name.endswith("history")
            v = layer.add_weight(name=name, shape=(length,) if history else (),
                                 initializer="zeros" if history else "ones", dtype="float32",
                                 trainable=True, autocast=False, overwrite_with_gradient=True)
            setattr(layer, name, v)
    finally:
        layer.__dict__["_locked"] = True


def _qdq_forward(training: Any, compute: str):
    """Quantize-dequantize through float8_e4m3fn; in training, the gradients of the scale
    and history are their next values."""
    @custom_gradient
    def qdq(x, scale, history):
        new_scale = new_history = None
        if training:
            new_scale = q.float8_scale(reduce_max(history, axis=0), scale, "float8_e4m3fn")
            new_history = q.float8_amax_history(x, history)
        return q.quantize_and_dequantize(x, scale, "float8_e4m3fn", compute), \
            lambda upstream: (upstream, new_scale, new_history)
    return qdq


def _qdq_backward(compute: str):
    """Identity forward; the gradient rounded through float8_e5m2, the scale and history's
    gradients their next values."""
    @custom_gradient
    def qdq(y, scale, history):
        def grad(upstream):
            new_scale = q.float8_scale(reduce_max(history, axis=0), scale, "float8_e5m2")
            return (q.quantize_and_dequantize(upstream, scale, "float8_e5m2", compute),
                    new_scale, q.float8_amax_history(upstream, history))
        return y, grad
    return qdq


def float8_product(layer: Any, inputs: Any, training: Any, product: Any) -> Any:
    """``product(inputs, kernel)`` with float8 scaling, then the bias (rounded to bfloat16
    under a float32 policy, as Keras does for XLA's fusion)."""
    if layer.lora_enabled:
        raise NotImplementedError(f"{type(layer).__name__}.call: float8 quantization does not "
                                  f"support LoRA (as in Keras)")
    forward = _qdq_forward(training, layer.compute_dtype)
    read = convert_to_tensor
    x = product(forward(inputs, read(layer.inputs_scale), read(layer.inputs_amax_history)),
                forward(read(layer._stored_weight()), read(layer.kernel_scale),
                        read(layer.kernel_amax_history)))
    x = _qdq_backward(layer.compute_dtype)(x, read(layer.outputs_grad_scale),
                                           read(layer.outputs_grad_amax_history))
    if layer.bias is not None:
        bias = layer.bias
        if layer.dtype_policy.compute_dtype == "float32":
            bias = q.round_to_bfloat16(convert_to_tensor(bias))
        x = x + bias
    return x
