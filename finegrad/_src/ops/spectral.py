"""The short-time Fourier transform and its inverse (``tf.signal.stft``, ``inverse_stft``,
``inverse_stft_window_fn``, ``overlap_and_add``), written with `frame`, the real FFTs and
a segment sum, so they differentiate as their parts do (to any order)."""
import numpy as np

from finegrad._src import core, dims
from finegrad._src.ops.array import _t, cast, reshape, transpose
from finegrad._src.ops.elementwise import where
from finegrad._src.ops.fft import irfft, pad_axis_end, rfft
from finegrad._src.ops.segments import unsorted_segment_sum
from finegrad._src.ops.signal_ops import _positive_int, frame, hann_window
from finegrad._src.tensor import Tensor


def _enclosing_power_of_2(n):
    return 1 << max(0, (int(n) - 1).bit_length())


def _real_signal(x, name, what):
    x = _t(x)
    if x._value.dtype not in (np.float32, np.float64):
        raise TypeError(f"{name}: argument {what!r} must be float32 or float64, got "
                        f"{x.dtype.name}")
    return x


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
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


def overlap_and_add(signal, frame_step, name=None):
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
    frames, length = dims.pin(shape[-2:], f"{fn} along a dynamic axis")
    outer = tuple(shape[:-2])
    rank = len(outer)
    # one row per sample, samples first: sample j of frame f lands at f * step + j
    rows = transpose(reshape(x, outer + (frames * length,)), (rank,) + tuple(range(rank)))
    ids = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).reshape(-1)
    total = max(0, (frames - 1) * step + length)   # TensorFlow: 0 frames of 3 give 1 zero
    out = unsorted_segment_sum(rows, ids.astype(np.int32), total)
    return transpose(out, tuple(range(1, rank + 1)) + (0,))


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
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


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
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
