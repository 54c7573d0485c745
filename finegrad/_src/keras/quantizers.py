"""Keras 3's quantization configs (``keras.quantizers``) and the numeric pieces of its
``"int4"`` and ``"float8"`` modes.

int4: values in [-8, 7] kept two to a byte (`pack_int4`: the first of each pair in the low
nibble, along the last axis), with either one abs-max scale per output unit (``block_size``
None or -1) or, by default (``block_size=128``), a scale and an int8 zero point per group of
``block_size`` rows of the contracted axis (`grouped_quantize`: asymmetric, ``q =
round(w / scale) + zero``, dequantized ``(q - zero) * scale``).

float8 (delayed scaling, as NVIDIA's Transformer Engine): a value is quantized to
float8_e4m3fn (forward) or float8_e5m2 (gradients) after division by a scale, and
dequantized at once (`quantize_and_dequantize`); the scales and the history of absolute
maxima are updated from each training step's values (`float8_scale`, `float8_amax_history`).
NumPy has no float8 type, so the rounding is done on float32 bits (round to nearest even),
which gives the values a float8 cast gives.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src.ad.custom import custom_gradient
from finegrad._src.ops.array.bitcast import bitcast
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.array.structural import cast, concat, convert_to_tensor, reshape, stack
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import floordiv, maximum, minimum
from finegrad._src.ops.math.arithmetic import mod as floormod
from finegrad._src.ops.math.elementwise import where
from finegrad._src.ops.math.reductions import reduce_max

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")
IMPLEMENTED_MODES = ("int8", "int4", "float8", "gptq")
EPSILON = 1e-7   # Keras's backend.epsilon() in its quantizers
# float8 formats: (largest finite value, mantissa bits, smallest normal exponent)
FLOAT8 = {"float8_e4m3fn": (448.0, 3, -6), "float8_e5m2": (57344.0, 2, -14)}


class AbsMaxQuantizer:
    """Keras's abs-max quantizer: ``scale = value_range[1] / (max |x| + epsilon)`` along an
    axis, values ``clip(round(x * scale), *value_range)``. Only its configuration is used
    here (the default activation quantizer of an int8 config).

    >>> AbsMaxQuantizer().get_config()["value_range"]
    (-127, 127)
    """

    def __init__(self, axis: Any = None, value_range: Any = (-127, 127), epsilon: float = EPSILON,
                 output_dtype: str = "int8") -> None:
        self.axis = None if axis is None else tuple([axis] if isinstance(axis, int) else axis)
        self.value_range = tuple(value_range)
        self.epsilon = epsilon
        self.output_dtype = output_dtype

    def get_config(self) -> dict:
        config: dict[str, Any] = {"value_range": self.value_range, "epsilon": self.epsilon,
                                  "output_dtype": self.output_dtype}
        if self.axis is not None:
            config["axis"] = self.axis
        return config

    @classmethod
    def from_config(cls, config: dict) -> AbsMaxQuantizer:
        return cls(**config)

    def is_default_activation_quantizer(self) -> bool:
        return self.value_range == (-127, 127) and self.epsilon == EPSILON and \
            self.axis in (None, (-1,)) and self.output_dtype == "int8"


class QuantizationConfig:
    """The base of the quantization configs: a weight and an activation quantizer."""

    mode: Any = None

    def __init__(self, weight_quantizer: Any = None, activation_quantizer: Any = None) -> None:
        self.weight_quantizer = weight_quantizer
        self.activation_quantizer = activation_quantizer

    def get_config(self) -> dict:
        return {"weight_quantizer": serialize(self.weight_quantizer),
                "activation_quantizer": serialize(self.activation_quantizer)}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(weight_quantizer=deserialize(config.get("weight_quantizer")),
                   activation_quantizer=deserialize(config.get("activation_quantizer")))


class Int8QuantizationConfig(QuantizationConfig):
    """int8: abs-max weights per output unit; the inputs quantized per row by
    ``activation_quantizer`` (``"default"``: `AbsMaxQuantizer`; None: weight-only).

    >>> Int8QuantizationConfig().mode
    'int8'
    """

    mode = "int8"

    def __init__(self, weight_quantizer: Any = None, activation_quantizer: Any = "default"):
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)


class Int4QuantizationConfig(QuantizationConfig):
    """int4: per output unit (``block_size`` None or -1) or per group of ``block_size`` rows
    of the contracted axis with a zero point (the default, 128); weight-only by default.

    >>> Int4QuantizationConfig(block_size=-1).get_config()["block_size"]
    -1
    """

    mode = "int4"

    def __init__(self, weight_quantizer: Any = None, activation_quantizer: Any = "default",
                 block_size: Any = 128) -> None:
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = None
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and block_size != -1 and block_size <= 0:
            raise ValueError(f"keras.quantizers.Int4QuantizationConfig: block_size must be "
                             f"None, -1, or a positive integer. Received: "
                             f"block_size={block_size}")
        if block_size is not None and block_size > 0 and (
                weight_quantizer is not None or self.activation_quantizer is not None):
            raise ValueError(f"keras.quantizers.Int4QuantizationConfig: Int4 sub-channel "
                             f"quantization (block_size > 0) does not support custom "
                             f"quantizers. Received: block_size={block_size}")
        self.block_size = block_size

    def get_config(self) -> dict:
        return dict(super().get_config(), block_size=self.block_size)

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(weight_quantizer=deserialize(config.get("weight_quantizer")),
                   activation_quantizer=deserialize(config.get("activation_quantizer")),
                   block_size=config.get("block_size"))


class Float8QuantizationConfig(QuantizationConfig):
    """float8 training (delayed scaling); takes no quantizers.

    >>> Float8QuantizationConfig().get_config()
    {}
    """

    mode = "float8"

    def __init__(self) -> None:
        super().__init__(None, None)

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls()


class GPTQConfig(QuantizationConfig):
    """GPTQ (post-training, layer by layer): each Dense/EinsumDense kernel of the
    ``quantization_layer_structure``'s blocks is quantized to ``weight_bits`` column by
    column, the error spread over the columns not yet quantized through the inverse
    Hessian ``2 X^T X`` of the layer's calibration inputs (damped by ``hessian_damping``
    times its mean diagonal). ``dataset``: strings (tokenized by ``tokenizer``) or token
    arrays; ``num_samples`` windows of ``sequence_length`` tokens are taken from it.

    >>> GPTQConfig(dataset=[[1, 2]], tokenizer=None, group_size=8).dtype_policy_string()
    'gptq/4/8'
    """

    mode = "gptq"

    def __init__(self, dataset: Any, tokenizer: Any, *, weight_bits: int = 4,
                 num_samples: int = 128, per_channel: bool = True, sequence_length: int = 512,
                 hessian_damping: float = 0.01, group_size: int = 128, symmetric: bool = False,
                 activation_order: bool = False, quantization_layer_structure: Any = None):
        super().__init__()
        where = "keras.quantizers.GPTQConfig"
        for bad, message in ((weight_bits not in (2, 3, 4, 8),
                              f"Unsupported weight_bits {weight_bits}. Supported values are "
                              f"2, 3, 4, and 8."),
                             (num_samples <= 0, "num_samples must be a positive integer."),
                             (sequence_length <= 0,
                              "sequence_length must be a positive integer."),
                             (not 0 <= hessian_damping <= 1,
                              "hessian_damping must be between 0 and 1."),
                             (group_size < -1 or group_size == 0,
                              f"Invalid group_size. Supported values are -1 (whole-tensor) or "
                              f"a positive integer, but got {group_size}.")):
            if bad:
                raise ValueError(f"{where}: {message}")
        self.dataset, self.tokenizer = dataset, tokenizer
        self.weight_bits, self.num_samples, self.per_channel = weight_bits, num_samples, \
            per_channel
        self.sequence_length, self.hessian_damping = sequence_length, hessian_damping
        self.group_size, self.symmetric = group_size, symmetric
        self.activation_order = activation_order
        self.quantization_layer_structure = quantization_layer_structure

    def get_config(self) -> dict:
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "per_channel": self.per_channel,
                "sequence_length": self.sequence_length,
                "hessian_damping": self.hessian_damping, "group_size": self.group_size,
                "symmetric": self.symmetric, "activation_order": self.activation_order,
                # (like the dataset, the structure serves the calibration only; it holds
                # layers, whose configs hold this config: Keras 3.15 recurses without end)
                "quantization_layer_structure": None}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(**config)

    def dtype_policy_string(self) -> str:
        return f"gptq/{self.weight_bits}/{self.group_size}"


_CLASSES = {c.__name__: c for c in (AbsMaxQuantizer, Int8QuantizationConfig,
                                    Int4QuantizationConfig, Float8QuantizationConfig,
                                    GPTQConfig)}


def serialize(obj: Any) -> Any:
    """Keras's serialized form of a quantizer or config (None stays None)."""
    if obj is None:
        return None
    return {"module": "keras.quantizers", "class_name": type(obj).__name__,
            "config": obj.get_config(), "registered_name": None}


def deserialize(config: Any) -> Any:
    """A quantizer or config from `serialize`'s dict (objects and None pass through).

    Raises:
        NotImplementedError: for a class finegrad does not implement (GPTQConfig, AWQConfig).
    """
    if config is None or not isinstance(config, dict):
        return config
    name = config.get("class_name")
    if name not in _CLASSES:
        raise NotImplementedError(f"keras.quantizers.deserialize: {name!r} is not implemented "
                                  f"in finegrad.keras; expected one of {sorted(_CLASSES)}")
    inner = dict(config.get("config") or {})
    if "value_range" in inner:
        inner["value_range"] = tuple(inner["value_range"])
    return _CLASSES[name].from_config(inner)


def resolve_config(mode: Any, config: Any, where: str) -> Any:
    """The config a ``quantize(mode, config)`` call means, as Keras resolves it: a mode's
    default config, or the config given (whose mode must agree).

    Raises:
        ValueError: for an unknown mode, a config that is not a QuantizationConfig, a mode
            that contradicts the config's, or "gptq" without its GPTQConfig.
        NotImplementedError: for "awq" (not implemented in finegrad.keras).
    """
    if isinstance(config, str):
        mode, config = config, None
    if mode == "awq" or getattr(config, "mode", None) == "awq":
        raise NotImplementedError(f"{where}: quantization mode 'awq' (activation-aware, "
                                  f"calibrated with a dataset) is not implemented in "
                                  f"finegrad.keras; expected one of {IMPLEMENTED_MODES}")
    if config is None:
        defaults = {"int8": Int8QuantizationConfig, "int4": Int4QuantizationConfig,
                    "float8": Float8QuantizationConfig}
        if mode == "gptq":
            raise ValueError(f"{where}: For GPTQ, you must pass a `GPTQConfig` object in the "
                             f"`config` argument.")
        if mode not in defaults:
            raise ValueError(f"{where}: Invalid quantization mode. Expected one of "
                             f"{QUANTIZATION_MODES}. Received: mode={mode}")
        return defaults[mode]()
    if not isinstance(config, QuantizationConfig):
        raise ValueError(f"{where}: Argument `config` must be an instance of "
                         f"`QuantizationConfig`. Received: config={config!r} (of type "
                         f"{type(config).__name__})")
    if mode is not None and config.mode != mode:
        raise ValueError(f"{where}: Contradictory arguments: mode='{mode}' but "
                         f"config.mode='{config.mode}'")
    return config


# --- int4 ---------------------------------------------------------------------------------

def abs_max_numpy(w: Any, axis: Any, value_range: Any = (-127, 127)) -> tuple[Any, Any]:
    """``(int8 values, scale)`` of the array ``w`` by abs-max along ``axis`` (kept dims),
    computed in NumPy as Keras quantizes weights (``to_numpy=True``)."""
    scale = np.divide(value_range[1], np.add(np.max(np.abs(w), axis=axis, keepdims=True),
                                             EPSILON))
    q = np.clip(np.round(np.multiply(w, scale)), value_range[0], value_range[1])
    return q.astype("int8"), scale.astype(w.dtype)


def grouped_quantize(w: Any, block_size: int) -> tuple[Any, Any, Any]:
    """Asymmetric int4 of a [rows, columns] array by groups of ``block_size`` rows:
    ``(values [rows, columns], scale [groups, columns], zero [groups, columns] int8)``.

    >>> q, s, z = grouped_quantize(np.array([[0.], [1.5]], "float32"), 2)
    >>> q.ravel().tolist(), z.ravel().tolist()
    ([-8, 7], [-8])
    """
    rows, columns = w.shape
    groups = -(-rows // block_size)
    padded = np.concatenate([w, np.zeros((groups * block_size - rows, columns), w.dtype)])
    blocks = padded.reshape(groups, block_size, columns)
    low, high = blocks.min(axis=1, keepdims=True), blocks.max(axis=1, keepdims=True)
    scale = np.divide(np.subtract(high, low) + EPSILON, 15)
    zero = np.clip(np.round(np.divide(-low, scale)) - 8, -8, 7)
    q = np.clip(np.round(np.divide(blocks, scale)) + zero, -8, 7).astype("int8")
    return (q.reshape(groups * block_size, columns)[:rows], np.squeeze(scale, 1).astype(w.dtype),
            np.squeeze(zero, 1).astype("int8"))


def pack_int4(values: Any, dtype: str = "int8") -> Any:
    """Two int4 values (int8 in [-8, 7], or uint8 in [0, 15]) per byte along the last axis
    (padded to even): the first of each pair in the low nibble.

    >>> pack_int4(np.array([[-3, 7, 2]], "int8")).tolist()
    [[125, 2]]
    """
    values = np.asarray(values, dtype)
    if values.shape[-1] % 2:
        values = np.concatenate([values, np.zeros(values.shape[:-1] + (1,), dtype)], -1)
    low = np.bitwise_and(values[..., ::2], np.array(15, dtype))
    high = np.bitwise_and(values[..., 1::2], np.array(15, dtype))
    return np.bitwise_or(low, np.left_shift(high, np.array(4, dtype))).astype(dtype)


def unpack_int4(packed: Any, length: int, signed: bool = True) -> Any:
    """The values of a `pack_int4` tensor (int8 in [-8, 7]; unsigned: uint8 in [0, 15]),
    ``length`` of them along the last axis (finegrad ops: it runs in a traced step too)."""
    packed = cast(convert_to_tensor(packed), "int32")
    byte = floormod(packed, 256)
    nibbles = [floormod(byte, 16), floordiv(byte, 16)]
    if signed:
        nibbles = [where(n >= 8, n - 16, n) for n in nibbles]
    pairs = stack(nibbles, axis=-1)
    shape = [-1 if d is None else d for d in packed.shape[:-1]]
    flat = reshape(pairs, shape + [2 * packed.shape[-1]])
    return cast(flat[..., :length], "int8" if signed else "uint8")


def dequantize_groups(values: Any, scale: Any, zero: Any, g_idx: Any, axis: int) -> Any:
    """``(values - zero[g]) * scale[g]`` with group ``g = g_idx[i]`` of position ``i`` (the
    groups along ``axis`` of ``scale`` and ``zero``)."""
    groups = cast(g_idx, "int32")
    scales = gather(scale, groups, axis=axis)
    zeros = cast(gather(zero, groups, axis=axis), scales.dtype)
    return (cast(values, scales.dtype) - zeros) * scales


# --- float8 -------------------------------------------------------------------------------

@custom_gradient
def round_to_bfloat16(x: Any) -> Any:
    """float32 ``x`` rounded to bfloat16's precision (nearest even), kept float32; the
    gradient is rounded the same way (as through a cast to bfloat16 and back)."""
    return _round_mantissa(x, 7), lambda upstream: _round_mantissa(upstream, 7)


def _round_mantissa(x, mantissa_bits):
    """float32 ``x`` rounded to ``mantissa_bits`` bits of mantissa (nearest even) on its
    bits; values that stay normal float32 only."""
    step = 2 ** (23 - mantissa_bits)
    bits = bitcast(x, "int32")
    lsb = floormod(floordiv(bits, step), 2)
    rounded = bits + (step // 2 - 1) + lsb
    rounded = rounded - floormod(rounded, step)
    return bitcast(rounded, "float32")


def to_float8(x: Any, dtype: str) -> Any:
    """``x`` (already within the format's range) rounded to the values of ``dtype``
    (``"float8_e4m3fn"`` or ``"float8_e5m2"``), in float32."""
    _, mantissa, min_exp = FLOAT8[dtype]
    x = cast(x, "float32")
    quantum = 2.0 ** (min_exp - mantissa)      # the subnormals' spacing
    sub = ew.round(x / quantum) * quantum
    normal = _round_mantissa(x, mantissa)
    return where(ew.abs(x) < 2.0 ** min_exp, sub, normal)


def quantize_and_dequantize(x: Any, scale: Any, dtype: str, compute_dtype: str) -> Any:
    """``float8(clip(x / scale)) * scale`` in ``compute_dtype`` (Keras's
    ``quantize_and_dequantize``)."""
    top = FLOAT8[dtype][0]
    scale = cast(scale, compute_dtype)
    q = minimum(maximum(x / scale, -top), top)
    return cast(to_float8(q, dtype), compute_dtype) * scale


def float8_scale(amax: Any, scale: Any, dtype: str) -> Any:
    """The next scale: ``amax / dtype_max`` where ``amax`` is positive and finite, else the
    current one (Keras's ``compute_float8_scale``, margin 0)."""
    current = 1.0 / scale
    sf = FLOAT8[dtype][0] / amax
    sf = where(amax > 0.0, sf, current)
    sf = where(ew.is_finite(amax), sf, current)
    return 1.0 / sf


def float8_amax_history(x: Any, history: Any) -> Any:
    """The history rolled one step left, ``max |x|`` written at its start (Keras's
    ``compute_float8_amax_history``)."""
    latest = reshape(cast(reduce_max(ew.abs(x)), history.dtype), [1])
    return concat([latest, history[2:], history[:1]], axis=0) if history.shape[0] > 1 \
        else latest
