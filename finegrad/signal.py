"""TensorFlow's ``tf.signal`` namespace: Fourier and cosine transforms over the innermost
axes, their shifts, framing, windows and the short-time Fourier transform.

The Fourier transforms (the primitives) load with finegrad; the rest, written with them,
loads on first use, so that ``import finegrad`` does not pay for it.
"""
import importlib as _importlib

from finegrad._src.ops.signal.fft import (fft, ifft, fft2d, ifft2d, fft3d, ifft3d,
                                          rfft, irfft, rfft2d, irfft2d, rfft3d, irfft3d)

# public name -> the module of finegrad._src.ops that defines it (imported on first use)
_ON_FIRST_USE = {
    **dict.fromkeys(("fftshift", "ifftshift", "frame", "hann_window", "hamming_window",
                     "kaiser_window", "vorbis_window", "kaiser_bessel_derived_window"),
                    "signal.shifts_frames_windows"),
    **dict.fromkeys(("dct", "idct", "mfccs_from_log_mel_spectrograms"), "signal.dct"),
    **dict.fromkeys(("stft", "inverse_stft", "inverse_stft_window_fn", "overlap_and_add",
                     "mdct", "inverse_mdct"), "signal.spectral"),
    "linear_to_mel_weight_matrix": "signal.mel",
}


__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", *sorted(_ON_FIRST_USE)]


def __getattr__(name):
    module = _ON_FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module 'finegrad.signal' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"finegrad._src.ops.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_ON_FIRST_USE))
