"""TensorFlow 1's ``tf.compat.v1.losses``: per-element losses reduced by `compute_weighted_loss`
(weights broadcast to the losses; TensorFlow's `Reduction`s, ``SUM_BY_NONZERO_WEIGHTS`` by
default, divisions by zero giving 0) and added to the ``LOSSES`` collection of the graph."""

from __future__ import annotations

from finegrad._src.ops.array.structural import cast, convert_to_tensor, zeros_like
from finegrad._src.ops.array.shape_queries import size
from finegrad._src.ops.array.structural import reduce_sum
from finegrad._src.ops.math.arithmetic import minimum
from finegrad._src.ops.math.counts_and_casts import count_nonzero
from finegrad._src.ops.math.elementwise import abs as _abs, log, relu
from finegrad._src.ops.math.inverse_trig import squared_difference
from finegrad._src.ops.nn.softmax_cross_entropy import (
    sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits)
from finegrad._src import dtypes
from finegrad._src.ops.math.statistics import add_n, divide_no_nan
from finegrad._src.v1 import default_graph, graphs
from finegrad._src.v1.variable_scope import GraphKeys

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


class Reduction:
    """How `compute_weighted_loss` reduces the weighted losses."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> Any:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key: Any) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def compute_weighted_loss(losses: Any, weights: Any = 1.0, scope: Any = None,
                          loss_collection: Any = GraphKeys.LOSSES,
                          reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """``losses * weights`` reduced by ``reduction`` (in float32, as TensorFlow computes it,
    then cast back), added to ``loss_collection``.

    >>> import finegrad as fg
    >>> float(fg.compat.v1.losses.compute_weighted_loss([1., 2., 3.], [1., 0., 1.]))
    2.0
    """
    Reduction.validate(reduction)
    losses = convert_to_tensor(losses)
    dt = losses.dtype
    losses = cast(losses, dtypes.float32)
    # broadcast to the losses' shape elementwise (their sizes may be open in a graph)
    weights = cast(convert_to_tensor(weights, dtype_hint=dtypes.float32), dtypes.float32) + \
        zeros_like(losses)
    weighted = losses * weights
    if reduction == Reduction.NONE:
        loss = weighted
    else:
        loss = reduce_sum(weighted)
        if reduction == Reduction.MEAN:
            loss = divide_no_nan(loss, reduce_sum(weights))
        elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
            loss = divide_no_nan(loss, cast(size(losses), dtypes.float32))
        elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
            loss = divide_no_nan(loss, cast(count_nonzero(weights), dtypes.float32))
    loss = cast(loss, dt)
    add_loss(loss, loss_collection)
    return loss


def add_loss(loss: Any, loss_collection: Any = GraphKeys.LOSSES) -> None:
    """Add ``loss`` to the graph's collection ``loss_collection`` (not while eager)."""
    if loss_collection and graphs.current_graph() is not None:
        default_graph.add_to_collection(loss_collection, loss)


def get_losses(scope: Any = None, loss_collection: Any = GraphKeys.LOSSES) -> Any:
    return default_graph.get_collection(loss_collection, scope)


def get_regularization_losses(scope: Any = None) -> Any:
    return default_graph.get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope: Any = None, name: str = "total_regularization_loss") -> Any:
    losses = get_regularization_losses(scope)
    return add_n(losses) if losses else convert_to_tensor(0.0)


def get_total_loss(add_regularization_losses: bool = True, name: str = "total_loss",
                   scope: Any = None) -> Any:
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    return add_n(losses)


def _pair(labels, predictions):
    predictions = convert_to_tensor(predictions)
    labels = cast(convert_to_tensor(labels), predictions.dtype)
    return labels, predictions


def mean_squared_error(labels: TensorLike, predictions: TensorLike, weights: float = 1.0,
                       scope: Any = None, loss_collection: Any = GraphKeys.LOSSES,
                       reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Weighted ``(predictions - labels)^2``."""
    labels, predictions = _pair(labels, predictions)
    return compute_weighted_loss(squared_difference(predictions, labels), weights, scope,
                                 loss_collection, reduction)


def absolute_difference(labels: Any, predictions: Any, weights: Any = 1.0, scope: Any = None,
                        loss_collection: Any = GraphKeys.LOSSES,
                        reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted ``|predictions - labels|``."""
    labels, predictions = _pair(labels, predictions)
    return compute_weighted_loss(_abs(predictions - labels), weights, scope, loss_collection,
                                 reduction)


def log_loss(labels: Any, predictions: Any, weights: Any = 1.0, epsilon: Any = 1e-7,
             scope: Any = None, loss_collection: Any = GraphKeys.LOSSES,
             reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted ``-labels log(p + eps) - (1 - labels) log(1 - p + eps)``."""
    labels, predictions = _pair(labels, predictions)
    losses = -labels * log(predictions + epsilon) - (1. - labels) * log(
        1. - predictions + epsilon)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def huber_loss(labels: Any, predictions: Any, weights: Any = 1.0, delta: Any = 1.0,
               scope: Any = None, loss_collection: Any = GraphKeys.LOSSES,
               reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted Huber loss: quadratic up to ``delta``, linear beyond."""
    labels, predictions = _pair(labels, predictions)
    error = _abs(predictions - labels)
    quadratic = minimum(error, delta)
    linear = error - quadratic
    losses = 0.5 * quadratic * quadratic + delta * linear
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def hinge_loss(labels: Any, logits: Any, weights: Any = 1.0, scope: Any = None,
               loss_collection: Any = GraphKeys.LOSSES,
               reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted ``relu(1 - (2 labels - 1) logits)`` (labels in {0, 1})."""
    labels, logits = _pair(labels, logits)
    return compute_weighted_loss(relu(1. - (2. * labels - 1.) * logits), weights, scope,
                                 loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels: Any, logits: TensorLike, weights: float = 1.0,
                          label_smoothing: int = 0, scope: Any = None,
                          loss_collection: Any = GraphKeys.LOSSES,
                          reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted sigmoid cross-entropy; labels smoothed toward 1/2 by ``label_smoothing``."""
    labels, logits = _pair(multi_class_labels, logits)
    if label_smoothing > 0:
        labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
    return compute_weighted_loss(sigmoid_cross_entropy_with_logits(labels=labels,
                                                                   logits=logits),
                                 weights, scope, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels: Any, logits: TensorLike, weights: float = 1.0,
                          label_smoothing: int = 0, scope: Any = None,
                          loss_collection: Any = GraphKeys.LOSSES,
                          reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted softmax cross-entropy (one weight per example); labels smoothed toward
    ``1 / num_classes`` by ``label_smoothing``."""
    labels, logits = _pair(onehot_labels, logits)
    if label_smoothing > 0:
        n = float(labels.shape[-1])
        labels = labels * (1 - label_smoothing) + label_smoothing / n
    losses = softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def sparse_softmax_cross_entropy(labels: TensorLike, logits: TensorLike, weights: float = 1.0,
                                 scope: Any = None, loss_collection: Any = GraphKeys.LOSSES,
                                 reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted softmax cross-entropy of integer labels."""
    losses = sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def cosine_distance(labels: Any, predictions: Any, axis: Any = None, weights: Any = 1.0,
                    scope: Any = None, loss_collection: Any = GraphKeys.LOSSES,
                    reduction: Any = Reduction.SUM_BY_NONZERO_WEIGHTS, dim: Any = None) -> Any:
    """Weighted ``1 - sum(labels * predictions, axis)`` (unit-normalized inputs)."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    labels, predictions = _pair(labels, predictions)
    losses = 1. - reduce_sum(labels * predictions, axis, keepdims=True)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)

