"""``tf.signal``: the discrete Fourier transforms (`fft`, the primitives), the cosine
transforms (`dct`), the short-time Fourier transform and the MDCT (`spectral`), fftshift,
framing and the windows (`shifts_frames_windows`) and the mel filter bank (`mel`).

Only `fft` is imported here: the other modules declare no primitive (they are written with
`fft` and ordinary ops) and load on first use through ``finegrad.signal``, so that
``import finegrad`` does not pay for them.
"""
from finegrad._src.ops.signal import fft  # noqa: F401
