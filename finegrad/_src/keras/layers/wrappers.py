"""Keras's layer wrappers: `Bidirectional` (an RNN run forwards and backwards, the two
outputs merged), `TimeDistributed` (a layer applied to every time step), the `Wrapper` base
and `SpectralNormalization` (a kernel divided by its spectral norm).

A wrapper holds its own copies of the wrapped layer, rebuilt from its config, so the wrapped
layer's weights are the wrapper's (Bidirectional: the forward layer's, then the backward
one's).
"""

from __future__ import annotations

import inspect

from finegrad._src.keras import initializers
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers.recurrent import open_time
from finegrad._src.keras.layers.serialization import deserialize_layer, serialize_layer
from finegrad._src.ops.array.manipulation import reverse
from finegrad._src.ops.array.structural import (cast, concat, reduce_sum, reshape, stack,
                                                stop_gradient, transpose, unstack)
from finegrad._src.ops.linalg import products as linalg
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import minimum
from finegrad._src.ops.math.statistics import reduce_any

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _copy(layer, name, **changes):
    config = serialize_layer(layer)
    config["config"].update(name=name, **changes)
    return deserialize_layer(config)


class Bidirectional(Layer):
    """Runs an RNN layer over the sequence forwards and a copy of it backwards, and merges
    their outputs (``merge_mode``: "concat" (default), "sum", "mul", "ave", or None for a
    list of both). With ``return_state`` the states follow: the forward layer's, then the
    backward layer's.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.Bidirectional(fg.keras.layers.LSTM(3, return_sequences=True))
    >>> layer(fg.ones([2, 5, 4])).shape
    TensorShape([2, 5, 6])
    """

    def __init__(self, layer: Any, merge_mode: Any = "concat", weights: Any = None,
                 backward_layer: Any = None, **kwargs: Any) -> None:
        if isinstance(layer, dict):
            layer = deserialize_layer(layer)
        if isinstance(backward_layer, dict):
            backward_layer = deserialize_layer(backward_layer)
        if not isinstance(layer, Layer):
            raise ValueError(f"keras.layers.Bidirectional: layer must be a Layer, got "
                             f"{layer!r}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"keras.layers.Bidirectional: merge_mode must be one of "
                             f"{_MERGE_MODES}, got {merge_mode!r}")
        super().__init__(**kwargs)
        base = layer.name.removeprefix("forward_").removeprefix("backward_")
        self.forward_layer = _copy(layer, f"forward_{base}")
        self.backward_layer = backward_layer if backward_layer is not None else \
            _copy(layer, f"backward_{base}", go_backwards=not layer.go_backwards)  # type: ignore[attr-defined]  # an RNN layer's
        if self.forward_layer.go_backwards == self.backward_layer.go_backwards:
            raise ValueError("keras.layers.Bidirectional: the forward and backward layers "
                             "must have different go_backwards values")
        for part in (self.forward_layer, self.backward_layer):
            part.zero_output_for_mask = part.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences  # type: ignore[attr-defined]  # an RNN layer's
        self.return_state = layer.return_state  # type: ignore[attr-defined]  # an RNN layer's
        self.stateful = layer.stateful  # type: ignore[attr-defined]  # an RNN layer's
        self.supports_masking = True
        self._initial_weights = weights

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        self.forward_layer.build(sequences_shape)
        self.backward_layer.build(sequences_shape)
        self.built = True

    def _merge(self, y, y_rev):
        if self.merge_mode == "concat":
            return concat([y, y_rev], axis=-1)
        if self.merge_mode == "sum":
            return y + y_rev
        if self.merge_mode == "ave":
            return (y + y_rev) / 2
        if self.merge_mode == "mul":
            return y * y_rev
        return [y, y_rev]

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: Any = None) -> Any:
        fw_state = bw_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            fw_state, bw_state = list(initial_state[:half]), list(initial_state[half:])
        y = self.forward_layer(sequences, initial_state=fw_state, mask=mask,
                               training=training)
        y_rev = self.backward_layer(sequences, initial_state=bw_state, mask=mask,
                                    training=training)
        states = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = reverse(y_rev, [1])
        out = self._merge(y, y_rev)
        if self.return_state:
            return (*out, *states) if isinstance(out, list) else (out, *states)
        return out

    def compute_mask(self, inputs: TensorLike, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        if self.return_state:
            n = len(self.forward_layer.state_size) * 2
            return [out, out][:1 if self.merge_mode else 2] + [None] * n
        return [out, out] if self.merge_mode is None else out

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        shape = self.forward_layer.compute_output_shape(sequences_shape)
        out, states = (shape[0], list(shape[1:])) if self.return_state else (shape, [])
        if self.merge_mode == "concat":
            out = tuple(out[:-1]) + (out[-1] * 2,)
        outs = [tuple(out)] * (2 if self.merge_mode is None else 1)
        if self.return_state:
            return outs + states * 2
        return outs if self.merge_mode is None else outs[0]

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(merge_mode=self.merge_mode, layer=serialize_layer(self.forward_layer),
                      backward_layer=serialize_layer(self.backward_layer))
        return config


class TimeDistributed(Layer):
    """Applies ``layer`` to every time step (axis 1) of its input, each step a separate call
    (so a BatchNormalization's statistics are per step, as in Keras).

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.TimeDistributed(fg.keras.layers.Dense(2))
    >>> layer(fg.ones([3, 4, 5])).shape
    TensorShape([3, 4, 2])
    """

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if isinstance(layer, dict):
            layer = deserialize_layer(layer)
        if not isinstance(layer, Layer):
            raise ValueError(f"keras.layers.TimeDistributed: layer must be a Layer, got "
                             f"{layer!r}")
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        if len(input_shape) < 3:
            raise ValueError(f"keras.layers.TimeDistributed: the input must have at least "
                             f"rank 3 (batch, time, ...), got shape {tuple(input_shape)}")
        if not self.layer.built:
            self.layer.build((input_shape[0],) + tuple(input_shape[2:]))
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Tensor:
        params = inspect.signature(self.layer.call).parameters
        steps = unstack(inputs, axis=1)
        masks = unstack(mask, axis=1) if mask is not None and "mask" in params else None
        outs = []
        for t, x in enumerate(steps):
            kwargs = {}
            if "training" in params:
                kwargs["training"] = training
            if masks is not None:
                kwargs["mask"] = masks[t]
            outs.append(self.layer(x, **kwargs))
        out = stack(outs, axis=1)
        return open_time(out, inputs) if inputs.shape[1] is None else out

    def compute_output_shape(self, input_shape: Any) -> Any:
        inner = self.layer.compute_output_shape((input_shape[0],) + tuple(input_shape[2:]))
        return (inner[0], input_shape[1]) + tuple(inner[1:])

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(layer=serialize_layer(self.layer))
        return config


class Wrapper(Layer):
    """The base of layers that wrap another layer (``self.layer``), e.g. a weight
    normalization written by subclassing; building the wrapper builds the wrapped layer.

    >>> import finegrad as fg
    >>> class Twice(fg.keras.layers.Wrapper):
    ...     def call(self, x):
    ...         return 2. * self.layer(x)
    >>> Twice(fg.keras.layers.Dense(1, kernel_initializer="ones"))(fg.ones([1, 2])).numpy()
    array([[4.]], dtype=float32)
    """

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if isinstance(layer, dict):
            layer = deserialize_layer(layer)
        if not isinstance(layer, Layer):
            raise ValueError(f"keras.layers.Wrapper: layer must be a Layer, got {layer!r}")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape: Any = None) -> None:
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(layer=serialize_layer(self.layer))
        return config


def _unit(v):
    """``v`` scaled to unit L2 norm (as a whole)."""
    return v * minimum(ew.rsqrt(reduce_sum(ew.square(v))), cast(1e7, v.dtype))


class SpectralNormalization(Wrapper):
    """Divides the wrapped layer's ``kernel`` (or ``embeddings``) by its largest singular
    value, estimated by ``power_iterations`` of the power method per training call (the
    estimate ``vector_u`` is a non-trainable weight); the normalized kernel is assigned to the
    layer's variable, as Keras does, so other calls use it.

    >>> import finegrad as fg
    >>> layer = fg.keras.layers.SpectralNormalization(fg.keras.layers.Dense(3))
    >>> layer(fg.ones([2, 4]), training=True).shape
    TensorShape([2, 3])
    """

    def __init__(self, layer: Any, power_iterations: int = 1, **kwargs: Any) -> None:
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError(f"keras.layers.SpectralNormalization: power_iterations must be "
                             f"positive, got {power_iterations}")
        self.power_iterations = power_iterations

    def build(self, input_shape: Any) -> None:  # type: ignore[override]  # required, as in Keras
        if not self.layer.built:     # (not super().build: it would lock the layer first)
            self.layer.build(input_shape)
            self.layer.built = True
        for name in ("kernel", "embeddings"):
            if hasattr(self.layer, name):
                self.kernel = getattr(self.layer, name)     # tracked too, as in Keras
                break
        else:
            raise ValueError(f"keras.layers.SpectralNormalization: {type(self.layer).__name__} "
                             f"has no attribute 'kernel' nor 'embeddings'")
        self.vector_u = self.add_weight(
            name="vector_u", shape=(1, int(self.kernel.shape[-1])), trainable=False,
            initializer=initializers.TruncatedNormal(stddev=0.02))
        self.built = True

    def normalized_weights(self) -> tuple[Tensor, ...]:
        """(the next ``vector_u``, the kernel divided by its spectral norm's estimate)."""
        shape = tuple(int(n) for n in self.kernel.shape)
        w = reshape(self.kernel, [-1, shape[-1]])
        u = self.vector_u.read_value()
        for _ in range(self.power_iterations):
            v = _unit(linalg.matmul(u, transpose(w)))
            u = _unit(linalg.matmul(v, w))
        u, v = stop_gradient(u), stop_gradient(v)
        sigma = linalg.matmul(linalg.matmul(v, w), transpose(u))
        return u, reshape(self.kernel / sigma, shape)

    def call(self, inputs: TensorLike, training: bool = False) -> Tensor:
        if training:
            u, kernel = self.normalized_weights()
            nonzero = reduce_any(ew.not_equal(self.kernel, 0))   # Keras skips a zero kernel
            self.vector_u.assign(ew.where(nonzero, u, self.vector_u))
            self.kernel.assign(ew.where(nonzero, kernel, self.kernel))
        return self.layer(inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(power_iterations=self.power_iterations)
        return config
