"""The math group of Keras 3's `keras.ops` (Keras has no `keras.ops.math` module; these
names are at `finegrad.ops`'s top level too)."""
from finegrad._src.backends.dispatch.math import (  # noqa: F401
    cdist, erf, erfc, erfinv, extract_sequences, fft, fft2, ifft2, in_top_k, irfft, istft,
    logdet, logsumexp, rfft, rsqrt, segment_max, segment_min, segment_prod, segment_sum, stft,
    top_k, view_as_complex, view_as_real)

__all__ = """
cdist erf erfc erfinv extract_sequences fft fft2 ifft2 in_top_k irfft istft logdet logsumexp
rfft rsqrt segment_max segment_min segment_prod segment_sum stft top_k view_as_complex
view_as_real
""".split()
