"""Keras 3's `keras.ops` math group: FFTs, segment reductions, top_k, special functions.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from finegrad._src.backends.dispatch.selection import on as _on


def cdist(x, y):
    """Keras 3's `keras.ops.cdist` on the active backend."""
    return _on(x, y).cdist(x, y)


def erf(x):
    """Keras 3's `keras.ops.erf` on the active backend."""
    return _on(x).erf(x)


def erfc(x):
    """Keras 3's `keras.ops.erfc` on the active backend."""
    return _on(x).erfc(x)


def erfinv(x):
    """Keras 3's `keras.ops.erfinv` on the active backend."""
    return _on(x).erfinv(x)


def extract_sequences(x, sequence_length, sequence_stride):
    """Keras 3's `keras.ops.extract_sequences` on the active backend."""
    return _on(x, sequence_length, sequence_stride).extract_sequences(
        x, sequence_length, sequence_stride
    )


def fft(x):
    """Keras 3's `keras.ops.fft` on the active backend."""
    return _on(x).fft(x)


def fft2(x):
    """Keras 3's `keras.ops.fft2` on the active backend."""
    return _on(x).fft2(x)


def ifft2(x):
    """Keras 3's `keras.ops.ifft2` on the active backend."""
    return _on(x).ifft2(x)


def in_top_k(targets, predictions, k):
    """Keras 3's `keras.ops.in_top_k` on the active backend."""
    return _on(targets, predictions, k).in_top_k(targets, predictions, k)


def irfft(x, fft_length=None):
    """Keras 3's `keras.ops.irfft` on the active backend."""
    return _on(x, fft_length).irfft(x, fft_length)


def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann", center=True):
    """Keras 3's `keras.ops.istft` on the active backend."""
    return _on(x, sequence_length, sequence_stride, fft_length, length).istft(
        x, sequence_length, sequence_stride, fft_length, length, window, center
    )


def logdet(x):
    """Keras 3's `keras.ops.logdet` on the active backend."""
    return _on(x).logdet(x)


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) over ``axis``, computed stably."""
    return _on(x).logsumexp(x, axis, keepdims)


def rfft(x, fft_length=None):
    """Keras 3's `keras.ops.rfft` on the active backend."""
    return _on(x, fft_length).rfft(x, fft_length)


def rsqrt(x):
    """Keras 3's `keras.ops.rsqrt` on the active backend."""
    return _on(x).rsqrt(x)


def segment_max(data, segment_ids, num_segments=None, sorted=False):
    """Keras 3's `keras.ops.segment_max` on the active backend."""
    return _on(data, segment_ids, num_segments).segment_max(data, segment_ids, num_segments, sorted)


def segment_min(data, segment_ids, num_segments=None, sorted=False):
    """Keras 3's `keras.ops.segment_min` on the active backend."""
    return _on(data, segment_ids, num_segments).segment_min(data, segment_ids, num_segments, sorted)


def segment_prod(data, segment_ids, num_segments=None, sorted=False):
    """Keras 3's `keras.ops.segment_prod` on the active backend."""
    return _on(data, segment_ids, num_segments).segment_prod(
        data, segment_ids, num_segments, sorted
    )


def segment_sum(data, segment_ids, num_segments=None, sorted=False):
    """Keras 3's `keras.ops.segment_sum` on the active backend."""
    return _on(data, segment_ids, num_segments).segment_sum(data, segment_ids, num_segments, sorted)


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """Keras 3's `keras.ops.stft` on the active backend."""
    return _on(x, sequence_length, sequence_stride, fft_length).stft(
        x, sequence_length, sequence_stride, fft_length, window, center
    )


def top_k(x, k, sorted=True):
    """Keras 3's `keras.ops.top_k` on the active backend."""
    return _on(x, k).top_k(x, k, sorted)


def view_as_complex(x):
    """Keras 3's `keras.ops.view_as_complex` on the active backend."""
    return _on(x).view_as_complex(x)


def view_as_real(x):
    """Keras 3's `keras.ops.view_as_real` on the active backend."""
    return _on(x).view_as_real(x)
