"""CTC decoding on NumPy values (`keras.ops.ctc_decode` on every backend but TensorFlow's,
which has its own decoders): greedy (the best class at each step, repeats merged, blanks
dropped) and prefix beam search (each prefix's probability summed over the alignments that
give it, as TensorFlow's ``ctc_beam_search_decoder``). Not differentiable: decoding picks
labels."""
import heapq

import numpy as np

_PAD = -1


def decode(inputs, lengths, strategy, beam_width, top_paths, merge_repeated, mask_index):
    """``(decoded, scores)`` as Keras returns them: ``decoded`` int32 ``(top_paths, batch,
    steps)`` padded with -1, ``scores`` ``(batch, top_paths)``: the greedy path's negative sum
    of its best inputs, or each beam's log probability."""
    inputs = np.asarray(inputs)
    batch, steps, classes = inputs.shape
    blank = mask_index % classes if mask_index is not None else classes - 1
    lengths = np.broadcast_to(np.asarray(lengths, np.int64), (batch,))
    if strategy == "greedy":
        paths = [[_greedy(inputs[i, :lengths[i]], blank, merge_repeated)] for i in range(batch)]
        top_paths = 1
    elif strategy == "beam_search":
        logp = inputs - inputs.max(-1, keepdims=True)
        logp = logp - np.log(np.exp(logp).sum(-1, keepdims=True))
        paths = [_beam_search(logp[i, :lengths[i]], blank, beam_width, top_paths)
                 for i in range(batch)]
    else:
        raise ValueError(f"Invalid strategy {strategy}. Supported values are 'greedy' and "
                         f"'beam_search'.")
    decoded = np.full((top_paths, batch, steps), _PAD, np.int32)
    scores = np.full((batch, top_paths), -np.inf, inputs.dtype)
    for i, found in enumerate(paths):
        for k, (labels, score) in enumerate(found):
            decoded[k, i, :len(labels)] = labels
            scores[i, k] = score
    return decoded, scores


def _greedy(x, blank, merge_repeated):
    best = x.argmax(-1)
    labels, prev = [], None
    for c in best:
        if c != blank and not (merge_repeated and c == prev):
            labels.append(int(c))
        prev = c
    return labels, -float(x.max(-1).sum()) if len(x) else 0.0


def _beam_search(logp, blank, beam_width, top_paths):
    """The ``top_paths`` most probable label sequences, each with its log probability."""
    beams = {(): (0.0, -np.inf)}    # prefix -> (log p ending in blank, log p ending in label)
    for row in logp:
        grown: dict = {}
        for prefix, (pb, pl) in beams.items():
            total = np.logaddexp(pb, pl)
            _add(grown, prefix, total + row[blank], -np.inf)
            for c in range(len(row)):
                if c == blank:
                    continue
                if prefix and prefix[-1] == c:
                    _add(grown, prefix + (c,), -np.inf, pb + row[c])  # a repeat needs a blank
                    _add(grown, prefix, -np.inf, pl + row[c])         # else it merges
                else:
                    _add(grown, prefix + (c,), -np.inf, total + row[c])
        best = heapq.nlargest(beam_width, grown.items(), key=lambda kv: np.logaddexp(*kv[1]))
        beams = dict(best)
    ranked = sorted(beams.items(), key=lambda kv: -np.logaddexp(*kv[1]))[:top_paths]
    return [(list(p), float(np.logaddexp(*s))) for p, s in ranked]


def _add(beams, prefix, blank_p, label_p):
    b0, l0 = beams.get(prefix, (-np.inf, -np.inf))
    beams[prefix] = (np.logaddexp(b0, blank_p), np.logaddexp(l0, label_p))
