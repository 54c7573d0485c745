"""The rest of ``tf.signal`` built from existing ops: ``fftshift``/``ifftshift`` (rolls),
``frame`` (a gather of overlapping windows, after an optional pad) and the ``hann``/
``hamming`` windows (constants). Their gradients are those of roll, pad and gather."""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims, dtypes
from finegrad._src.ops.array.structural import _t, concat, convert_to_tensor, expand_dims
from finegrad._src.ops.array.symbolic_constants import iota
from finegrad._src.ops.zeros_and_axes import _normalize_axis, filled
from finegrad._src.ops.array.gather import take
from finegrad._src.ops.special.bessel_zeta_kernels import i0e as _i0e
from finegrad._src.ops.signal.fft import pad_axis_end
from finegrad._src.ops.array.manipulation import roll
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike


def _shift_axes(x, axes, name):
    ndim = x._value.ndim
    if axes is None:
        return list(range(ndim))
    value = axes.numpy() if hasattr(axes, "numpy") else axes
    items = np.atleast_1d(np.asarray(value))
    if items.ndim != 1 or (items.size and items.dtype.kind not in "iu"):
        raise TypeError(f"{name}: argument 'axes' must be an int or a list of ints, got "
                        f"{value!r}")
    return [_normalize_axis(int(a), ndim, name) for a in items]


def _shift(x, axes, name, sign):
    x = _t(x)
    axes = _shift_axes(x, axes, name)
    if not axes:
        return x
    shifts = [sign * (core.shape_of(x)[a] // 2) for a in axes]   # symbolic on open axes
    return roll(x, shifts, axes)


def fftshift(x: TensorLike, axes: Any = None, name: str | None = None) -> Tensor:
    """Move the zero-frequency term to the middle of each of ``axes`` (all by default): a
    roll by ``n // 2``. Differentiable (a roll).

    >>> import finegrad as fg
    >>> fg.signal.fftshift(fg.constant([0., 1., 2., -2., -1.])).numpy()
    array([-2., -1.,  0.,  1.,  2.], dtype=float32)

    Raises:
        TypeError: for ``axes`` that are not integers; ValueError: for an axis out of range.
    """
    return _shift(x, axes, "finegrad.signal.fftshift", 1)


def ifftshift(x: TensorLike, axes: Any = None, name: str | None = None) -> Tensor:
    """The inverse of `fftshift`: a roll by ``-(n // 2)`` along each of ``axes``.

    >>> import finegrad as fg
    >>> fg.signal.ifftshift(fg.constant([-2., -1., 0., 1., 2.])).numpy()
    array([ 0.,  1.,  2., -2., -1.], dtype=float32)

    Raises:
        TypeError: for ``axes`` that are not integers; ValueError: for an axis out of range.
    """
    return _shift(x, axes, "finegrad.signal.ifftshift", -1)


def _positive_int(value, name, what, minimum=1):
    v = value.numpy() if hasattr(value, "numpy") else value
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) and not (
            isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "iu"):
        raise TypeError(f"{name}: argument {what!r} must be an integer, got {value!r}")
    if int(v) < minimum:
        raise ValueError(f"{name}: argument {what!r} must be at least {minimum}, got {int(v)}")
    return int(v)


def frame(signal: TensorLike, frame_length: Any, frame_step: Any, pad_end: bool = False,
          pad_value: Any = 0, axis: int = -1, name: str | None = None) -> Tensor:
    """Overlapping frames of ``frame_length`` samples, ``frame_step`` apart, along ``axis``:
    that axis becomes two, ``[frames, frame_length]``. Without ``pad_end``, frames past the
    end are dropped; with it, the signal is padded with ``pad_value`` to ``ceil(n / frame_step)``
    frames, so every sample is in one. Differentiable (pad and gather).

    >>> import finegrad as fg
    >>> fg.signal.frame(fg.constant([1., 2., 3., 4., 5.]), 3, 2).numpy()
    array([[1., 2., 3.],
           [3., 4., 5.]], dtype=float32)

    Raises:
        TypeError: for a non-integer ``frame_length`` or ``frame_step``.
        ValueError: for a non-positive one, or an ``axis`` out of range.
    """
    fn = "finegrad.signal.frame"
    x = _t(signal)
    length = _positive_int(frame_length, fn, "frame_length")
    step = _positive_int(frame_step, fn, "frame_step")
    if x._value.ndim == 0:
        raise ValueError(f"{fn}: argument 'signal' must have rank at least 1, got a scalar")
    ax = _normalize_axis(axis, x._value.ndim, fn)
    if type(core.shape_of(x)[ax]) is dims.Dim:   # an open axis: positions of its size
        return _frame_open(x, ax, length, step, pad_end, pad_value)
    n = x._value.shape[ax]
    if pad_end:
        frames = -(-n // step)
        extra = max(0, (frames - 1) * step + length - n)
        if extra:
            value = convert_to_tensor(pad_value, dtype=x.dtype)._value
            x = pad_axis_end(x, ax, extra, value)
    else:
        frames = max(0, 1 + (n - length) // step) if n >= length else 0
    index = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).astype(np.int32)
    return take(x, index, axis=ax)


def _frame_open(x, ax, length, step, pad_end, pad_value):
    """`frame` along an axis of symbolic size ``n``: ``(n - length) // step + 1`` frames
    (none when ``n < length``), or ``ceil(n / step)`` with the end padded; the positions are
    ops of that count, so one graph serves every size."""
    n = core.shape_of(x)[ax]
    if pad_end:
        frames = (n + step - 1) // step
        extra = dims.at_least_zero((frames - 1) * step + length - n)
        shape = list(core.shape_of(x))
        shape[ax] = extra
        value = convert_to_tensor(pad_value, dtype=x.dtype)._value
        x = concat([x, filled(tuple(shape), value.item(), x._value.dtype)], ax)
    else:
        frames = dims.at_least_zero(n - length + step) // step
    starts = iota(frames, np.int32, "finegrad.signal.frame") * np.int32(step)
    index = expand_dims(starts, 1) + np.arange(length, dtype=np.int32)[None, :]
    return take(x, index, axis=ax)


def _window_args(window_length, dtype, name):
    n = _positive_int(window_length, name, "window_length", minimum=0)
    dt = dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"{name}: argument 'dtype' must be a floating dtype, got {dt.name}")
    return n, dt


def _window(window_length, periodic, dtype, name, a):
    n, dt = _window_args(window_length, dtype, name)
    if n == 1:
        return Tensor(np.ones(1, dt._np))
    # TensorFlow's period: n for a periodic window of even length, n - 1 otherwise (a
    # periodic window of odd length is the symmetric one), computed in the window's dtype
    f = dt._np.type
    period = f(n + int(bool(periodic)) * (1 - n % 2) - 1)
    k = np.arange(n, dtype=dt._np)
    w = f(a) - f(1 - a) * np.cos(f(2 * np.pi) * k / period)
    return Tensor(np.asarray(w, dt._np))


def hann_window(window_length: Any, periodic: bool = True, dtype: DTypeLike = dtypes.float32,
                name: str | None = None) -> Tensor:
    """The Hann window ``0.5 - 0.5 cos(2 pi k / N)``, ``N`` the length (``periodic``, for
    spectral analysis) or the length minus one (symmetric, for filter design). As in
    TensorFlow, a periodic window of odd length is the symmetric one.

    >>> import finegrad as fg
    >>> fg.signal.hann_window(4).numpy()
    array([0. , 0.5, 1. , 0.5], dtype=float32)

    Raises:
        TypeError: for a non-integer ``window_length``.
        ValueError: for a negative one, or a ``dtype`` that is not floating.
    """
    return _window(window_length, periodic, dtype, "finegrad.signal.hann_window", 0.5)


def hamming_window(window_length: Any, periodic: bool = True, dtype: DTypeLike = dtypes.float32,
                   name: str | None = None) -> Tensor:
    """The Hamming window ``0.54 - 0.46 cos(2 pi k / N)`` (``N`` as in `hann_window`).

    >>> import finegrad as fg
    >>> fg.signal.hamming_window(3, periodic=False).numpy().round(2)
    array([0.08, 1.  , 0.08], dtype=float32)

    Raises:
        TypeError: for a non-integer ``window_length``.
        ValueError: for a negative one, or a ``dtype`` that is not floating.
    """
    return _window(window_length, periodic, dtype, "finegrad.signal.hamming_window", 0.54)


def kaiser_window(window_length: Any, beta: float = 12.0, dtype: DTypeLike = dtypes.float32,
                  name: str | None = None) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2k / (n - 1) - 1)^2)) / I0(beta)`` (computed
    with the exponentially scaled ``i0e``, as TensorFlow's, so large ``beta`` stays finite).

    >>> import finegrad as fg
    >>> fg.signal.kaiser_window(3, beta=0.).numpy()
    array([1., 1., 1.], dtype=float32)

    Raises:
        TypeError: for a non-integer ``window_length``.
        ValueError: for a negative one, or a ``dtype`` that is not floating.
    """
    n, dt = _window_args(window_length, dtype, "finegrad.signal.kaiser_window")
    if n == 1:
        return Tensor(np.ones(1, dt._np))
    half = (n - 1) / 2.0
    arg = np.arange(n) - half
    beta = float(beta)
    num = beta * np.sqrt(np.maximum(1 - (arg / half) ** 2, 0))
    window = np.exp(num - beta) * (_i0e(num) / _i0e(np.float64(beta)))
    return Tensor(np.asarray(window, dt._np))


def vorbis_window(window_length: Any, dtype: DTypeLike = dtypes.float32,
                  name: str | None = None) -> Tensor:
    """The Vorbis power-complementary window ``sin(pi / 2 sin^2(pi (k + 1/2) / n))``.

    >>> import finegrad as fg
    >>> fg.signal.vorbis_window(4).numpy().round(4)
    array([0.228 , 0.9737, 0.9737, 0.228 ], dtype=float32)

    Raises:
        TypeError: for a non-integer ``window_length``.
        ValueError: for a negative one, or a ``dtype`` that is not floating.
    """
    n, dt = _window_args(window_length, dtype, "finegrad.signal.vorbis_window")
    f = dt._np.type
    k = np.arange(n, dtype=dt._np)
    window = np.sin(f(np.pi / 2) * np.sin(f(np.pi) / f(max(n, 1)) * (k + f(0.5))) ** 2)
    return Tensor(np.asarray(window, dt._np))


def kaiser_bessel_derived_window(window_length: Any, beta: float = 12.0,
                                 dtype: DTypeLike = dtypes.float32,
                                 name: str | None = None) -> Tensor:
    """The Kaiser-Bessel-derived window (for `mdct`): the square roots of the normalized
    running sums of a `kaiser_window` of ``window_length // 2 + 1`` points, mirrored (an odd
    length gives ``window_length - 1`` points, as TensorFlow's).

    >>> import finegrad as fg
    >>> fg.signal.kaiser_bessel_derived_window(4, beta=0.).numpy().round(4)
    array([0.5774, 0.8165, 0.8165, 0.5774], dtype=float32)

    Raises:
        TypeError: for a non-integer ``window_length``.
        ValueError: for a negative one, or a ``dtype`` that is not floating.
    """
    name = "finegrad.signal.kaiser_bessel_derived_window"
    n, dt = _window_args(window_length, dtype, name)
    kaiser = kaiser_window(n // 2 + 1, beta, dtype=dt)._value
    sums = np.cumsum(kaiser)
    half = np.sqrt(sums[:-1] / sums[-1])
    return Tensor(np.concatenate([half, half[::-1]]).astype(dt._np))
