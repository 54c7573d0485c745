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
from finegrad._src.keras import registration
from finegrad._src.keras.naming import to_snake_case
from finegrad._src.ops.array.bitcast import bitcast
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.array.structural import cast, concat, convert_to_tensor, reshape, stack
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import floordiv, maximum, minimum
from finegrad._src.ops.math.arithmetic import mod as floormod
from finegrad._src.ops.math.elementwise import where
from finegrad._src.ops.math.reductions import reduce_max

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")
EPSILON = 1e-7   # Keras's backend.epsilon() in its quantizers
# float8 formats: (largest finite value, mantissa bits, smallest normal exponent)
FLOAT8 = {"float8_e4m3fn": (448.0, 3, -6), "float8_e5m2": (57344.0, 2, -14)}


class Quantizer:
    """The base of Keras's quantizers: ``__call__`` maps a tensor to its quantized form (a
    weight or activation quantizer returns ``(values, scale)``, ``x ~ values / scale``); a
    subclass gives ``get_config`` to be saved (and registers itself to be loaded).

    >>> Quantizer().output_dtype
    'int8'
    """

    def __init__(self, output_dtype: str = "int8") -> None:
        self.output_dtype = output_dtype

    def __call__(self, x: Any) -> Any:
        return x

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(**config)

    def get_config(self) -> dict:
        raise NotImplementedError(f"{self} does not implement get_config()")


def as_numpy(x: Any) -> Any:
    """``x`` (a tensor, variable or array) as a NumPy array."""
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def abs_max_quantize(inputs: Any, axis: Any, value_range: Any = (-127, 127),
                     dtype: str = "int8", epsilon: float = EPSILON,
                     to_numpy: bool = False) -> tuple[Any, Any]:
    """``(values, scale)``: ``scale = value_range[1] / (max |x| + epsilon)`` along ``axis``
    (kept dims, in the inputs' dtype), ``values = clip(round(x * scale), *value_range)`` as
    ``dtype``; ``to_numpy``: computed in NumPy (Keras's host path for weights).

    >>> import finegrad as fg
    >>> values, scale = abs_max_quantize(fg.constant([[0.5, -1.0]]), -1)
    >>> values.numpy().tolist()
    [[63, -127]]
    """
    if to_numpy:
        x = as_numpy(inputs)
        axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
        scale = np.divide(value_range[1], np.add(np.max(np.abs(x), axis=axis, keepdims=True),
                                                 epsilon))
        values = np.clip(np.round(np.multiply(x, scale)), value_range[0], value_range[1])
        return convert_to_tensor(values.astype(dtype)), \
            convert_to_tensor(np.asarray(scale).astype(x.dtype))
    x = convert_to_tensor(inputs)
    axis = list(axis) if isinstance(axis, tuple) else axis
    scale = cast(value_range[1] / (reduce_max(ew.abs(x), axis=axis, keepdims=True) + epsilon),
                 x.dtype)
    values = minimum(maximum(ew.round(x * scale), float(value_range[0])), float(value_range[1]))
    return cast(values, dtype), scale


def integer_product(product: Any, xq: Any, k: Any) -> Any:
    """``product(xq, k)`` of quantized inputs and an int kernel: in int32 for integer
    inputs (Keras's int8 x int8 product), else in the inputs' dtype."""
    if xq.dtype.is_integer:
        return product(cast(xq, "int32"), cast(k, "int32"))
    return product(xq, cast(k, xq.dtype))


class AbsMaxQuantizer(Quantizer):
    """Keras's abs-max quantizer (`abs_max_quantize`) along ``axis`` (the call's ``axis``,
    else the constructor's, else -1): the default weight quantizer of int8 and int4 (per
    output unit) and the default activation quantizer of int8.

    >>> AbsMaxQuantizer().get_config()["value_range"]
    (-127, 127)

    Raises:
        ValueError: for an int8 ``output_dtype`` with a ``value_range`` outside [-128, 127].
    """

    def __init__(self, axis: Any = None, value_range: Any = (-127, 127), epsilon: float = EPSILON,
                 output_dtype: str = "int8") -> None:
        super().__init__(output_dtype)
        self.axis = None if axis is None else tuple([axis] if isinstance(axis, int) else axis)
        self.value_range = tuple(value_range)
        self.epsilon = epsilon
        if output_dtype == "int8" and (value_range[0] < -128 or value_range[1] > 127):
            raise ValueError(f"keras.quantizers.AbsMaxQuantizer: Quantizer with "
                             f"output_dtype='int8' requires value_range to be within the "
                             f"interval [-128, 127]. Received: value_range={value_range}")

    def __call__(self, x: Any, axis: Any = None, to_numpy: bool = False) -> Any:
        axis = self.axis if axis is None else axis
        return abs_max_quantize(x, -1 if axis is None else axis, self.value_range,
                                self.output_dtype, self.epsilon, to_numpy)

    def get_config(self) -> dict:
        config: dict[str, Any] = {"value_range": self.value_range, "epsilon": self.epsilon,
                                  "output_dtype": self.output_dtype}
        if self.axis is not None:
            config["axis"] = self.axis
        return config


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

    def __init__(self, weight_quantizer: Any = None,
                 activation_quantizer: Any = "default") -> None:
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        if weight_quantizer is not None and weight_quantizer.output_dtype != "int8":
            raise ValueError(f"keras.quantizers.Int8QuantizationConfig: "
                             f"Int8QuantizationConfig requires a weight_quantizer with "
                             f"output_dtype='int8'. Received: "
                             f"output_dtype={weight_quantizer.output_dtype}")


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
        for field, want in (("value_range", (-8, 7)), ("output_dtype", "int8")):
            got = getattr(weight_quantizer, field, want)
            if weight_quantizer is not None and \
                    (tuple(got) if field == "value_range" else got) != want:
                raise ValueError(f"keras.quantizers.Int4QuantizationConfig: "
                                 f"Int4QuantizationConfig requires a weight_quantizer with "
                                 f"{field}={want!r}. Received: {field}={got!r}")

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
                 activation_order: bool = False,
                 quantization_layer_structure: Any = None) -> None:
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


class AWQConfig(QuantizationConfig):
    """AWQ (activation-aware, post-training, layer by layer): each Dense/EinsumDense kernel
    of the ``quantization_layer_structure``'s blocks is scaled per input channel by the
    scales a grid search of ``num_grid_points`` ratios picks from the largest calibration
    input magnitudes, then quantized to 4 bits (groups of ``group_size`` inputs, -1: per
    output unit). ``dataset`` and ``tokenizer`` as `GPTQConfig`'s.

    >>> AWQConfig(dataset=[[1, 2]], tokenizer=None, group_size=-1).dtype_policy_string()
    'awq/4/-1'
    """

    mode = "awq"

    def __init__(self, dataset: Any, tokenizer: Any, *, weight_bits: int = 4,
                 num_samples: int = 128, sequence_length: int = 512, group_size: int = 128,
                 num_grid_points: int = 20, quantization_layer_structure: Any = None) -> None:
        super().__init__()
        for bad, message in ((weight_bits != 4, f"AWQ only supports 4-bit quantization. "
                                                f"Received weight_bits={weight_bits}."),
                             (num_samples <= 0, "num_samples must be a positive integer."),
                             (sequence_length <= 0,
                              "sequence_length must be a positive integer."),
                             (group_size < -1 or group_size == 0,
                              f"Invalid group_size. Supported values are -1 (per-channel) "
                              f"or a positive integer, but got {group_size}."),
                             (num_grid_points <= 0,
                              "num_grid_points must be a positive integer.")):
            if bad:
                raise ValueError(f"keras.quantizers.AWQConfig: {message}")
        self.dataset, self.tokenizer = dataset, tokenizer
        self.weight_bits, self.num_samples = weight_bits, num_samples
        self.sequence_length, self.group_size = sequence_length, group_size
        self.num_grid_points = num_grid_points
        self.quantization_layer_structure = quantization_layer_structure

    def get_config(self) -> dict:
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "sequence_length": self.sequence_length,
                "group_size": self.group_size, "num_grid_points": self.num_grid_points,
                "quantization_layer_structure": None}    # (as GPTQConfig's)

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(**config)

    def dtype_policy_string(self) -> str:
        return f"awq/{self.weight_bits}/{self.group_size}"


_CLASSES = {c.__name__: c for c in (Quantizer, AbsMaxQuantizer, Int8QuantizationConfig,
                                    Int4QuantizationConfig, Float8QuantizationConfig,
                                    GPTQConfig, AWQConfig)}
#: the classes `get` finds by name: their names and snake_case names
_BY_NAME = {**_CLASSES, "QuantizationConfig": QuantizationConfig}
_BY_NAME.update({to_snake_case(k): v for k, v in list(_BY_NAME.items())})


def _builtin(cls: type) -> bool:
    return _CLASSES.get(cls.__name__) is cls


def serialize(obj: Any) -> Any:
    """Keras's serialized form of a quantizer or config (None stays None): a custom one
    (a `Quantizer` subclass) under its module and registered name.

    >>> serialize(AbsMaxQuantizer(axis=0))["config"]["axis"]
    (0,)
    """
    if obj is None:
        return None
    cls = type(obj)
    builtin = _builtin(cls)
    return {"module": "keras.quantizers" if builtin else cls.__module__,
            "class_name": cls.__name__, "config": obj.get_config(),
            "registered_name": None if builtin else registration.get_registered_name(cls)}


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """A quantizer or config from `serialize`'s dict (objects and None pass through); a
    custom class is found in ``custom_objects`` or among the registered classes
    (``keras.saving.register_keras_serializable``).

    Raises:
        TypeError: for a class that is neither Keras's nor registered nor given.
    """
    if config is None or not isinstance(config, dict):
        return config
    name, registered = config.get("class_name"), config.get("registered_name")
    cls = None
    for key in (registered, name):
        cls = cls or (registration.get_registered_object(key, custom_objects) if key else None)
    if cls is None and name in _CLASSES and not registered:
        cls = _CLASSES[name]
    if cls is None:
        raise TypeError(f"keras.quantizers.deserialize: Could not locate class '{name}'. "
                        f"Make sure custom classes are decorated with "
                        f"`@keras.saving.register_keras_serializable()`. Full object "
                        f"config: {config}")
    return cls.from_config(dict(config.get("config") or {}))



def get(identifier: Any, **kwargs: Any) -> Any:
    """A quantizer or config from an identifier: None, an object (returned as it is), a
    `serialize` dict, or a class name in either spelling (``"AbsMaxQuantizer"``,
    ``"abs_max_quantizer"``), whose class is made with ``kwargs``.

    >>> get("abs_max_quantizer", axis=-1).axis
    (-1,)
    >>> get({"class_name": "AbsMaxQuantizer", "config": {"axis": 0}}).axis
    (0,)

    Raises:
        ValueError: for a name that is no quantizer class, or an object that is not
            callable (Keras's message; a config object, as in Keras). Keras 3.15 makes
            a class found by name with the keyword arguments as one positional dict;
            finegrad passes them as keywords.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = _BY_NAME.get(identifier)
    else:
        obj = identifier
    if not callable(obj):
        raise ValueError(f"keras.quantizers.get: Could not interpret quantizer identifier: "
                         f"{identifier}")
    return obj(**kwargs) if isinstance(obj, type) else obj


def _check_mode(mode: Any, where: str) -> None:
    if mode is not None and mode not in QUANTIZATION_MODES:
        raise ValueError(f"{where}: Invalid quantization mode. Expected one of "
                         f"{QUANTIZATION_MODES}. Received: mode={mode}")


def resolve_config(mode: Any, config: Any, where: str) -> Any:
    """The config a ``quantize(mode, config)`` call means, as Keras resolves it: a mode's
    default config, or the config given (whose mode must agree).

    Raises:
        ValueError: for an unknown mode, neither a mode nor a config, a config that is not
            a QuantizationConfig, a mode that contradicts the config's, or "gptq"/"awq"
            without its GPTQConfig/AWQConfig.
    """
    if isinstance(config, str):
        mode, config = config, None
    _check_mode(mode, where)
    if config is None:
        defaults = {"int8": Int8QuantizationConfig, "int4": Int4QuantizationConfig,
                    "float8": Float8QuantizationConfig}
        for calibrated, name in (("gptq", "a `GPTQConfig`"), ("awq", "an `AWQConfig`")):
            if mode == calibrated:
                raise ValueError(f"{where}: For {calibrated.upper()}, you must pass {name} "
                                 f"object in the `config` argument.")
        if mode is None:
            raise ValueError(f"{where}: You must provide either `mode` or `config` to "
                             f"`quantize`.")
        return defaults[mode]()
    if not isinstance(config, QuantizationConfig):
        raise ValueError(f"{where}: Argument `config` must be an instance of "
                         f"`QuantizationConfig`. Received: config={config!r} (of type "
                         f"{type(config).__name__})")
    if mode is not None and config.mode != mode:
        raise ValueError(f"{where}: Contradictory arguments: mode='{mode}' but "
                         f"config.mode='{config.mode}'")
    _check_mode(config.mode, where)
    for calibrated, cls in (("gptq", GPTQConfig), ("awq", AWQConfig)):
        if config.mode == calibrated and not isinstance(config, cls):
            raise ValueError(f"{where}: Mode '{calibrated}' requires a valid `config` "
                             f"argument of type `{cls.__name__}`. Received: {type(config)}")
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
