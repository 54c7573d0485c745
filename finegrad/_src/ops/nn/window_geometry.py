"""Window geometry shared by the convolutions and the pools (channels last: NHWC).

A 2-D window op is described by its window size ``k`` (kh, kw), ``strides`` (sh, sw),
``dilations`` (dh, dw) and explicit ``pads`` ((top, bottom), (left, right)). The public
functions turn TensorFlow's arguments (an int or a list of length 1, 2 or 4; "SAME",
"VALID" or explicit pairs) into these, and every kernel computes with `tap`: the strided
slice of the padded input that window offset (i, j) sees at every output position, so a
convolution is a sum of kh * kw matrix products and its gradients the same loop reversed.
"""
import numpy as np

from finegrad._src.shapes import as_int


def spatial(value, n, fn, arg, default=1):
    """TensorFlow's int-or-list for ``n`` spatial axes: an int, or a list of length 1, n, or
    n + 2 (with 1 for the batch and channel entries), as a tuple of n positive ints."""
    if value is None:
        return (default,) * n
    if isinstance(value, (list, tuple)) or hasattr(value, "__len__"):
        vals = [as_int(v, fn, arg) for v in value]
    else:
        vals = [as_int(value, fn, arg)]
    if len(vals) == 1:
        vals = vals * n
    elif len(vals) == n + 2:
        if vals[0] != 1 or vals[-1] != 1:
            raise ValueError(f"{fn}: {arg} {vals} must be 1 in the batch and channel "
                             f"dimensions (channels-last layout)")
        vals = vals[1:-1]
    elif len(vals) != n:
        raise ValueError(f"{fn}: {arg} must be an int or a list of length 1, {n} or {n + 2}, "
                         f"got {value!r}")
    if any(v < 1 for v in vals):
        raise ValueError(f"{fn}: {arg} must be positive, got {value!r}")
    return tuple(vals)


def check_format(data_format, allowed, fn):
    if data_format is not None and data_format != allowed:
        raise NotImplementedError(f"{fn}: data_format {data_format!r} is not supported; only "
                                  f"{allowed!r} (channels last)")


def padding_arg(padding, n, fn):
    """"SAME", "VALID", or explicit pairs (n of them, or n + 2 with zero batch and channel
    pairs) as a tuple of n (before, after) pairs."""
    if isinstance(padding, str):
        p = padding.upper()
        if p not in ("SAME", "VALID"):
            raise ValueError(f"{fn}: padding must be 'SAME', 'VALID' or explicit pairs, got "
                             f"{padding!r}")
        return p
    try:
        pairs = [tuple(as_int(v, fn, "padding") for v in pair) for pair in padding]
    except TypeError:
        raise ValueError(f"{fn}: padding must be 'SAME', 'VALID' or explicit pairs, got "
                         f"{padding!r}") from None
    if len(pairs) == n + 2:
        if any(pairs[0]) or any(pairs[-1]):
            raise ValueError(f"{fn}: explicit padding of the batch and channel dimensions must "
                             f"be 0, got {padding!r}")
        pairs = pairs[1:-1]
    if len(pairs) != n or any(len(p) != 2 or min(p) < 0 for p in pairs):
        raise ValueError(f"{fn}: explicit padding must be {n} (or {n + 2}) pairs of "
                         f"non-negative ints, got {padding!r}")
    return tuple(pairs)


def geometry(in_hw, k, strides, dilations, padding, fn):
    """(output sizes, pads) of a window op on spatial sizes ``in_hw``. TensorFlow's SAME:
    out = ceil(in / stride), pad_total = max((out - 1) * stride + (k - 1) * dil + 1 - in, 0),
    the extra one after (bottom/right)."""
    out, pads = [], []
    for i, (n, kk, s, d) in enumerate(zip(in_hw, k, strides, dilations, strict=True)):
        eff = (kk - 1) * d + 1
        if padding == "SAME":
            o = -(-n // s)
            total = max((o - 1) * s + eff - n, 0)
            pad = (total // 2, total - total // 2)
        else:
            pad = (0, 0) if padding == "VALID" else padding[i]
            if n + pad[0] + pad[1] < eff:
                raise ValueError(f"{fn}: the window ({eff} with dilation) is larger than the "
                                 f"padded input ({n + pad[0] + pad[1]}) in spatial dimension "
                                 f"{i}; the output would be empty")
            o = (n + pad[0] + pad[1] - eff) // s + 1
        out.append(o)
        pads.append(pad)
    return tuple(out), tuple(pads)


def out_sizes(padded_hw, k, strides, dilations=(1, 1)):
    """The number of window positions along each padded spatial size (a window spans
    ``(k - 1) * dilation + 1`` values)."""
    return tuple((p - (kk - 1) * d - 1) // s + 1
                 for p, kk, s, d in zip(padded_hw, k, strides, dilations, strict=True))


def pad(x, pads, value=0):
    """``x`` (N, H, W, C) padded spatially by ``pads``."""
    if not any(a or b for a, b in pads):
        return x
    return np.pad(x, ((0, 0),) + tuple(pads) + ((0, 0),), constant_values=value)


def tap(xp, i, j, strides, dilations, out_hw):
    """The values window offset (i, j) sees at every output position: a strided view of the
    padded input ``xp``, shape (N, Ho, Wo, C)."""
    (sh, sw), (dh, dw), (ho, wo) = strides, dilations, out_hw
    r, c = i * dh, j * dw
    return xp[:, r:r + (ho - 1) * sh + 1:sh, c:c + (wo - 1) * sw + 1:sw, :]


def crop(xp, pads, in_hw):
    (t, _), (left, _) = pads
    return xp[:, t:t + in_hw[0], left:left + in_hw[1], :]
