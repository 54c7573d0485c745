"""The short-time Fourier transform and its inverse (``tf.signal.stft``, ``inverse_stft``,
``inverse_stft_window_fn``, ``overlap_and_add``) and the modified DCT (``mdct``,
``inverse_mdct``), written with `frame`, the real FFTs, `dct` and a segment sum, so they
differentiate as their parts do (to any order)."""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims
from finegrad._src.ops.array.manipulation import pad
from finegrad._src.ops.array.structural import (_t, cast, concat, reduce_sum, reshape,
                                                transpose)
from finegrad._src.ops.signal.dct import dct
from finegrad._src.ops.math.elementwise import where
from finegrad._src.ops.signal.fft import irfft, pad_axis_end, rfft
from finegrad._src.ops.math.segments import unsorted_segment_sum
from finegrad._src.ops.array.manipulation import reverse
from finegrad._src.ops.signal.shifts_frames_windows import (_positive_int, frame, hann_window,
                                                            vorbis_window)
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _enclosing_power_of_2(n):
    return 1 << max(0, (int(n) - 1).bit_length())


def _real_signal(x, name, what):
    x = _t(x)
    if x._value.dtype not in (np.float32, np.float64):
        raise TypeError(f"{name}: argument {what!r} must be float32 or float64, got "
                        f"{x.dtype.name}")
    return x


def stft(signals: TensorLike, frame_length: Any, frame_step: Any, fft_length: Any = None,
         window_fn: Any = hann_window, pad_end: bool = False, name: str | None = None) -> Tensor:
    """The short-time Fourier transform: `frame` the last axis, multiply each frame by
    ``window_fn(frame_length, dtype=signals.dtype)`` (none when ``window_fn`` is None) and
    `rfft` it to ``fft_length`` (default: the smallest power of 2 not below
    ``frame_length``). Shape ``[..., frames, fft_length // 2 + 1]``; differentiable.

    >>> import finegrad as fg
    >>> fg.signal.stft(fg.ones(8), 4, 4, window_fn=None).numpy()[:, 0]
    array([4.+0.j, 4.+0.j], dtype=complex64)

    Raises:
        TypeError: for signals that are not float32 or float64, or bad frame arguments.
        ValueError: as `frame` and `rfft`.
    """
    x = _real_signal(signals, "finegrad.signal.stft", "signals")
    frames = frame(x, frame_length, frame_step, pad_end=pad_end, axis=-1)
    if window_fn is not None:
        frames = frames * cast(window_fn(frame_length, dtype=x.dtype), x.dtype)
    length = _enclosing_power_of_2(frame_length) if fft_length is None else fft_length
    return rfft(frames, [length])


def overlap_and_add(signal: TensorLike, frame_step: Any, name: str | None = None) -> Tensor:
    """The sum of the frames ``signal[..., f, :]`` placed ``frame_step`` apart: shape
    ``[..., (frames - 1) * frame_step + frame_length]`` (the inverse of `frame`'s layout).
    Differentiable (its gradient gathers the frames back).

    >>> import finegrad as fg
    >>> fg.signal.overlap_and_add(fg.constant([[1., 1., 1.], [2., 2., 2.]]), 2).numpy()
    array([1., 1., 3., 2., 2.], dtype=float32)

    Raises:
        TypeError: for a non-integer ``frame_step``.
        ValueError: for rank below 2 or a non-positive ``frame_step``.
    """
    fn = "finegrad.signal.overlap_and_add"
    x = _t(signal)
    step = _positive_int(frame_step, fn, "frame_step")
    if x._value.ndim < 2:
        raise ValueError(f"{fn}: argument 'signal' must have rank at least 2, got shape "
                         f"{tuple(x._value.shape)}")
    shape = core.shape_of(x)
    if type(shape[-2]) is dims.Dim:   # an open number of frames
        return _overlap_and_add_open(x, step, fn)
    frames, length = dims.pin(shape[-2:], f"{fn} along a dynamic axis")
    outer = tuple(shape[:-2])
    rank = len(outer)
    # one row per sample, samples first: sample j of frame f lands at f * step + j
    rows = transpose(reshape(x, outer + (frames * length,)), (rank,) + tuple(range(rank)))
    ids = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).reshape(-1)
    total = max(0, (frames - 1) * step + length)   # TensorFlow: 0 frames of 3 give 1 zero
    out = unsorted_segment_sum(rows, ids.astype(np.int32), total)
    return transpose(out, tuple(range(1, rank + 1)) + (0,))


def _overlap_and_add_open(x, step, fn):
    """`overlap_and_add` of a symbolic number of frames, as TensorFlow computes it: each
    frame padded to whole ``step``-long segments, the segments laid out so that a reshape
    shifts frame ``f`` by ``f * step``, summed, and cut to ``(frames - 1) * step +
    length`` (sizes that are ops of the frame count: one graph for every count)."""
    shape = core.shape_of(x)
    outer, frames = tuple(shape[:-2]), shape[-2]
    length, = dims.pin(shape[-1:], f"{fn} along a dynamic frame length")
    segments = -(-length // step)
    r = len(outer)
    y = pad(x, [[0, 0]] * r + [[0, segments], [0, segments * step - length]])
    y = reshape(y, outer + (frames + segments, segments, step))
    y = transpose(y, tuple(range(r)) + (r + 1, r, r + 2))
    y = reshape(y, outer + ((frames + segments) * segments, step))
    y = y[(Ellipsis, slice(0, (frames + segments - 1) * segments), slice(None))]
    y = reduce_sum(reshape(y, outer + (segments, frames + segments - 1, step)), r)
    y = reshape(y, outer + ((frames + segments - 1) * step,))
    return y[..., :(frames - 1) * step + length]


def inverse_stft_window_fn(frame_step: Any, forward_window_fn: Any = hann_window,
                           name: str | None = None) -> Any:
    """A window function for `inverse_stft` that undoes ``forward_window_fn``'s amplitude
    over overlapping frames: the forward window divided by the sum of the squared windows
    that overlap each sample (0 where that sum is 0), as TensorFlow's.

    >>> import finegrad as fg
    >>> fg.signal.inverse_stft_window_fn(2)(4, dtype=fg.float32).numpy()
    array([0., 1., 1., 1.], dtype=float32)
    """
    step = _positive_int(frame_step, "finegrad.signal.inverse_stft_window_fn", "frame_step")

    def inverse_window(frame_length, dtype):
        window = _t(forward_window_fn(frame_length, dtype=dtype))
        length = int(window._value.shape[0])
        overlaps = -(-length // step)
        squares = np.zeros(overlaps * step, window._value.dtype)
        squares[:length] = window._value ** 2
        denom = np.tile(squares.reshape(overlaps, step).sum(0), overlaps)[:length]
        safe = np.where(denom == 0, 1, denom).astype(window._value.dtype)
        return where(Tensor(denom == 0), window * 0, window / Tensor(safe))
    return inverse_window


def inverse_stft(stfts: TensorLike, frame_length: Any, frame_step: Any, fft_length: Any = None,
                 window_fn: Any = hann_window, name: str | None = None) -> Tensor:
    """The inverse of `stft`: `irfft` each frame to ``fft_length`` (default: the smallest
    power of 2 not below ``frame_length``), crop or zero-pad it to ``frame_length``,
    multiply by ``window_fn(frame_length, dtype=...)`` and `overlap_and_add`. With
    `inverse_stft_window_fn` as ``window_fn`` it reconstructs the signal `stft` framed.

    >>> import finegrad as fg
    >>> x = fg.constant([1., 2., 3., 4., 5., 6., 7., 8.])
    >>> s = fg.signal.stft(x, 4, 2)
    >>> y = fg.signal.inverse_stft(s, 4, 2, window_fn=fg.signal.inverse_stft_window_fn(2))
    >>> y.numpy()[2:6].round(4)
    array([3., 4., 5., 6.], dtype=float32)

    Raises:
        TypeError: for stfts that are not complex64 or complex128.
        ValueError: for rank below 2, and as `irfft` and `overlap_and_add`.
    """
    fn = "finegrad.signal.inverse_stft"
    s = _t(stfts)
    if s._value.dtype.kind != "c":
        raise TypeError(f"{fn}: argument 'stfts' must be complex64 or complex128, got "
                        f"{s.dtype.name}")
    if s._value.ndim < 2:
        raise ValueError(f"{fn}: argument 'stfts' must have rank at least 2, got shape "
                         f"{tuple(s._value.shape)}")
    length = _positive_int(frame_length, fn, "frame_length")
    n = _enclosing_power_of_2(length) if fft_length is None else fft_length
    frames = irfft(s, [n])
    frames = frames[..., :length] if n >= length else pad_axis_end(frames, -1, length - n)
    if window_fn is not None:
        frames = frames * cast(window_fn(length, dtype=frames.dtype), frames.dtype)
    return overlap_and_add(frames, frame_step)


def _windowed(frames, length, window_fn):
    if window_fn is None:
        return frames * frames._value.dtype.type(1 / np.sqrt(2))
    return frames * cast(window_fn(length, dtype=frames.dtype), frames.dtype)


def mdct(signals: TensorLike, frame_length: Any, window_fn: Any = vorbis_window,
         pad_end: bool = False, norm: Any = None, name: str | None = None) -> Tensor:
    """The modified DCT: frames of ``frame_length`` (a multiple of 4) half a frame apart,
    windowed (by ``1 / sqrt(2)`` when ``window_fn`` is None), folded and transformed by a
    type-IV `dct` (``norm`` None or ``'ortho'``): shape ``[..., frames, frame_length // 2]``.

    >>> import finegrad as fg
    >>> fg.signal.mdct(fg.ones(8), 4, window_fn=None).numpy().round(4)
    array([[-2.6131, -1.0824],
           [-2.6131, -1.0824],
           [-2.6131, -1.0824]], dtype=float32)

    Raises:
        TypeError: for signals that are not float32 or float64.
        ValueError: for a ``frame_length`` that is not a positive multiple of 4, and as
            `frame` and `dct`.
    """
    fn = "finegrad.signal.mdct"
    x = _real_signal(signals, fn, "signals")
    length = _positive_int(frame_length, fn, "frame_length")
    if length % 4:
        raise ValueError(f"{fn}: argument 'frame_length' must be a multiple of 4, got {length}")
    frames = _windowed(frame(x, length, length // 2, pad_end=pad_end), length, window_fn)
    q = length // 4
    a, b, c, d = (frames[..., i * q:(i + 1) * q] for i in range(4))
    folded = concat([-reverse(c, [-1]) - d, a - reverse(b, [-1])], axis=-1)
    return dct(folded, type=4, norm=norm)


def inverse_mdct(mdcts: TensorLike, window_fn: Any = vorbis_window, norm: Any = None,
                 name: str | None = None) -> Tensor:
    """The inverse of `mdct`: a type-IV `dct` of each frame (scaled by ``1 / frame_length``
    when ``norm`` is None), unfolded to ``frame_length = 2 * mdcts.shape[-1]``, windowed and
    overlap-added half a frame apart. With the same window (vorbis, or None) as `mdct` it
    reconstructs the signal but for the first and last half frame.

    >>> import finegrad as fg
    >>> x = fg.constant([0., 0., 1., 2., 3., 4., 0., 0.])
    >>> fg.signal.inverse_mdct(fg.signal.mdct(x, 4)).numpy()[2:6].round(4)
    array([1., 2., 3., 4.], dtype=float32)

    Raises:
        TypeError: for mdcts that are not float32 or float64.
        ValueError: for rank below 2, and as `dct`.
    """
    fn = "finegrad.signal.inverse_mdct"
    m = _real_signal(mdcts, fn, "mdcts")
    if m._value.ndim < 2:
        raise ValueError(f"{fn}: argument 'mdcts' must have rank at least 2, got shape "
                         f"{tuple(m._value.shape)}")
    half, = dims.pin([core.shape_of(m)[-1]], f"{fn} along a dynamic axis")
    out = dct(m, type=4, norm=norm)
    if norm is None:
        out = out * m._value.dtype.type(0.5 / half)
    first, second = out[..., :half // 2], out[..., half // 2:]
    frames = concat([second, -reverse(second, [-1]), -reverse(first, [-1]), -first], axis=-1)
    return overlap_and_add(_windowed(frames, 2 * half, window_fn), half)
