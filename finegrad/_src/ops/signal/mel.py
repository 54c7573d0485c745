"""``tf.signal.linear_to_mel_weight_matrix``: the triangular mel filter bank (a constant),
on the HTK mel scale ``mel = 1127 ln(1 + hz / 700)``, as TensorFlow builds it."""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.ops.signal.shifts_frames_windows import _positive_int
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike

_NAME = "finegrad.signal.linear_to_mel_weight_matrix"


def _hertz_to_mel(hz, f):
    return f(1127.0) * np.log(f(1.0) + hz / f(700.0))


def _check_edges(sample_rate, lower, upper):
    for what, value in (("sample_rate", sample_rate), ("lower_edge_hertz", lower),
                        ("upper_edge_hertz", upper)):
        if not isinstance(value, (int, float, np.integer, np.floating)) or \
                isinstance(value, bool):
            raise TypeError(f"{_NAME}: argument {what!r} must be a number, got {value!r}")
    if lower < 0:
        raise ValueError(f"{_NAME}: argument 'lower_edge_hertz' must be non-negative, got "
                         f"{lower}")
    if lower >= upper:
        raise ValueError(f"{_NAME}: argument 'lower_edge_hertz' must be below "
                         f"'upper_edge_hertz', got {lower} and {upper}")
    if sample_rate <= 0:
        raise ValueError(f"{_NAME}: argument 'sample_rate' must be positive, got {sample_rate}")
    if upper > sample_rate / 2:
        raise ValueError(f"{_NAME}: argument 'upper_edge_hertz' must not exceed the Nyquist "
                         f"frequency sample_rate / 2 = {sample_rate / 2}, got {upper}")


def linear_to_mel_weight_matrix(num_mel_bins: int = 20, num_spectrogram_bins: int = 129,
                                sample_rate: float = 8000, lower_edge_hertz: float = 125.0,
                                upper_edge_hertz: float = 3800.0, dtype: DTypeLike = dtypes.float32,
                                name: str | None = None) -> Tensor:
    """The ``[num_spectrogram_bins, num_mel_bins]`` matrix that maps a linear-frequency
    magnitude spectrogram (bins from 0 to ``sample_rate / 2``) to ``num_mel_bins`` triangular
    mel bands between ``lower_edge_hertz`` and ``upper_edge_hertz``; the DC bin gets no
    weight, as in TensorFlow.

    >>> import finegrad as fg
    >>> fg.signal.linear_to_mel_weight_matrix(2, 5, 8000, 100., 4000.).numpy().round(3)
    array([[0.   , 0.   ],
           [0.723, 0.277],
           [0.   , 0.939],
           [0.   , 0.405],
           [0.   , 0.   ]], dtype=float32)

    Raises:
        TypeError: for non-integer bin counts or non-numeric frequencies.
        ValueError: for non-positive counts or sample rate, edges out of order, an upper
            edge above the Nyquist frequency, or a ``dtype`` that is not floating.
    """
    mels = _positive_int(num_mel_bins, _NAME, "num_mel_bins")
    bins = _positive_int(num_spectrogram_bins, _NAME, "num_spectrogram_bins")
    _check_edges(sample_rate, lower_edge_hertz, upper_edge_hertz)
    dt = dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"{_NAME}: argument 'dtype' must be a floating dtype, got {dt.name}")
    f = dt._np.type
    linear = np.linspace(f(0), f(sample_rate) / f(2), bins, dtype=dt._np)[1:]
    spectrum_mel = _hertz_to_mel(linear, f)[:, None]
    edges = np.linspace(_hertz_to_mel(f(lower_edge_hertz), f),
                        _hertz_to_mel(f(upper_edge_hertz), f), mels + 2, dtype=dt._np)
    lower, center, upper = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
    rising = (spectrum_mel - lower) / (center - lower)
    falling = (upper - spectrum_mel) / (upper - center)
    weights = np.maximum(f(0), np.minimum(rising, falling))
    return Tensor(np.concatenate([np.zeros((1, mels), dt._np), weights]).astype(dt._np))
