"""Keras 3's losses that do not compare each sample with its own target alone: `ctc` (a label
sequence against a sequence of frames, through `finegrad.nn.ctc_loss`) and `circle` (each
embedding against the batch's others, Sun et al. 2020). Written with finegrad ops, so
gradients of every order come from the ops' rules."""
from typing import Any

from finegrad._src.ops.array.constants import eye
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, ones_like, reduce_sum,
                                                reshape, transpose)
from finegrad._src.ops.linalg.products import matmul
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum
from finegrad._src.ops.math.reductions import reduce_logsumexp
from finegrad._src.ops.nn.ctc import ctc_loss


def ctc(y_true: Any, y_pred: Any) -> Any:
    """The CTC loss of integer label sequences ``y_true`` ``(batch, max_length)`` (0 is the
    blank and pads them) under logits ``y_pred`` ``(batch, frames, classes)``, every frame
    used.

    Raises:
        ValueError: when ``y_true`` is not of rank 2 or ``y_pred`` not of rank 3.

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.ctc([[1]], [[[0., 0.]]])[0]), 4)
    0.6931
    """
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if len(y_true.shape) != 2:
        raise ValueError(f"Targets `y_true` are expected to be a tensor of shape `(batch_size, "
                         f"max_length)` in integer format. Received: y_true.shape="
                         f"{tuple(y_true.shape)}")
    if len(y_pred.shape) != 3:
        raise ValueError(f"Logits `y_pred` are expected to be a tensor of shape `(batch_size, "
                         f"max_length, num_classes)`. Received: y_pred.shape="
                         f"{tuple(y_pred.shape)}")
    labels = cast(y_true, "int32")
    label_length = reduce_sum(cast(ew.not_equal(labels, 0), "int32"), axis=-1)
    frames = reduce_sum(ones_like(y_pred[:, :, 0], dtype="int32"), axis=-1)
    return ctc_loss(labels, y_pred, label_length, frames, logits_time_major=False,
                    blank_index=0)


def _pos_neg_masks(query, key, remove_diagonal):
    query = reshape(query, (-1, 1)) if len(query.shape) == 1 else query
    key = reshape(key, (-1, 1)) if len(key.shape) == 1 else key
    positive = ew.equal(query, transpose(key))
    negative = ew.logical_not(positive)
    if remove_diagonal:
        rows, cols = positive.shape
        positive = ew.logical_and(positive, ew.logical_not(cast(eye(rows, cols), "bool")))
    return positive, negative


def circle(y_true: Any, y_pred: Any, ref_labels: Any = None, ref_embeddings: Any = None,
           remove_diagonal: bool = True, gamma: Any = 80, margin: Any = 0.4) -> Any:
    """The circle loss of L2-normalized embeddings ``y_pred`` with integer labels ``y_true``:
    ``softplus(logsumexp(positive terms) + logsumexp(negative terms))`` per row, the terms
    weighted by how far each cosine distance is from its optimum (``margin`` relaxes it,
    ``gamma`` scales); the references default to the batch itself.

    >>> import finegrad as fg
    >>> e = fg.constant([[1., 0.], [1., 0.], [0., 1.]])
    >>> [round(float(v), 3) for v in fg.keras.losses.circle([0, 0, 1], e)]
    [0.0, 0.0, 0.0]
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(convert_to_tensor(y_true), "int32")
    refs = y_pred if ref_embeddings is None else convert_to_tensor(ref_embeddings)
    ref_labels = y_true if ref_labels is None else cast(convert_to_tensor(ref_labels), "int32")
    distances = maximum(1 - matmul(y_pred, transpose(refs)), 0.0)
    positive, negative = _pos_neg_masks(y_true, ref_labels, remove_diagonal)
    pos_weights = maximum((margin + distances) * cast(positive, distances.dtype), 0.0)
    neg_weights = maximum((1 + margin - distances) * cast(negative, distances.dtype), 0.0)
    pos_terms = -1 * gamma * pos_weights * (margin - distances)
    neg_terms = gamma * neg_weights * ((1 - margin) - distances)
    p_loss = reduce_logsumexp(ew.where(positive, pos_terms, float("-inf")), axis=1)
    n_loss = reduce_logsumexp(ew.where(negative, neg_terms, float("-inf")), axis=1)
    return ew.softplus(p_loss + n_loss)
