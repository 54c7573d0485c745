"""Connectionist temporal classification loss (`tf.nn.ctc_loss` on dense labels), a composite
of recorded ops: the forward algorithm in log space over the extended label sequence (a
blank before, between and after the labels: ``2 L + 1`` states), one step per time step, so
gradients of every order and forward mode come from the ops' own rules. States a sequence
cannot reach hold ``_LOG_ZERO``, a large finite negative (as Keras's JAX backend does), so no
gradient is ``nan``; an impossible target (longer than the input allows) costs about 1e5."""
from __future__ import annotations

from typing import Any

from finegrad._src.ops.array.manipulation import one_hot
from finegrad._src.ops.array.structural import (cast, concat, convert_to_tensor, ones_like,
                                                reshape, stack, transpose, zeros_like)
from finegrad._src.ops.linalg.products import einsum
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.reductions import reduce_logsumexp
from finegrad._src.ops.nn.softmax_cross_entropy import log_softmax

_LOG_ZERO = -1e5


def _extended(labels, blank):
    """The labels with blanks around each, ``(batch, 2 L + 1)``, and where a state may be
    entered from two states back (a label different from the one two before)."""
    blanks = zeros_like(labels) + blank
    ext = reshape(stack([blanks, labels], axis=-1), (-1, 2 * labels.shape[1]))
    ext = concat([ext, blanks[:, :1]], axis=1)
    prev = concat([zeros_like(ext[:, :2]) + blank, ext[:, :-2]], axis=1)
    return ext, ew.logical_and(ew.not_equal(ext, blank), ew.not_equal(ext, prev))


def _shift(alpha, n):
    return concat([ones_like(alpha[:, :n]) * _LOG_ZERO, alpha[:, :-n]], axis=1)


def ctc_loss(labels: Any, logits: Any, label_length: Any, logit_length: Any,
             logits_time_major: bool = True, unique: Any = None, blank_index: Any = None,
             name: str | None = None) -> Any:
    """The negative log probability of each batch entry's label sequence under CTC.

    Args:
        labels: int ``(batch, max_label_length)``, dense (padding past ``label_length``).
        logits: ``(frames, batch, classes)`` (``(batch, frames, classes)`` when
            ``logits_time_major`` is False), unnormalized.
        label_length: ``(batch,)`` label counts.
        logit_length: ``(batch,)`` frame counts.
        logits_time_major: the layout of ``logits``.
        unique: accepted (TensorFlow's speed-up hint; the result is the same).
        blank_index: the blank class (0 when None; negative counts from the end).
        name: accepted.

    Returns:
        ``(batch,)`` losses, differentiable with respect to ``logits``.

    Raises:
        TypeError: for sparse labels (dense labels only).

    >>> import finegrad as fg
    >>> loss = fg.nn.ctc_loss([[1]], [[[0., 0.]]], [1], [1])   # one frame, p(label 1) = 1/2
    >>> round(float(loss[0]), 4)
    0.6931
    """
    if type(labels).__name__ == "SparseTensor":
        raise TypeError("ctc_loss: labels must be a dense int tensor (finegrad has no sparse "
                        "labels here); got a SparseTensor")
    logits = convert_to_tensor(logits)
    if logits.dtype.name in ("float16", "bfloat16"):
        logits = cast(logits, "float32")
    if logits_time_major:
        logits = transpose(logits, (1, 0, 2))
    classes = logits.shape[2]
    blank = 0 if blank_index is None else blank_index % classes
    ext, skip = _extended(cast(convert_to_tensor(labels), "int32"), blank)
    emit = einsum("btc,bsc->bts", log_softmax(logits),
                  one_hot(ext, classes, dtype=logits.dtype))
    frames = cast(convert_to_tensor(logit_length), "int32")[:, None]
    states = ext.shape[1]
    alpha = ew.where([[s < 2 for s in range(states)]], emit[:, 0, :], _LOG_ZERO)
    for t in range(1, logits.shape[1]):
        moves = stack([alpha, _shift(alpha, 1), ew.where(skip, _shift(alpha, 2), _LOG_ZERO)])
        alpha = ew.where(t < frames, reduce_logsumexp(moves, axis=0) + emit[:, t, :], alpha)
    ends = cast(convert_to_tensor(label_length), "int32")[:, None] * 2
    index = convert_to_tensor([list(range(states))])
    at_end = ew.logical_or(ew.equal(index, ends), ew.equal(index, ends - 1))
    return -reduce_logsumexp(ew.where(at_end, alpha, _LOG_ZERO), axis=1)
