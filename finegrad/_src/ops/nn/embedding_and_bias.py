"""Composites of ``tf.nn`` that layers use: ``embedding_lookup``, ``bias_add`` and
``softsign``. Each is written with finegrad ops (so every order, both modes and traces work)
and follows TensorFlow's formulas, so values and gradients are TensorFlow's.
"""

from __future__ import annotations

from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import reshape
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.nn.softmax_cross_entropy import clip_by_norm
from finegrad._src.tensor import convert_to_tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def embedding_lookup(params: TensorLike, ids: Any, max_norm: Any = None,
                     name: str | None = None) -> Tensor:
    """Rows ``ids`` of ``params`` (``gather`` on the first axis); the gradient adds into
    the looked-up rows. ``params`` may be a tensor, a Variable or a list of one of them;
    with ``max_norm``, each looked-up row is scaled to an L2 norm of at most ``max_norm``.

    >>> import finegrad as fg
    >>> fg.nn.embedding_lookup(fg.constant([[1., 2.], [3., 4.]]), [1, 1]).numpy()
    array([[3., 4.],
           [3., 4.]], dtype=float32)
    """
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("finegrad.nn.embedding_lookup: params sharded over "
                                      f"{len(params)} tensors is not supported; concatenate "
                                      "them (TensorFlow's 'mod' partitioning)")
        params = params[0]
    rows = gather(params, ids)
    if max_norm is None:
        return rows
    p_rank = len(convert_to_tensor(params).shape)
    axes = list(range(len(rows.shape) - p_rank + 1, len(rows.shape)))
    return clip_by_norm(rows, max_norm, axes=axes)


def bias_add(value: TensorLike, bias: Any, data_format: Any = None,
             name: str | None = None) -> Tensor:
    """``value + bias`` along the channel axis: the last one (``data_format`` None or
    ``"N...C"``), or axis 1 for ``"NC..."``; ``bias`` must be 1-D of that size.

    >>> import finegrad as fg
    >>> fg.nn.bias_add(fg.ones([2, 3]), fg.constant([1., 2., 3.])).numpy()[0]
    array([2., 3., 4.], dtype=float32)
    """
    value, bias = convert_to_tensor(value), convert_to_tensor(bias)
    channels_first = data_format is not None and data_format.startswith("NC")
    axis = 1 if channels_first else -1
    shape = value.shape.as_list() if hasattr(value.shape, "as_list") else list(value.shape)
    if len(bias.shape) != 1 or len(shape) < 2 or shape[axis] != bias.shape[0]:
        raise ValueError(f"finegrad.nn.bias_add: bias must be 1-D with the size of value's "
                         f"channel axis ({axis}), got bias shape {list(bias.shape)} for value "
                         f"shape {shape}")
    if channels_first:
        bias = reshape(bias, [-1] + [1] * (len(shape) - 2))
    return value + bias


def softsign(features: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise ``x / (1 + |x|)``; gradient ``1 / (1 + |x|)^2``.

    >>> import finegrad as fg
    >>> fg.nn.softsign(fg.constant([-1., 3.])).numpy()
    array([-0.5 ,  0.75], dtype=float32)
    """
    x = convert_to_tensor(features)
    return x / (1 + ew.abs(x))
