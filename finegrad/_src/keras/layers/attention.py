"""Keras's attention layers: `Attention` (Luong-style dot-product, or concat, scores),
`AdditiveAttention` (Bahdanau-style) and
`MultiHeadAttention` (projections by `EinsumDense` sublayers named query, key, value and
attention_output, scaled dot-product attention per head, over ``attention_axes``).

Masks follow Keras: a value mask hides keys, a query mask zeroes (Attention) or is carried
to (MultiHeadAttention) the matching outputs, ``use_causal_mask`` lets position i attend only
to positions <= i, and an explicit ``attention_mask`` [B, T, S] is combined with them by AND.
"""

from __future__ import annotations

import math
import string

from finegrad._src.keras import nodes
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers.activation import masked_softmax
from finegrad._src.keras.layers.core import EinsumDense, weight_config, weight_options
from finegrad._src.keras.layers.regularization import Dropout
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.linalg import products as linalg
from finegrad._src.ops.nn import softmax_cross_entropy as nn
from finegrad._src.ops.array.structural import cast, expand_dims, reduce_sum, transpose
from finegrad._src.ops.array.constants import ones
from finegrad._src.ops.math.reductions import cumsum

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def causal_mask(q_len, v_len):
    """[1, q_len, v_len] booleans: position i may attend to j <= i."""
    m = ones((1, q_len, v_len), dtype="int32")
    return cumsum(m, axis=-2) >= cumsum(m, axis=-1)


class Attention(Layer):
    """Dot-product attention: ``softmax(query @ key^T [* scale]) @ value`` per example.

    Called on ``[query, value]`` or ``[query, value, key]`` ([batch, Tq, dim], [batch, Tv,
    dim], ...) with optional ``mask=[query_mask, value_mask]``.

    Args:
        use_scale: learn a scalar ``scale`` multiplying the scores.
        score_mode: "dot" (``query @ key^T``) or "concat" (``sum(tanh(query + key))``).
        dropout: a rate for the attention weights in training.

    >>> import finegrad as fg
    >>> q = fg.ones([1, 2, 3]); v = fg.ones([1, 4, 3])
    >>> fg.keras.layers.Attention()([q, v]).shape
    TensorShape([1, 2, 3])
    """

    def __init__(self, use_scale: bool = False, score_mode: str = "dot", dropout: float = 0.0,
                 seed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"keras.layers.Attention: score_mode must be 'dot' or 'concat', "
                             f"got {score_mode!r}")
        self.use_scale, self.score_mode, self.dropout, self.seed = \
            use_scale, score_mode, dropout, seed
        self.supports_masking = True
        self._dropout_layer = Dropout(dropout, seed=seed) if dropout > 0 else None

    def build(self, input_shape: Any) -> None:
        self.scale = self.add_weight(name="scale", shape=(), initializer="ones") \
            if self.use_scale else None
        self.concat_score_weight = self.add_weight(
            name="concat_score_weight", shape=(), initializer="ones") \
            if self.score_mode == "concat" else None
        self.built = True

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = linalg.matmul(query, transpose(key, [0, 2, 1]))
            return scores * self.scale if self.scale is not None else scores
        pair = expand_dims(query, -2) + expand_dims(key, -3)
        if self.scale is not None:
            pair = self.scale * pair
        return self.concat_score_weight * reduce_sum(ew.tanh(pair), axis=-1)

    def _check(self, inputs, mask):
        if not isinstance(inputs, (list, tuple)) or not 2 <= len(inputs) <= 3:
            raise ValueError("keras.layers.Attention: must be called on a list of 2 or 3 "
                             "tensors [query, value] or [query, value, key]")
        if mask is not None and (not isinstance(mask, (list, tuple)) or
                                 not 2 <= len(mask) <= 3):
            raise ValueError("keras.layers.Attention: mask must be a list [query_mask, "
                             "value_mask]")

    def call(self, inputs: Any, mask: Any = None, training: Any = False,
             return_attention_scores: Any = False, use_causal_mask: Any = False) -> Any:
        self._check(inputs, mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask, v_mask = (mask[0], mask[1]) if mask else (None, None)
        scores = self._scores(q, k)
        score_mask = None if v_mask is None else expand_dims(cast(v_mask, "bool"), -2)
        if use_causal_mask:
            c = causal_mask(int(scores.shape[-2]), int(scores.shape[-1]))
            score_mask = c if score_mask is None else ew.logical_and(score_mask, c)
        if score_mask is not None:
            big = 65504.0 if scores.dtype.name == "float16" else 1.0e9
            scores = ew.where(score_mask, scores, scores - big)
        weights = nn.softmax(scores, axis=-1)
        used = self._dropout_layer(weights, training=training) \
            if self._dropout_layer is not None and training else weights
        out = linalg.matmul(used, v)
        if q_mask is not None:
            out = ew.where(expand_dims(cast(q_mask, "bool"), -1), out, cast(0.0, out.dtype))
        return (out, weights) if return_attention_scores else out

    def compute_mask(self, inputs: TensorLike, mask: Any = None) -> Any:
        if mask is None or mask[0] is None:
            return None
        return mask[0]

    def compute_output_shape(self, input_shape: Any) -> Any:
        q, v = input_shape[0], input_shape[1]
        return tuple(q[:-1]) + (v[-1],)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(use_scale=self.use_scale, score_mode=self.score_mode,
                      dropout=self.dropout, seed=self.seed)
        return config


class AdditiveAttention(Attention):
    """Bahdanau-style attention: scores ``sum(scale * tanh(query + key), -1)`` with a learned
    per-feature ``scale`` (when ``use_scale``, the default), then as `Attention`.

    >>> import finegrad as fg
    >>> q = fg.ones([1, 2, 3]); v = fg.ones([1, 4, 3])
    >>> fg.keras.layers.AdditiveAttention()([q, v]).shape
    TensorShape([1, 2, 3])
    """

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, **kwargs: Any) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape: Any) -> None:
        self.scale = self.add_weight(name="scale", shape=(input_shape[0][-1],),
                                     initializer="glorot_uniform") if self.use_scale else None
        self.concat_score_weight = None
        self.built = True

    def _scores(self, query, key):
        pair = ew.tanh(expand_dims(query, -2) + expand_dims(key, -3))
        return reduce_sum(pair * self.scale if self.scale is not None else pair, axis=-1)

    def get_config(self) -> Any:
        config = super().get_config()
        del config["score_mode"]
        return config


def projection_equation(free_dims, bound_dims, output_dims):
    """(equation, bias axes, output rank) of an EinsumDense mapping ``free_dims`` kept axes
    and ``bound_dims`` contracted ones to ``output_dims`` new ones."""
    letters = string.ascii_lowercase
    free = letters[:free_dims]
    bound = letters[free_dims:free_dims + bound_dims]
    out = letters[free_dims + bound_dims:free_dims + bound_dims + output_dims]
    return f"{free}{bound},{bound}{out}->{free}{out}", out, free_dims + output_dims


def attention_equations(rank, attn_axes):
    """The einsum equations (scores from key and query; output from scores and value) of
    attention over ``attn_axes`` of projected tensors of ``rank`` ([B, *T, N, H])."""
    letters = string.ascii_lowercase
    query = letters[:rank]
    key = list(query)
    extra = iter(letters[rank:])
    for a in attn_axes:
        key[a] = next(extra)
    key = "".join(key)
    batch = [i for i in range(rank - 1) if i not in attn_axes]
    product = "".join(query[i] for i in batch) + "".join(query[i] for i in attn_axes) + \
        "".join(key[i] for i in attn_axes)
    return f"{key},{query}->{product}", f"{product},{key}->{query}", len(product)


class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al.): ``query``, ``key`` and ``value`` projected to
    ``num_heads`` heads (of ``key_dim`` and ``value_dim`` features), scaled dot-product
    attention in each head over ``attention_axes``, the heads projected back to the query's
    last size (or ``output_shape``).

    Call as ``layer(query, value, key=None, attention_mask=None,
    return_attention_scores=False, training=None, use_causal_mask=False)``.

    >>> import finegrad as fg
    >>> mha = fg.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    >>> out, scores = mha(fg.ones([1, 3, 5]), fg.ones([1, 6, 5]),
    ...                   return_attention_scores=True)
    >>> out.shape, scores.shape
    (TensorShape([1, 3, 5]), TensorShape([1, 2, 3, 6]))
    """

    def __init__(self, num_heads: Any, key_dim: Any, value_dim: Any = None, dropout: float = 0.0,
                 use_bias: bool = True, output_shape: Any = None, attention_axes: Any = None,
                 use_gate: bool = False, kernel_initializer: str = "glorot_uniform",
                 bias_initializer: str = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, seed: Any = None,
                 **kwargs: Any) -> None:
        kwargs.pop("flash_attention", None)
        if kwargs.pop("sliding_window", None) is not None:
            raise NotImplementedError("keras.layers.MultiHeadAttention: sliding_window is not "
                                      "implemented")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        self._num_heads, self._key_dim = num_heads, key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout, self._use_bias, self._use_gate = dropout, use_bias, use_gate
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        self._output_shape = None if output_shape is None else tuple(output_shape)
        self._seed = seed
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        self._attention_axes = None if attention_axes is None else tuple(attention_axes)
        weight_options(self, "kernel", kernel_initializer, kernel_regularizer,
                       kernel_constraint)
        weight_options(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(key_dim))
        self._dropout_layer = Dropout(dropout, seed=seed)
        self._shapes_built = False

    @property
    def num_heads(self) -> Any:
        return self._num_heads
    @property
    def key_dim(self) -> Any:
        return self._key_dim
    @property
    def value_dim(self) -> Any:
        return self._value_dim
    @property
    def dropout(self) -> Any:
        return self._dropout
    @property
    def use_bias(self) -> Any:
        return self._use_bias
    @property
    def attention_axes(self) -> Any:
        return self._attention_axes
    @property
    def query_dense(self) -> Any:
        return self._query_dense
    @property
    def key_dense(self) -> Any:
        return self._key_dense
    @property
    def value_dense(self) -> Any:
        return self._value_dense
    @property
    def output_dense(self) -> Any:
        return self._output_dense

    def _sublayer_kwargs(self):
        return dict(kernel_initializer=_clone(self.kernel_initializer),
                    bias_initializer=_clone(self.bias_initializer),
                    kernel_regularizer=self.kernel_regularizer,
                    bias_regularizer=self.bias_regularizer,
                    kernel_constraint=self.kernel_constraint,
                    bias_constraint=self.bias_constraint, dtype=self.dtype_policy)

    def _projection(self, shape, last, name, activation=None):
        eq, bias_axes, out_rank = projection_equation(len(shape) - 1, 1, 2)
        layer = EinsumDense(eq, output_shape=[None] * (out_rank - 3) + [self._num_heads, last],
                            bias_axes=bias_axes if self._use_bias else None,
                            activation=activation, name=name, **self._sublayer_kwargs())
        layer.build(tuple(shape))
        return layer

    def build(self, query_shape: Any, value_shape: Any = None,
              key_shape: Any = None) -> None:
        if value_shape is None:     # built on the first call, when every shape is known
            self.built = True
            return
        self._build_shapes(query_shape, value_shape, key_shape)

    def _build_shapes(self, query_shape, value_shape, key_shape=None):
        given = {"query_shape": query_shape, "value_shape": value_shape, "key_shape": key_shape}
        self.__dict__["_build_config_shapes_dict"] = {   # as Keras's build(**shapes) records
            k: None if v is None else list(v) for k, v in given.items() if v is not None}
        key_shape = value_shape if key_shape is None else key_shape
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(f"keras.layers.MultiHeadAttention: value and key must agree in "
                             f"every axis but the last, got {tuple(value_shape)} and "
                             f"{tuple(key_shape)}")
        self._query_dense = self._projection(query_shape, self._key_dim, "query")
        self._key_dense = self._projection(key_shape, self._key_dim, "key")
        if self._use_gate:
            self._gate_dense = self._projection(query_shape, self._value_dim, "gate",
                                                activation="sigmoid")
        self._value_dense = self._projection(value_shape, self._value_dim, "value")
        rank = len(value_shape) + 1
        axes = self._attention_axes or tuple(range(1, rank - 2))
        self._attention_axes = tuple(a % rank for a in axes)
        self._dot_product_equation, self._combine_equation, scores_rank = \
            attention_equations(rank, self._attention_axes)
        self._norm_axes = tuple(range(scores_rank - len(self._attention_axes), scores_rank))
        self._output_dense = self._make_output_dense(query_shape)
        self._shapes_built = True
        self.built = True

    def _make_output_dense(self, query_shape):
        free = len(query_shape) - 2
        out = [query_shape[-1]] if self._output_shape is None else list(self._output_shape)
        eq, bias_axes, _ = projection_equation(free + 1, 2, len(out))
        layer = EinsumDense(eq, output_shape=[None] * free + out,
                            bias_axes=bias_axes if self._use_bias else None,
                            name="attention_output", **self._sublayer_kwargs())
        layer.build(tuple(query_shape[:-1]) + (self._num_heads, self._value_dim))
        return layer

    def _attention_mask(self, query, value, key, query_mask, value_mask, key_mask,
                        attention_mask, use_causal_mask):
        """Keras's merged mask [B, T, S]: the query's (B, T, 1), value's and key's (B, 1, S),
        the causal one and ``attention_mask``, by AND."""
        masks = []
        if query_mask is not None:
            masks.append(expand_dims(cast(query_mask, "bool"), -1))
        if value_mask is not None:
            masks.append(expand_dims(cast(value_mask, "bool"), -2))
        if key_mask is not None:
            masks.append(expand_dims(cast(key_mask, "bool"), -2))
        if use_causal_mask:
            masks.append(causal_mask(int(query.shape[1]), int(value.shape[1])))
        if attention_mask is not None:
            masks.insert(0, cast(attention_mask, "bool"))
        if not masks:
            return None
        out = masks[0]
        for m in masks[1:]:
            out = ew.logical_and(out, m)
        return out

    def _compute_attention(self, query, key, value, attention_mask=None, training=None,
                           return_attention_scores=False):
        """Scaled dot-product attention of the projected [B, T, N, H] tensors; returns
        (output [B, T, N, value_dim], scores [B, N, T, S] or None)."""
        query = query * cast(self._inverse_sqrt_key_dim, query.dtype)
        scores = linalg.einsum(self._dot_product_equation, key, query)
        if attention_mask is not None:
            for _ in range(len(scores.shape) - len(attention_mask.shape)):
                attention_mask = expand_dims(attention_mask,
                                             -len(self._attention_axes) * 2 - 1)
        # Keras takes the fused dot_product_attention path (masked rows not zeroed) unless
        # it must return scores or apply dropout
        fused = not (self._dropout > 0 or return_attention_scores or len(query.shape) != 4)
        scores = masked_softmax(scores, self._norm_axes, attention_mask, zero_masked=not fused)
        used = self._dropout_layer(scores, training=training) if self._dropout > 0 else scores
        out = linalg.einsum(self._combine_equation, used, value)
        return out, (scores if return_attention_scores else None)

    def call(self, query: Any, value: Any, key: Any = None, query_mask: Any = None,
             value_mask: Any = None, key_mask: Any = None, attention_mask: Any = None,
             return_attention_scores: Any = False, training: Any = None,
             use_causal_mask: Any = False) -> tuple[Tensor, ...]:
        if not self._shapes_built:
            self._build_shapes(tuple(query.shape), tuple(value.shape),
                               None if key is None else tuple(key.shape))
        key = value if key is None else key
        query_mask = nodes.mask_of(query) if query_mask is None else query_mask
        value_mask = nodes.mask_of(value) if value_mask is None else value_mask
        if key_mask is None and key is not value:
            key_mask = nodes.mask_of(key)
        mask = self._attention_mask(query, value, key, query_mask, value_mask, key_mask,
                                    attention_mask, use_causal_mask)
        gate = self._gate_dense(query) if self._use_gate else None
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        out, scores = self._compute_attention(q, k, v, mask, training,
                                              return_attention_scores)
        out = self._output_dense(out * gate if gate is not None else out)
        if query_mask is not None:
            nodes.set_mask(out, query_mask)
        return (out, scores) if return_attention_scores else out

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None,
                             key_shape: Any = None) -> Any:
        if self._output_shape is None:
            return tuple(query_shape)
        return tuple(query_shape[:-1]) + self._output_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(num_heads=self._num_heads, key_dim=self._key_dim,
                      value_dim=self._value_dim, dropout=self._dropout,
                      use_bias=self._use_bias, use_gate=self._use_gate,
                      output_shape=self._output_shape, attention_axes=self._attention_axes,
                      **weight_config(self, "kernel", "bias", activity=True), seed=self._seed,
                      sliding_window=None)
        return config


def _clone(initializer):
    """A fresh copy of an initializer (each projection draws its own values)."""
    if hasattr(initializer, "get_config"):
        return type(initializer).from_config(initializer.get_config())
    return initializer
