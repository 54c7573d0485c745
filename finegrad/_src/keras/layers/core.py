"""Keras's core layers: `Dense`, `EinsumDense`, `Embedding`, `Lambda`.

Each layer's weights are made in ``build`` from the first input's shape with `add_weight`, and
``call`` computes with finegrad ops, so a `GradientTape` differentiates through it with
respect to its inputs and its weights.
"""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np

from finegrad._src.keras import activations, constraints, initializers, python_code, regularizers
from finegrad._src.keras.object_serialization import (deserialize_keras_object,
                                                      serialize_keras_object)
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers.int4_and_float8 import (float8_product, int4_einsum,
                                                        int4_lookup, int4_matmul)
from finegrad._src.keras.layers.calibrated_layers import calibrated_product
from finegrad._src.keras.layers.low_rank_and_int8 import (EinsumInt8, KernelAdapters,
                                                         int8_einsum, quantized_dtype)
from finegrad._src.ops.linalg import products as linalg
from finegrad._src.ops.array.structural import cast, expand_dims
from finegrad._src.ops.math.elementwise import not_equal
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.math.statistics import reduce_any

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


# Keras's short aliases of the random initializers (Embedding's default is "uniform")
_INITIALIZER_ALIASES = {"uniform": "random_uniform", "normal": "random_normal"}


def weight_options(layer, name, initializer, regularizer=None, constraint=None):
    """Store ``<name>_initializer`` / ``_regularizer`` / ``_constraint`` on ``layer``, each
    resolved from Keras's identifiers (a name, a config dict, an object or None)."""
    if isinstance(initializer, str):
        initializer = _INITIALIZER_ALIASES.get(initializer, initializer)
    setattr(layer, f"{name}_initializer", initializers.get(initializer))
    setattr(layer, f"{name}_regularizer", regularizers.get(regularizer))
    setattr(layer, f"{name}_constraint", constraints.get(constraint))


def serialized(module, obj):
    """``module.serialize(obj)``, None for None (as Keras's config has it)."""
    return None if obj is None else module.serialize(obj)


def weight_config(layer, *names, constraints_too=True, activity=False):
    """The serialized initializer, regularizer and constraint of each weight in ``names``
    (and, with ``activity``, the activity regularizer after the weights' regularizers)."""
    config = {}
    for name in names:
        config[f"{name}_initializer"] = serialized(initializers,
                                                   getattr(layer, f"{name}_initializer"))
    for name in names:
        config[f"{name}_regularizer"] = serialized(regularizers,
                                                   getattr(layer, f"{name}_regularizer"))
    if activity:
        config["activity_regularizer"] = serialized(regularizers, layer.activity_regularizer)
    if constraints_too:
        for name in names:
            config[f"{name}_constraint"] = serialized(constraints,
                                                      getattr(layer, f"{name}_constraint"))
    return config


def make_weight(layer, option, shape, name=None, trainable=True):
    """``add_weight`` named ``name`` (default ``option``) with the layer's stored
    ``<option>_initializer`` / ``_regularizer`` / ``_constraint``."""
    return layer.add_weight(name=option if name is None else name, shape=tuple(shape),
                            initializer=getattr(layer, f"{option}_initializer"),
                            regularizer=getattr(layer, f"{option}_regularizer", None),
                            constraint=getattr(layer, f"{option}_constraint", None),
                            trainable=trainable)


class Dense(KernelAdapters, Layer):
    """A densely connected layer: ``activation(inputs @ kernel + bias)`` over the last axis.

    Args:
        units: the size of the output's last axis.
        activation: an activation (name or callable); None is linear.
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
        activity_regularizer, kernel_constraint, bias_constraint: as in Keras.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.Dense(2, kernel_initializer="ones")
    >>> layer(fg.ones([1, 3])).numpy()
    array([[3., 3.]], dtype=float32)
    """

    def __init__(self, units: Any, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: str = "glorot_uniform", bias_initializer: str = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, lora_rank: Any = None, lora_alpha: Any = None,
                 quantization_config: Any = None, **kwargs: Any) -> None:
        quantized = quantized_dtype(kwargs)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._init_adapters(lora_rank, lora_alpha, quantization_config)
        self._pending_quantization = quantized
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"keras.layers.Dense: units must be a positive int, got "
                             f"{units!r}")
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        weight_options(self, "kernel", kernel_initializer, kernel_regularizer,
                       kernel_constraint)
        weight_options(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        self.kernel = make_weight(self, "kernel", (input_shape[-1], self.units))
        self.bias = make_weight(self, "bias", (self.units,)) if self.use_bias else None
        self.built = True
        self._build_adapters()

    def call(self, inputs: TensorLike, training: Any = None) -> Tensor:
        mode = self.quantization_mode
        if mode == "float8":     # (adds the bias)
            x = float8_product(self, inputs, training, linalg.matmul)
        else:
            if mode == "int8":
                x = self._int8_matmul(inputs)
            elif mode == "int4":
                x = int4_matmul(self, inputs)
            elif mode in ("gptq", "awq"):
                x = calibrated_product(self, inputs)
            else:
                x = linalg.matmul(inputs, self.effective_kernel())
            if self.bias is not None:
                x = x + self.bias
        return self.activation(x) if self.activation is not None else x

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(units=self.units, activation=activations.serialize(self.activation),
                      use_bias=self.use_bias)
        config.update(weight_config(self, "kernel", "bias"))
        config.update(self.adapter_config())
        return config


def _einsum_specs(equation):
    """(input, kernel, output) specs of ``equation`` and where ``...`` stands ("left",
    "right" or None)."""
    eq = equation.replace("...", "0")
    for pattern, side in (("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$", None),
                          ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$", "left"),
                          ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$", "right")):
        m = re.match(pattern, eq)
        if m:
            return m.group(1), m.group(2), m.group(3), side
    raise ValueError(f"keras.layers.EinsumDense: equation must have the form "
                     f"'[X],[Y]->[Z]', '...[X],[Y]->...[Z]' or '[X]...,[Y]->[Z]...', got "
                     f"{equation!r}")


def _full_output_shape(input_shape, partial, in_spec, side):
    """The output's shape: the batch size, the ``partial`` output shape, and the elided
    axes."""
    out = [input_shape[0]] + (list(partial) if isinstance(partial, (list, tuple))
                              else [partial])
    elided = len(input_shape) - len(in_spec)
    if side == "left":
        out[1:1] = list(input_shape[1:elided])
    elif elided > 0:
        out += list(input_shape[len(input_shape) - elided:])
    return out, elided


def einsum_shapes(equation, bias_axes, input_shape, partial):
    """(kernel shape, bias shape or None, full output shape, the kernel's input axes, its
    output axes) of an `EinsumDense`."""
    in_spec, w_spec, out_spec, side = _einsum_specs(equation)
    out, elided = _full_output_shape(input_shape, partial, in_spec, side)
    shift = elided if side == "left" else 0
    in_map = {d: i + shift - (len(input_shape) if side == "left" else 0)
              for i, d in enumerate(in_spec)}
    out_map = {d: i + shift for i, d in enumerate(out_spec)}
    for d in in_spec:
        if d in out_map and out[out_map[d]] is not None \
                and out[out_map[d]] != input_shape[in_map[d]]:
            raise ValueError(f"keras.layers.EinsumDense: input and output shapes differ at "
                             f"the shared axis {d!r}: {input_shape[in_map[d]]} vs "
                             f"{out[out_map[d]]}")
    kernel, in_axes, out_axes = [], [], []
    for i, d in enumerate(w_spec):
        if d in out_map:
            kernel.append(out[out_map[d]])
            out_axes.append(i)
        elif d in in_map:
            kernel.append(input_shape[in_map[d]])
            in_axes.append(i)
        else:
            raise ValueError(f"keras.layers.EinsumDense: weight axis {d!r} is in neither the "
                             f"input spec {in_spec!r} nor the output spec {out_spec!r}")
    bias = None
    if bias_axes is not None:
        missing = [c for c in bias_axes if c not in out_spec]
        if missing:
            raise ValueError(f"keras.layers.EinsumDense: bias axes {missing} are not in the "
                             f"output spec {out_spec!r}")
        first = min(out_spec.find(c) for c in bias_axes)
        sizes = {c: out[i + shift] for i, c in enumerate(out_spec)}
        bias = [sizes[c] if c in bias_axes else 1 for c in out_spec[first:]]
        if side != "left":
            bias += [1] * elided
    return kernel, bias, out, in_axes, out_axes


class EinsumDense(KernelAdapters, Layer):
    """A dense layer whose product is an einsum ``equation`` of the input and the kernel.

    Args:
        equation: "[X],[Y]->[Z]" (or with "..." on the left or right of X and Z).
        output_shape: the output's shape without the batch axis (an int or a tuple;
            None entries take the input's size).
        activation, bias_axes (output axes the bias spans), initializers, regularizers,
        constraints: as in Keras.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.EinsumDense("ab,bc->ac", output_shape=4,
    ...                                     kernel_initializer="ones")
    >>> layer(fg.ones([2, 3])).shape
    TensorShape([2, 4])
    """

    kernel_initializer: Any   # for the type checker: set by weight_options
    kernel_regularizer: Any
    kernel_constraint: Any

    def __init__(self, equation: Any, output_shape: Any, activation: Any = None,
                 bias_axes: Any = None, kernel_initializer: str = "glorot_uniform",
                 bias_initializer: str = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, lora_rank: Any = None,
                 lora_alpha: Any = None, quantization_config: Any = None,
                 gptq_unpacked_column_size: Any = None, **kwargs: Any) -> None:
        quantized = quantized_dtype(kwargs)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._init_adapters(lora_rank, lora_alpha, quantization_config)
        self._pending_quantization = quantized
        self.gptq_unpacked_column_size = gptq_unpacked_column_size   # (set by GPTQ)
        self.equation = equation
        self.partial_output_shape = (tuple(output_shape) if isinstance(output_shape,
                                                                       (list, tuple))
                                     else (output_shape,))
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        weight_options(self, "kernel", kernel_initializer, kernel_regularizer,
                       kernel_constraint)
        weight_options(self, "bias", bias_initializer, bias_regularizer, bias_constraint)

    def build(self, input_shape: Any) -> None:
        kernel, bias, full, in_axes, out_axes = einsum_shapes(
            self.equation, self.bias_axes, list(input_shape), self.partial_output_shape)
        self.full_output_shape = tuple(full)
        init = self.kernel_initializer
        if isinstance(init, initializers.VarianceScaling) and \
                (init.input_axes is None or init.output_axes is None):
            # Keras's fans of an einsum kernel: the products over its input and output axes
            config = dict(init.get_config(), seed=init.seed, input_axes=in_axes,
                          output_axes=out_axes)
            init = type(init).from_config(config)
        self.kernel = self.add_weight(name="kernel", shape=tuple(kernel), initializer=init,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = make_weight(self, "bias", bias) if bias is not None else None
        self._int8_layout = EinsumInt8(self.equation, len(input_shape))
        self.built = True
        self._build_adapters()

    def call(self, inputs: TensorLike, training: Any = None) -> Tensor:
        if self.quantization_mode == "float8":     # (adds the bias)
            x = float8_product(self, inputs, training,
                               lambda a, b: linalg.einsum(self.equation, a, b))
        else:
            if self.quantization_mode == "int8":
                x = int8_einsum(self, inputs)
            elif self.quantization_mode == "int4":
                x = int4_einsum(self, inputs)
            elif self.quantization_mode in ("gptq", "awq"):
                x = calibrated_product(self, inputs)
            else:
                x = linalg.einsum(self.equation, inputs, self.effective_kernel())
            if self.bias is not None:
                x = x + self.bias
        return self.activation(x) if self.activation is not None else x

    def _int8_scale_in_weight_layout(self):
        return self._int8_layout.to_kernel_layout(self.kernel_scale,
                                                  tuple(self._stored_weight().shape)).numpy()

    def _weight_reduced_axes(self):
        return self._int8_layout.reduced(self._int8_layout.w)

    def _scale_for_storage(self, scale):
        return self._int8_layout.to_output_layout(scale, self._int8_layout.w, np.reshape,
                                                  np.transpose, np.shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(einsum_shapes(self.equation, self.bias_axes, list(input_shape),
                                   self.partial_output_shape)[2])

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(output_shape=self.partial_output_shape, equation=self.equation,
                      activation=activations.serialize(self.activation),
                      bias_axes=self.bias_axes)
        config.update(weight_config(self, "kernel", "bias", activity=True))
        config.update(self.adapter_config())
        if self.gptq_unpacked_column_size:
            config["gptq_unpacked_column_size"] = self.gptq_unpacked_column_size
        return config


class Embedding(KernelAdapters, Layer):
    """Turns integer indices into dense vectors: row ``i`` of the ``embeddings`` matrix
    [input_dim, output_dim] for each index ``i``.

    Args:
        input_dim: the vocabulary size (indices are in [0, input_dim)).
        output_dim: the size of each vector.
        mask_zero: whether index 0 is padding; the layer then gives the mask ``inputs != 0``.
        weights: an initial [input_dim, output_dim] matrix (or a list holding it).

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.Embedding(5, 2, embeddings_initializer="ones")
    >>> layer(fg.constant([[1, 4]])).shape
    TensorShape([1, 2, 2])
    """

    embeddings_constraint: Any   # for the type checker: set by weight_options

    def __init__(self, input_dim: Any, output_dim: Any, embeddings_initializer: str = "uniform",
                 embeddings_regularizer: Any = None, embeddings_constraint: Any = None,
                 mask_zero: bool = False, weights: Any = None, lora_rank: Any = None,
                 lora_alpha: Any = None, quantization_config: Any = None, **kwargs: Any) -> None:
        for name, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"keras.layers.Embedding: {name} must be a positive integer, "
                                 f"got {value!r} (of type {type(value).__name__})")
        if kwargs.pop("input_length", None) is not None:
            warnings.warn("keras.layers.Embedding: argument `input_length` is deprecated; "
                          "just remove it", stacklevel=2)
        quantized = quantized_dtype(kwargs)
        super().__init__(**kwargs)
        self._init_adapters(lora_rank, lora_alpha, quantization_config)
        self._pending_quantization = quantized
        self.input_dim = input_dim
        self.output_dim = output_dim
        weight_options(self, "embeddings", embeddings_initializer, embeddings_regularizer,
                       embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.autocast = False
        if weights is not None:     # e.g. a pretrained matrix: weights=[matrix]
            self.build()
            self.set_weights(weights if isinstance(weights, list) and len(weights) == 1
                             else [weights])

    def build(self, input_shape: Any = None) -> None:
        self.embeddings = make_weight(self, "embeddings", (self.input_dim, self.output_dim))
        self.built = True
        self._build_adapters()

    _adapted = "embeddings"

    def _weight_reduced_axes(self):
        return -1     # one scale per row: input_dim is usually the larger

    def _scale_for_storage(self, scale):
        return scale[:, 0]

    _quantization_modes = ("int8", "int4")

    def _int8_scale_in_weight_layout(self):
        return self.embeddings_scale.numpy()[:, None]

    def call(self, inputs: Any) -> Tensor:
        if inputs.dtype.name not in ("int32", "int64"):
            inputs = cast(inputs, "int32")
        if self.quantization_mode == "int4":
            return int4_lookup(self, inputs)
        if self.quantization_mode != "int8":
            return gather(self.effective_kernel(), inputs)
        scale = gather(self.embeddings_scale, inputs)
        out = cast(gather(self._stored_weight(), inputs), self.compute_dtype) / \
            expand_dims(scale, -1)
        if self.lora_enabled:
            lora = linalg.matmul(gather(self.lora_embeddings_a, inputs), self.lora_embeddings_b)
            out = cast(out + (self.lora_alpha / self.lora_rank) * lora, self.compute_dtype)
        return out

    def compute_mask(self, inputs: TensorLike, mask: Any = None) -> Any:
        return not_equal(inputs, 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(input_dim=self.input_dim, output_dim=self.output_dim)
        config.update(weight_config(self, "embeddings", constraints_too=False, activity=True))
        config.update(embeddings_constraint=serialized(constraints,
                                                       self.embeddings_constraint),
                      mask_zero=self.mask_zero)
        config.update(self.adapter_config())
        return config


class Lambda(Layer):
    """Wraps a function of tensors as a layer (no weights).

    Args:
        function: called as ``function(inputs, **arguments)`` (and with ``mask=`` or
            ``training=`` when it takes them).
        output_shape: the output's shape (or a function of the input shape), when it cannot
            be inferred.
        mask: a fixed mask, or a function ``(inputs, mask) -> mask``.
        arguments: keyword arguments passed to ``function``.

    >>> import finegrad as fg
    >>> fg.keras.layers.Lambda(lambda x: 2 * x)(fg.ones([2])).numpy()
    array([2., 2.], dtype=float32)
    """

    def __init__(self, function: Any, output_shape: Any = None, mask: Any = None,
                 arguments: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"keras.layers.Lambda: function must be callable, got "
                            f"{type(function).__name__}")
        self.function = function
        self.arguments = dict(arguments or {})
        self._output_shape = output_shape
        self.mask = mask
        self.supports_masking = mask is not None
        params = inspect.signature(function).parameters
        self._takes = {k for k in ("mask", "training") if k in params}

    def call(self, inputs: TensorLike, mask: Any = None, training: Any = None) -> Tensor:
        kwargs = dict(self.arguments)
        if "mask" in self._takes:
            kwargs["mask"] = mask
        if "training" in self._takes:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs: TensorLike, mask: Any = None) -> Any:
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        return (input_shape[0],) + tuple(self._output_shape)

    def get_config(self) -> Any:
        """Keras's config: a ``lambda`` (function, output shape or mask) as its bytecode
        (``__lambda__``), which loads only with ``safe_mode=False``."""
        config = {"function": _function_config(self.function)}
        if self._output_shape is not None:
            config["output_shape"] = _function_config(self._output_shape) if callable(
                self._output_shape) else self._output_shape
        if self.mask is not None:
            config["mask"] = _function_config(self.mask) if callable(self.mask) else \
                serialize_keras_object(self.mask)
        config["arguments"] = serialize_keras_object(self.arguments)
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config: Any, custom_objects: Any = None,
                    safe_mode: Any = None) -> Any:
        """The layer of `get_config`'s dict; a ``lambda`` in it is Keras's ValueError unless
        ``safe_mode=False`` (here or in the loading call that reads it)."""
        config = dict(config)
        for key in ("function", "output_shape", "mask"):
            value = config.get(key)
            if isinstance(value, dict) and value.get("class_name") == "__lambda__":
                inner = value["config"]
                config[key] = python_code.load_checked(
                    inner["code"], "`Lambda` layer whose `function` is a Python lambda",
                    safe_mode, inner.get("defaults"), inner.get("closure"))
            elif key != "output_shape" and value is not None:
                config[key] = deserialize_keras_object(value, custom_objects)
            elif isinstance(value, list) and all(v is None or isinstance(v, int)
                                                 for v in value):
                config[key] = tuple(value)
        if "arguments" in config:
            config["arguments"] = deserialize_keras_object(config["arguments"], custom_objects)
        return cls(**config)


def _function_config(fn):
    """A Lambda's function in its config: a lambda's bytecode, else Keras's function dict."""
    if python_code.is_lambda(fn):
        code, defaults, closure = python_code.dump(fn)
        return {"class_name": "__lambda__",
                "config": {"code": code, "defaults": defaults, "closure": closure}}
    return serialize_keras_object(fn)


class Masking(Layer):
    """Masks the time steps whose features all equal ``mask_value``: those steps are zeroed
    and the layer's mask (``any(inputs != mask_value, axis=-1)``) tells the layers after it
    (RNNs, pooling, attention) to skip them.

    >>> import finegrad as fg
    >>> x = fg.constant([[[1.], [0.], [2.]]])
    >>> fg.keras.layers.Masking().compute_mask(x).numpy()
    array([[ True, False,  True]])
    """

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        self.built = True

    def compute_mask(self, inputs: TensorLike, mask: Any = None) -> Tensor:
        return reduce_any(not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        keep = reduce_any(not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * cast(keep, inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(mask_value=self.mask_value)
        return config


class Identity(Layer):
    """Returns its input (a placeholder layer); masks pass through.

    >>> import finegrad as fg
    >>> fg.keras.layers.Identity()(fg.ones([2])).numpy()
    array([1., 1.], dtype=float32)
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class Rescaling(Layer):
    """``inputs * scale + offset`` in the compute dtype (e.g. ``scale=1/255`` for images).

    >>> import finegrad as fg
    >>> fg.keras.layers.Rescaling(1 / 2, offset=1.)(fg.constant([2., 4.])).numpy()
    array([2., 3.], dtype=float32)
    """

    _build_config_on_call = True

    def __init__(self, scale: Any, offset: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset
        self.supports_masking = True
        self.built = True

    def call(self, inputs: TensorLike) -> Tensor:
        dtype = self.compute_dtype
        return cast(inputs, dtype) * cast(self.scale, dtype) + cast(self.offset, dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(scale=self.scale, offset=self.offset)
        return config
