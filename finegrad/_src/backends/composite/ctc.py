"""Connectionist temporal classification (`keras.ops.ctc_loss`, `keras.ops.ctc_decode`),
written once with other ops for every backend (each function takes the backend ``b`` first).

The loss is the forward algorithm in log space over the extended label sequence (a blank
before, between and after the labels: ``2 * L + 1`` states), one step per time step, so it is
differentiable wherever the ops it uses are; states a sequence cannot reach hold
``_LOG_ZERO`` (a large finite negative, as Keras's JAX backend does) so that no gradient is
``nan``. Decoding is not differentiable: it runs on the NumPy values
(`finegrad._src.backends.ctc_decoding`) and returns the backend's tensors.
"""
from finegrad._src.backends import ctc_decoding
from finegrad._src.backends.composite.numpy import _float, _t

_LOG_ZERO = -1e5


def _extended(b, target, mask_index):
    """The labels with blanks around each, ``(batch, 2 L + 1)``, and where a state may be
    entered from two states back (a label different from the one two before)."""
    target = b.cast(_t(b, target), "int32")
    blanks = b.full_like(target, mask_index)
    ext = b.reshape(b.stack([blanks, target], axis=-1), (-1, 2 * target.shape[1]))
    ext = b.concatenate([ext, blanks[:, :1]], axis=1)
    prev = b.concatenate([b.full_like(ext[:, :2], mask_index), ext[:, :-2]], axis=1)
    skip = b.logical_and(b.not_equal(ext, mask_index), b.not_equal(ext, prev))
    return ext, skip


def _shift(b, alpha, n):
    """``alpha`` moved ``n`` states right along axis 1, ``_LOG_ZERO`` coming in."""
    return b.concatenate([b.full_like(alpha[:, :n], _LOG_ZERO), alpha[:, :-n]], axis=1)


def ctc_loss(b, target, output, target_length, output_length, mask_index=0):
    output = _float(b, output)
    if b.dtype_name(output) in ("float16", "bfloat16"):
        output = b.cast(output, "float32")
    steps, classes = output.shape[1], output.shape[2]
    logp = b.log_softmax(output, axis=-1)
    ext, skip = _extended(b, target, mask_index)
    states = ext.shape[1]
    emit = b.einsum("btc,bsc->bts", logp, b.one_hot(ext, classes, dtype=b.dtype_name(logp)))
    output_length = b.cast(_t(b, output_length), "int32")
    first = b.less(b.arange(states), 2)[None, :]
    alpha = b.where(first, emit[:, 0, :], _LOG_ZERO)
    for t in range(1, steps):
        moves = b.stack([alpha, _shift(b, alpha, 1),
                         b.where(skip, _shift(b, alpha, 2), _LOG_ZERO)], axis=0)
        new = b.add(b.logsumexp(moves, axis=0), emit[:, t, :])
        alpha = b.where(b.less(t, output_length)[:, None], new, alpha)
    ends = b.cast(_t(b, target_length), "int32")[:, None] * 2
    at_end = b.logical_or(b.equal(b.arange(states)[None, :], ends),
                          b.equal(b.arange(states)[None, :], ends - 1))
    return b.negative(b.logsumexp(b.where(at_end, alpha, _LOG_ZERO), axis=1))


def ctc_decode(b, inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    values = b.convert_to_numpy(_float(b, inputs))
    lengths = b.convert_to_numpy(_t(b, sequence_lengths))
    decoded, scores = ctc_decoding.decode(values, lengths, strategy, beam_width, top_paths,
                                          merge_repeated, mask_index)
    return b.convert_to_tensor(decoded), b.convert_to_tensor(scores)
