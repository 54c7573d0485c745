"""Keras 3's LoRA adapters and int8 weight quantization for `Dense`, `EinsumDense` and
`Embedding` (`KernelAdapters`, a base those layers share).

LoRA (``enable_lora(rank)``): the kernel is frozen and the layer computes with ``kernel +
(lora_alpha / rank) * lora_a @ lora_b``, ``lora_a`` He-uniform and ``lora_b`` zeros (so the
output does not move before training), both float32 and trainable.

int8 (``quantize("int8")``, Keras's abs-max scheme): the kernel becomes int8 values
``round(w * scale)`` with one float scale ``127 / (max |w| + 1e-7)`` per output unit (per row
of an embedding table), and the inputs of a dense layer are quantized the same way per
example at each call; the integer product is divided by both scales. The gradient with
respect to the inputs is that of the dequantized kernel (Keras's custom gradient); the int8
kernel gets none. An EinsumDense keeps one scale per kernel entry left after the
contraction, stored in the output's layout.

As in Keras, ``layer.kernel`` (``layer.embeddings``) is the stored variable, or with LoRA on
the merged kernel ``kernel + (lora_alpha / rank) * lora_a @ lora_b`` in the compute dtype (the
variable itself is ``layer._kernel``); and a LoRA layer saves what Keras's
``save_own_variables`` saves: the merged kernel in the kernel's place and not LoRA's own
weights (an int8 kernel dequantized, merged and quantized again with a new scale), so its
file is a plain layer's; loading one sets ``lora_a`` and ``lora_b`` to zeros.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from finegrad._src.ad.custom import custom_gradient
from finegrad._src.keras import initializers
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reshape, transpose
from finegrad._src.ops.linalg import products as linalg
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum, minimum
from finegrad._src.ops.math.reductions import reduce_max

_EPSILON = 1e-7   # Keras's backend.epsilon() in its quantizers


def abs_max_quantize(x: Any, axis: Any) -> Any:
    """``(int8 values, scale)`` of ``x`` by Keras's abs-max scheme along ``axis``: ``scale =
    127 / (max |x| + 1e-7)`` (kept dims), values ``clip(round(x * scale), -127, 127)``.

    >>> import finegrad as fg
    >>> from finegrad._src.keras.layers.low_rank_and_int8 import abs_max_quantize
    >>> q, s = abs_max_quantize(fg.constant([[0.5, -1.0]]), -1)
    >>> q.numpy().tolist()
    [[63, -127]]
    """
    x = convert_to_tensor(x)
    scale = 127.0 / (reduce_max(ew.abs(x), axis=axis, keepdims=True) + _EPSILON)
    scale = cast(scale, x.dtype)
    q = minimum(maximum(ew.round(x * scale), -127.0), 127.0)
    return cast(q, "int8"), scale


def _abs_max_numpy(w, axis):
    """Keras quantizes weights on the host, in NumPy (``to_numpy=True``)."""
    scale = np.divide(127, np.add(np.max(np.abs(w), axis=axis, keepdims=True), _EPSILON))
    q = np.clip(np.round(np.multiply(w, scale)), -127, 127).astype("int8")
    return q, scale.astype(w.dtype)


def quantized_dtype(kwargs: dict) -> Any:
    """The quantization mode of a Keras ``QuantizedDTypePolicy`` config passed as ``dtype``
    (a quantized layer's config), which is replaced in ``kwargs`` by its source dtype; None
    for any other dtype."""
    dtype = kwargs.get("dtype")
    if not (isinstance(dtype, dict) and dtype.get("class_name") == "QuantizedDTypePolicy"):
        return None
    kwargs["dtype"] = dtype["config"].get("source_name")
    return dtype["config"]["mode"]


class _AdaptedWeight:
    """``layer.kernel`` / ``layer.embeddings``: the variable (kept as ``_kernel``), or with LoRA
    on the merged kernel, as Keras's property."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, layer: Any, owner: Any = None) -> Any:
        if layer is None:
            return self
        base = layer.__dict__.get(f"_{self.name}")
        if base is None:
            raise AttributeError(f"You must build the layer before accessing `{self.name}`.")
        return layer.effective_kernel() if layer.lora_enabled else base

    def __set__(self, layer: Any, value: Any) -> None:
        layer.__dict__[f"_{self.name}"] = value


class KernelAdapters:
    """LoRA and int8 quantization over one weight (``kernel``, or ``embeddings``)."""

    if TYPE_CHECKING:   # a mixin of `Layer`s: their attributes (and the weights it adds)
        def __getattr__(self, name: str) -> Any: ...

    _adapted = "kernel"
    kernel = _AdaptedWeight("kernel")
    embeddings = _AdaptedWeight("embeddings")
    lora_enabled = False
    quantization_mode = None
    _pending_quantization = None

    def _build_adapters(self):
        """At the end of ``build``: LoRA from ``lora_rank``, then the quantization a
        quantized config asked for (its int8 weights are then loaded over)."""
        if self.lora_rank:
            self.enable_lora(self.lora_rank, self.lora_alpha)
        if self._pending_quantization:
            self.quantize(self._pending_quantization)

    def _init_adapters(self, lora_rank, lora_alpha, quantization_config):
        if quantization_config is not None:
            raise NotImplementedError(f"keras.layers.{type(self).__name__}: "
                                      f"quantization_config is not implemented (use "
                                      f"quantize('int8'))")
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.quantization_config = None

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
        base = self._stored_weight()
        shape = tuple(base.shape)
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

    def _lora_delta(self):
        a, b = (getattr(self, n) for n in self._lora_names())
        return (self.lora_alpha / self.lora_rank) * linalg.matmul(a, b)

    def effective_kernel(self) -> Any:
        """The weight the layer computes with: the stored one, plus the LoRA update."""
        base = self._stored_weight()
        if not self.lora_enabled:
            return base
        return cast(base + self._lora_delta(), self.compute_dtype)

    def quantize(self, mode: Any = None, type_check: bool = True, config: Any = None) -> None:
        """Quantize the weight in place (``"int8"``; Keras's other modes are
        NotImplementedError).

        Raises:
            NotImplementedError: for another mode, a subclass (with ``type_check``), or a
                ``config``.
        """
        name = type(self).__name__
        if type_check and (name not in ("Dense", "EinsumDense", "Embedding") or
                           type(self).__module__ != "finegrad._src.keras.layers.core"):
            raise NotImplementedError(f"Layer {name} does not have a `quantize()` method "
                                      f"implemented.")
        if mode != "int8" or config is not None:
            raise NotImplementedError(f"{name}.quantize: finegrad.keras implements the 'int8' "
                                      f"mode (without a config); got mode={mode!r}")
        if self.quantization_mode is not None:
            raise ValueError(f"{name}.quantize: the layer is already quantized "
                             f"({self.quantization_mode})")
        base = self._stored_weight()
        q, scale = _abs_max_numpy(base.numpy(), self._weight_reduced_axes())
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
        self.quantization_mode = "int8"

    def _weight_reduced_axes(self):
        return 0

    def _scale_in_kernel_layout(self, scale):
        return scale      # one per output unit: broadcasts over the kernel's last axis

    def saved_variables(self, variables: list) -> list:
        """What Keras's ``save_own_variables`` stores, in place of the layer's ``variables``:
        the kernel, the bias, the int8 scale, in that order (Keras's serialization spec; other
        weights of a subclass after them), and with LoRA on the kernel merged with its update
        (`MergedKernel`) and not LoRA's two weights."""
        lora = [self.__dict__.get(n) for n in self._lora_names()]
        base = self._stored_weight()
        scale = self.__dict__.get(f"{self._adapted}_scale")
        merged = MergedKernel(self) if self.lora_enabled else None
        spec = [base, self.__dict__.get("bias"), scale]
        out = [v for v in spec if v is not None] + [
            v for v in variables if all(v is not w for w in spec + lora)]
        if merged is not None:
            out = [merged if v is base else merged.scale if v is scale and merged.scale
                   else v for v in out]
        return out

    def _scale_for_storage(self, scale):
        return np.squeeze(scale, axis=0)

    def _int8_matmul(self, inputs):
        """``inputs @ kernel`` with int8 inputs and kernel, rescaled; the inputs' gradient
        through the dequantized kernel."""
        kernel = convert_to_tensor(self._stored_weight())
        kernel_scale = convert_to_tensor(self.kernel_scale)
        compute = self.compute_dtype

        @custom_gradient
        def product(x, k, k_scale):
            def grad(upstream):
                float_kernel = cast(k, compute) / k_scale
                return linalg.matmul(upstream, transpose(float_kernel)), None, None
            xq, x_scale = abs_max_quantize(x, -1)
            y = linalg.matmul(cast(xq, "int32"), cast(k, "int32"))
            return cast(y, compute) / (k_scale * x_scale), grad
        x = product(inputs, kernel, kernel_scale)
        if self.lora_enabled:
            a, b = (getattr(self, n) for n in self._lora_names())
            lora = linalg.matmul(linalg.matmul(inputs, a), b)
            x = cast(x + (self.lora_alpha / self.lora_rank) * lora, compute)
        return x

    def adapter_config(self) -> Any:
        """The config keys Keras adds: the quantization config, and LoRA's when set."""
        config: dict[str, Any] = {"quantization_config": None}
        if self.quantization_mode is not None:
            config["dtype"] = {"module": "keras.dtype_policies",
                               "class_name": "QuantizedDTypePolicy",
                               "config": {"mode": self.quantization_mode,
                                          "source_name": self.dtype_policy.name},
                               "registered_name": None}
        if self.lora_rank:
            config.update(lora_rank=self.lora_rank, lora_alpha=self.lora_alpha)
        return config


class MergedKernel:
    """The kernel as a LoRA layer saves and loads it (Keras's ``save_own_variables`` /
    ``load_own_variables``): its value the merged kernel (an int8 one quantized again, its
    new scale in ``scale``); loading assigns the kernel and sets LoRA's weights to zeros."""

    def __init__(self, layer: Any) -> None:
        self.layer = layer
        self.variable = layer._stored_weight()
        self.name, self.shape, self.dtype = self.variable.name, self.variable.shape, \
            self.variable.dtype
        self.scale = _MergedScale(self) if layer.quantization_mode == "int8" else None

    def _merged(self):
        layer = self.layer
        delta = np.asarray(layer._lora_delta().numpy())
        if layer.quantization_mode != "int8":
            return np.asarray(layer.effective_kernel().numpy()), None
        scale = getattr(layer, f"{layer._adapted}_scale").numpy()
        float_kernel = self.variable.numpy().astype("float32") / \
            np.asarray(layer._scale_in_kernel_layout(scale))
        q, new_scale = _abs_max_numpy(float_kernel + delta, layer._weight_reduced_axes())
        return q, layer._scale_for_storage(new_scale)

    def numpy(self) -> Any:
        return self._merged()[0]

    def assign(self, value: Any) -> None:
        self.variable.assign(value)
        for name in self.layer._lora_names():
            lora = getattr(self.layer, name)
            lora.assign(np.zeros(tuple(lora.shape), lora.dtype._np))


class _MergedScale:
    """The int8 scale of a merged LoRA kernel (saved), or the stored scale (loaded)."""

    def __init__(self, kernel: MergedKernel) -> None:
        self.kernel = kernel
        self.variable = getattr(kernel.layer, f"{kernel.layer._adapted}_scale")
        self.name, self.shape, self.dtype = self.variable.name, self.variable.shape, \
            self.variable.dtype

    def numpy(self) -> Any:
        return np.asarray(self.kernel._merged()[1])

    def assign(self, value: Any) -> None:
        self.variable.assign(value)


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
        xq, x_scale = abs_max_quantize(x, layout.reduced(layout.x))
        x_scale = layout.to_output_layout(x_scale, layout.x, reshape, transpose,
                                          lambda t: [-1 if d is None else d
                                                     for d in t.shape])
        y = linalg.einsum(equation, cast(xq, "int32"), cast(k, "int32"))
        return cast(y, compute) / (x_scale * k_scale), grad
    x = product(inputs, kernel, kernel_scale)
    if layer.lora_enabled:
        lora = linalg.einsum(equation, inputs, layer._lora_delta())
        x = cast(x + lora, compute)
    return x
