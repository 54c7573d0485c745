"""Batch normalization and two losses of ``tf.nn``: batch_normalization,
weighted_cross_entropy_with_logits and
log_poisson_loss, written with existing ops in TensorFlow's own formulas, so their values,
gradients (every mode and order) and nan/inf at the edges are TensorFlow's."""

from __future__ import annotations

import math

from finegrad._src.ops.array.structural import _t, cast, zeros_like
from finegrad._src.ops.nn.softmax_cross_entropy import _labels_like
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.manipulation import pad
from finegrad._src.ops.math.arithmetic import pow as power
from finegrad._src.ops.math.statistics import add_n

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def batch_normalization(x: TensorLike, mean: Any, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: Any, name: str | None = None) -> Tensor:
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``, broadcasting
    (``offset`` and ``scale`` may be None), computed as TensorFlow does:
    ``x * inv + (offset - mean * inv)`` with ``inv = scale * rsqrt(variance + eps)``.

    >>> import finegrad as fg
    >>> fg.nn.batch_normalization(fg.constant([1., 3.]), 2., 4., 1., 2., 0.).numpy()
    array([0., 2.], dtype=float32)
    """
    x = _t(x)
    inv = ew.rsqrt(_as(variance, x) + variance_epsilon)
    if scale is not None:
        inv = inv * _as(scale, x)
    shift = -_as(mean, x) * inv
    if offset is not None:
        shift = _as(offset, x) + shift
    return x * inv + shift


def _as(v, x):
    """``v`` as a tensor of ``x``'s dtype (Python numbers and arrays are converted)."""
    v = _t(v)
    return v if v.dtype == x.dtype else cast(v, x.dtype)


def weighted_cross_entropy_with_logits(labels: Any, logits: Any, pos_weight: Any,
                                       name: str | None = None) -> Tensor:
    """The logistic loss with the positive term weighted by ``pos_weight``:
    ``(1 - z) x + (1 + (q - 1) z) (log1p(exp(-|x|)) + max(-x, 0))``, stable for large |x|.

    >>> import finegrad as fg
    >>> l = fg.nn.weighted_cross_entropy_with_logits([1., 0.], [0., 0.], pos_weight=2.)
    >>> [round(v, 4) for v in l.numpy().tolist()]
    [1.3863, 0.6931]
    """
    labels, logits = _labels_like(labels, logits, "weighted_cross_entropy_with_logits")
    log_weight = 1 + (_as(pos_weight, logits) - 1) * labels
    return ((1 - labels) * logits
            + log_weight * (ew.log1p(ew.exp(-ew.abs(logits))) + ew.relu(-logits)))


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: Any = False,
                     name: str | None = None) -> Tensor:
    """The Poisson negative log-likelihood ``exp(c) - c * z`` for the log-rate ``c``; with
    ``compute_full_loss`` Stirling's ``z log z - z + log(2 pi z) / 2`` is added where
    ``z > 1`` (TensorFlow's rule; 0 for ``0 <= z <= 1``).

    >>> import finegrad as fg
    >>> fg.nn.log_poisson_loss(fg.constant([2.]), fg.constant([0.])).numpy()
    array([1.], dtype=float32)

    Raises:
        ValueError: if ``targets`` and ``log_input`` have different shapes.
    """
    targets, log_input = _labels_like(targets, log_input, "log_poisson_loss")
    result = ew.exp(log_input) - log_input * targets
    if compute_full_loss:
        stirling = (targets * ew.log(targets) - targets
                    + 0.5 * ew.log((2 * math.pi) * targets))
        zeros = zeros_like(targets)
        cond = ew.logical_and(targets >= 0, targets <= 1)
        result = result + ew.where(cond, zeros, stirling)
    return result


def local_response_normalization(input: Any, depth_radius: int = 5, bias: float = 1.,
                                 alpha: float = 1., beta: float = 0.5,
                                 name: str | None = None) -> Any:
    """Each value of a 4-D ``input`` (NHWC) divided by ``(bias + alpha * s) ** beta``, ``s``
    the sum of squares over ``depth_radius`` channels either side (TensorFlow's LRN);
    composed of differentiable ops.

    >>> import finegrad as fg
    >>> x = fg.reshape(fg.range(1., 5.), [1, 1, 1, 4])
    >>> fg.nn.local_response_normalization(x, depth_radius=1, bias=2., alpha=.5,
    ...                                    beta=.75).numpy().round(4)
    array([[[[0.3237, 0.3849, 0.3664, 0.5383]]]], dtype=float32)
    """
    x = _t(input)
    if len(x.shape) != 4:
        raise ValueError(f"finegrad.nn.local_response_normalization: input must be 4-D, got "
                         f"shape {tuple(x.shape)}")
    channels, r = x.shape[-1], int(depth_radius)
    if channels is None:
        raise ValueError("finegrad.nn.local_response_normalization: the channel dimension "
                         "must be known")
    square = pad(x * x, [[0, 0], [0, 0], [0, 0], [r, r]])
    window = add_n([square[..., i:i + channels] for i in range(2 * r + 1)])
    return x / power(cast(bias, x.dtype) + cast(alpha, x.dtype) * window, cast(beta, x.dtype))
