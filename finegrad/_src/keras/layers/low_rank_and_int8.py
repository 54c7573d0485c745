"""Keras 3's LoRA adapters and int8 weight quantization for `Dense`, `EinsumDense` and
`Embedding` (`KernelAdapters`, a base those layers share).

LoRA (``enable_lora(rank)``): the kernel is frozen and the layer computes with ``kernel +
(lora_alpha / rank) * lora_a @ lora_b``, ``lora_a`` He-uniform and ``lora_b`` zeros (so the
output does not move before training), both float32 and trainable.

int8 (``quantize("int8")``, Keras's abs-max scheme): the kernel becomes int8 values
``round(w * scale)`` with one float scale ``127 / (max |w| + 1e-7)`` per output unit (per row
of an embedding table), and the inputs of a dense layer are quantized the same way per
example at each call; the integer product is divided by both scales. A config's custom
quantizers take those places: ``weight_quantizer(weight, to_numpy=True)`` gives the values
and scale, ``activation_quantizer(inputs, axis=...)`` quantizes the inputs (None:
weight-only). The gradient with respect to the inputs is that of the dequantized kernel
(Keras's custom gradient); the int8 kernel gets none. An EinsumDense keeps one scale per
kernel entry left after the contraction, stored in the output's layout.

As in Keras, ``layer.kernel`` (``layer.embeddings``) is the stored variable (an int4 layer's
unpacked values, a calibrated GPTQ/AWQ layer's quantized values), or with LoRA on the merged
kernel ``kernel + (lora_alpha / rank) * lora_a @ lora_b`` in the compute dtype (the variable
itself is ``layer._kernel``); a layer saves what Keras's ``save_own_variables``
saves, in its order for each mode, and with LoRA on the merged kernel (a quantized one
quantized again) and not LoRA's weights (`lora_merging`); loading one zeros them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from finegrad._src.ad.custom import custom_gradient
from finegrad._src.keras import dtype_policies, initializers, quantizers
from finegrad._src.keras.layers.int4_and_float8 import (SAVED_ORDER, build_float8,
                                                          quantize_int4)
from finegrad._src.keras.layers import calibrated_layers
from finegrad._src.keras.layers.lora_merging import merged_lora_weights
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reshape, transpose
from finegrad._src.ops.linalg import products as linalg

_EPSILON = 1e-7   # Keras's backend.epsilon() in its quantizers


def quantized_dtype(kwargs: dict) -> Any:
    """The quantized policy passed as ``dtype`` (a quantized layer's config: a Keras
    ``QuantizedDTypePolicy``/``Int4DTypePolicy``/``QuantizedFloat8DTypePolicy``/
    ``GPTQDTypePolicy``/``AWQDTypePolicy``, its dict or its name), which is replaced in
    ``kwargs`` by its source dtype; None for any other."""
    dtype = kwargs.get("dtype")
    if (isinstance(dtype, dict) and "Quantized" in str(dtype.get("class_name"))) or \
            (isinstance(dtype, dict) and dtype.get("class_name") in (
                "Int4DTypePolicy", "GPTQDTypePolicy", "AWQDTypePolicy")) or \
            (isinstance(dtype, str) and "_from_" in dtype):
        dtype = dtype_policies.get(dtype)
    if not isinstance(dtype, dtype_policies.QuantizedDTypePolicy):
        return None
    kwargs["dtype"] = dtype.source_name
    return dtype


class _AdaptedWeight:
    """``layer.kernel`` / ``layer.embeddings`` as Keras's property: the variable (kept as
    ``_kernel``); an int4 layer's unpacked int8 values in the weight's shape; a calibrated
    GPTQ/AWQ layer's quantized values [columns, rows] (unpacked); with LoRA on, the merged
    kernel."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, layer: Any, owner: Any = None) -> Any:
        if layer is None:
            return self
        base = layer.__dict__.get(f"_{self.name}")
        mode = layer.quantization_mode
        if mode in ("gptq", "awq") and calibrated_layers.is_calibrated(layer):
            return calibrated_layers.quantized_values(layer)
        if base is None:
            raise AttributeError(f"You must build the layer before accessing `{self.name}`.")
        if layer.lora_enabled:
            return layer.effective_kernel()
        return layer.unpacked_int4() if mode == "int4" else base

    def __set__(self, layer: Any, value: Any) -> None:
        # (through the layer's __setattr__: tracked, and restored by a checkpoint read
        # before the build, under the attribute it is saved as)
        setattr(layer, f"_{self.name}", value)


class KernelAdapters:
    """LoRA and quantization (int8, int4, float8, GPTQ) over one weight (``kernel``, or
    ``embeddings``)."""

    if TYPE_CHECKING:   # a mixin of `Layer`s: their attributes (and the weights it adds)
        def __getattr__(self, name: str) -> Any: ...

    _adapted = "kernel"
    kernel = _AdaptedWeight("kernel")
    embeddings = _AdaptedWeight("embeddings")
    lora_enabled = False
    quantization_mode = None
    _pending_quantization: Any = None
    inputs_quantizer: Any = None     # the config's activation quantizer (int8, int4)
    _int4_block_size: Any = None

    _quantization_modes: tuple[str, ...] = ("int8", "int4", "float8", "gptq", "awq")

    def _build_adapters(self):
        """At the end of ``build``: the quantization a quantized config asked for (its
        weights are then loaded over), then LoRA from ``lora_rank``."""
        policy = self._pending_quantization
        if policy:
            config = self.quantization_config
            if config is None and policy.quantization_mode == "int4":
                size = getattr(policy, "block_size", -1)
                config = quantizers.Int4QuantizationConfig(block_size=size)
            if config is None and policy.quantization_mode == "gptq":
                config = quantizers.GPTQConfig(None, None, weight_bits=policy.weight_bits,
                                               group_size=policy.group_size)
            if config is None and policy.quantization_mode == "awq":
                config = quantizers.AWQConfig(None, None, group_size=policy.group_size)
            self.quantize(policy.quantization_mode, type_check=False, config=config)
            if policy.quantization_mode in ("gptq", "awq"):   # a saved layer is calibrated
                calibrated_layers.drop_float_kernel(self)
            self._dtype_policy = policy
        if self.lora_rank:
            self.enable_lora(self.lora_rank, self.lora_alpha)

    def _init_adapters(self, lora_rank, lora_alpha, quantization_config):
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.quantization_config = quantizers.deserialize(quantization_config)

    def _lora_names(self):
        return f"lora_{self._adapted}_a", f"lora_{self._adapted}_b"

    def enable_lora(self, rank: int, lora_alpha: Any = None, a_initializer: Any = "he_uniform",
                    b_initializer: Any = "zeros") -> None:
        """Freeze the kernel and train a rank-``rank`` update ``a @ b`` scaled by
        ``lora_alpha / rank`` (``lora_alpha`` defaults to ``rank``).

        Raises:
            ValueError: for a layer not built, LoRA already on, or a kernel constraint.
        """
        where = f"{type(self).__name__}.enable_lora"
        if getattr(self, f"{self._adapted}_constraint", None):
            raise ValueError(f"{where}: Lora is incompatible with kernel constraints. In order "
                             f"to enable lora on this layer, remove the constraint argument.")
        if not self.built:
            raise ValueError(f"{where}: Cannot enable lora on a layer that isn't yet built.")
        if self.lora_enabled:
            raise ValueError(f"{where}: lora is already enabled. This can only be done once "
                             f"per layer.")
        if self.quantization_mode == "gptq":
            raise NotImplementedError(f"{where}: lora is not currently supported with GPTQ "
                                      f"quantization.")
        base = self._stored_weight()
        shape = tuple(base.shape)
        if self.quantization_mode == "int4":      # the unpacked weight's shape
            shape = tuple(self._int4_shape)
        regularizer = getattr(self, f"{self._adapted}_regularizer", None)
        a_name, b_name = self._lora_names()
        self.__dict__["_locked"] = False
        try:
            a = self.add_weight(name=a_name, shape=shape[:-1] + (rank,), dtype="float32",
                                initializer=initializers.get(a_initializer),
                                regularizer=regularizer)
            b = self.add_weight(name=b_name, shape=(rank, shape[-1]), dtype="float32",
                                initializer=initializers.get(b_initializer),
                                regularizer=regularizer)
        finally:
            self.__dict__["_locked"] = True
        setattr(self, a_name, a)
        setattr(self, b_name, b)
        base.trainable = False
        self.lora_enabled, self.lora_rank = True, rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else rank

    def _stored_weight(self):
        """The kernel's variable (``layer.kernel`` is the merged kernel with LoRA on)."""
        return self.__dict__[f"_{self._adapted}"]

    def stored(self, name: str) -> Any:
        """The variable ``name`` (the kernel's own for ``kernel``/``embeddings``), or None."""
        if name == self._adapted:
            return self.__dict__.get(f"_{name}")
        return getattr(self, name, None)

    def _lora_delta(self):
        a, b = (getattr(self, n) for n in self._lora_names())
        return (self.lora_alpha / self.lora_rank) * linalg.matmul(a, b)

    def unpacked_int4(self) -> Any:
        """An int4 layer's values (int8 in [-8, 7]) in the weight's own shape."""
        return reshape(quantizers.unpack_int4(self._stored_weight(), self._int4_length),
                       list(self._int4_shape))

    def effective_kernel(self) -> Any:
        """The weight the layer computes with: the stored one, plus the LoRA update."""
        base = self._stored_weight()
        if not self.lora_enabled:
            return base
        if self.quantization_mode == "int4":     # Keras's property: the unpacked values
            base = self.unpacked_int4()
        if self.quantization_mode is not None:   # Keras adds the update to the int8 values
            base = cast(base, "float32")
        return cast(base + self._lora_delta(), self.compute_dtype)

    def quantize(self, mode: Any = None, type_check: bool = True, config: Any = None) -> None:
        """Quantize the layer in place: ``"int8"``, ``"int4"`` (`Dense`, `EinsumDense`,
        `Embedding`), ``"float8"``, ``"gptq"`` or ``"awq"`` (`Dense`, `EinsumDense`; their
        variables, which `Model.quantize` calibrates), with a ``keras.quantizers`` config
        (custom quantizers included) or the mode's default one, as Keras does.

        Raises:
            ValueError: for an unknown mode, a contradicting config, a layer not built or
                already quantized, a GPTQ/AWQ kernel of more than three axes.
            NotImplementedError: for a subclass (with ``type_check``), a mode the layer does
                not have.
        """
        name = type(self).__name__
        where = f"{name}.quantize"
        config = quantizers.resolve_config(mode, config, where)
        mode = config.mode
        if not self.built:
            raise ValueError(f"{where}: Cannot quantize a layer that isn't yet built. Layer "
                             f"'{self.name}' (of type '{name}') is not built yet.")
        if self.quantization_mode is not None:
            raise ValueError(f"{where}: Layer '{self.name}' is already quantized with "
                             f"dtype_policy='{self.dtype_policy.name}'. Received: mode={mode}")
        if mode == "int8" and self.compute_dtype == "float16":
            raise ValueError(f"{where}: Quantization mode='int8' doesn't work well with "
                             f"compute_dtype='float16'. Received: dtype policy "
                             f"{self.dtype_policy.name!r}")
        if type_check and (name not in ("Dense", "EinsumDense", "Embedding") or
                           type(self).__module__ != "finegrad._src.keras.layers.core"):
            raise NotImplementedError(f"Layer {name} does not have a `quantize()` method "
                                      f"implemented.")
        if mode not in self._quantization_modes:
            raise NotImplementedError(f"{where}: Invalid quantization mode. Expected one of "
                                      f"{self._quantization_modes}. Received: "
                                      f"quantization_mode={mode}")
        if mode == "int8":
            self._quantize_int8(config)
        elif mode == "int4":
            quantize_int4(self, config)
        elif mode in ("gptq", "awq"):
            calibrated_layers.build_calibrated(self, mode, config, self._pending_quantization)
        else:
            build_float8(self, self._pending_quantization)
        self.quantization_config, self.quantization_mode = config, mode
        source = self.dtype_policy.name
        block = getattr(self, "_int4_block_size", None)
        label = f"int4/{-1 if block is None else block}" if mode == "int4" else \
            config.dtype_policy_string() if mode in ("gptq", "awq") else mode
        self._dtype_policy = dtype_policies.get(f"{label}_from_{source}")

    def quantized_weight(self, config: Any, axis: Any, value_range: Any) -> tuple[Any, Any]:
        """``(values, scale)`` (NumPy, the scale with kept dims) of the float weight by the
        config's weight quantizer, called as Keras calls it (``quantizer(weight,
        to_numpy=True)``), else by abs-max along ``axis``."""
        base = self._stored_weight()
        custom = getattr(config, "weight_quantizer", None)
        if custom is None:
            return quantizers.abs_max_numpy(base.numpy(), axis, value_range)
        values, scale = custom(base, to_numpy=True)
        return quantizers.as_numpy(values), quantizers.as_numpy(scale)

    def _quantize_int8(self, config):
        q, scale = self.quantized_weight(config, self._weight_reduced_axes(), (-127, 127))
        self.__dict__["_locked"] = False
        try:
            delattr(self, f"_{self._adapted}")
            stored = self.add_weight(name=self._adapted, shape=q.shape, dtype="int8",
                                     initializer="zeros", trainable=False)
            scale = self._scale_for_storage(scale)
            scale_var = self.add_weight(name=f"{self._adapted}_scale", shape=scale.shape,
                                        initializer="ones", trainable=False)
        finally:
            self.__dict__["_locked"] = True
        stored.assign(q)
        scale_var.assign(scale)
        setattr(self, self._adapted, stored)
        setattr(self, f"{self._adapted}_scale", scale_var)
        self.inputs_quantizer = config.activation_quantizer

    def _saved_variables(self) -> list:
        """The variables in the order Keras's ``save_own_variables`` writes them (its
        ``variable_serialization_spec``); LoRA's factors are merged into the weight."""
        if self.lora_enabled and self.quantization_mode not in ("gptq", "awq"):
            return merged_lora_weights(self)      # (Keras merges nothing for those)
        out = []
        for name in SAVED_ORDER[self.quantization_mode]:
            v = self.stored(name.format(w=self._adapted))
            if v is not None:
                out.append(v)
        return out

    def saved_variables(self, variables: list) -> list:
        """What Keras's ``save_own_variables`` stores in place of the layer's ``variables``:
        `_saved_variables`, then the other weights of a subclass (not LoRA's, nor a GPTQ
        layer's float kernel)."""
        spec = self._saved_variables()
        used = [getattr(v, "variable", v) for v in spec] + \
            [self.__dict__.get(n) for n in self._lora_names()] + \
            [self.__dict__.get(f"_{self._adapted}")]
        return spec + [v for v in variables if all(v is not u for u in used)]

    def _weight_reduced_axes(self):
        return 0

    def _int8_scale_in_weight_layout(self):
        return self.kernel_scale.numpy()

    def _scale_for_storage(self, scale):
        return np.squeeze(scale, axis=0)

    def _int8_matmul(self, inputs):
        """``inputs @ kernel`` with int8 inputs and kernel, rescaled; the inputs' gradient
        through the dequantized kernel."""
        kernel = convert_to_tensor(self._stored_weight())
        kernel_scale = convert_to_tensor(self.kernel_scale)
        compute = self.compute_dtype
        quantizer = self.inputs_quantizer

        @custom_gradient
        def product(x, k, k_scale):
            def grad(upstream):
                float_kernel = cast(k, compute) / k_scale
                return linalg.matmul(upstream, transpose(float_kernel)), None, None
            if quantizer is None:    # weight-only (an int8 config without activations)
                return cast(linalg.matmul(x, cast(k, x.dtype)), compute) / k_scale, grad
            xq, x_scale = quantizer(x, axis=-1)
            y = quantizers.integer_product(linalg.matmul, xq, k)
            return cast(y, compute) / (k_scale * x_scale), grad
        x = product(inputs, kernel, kernel_scale)
        if self.lora_enabled:
            a, b = (getattr(self, n) for n in self._lora_names())
            lora = linalg.matmul(linalg.matmul(inputs, a), b)
            x = cast(x + (self.lora_alpha / self.lora_rank) * lora, compute)
        return x

    def adapter_config(self) -> Any:
        """The config keys Keras adds: the quantization config, and LoRA's when set."""
        config: dict[str, Any] = {
            "quantization_config": quantizers.serialize(self.quantization_config)}
        if self.lora_rank:
            config.update(lora_rank=self.lora_rank, lora_alpha=self.lora_alpha)
        return config


def einsum_labels(equation: str, input_rank: int) -> tuple[str, str, str]:
    """The input, kernel and output labels of an EinsumDense ``equation``, ``...`` replaced
    by letters the equation does not use (on its side), for inputs of ``input_rank``."""
    lhs, out = equation.split("->")
    x, w = lhs.split(",")
    if "..." not in x:
        return x, w, out
    free = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
            if c not in equation]
    elided = "".join(free[:input_rank - len(x.replace("...", ""))])
    return x.replace("...", elided), w, out.replace("...", elided)


class EinsumInt8:
    """EinsumDense's int8 layout: a scale per kernel entry left after the contraction,
    stored in the output's layout (1 where an output axis is not the kernel's), as Keras
    stores it; the inputs' scale per entry left after the contraction, likewise."""

    def __init__(self, equation, input_rank):
        self.x, self.w, self.out = einsum_labels(equation, input_rank)

    def reduced(self, labels):
        return tuple(i for i, c in enumerate(labels) if c not in self.out)

    def to_output_layout(self, scale, labels, reshape_fn, transpose_fn, shape_of):
        """``scale`` (``labels``' layout, reduced axes of size 1) in the output's layout."""
        kept = [c for c in labels if c in self.out]
        sizes = dict(zip(labels, shape_of(scale), strict=True))
        flat = reshape_fn(scale, [sizes[c] for c in kept])
        order = sorted(range(len(kept)), key=lambda i: self.out.index(kept[i]))
        flat = transpose_fn(flat, order) if order != list(range(len(kept))) else flat
        return reshape_fn(flat, [sizes[c] if c in kept else 1 for c in self.out])

    def to_kernel_layout(self, scale, kernel_shape):
        """The stored (output-layout) scale back in the kernel's layout."""
        kept = [c for c in self.out if c in self.w]
        sizes = dict(zip(self.w, kernel_shape, strict=True))
        flat = reshape(scale, [sizes[c] for c in kept])
        order = [kept.index(c) for c in self.w if c in kept]
        flat = transpose(flat, order) if order != list(range(len(kept))) else flat
        return reshape(flat, [1 if c not in self.out else sizes[c] for c in self.w])


def int8_einsum(layer: Any, inputs: Any) -> Any:
    """An int8 EinsumDense's product: int8 inputs (one scale per entry left after the
    contraction) and kernel, rescaled; the inputs' gradient through the dequantized kernel
    (``einsum(out,kernel->in)``), as Keras's custom gradient."""
    layout = EinsumInt8(layer.equation, len(inputs.shape))
    kernel = convert_to_tensor(layer._stored_weight())
    kernel_scale = convert_to_tensor(layer.kernel_scale)
    compute = layer.compute_dtype
    equation = f"{layout.x},{layout.w}->{layout.out}"

    @custom_gradient
    def product(x, k, k_scale):
        def grad(upstream):
            float_kernel = cast(k, compute) / layout.to_kernel_layout(k_scale, tuple(k.shape))
            return linalg.einsum(f"{layout.out},{layout.w}->{layout.x}", upstream,
                                 float_kernel), None, None
        if layer.inputs_quantizer is None:    # weight-only
            return cast(linalg.einsum(equation, x, cast(k, x.dtype)), compute) / k_scale, grad
        xq, x_scale = layer.inputs_quantizer(x, axis=layout.reduced(layout.x))
        x_scale = layout.to_output_layout(x_scale, layout.x, reshape, transpose,
                                          lambda t: [-1 if d is None else d
                                                     for d in t.shape])
        y = quantizers.integer_product(lambda a, b: linalg.einsum(equation, a, b), xq, k)
        return cast(y, compute) / (x_scale * k_scale), grad
    x = product(inputs, kernel, kernel_scale)
    if layer.lora_enabled:
        lora = linalg.einsum(equation, inputs, layer._lora_delta())
        x = cast(x + lora, compute)
    return x
