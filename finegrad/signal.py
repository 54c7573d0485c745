"""TensorFlow's ``tf.signal`` namespace: Fourier and cosine transforms over the innermost
axes, their shifts, framing, windows and the short-time Fourier transform."""
from finegrad._src.ops.fft import (fft, ifft, fft2d, ifft2d, fft3d, ifft3d,  # noqa: F401
                                   rfft, irfft, rfft2d, irfft2d, rfft3d, irfft3d)
from finegrad._src.ops.signal_ops import (fftshift, ifftshift, frame,  # noqa: F401
                                          hann_window, hamming_window, kaiser_window,
                                          vorbis_window, kaiser_bessel_derived_window)
from finegrad._src.ops.dct import dct, idct, mfccs_from_log_mel_spectrograms  # noqa: F401
from finegrad._src.ops.spectral import (stft, inverse_stft, inverse_stft_window_fn,  # noqa: F401
                                        overlap_and_add, mdct, inverse_mdct)
from finegrad._src.ops.mel import linear_to_mel_weight_matrix  # noqa: F401
