"""Op-table rows for ``finegrad.signal`` (registered into the shared table by `op_specs`,
which imports this module). Complex transforms take real inputs ``a, b``, build
``complex(a, b)`` and return the real and imaginary parts of the result, so the finite
differences are over real numbers and TensorFlow's conjugate convention is checked through
the whole chain; tests/test_signal.py also checks complex inputs directly."""
import finegrad as fg

from op_table import OpSpec, _add, _named

S = fg.signal
_C = ("complex", "real", "imag")


def _parts(w):
    return fg.math.real(w), fg.math.imag(w)


def _complex_in(label, fn, shapes, prims):
    return OpSpec(_named(label, lambda a, b: _parts(fn(fg.complex(a, b)))), nargs=2,
                  shapes=tuple((s, s) for s in shapes), prims=_C + prims)


_R1, _R2, _R3 = ((3,), (2, 4)), ((2, 3), (2, 2, 3)), ((2, 2, 3), (2, 1, 2, 2))
_add(*(_complex_in(f"signal.{f.__name__}", f, shapes, ("fft",))
       for f, shapes in ((S.fft, _R1), (S.ifft, _R1), (S.fft2d, _R2), (S.ifft2d, _R2),
                         (S.fft3d, _R3), (S.ifft3d, _R3))))

_add(
    OpSpec(_named("signal.rfft", lambda x: _parts(S.rfft(x))), shapes=((4,), (2, 5)),
           prims=("rfft", "real", "imag")),
    OpSpec(_named("signal.rfft(crop,pad)", lambda x: _parts(S.rfft(x, [3]) + S.rfft(x, [7])[
        ..., :2])), shapes=((2, 5),), prims=("rfft", "real", "imag", "concat")),
    OpSpec(_named("signal.rfft2d", lambda x: _parts(S.rfft2d(x))), shapes=((2, 4), (2, 3, 3)),
           prims=("rfft", "real", "imag")),
    OpSpec(_named("signal.rfft2d(fft_length)", lambda x: _parts(S.rfft2d(x, [4, 2]))),
           shapes=((3, 3),), prims=("rfft", "real", "imag")),
    _complex_in("signal.irfft", S.irfft, ((3,), (2, 4)), ("irfft",)),
    _complex_in("signal.irfft(odd)", lambda z: S.irfft(z, [5]), ((3,), (2, 4)), ("irfft",)),
    _complex_in("signal.irfft2d", S.irfft2d, ((2, 3), (2, 3, 2)), ("irfft",)),
    OpSpec(_named("signal.rfft3d", lambda x: _parts(S.rfft3d(x, [2, 3, 3]))),
           shapes=((2, 2, 3),), prims=("rfft", "real", "imag")),
    _complex_in("signal.irfft3d", S.irfft3d, ((1, 2, 2),), ("irfft",)),
    _complex_in("signal.irfft2d(fft_length)", lambda z: S.irfft2d(z, [3, 3]), ((2, 3),),
                ("irfft",)),
    OpSpec(_named("signal.frame", lambda x: S.frame(x, 3, 2)), shapes=((5,), (2, 6)),
           prims=("gather",)),
    OpSpec(_named("signal.frame(pad_end,axis)", lambda x: S.frame(x, 2, 2, pad_end=True,
                                                                  pad_value=1.5, axis=0)),
           shapes=((3, 2),), prims=("gather", "concat")),
    OpSpec(_named("signal.fftshift", lambda x: S.ifftshift(S.fftshift(x) * x, axes=0)),
           shapes=((3,), (3, 4)), prims=("concat", "multiply")),
)

# dct, idct and stft are built on rfft/irfft: rows for each type and normalization
_add(*(OpSpec(_named(f"signal.dct(type={t},norm={norm})",
                     lambda x, t=t, norm=norm: S.dct(x, type=t, norm=norm)),
              shapes=((2, 4), (5,)), prims=(p,))
       for t, norm, p in ((1, None, "rfft"), (2, None, "rfft"), (2, "ortho", "rfft"),
                          (3, None, "irfft"), (3, "ortho", "irfft"), (4, "ortho", "rfft"))),
     OpSpec(_named("signal.idct(n=6)", lambda x: S.idct(x, n=6, norm="ortho")), shapes=((2, 4),),
            prims=("irfft",)),
     OpSpec(_named("signal.stft", lambda x: _parts(S.stft(x, 4, 2, pad_end=True))),
            shapes=((2, 7),), prims=("rfft", "gather", "real", "imag")))
_add(OpSpec(_named("signal.overlap_and_add", lambda x: S.overlap_and_add(x, 2)),
            shapes=((3, 4), (2, 2, 3)), prims=("transpose", "gather_transpose")),
     _complex_in("signal.inverse_stft", lambda z: S.inverse_stft(z, 4, 2), ((2, 3, 3),),
                 ("irfft", "gather_transpose")))
_add(OpSpec(_named("signal.mfccs_from_log_mel_spectrograms", S.mfccs_from_log_mel_spectrograms),
            shapes=((2, 4),), prims=("rfft",)))
_add(OpSpec(_named("signal.mdct", lambda x: S.inverse_mdct(S.mdct(x, 4) ** 2)), shapes=((2, 8),),
            prims=("rfft", "gather", "gather_transpose")))
