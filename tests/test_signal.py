"""finegrad.signal against the installed TensorFlow: values, gradients (first and second
order, complex inputs in TensorFlow's conjugate convention, non-holomorphic losses included),
eager and inside `finegrad.function`, complex64/complex128 and float32/float64; then the
errors, and the complex-input numerical checks that need no TensorFlow.

Each loss is written once against a namespace ``lib`` that is finegrad or TensorFlow (their
``signal``, ``math`` and reduction names are the same).
"""
import numpy as np
import pytest

import finegrad as fg
from finegrad.testing import check_gradients

S = fg.signal
RNG = np.random.default_rng(11)
CPLX = {np.float32: np.complex64, np.float64: np.complex128}


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def _z(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _w(shape, seed=0):
    return np.random.default_rng(seed + len(shape)).standard_normal(shape)


def _tol(dtype):
    return dict(rtol=2e-4, atol=2e-4) if dtype in (np.float32, np.complex64) else \
        dict(rtol=1e-10, atol=1e-10)


def _grad(lib, loss, x, order=1):
    """The gradient (order 1), or the gradient of sum |gradient|^2 (order 2), with lib's
    tapes; ``x`` a NumPy array."""
    x = lib.constant(x)
    with lib.GradientTape() as outer:
        outer.watch(x)
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = loss(lib, x)
        g = tape.gradient(y, x)
        h = lib.reduce_sum(lib.math.real(g * lib.math.conj(g)))
    return (y, g) if order == 1 else (h, outer.gradient(h, x))


def _compare(tf, loss, x, traced=False, order=1):
    want_y, want_g = _grad(tf, loss, x, order)
    if traced:
        got_y, got_g = fg.function(lambda x: _grad(fg, loss, x, order))(fg.constant(x))
    else:
        got_y, got_g = _grad(fg, loss, x, order)
    tol = _tol(x.dtype.type)
    np.testing.assert_allclose(got_y.numpy(), want_y.numpy(), **tol)
    assert got_g.dtype.name == want_g.dtype.name
    np.testing.assert_allclose(got_g.numpy(), want_g.numpy(), **tol)


# ---- the complex transforms ------------------------------------------------------------------

_COMPLEX = [("fft", 1), ("ifft", 1), ("fft2d", 2), ("ifft2d", 2), ("fft3d", 3), ("ifft3d", 3)]
_SHAPES = {1: [(5,), (2, 4), (2, 3, 6)], 2: [(3, 4), (2, 2, 5)], 3: [(2, 3, 4), (2, 1, 3, 2)]}


def _complex_losses(fn):
    def power(lib, z):      # non-holomorphic: |fft(z)|^2 weighted
        y = getattr(lib.signal, fn)(z)
        return lib.reduce_sum(lib.math.real(y * lib.math.conj(y)) * _w(y.shape))

    def parts(lib, z):      # the real and imaginary parts weighted apart
        y = getattr(lib.signal, fn)(z)
        return lib.reduce_sum(lib.math.real(y) * _w(y.shape, 1) +
                              lib.math.imag(y) * _w(y.shape, 2))
    return power, parts


_CASES = [(fn, shape, dt) for fn, rank in _COMPLEX for shape in _SHAPES[rank]
          for dt in (np.complex64, np.complex128)]


@pytest.mark.parametrize("fn, shape, dtype", _CASES, ids=[f"{f}-{s}-{d.__name__}"
                                                          for f, s, d in _CASES])
def test_complex_transforms_match_tensorflow(tf, fn, shape, dtype):
    z = _z(shape, dtype)
    got = getattr(S, fn)(fg.constant(z))
    want = getattr(tf.signal, fn)(tf.constant(z))
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))
    for loss in _complex_losses(fn):
        _compare(tf, loss, z)
        _compare(tf, loss, z, traced=True)


@pytest.mark.parametrize("fn", [f for f, _ in _COMPLEX])
def test_complex_transforms_second_order_match_tensorflow(tf, fn):
    z = _z(_SHAPES[3][0])
    power, parts = _complex_losses(fn)
    _compare(tf, power, z, order=2)
    _compare(tf, power, z, traced=True, order=2)


@pytest.mark.parametrize("fn", [f for f, _ in _COMPLEX])
def test_complex_transforms_check_numerically_on_complex_inputs(fn):
    """check_gradients' complex mode (TensorFlow's convention) on complex inputs directly,
    a holomorphic map and a non-holomorphic loss, both modes, order 2."""
    f = getattr(S, fn)
    z = _z((2, 2, 3))
    check_gradients(f, [z])
    check_gradients(lambda z: fg.abs(f(z)) ** 2 * np.arange(12.).reshape(2, 2, 3), [z])


def test_fft_gradient_is_n_times_ifft_of_the_cotangent():
    """TensorFlow's registered gradient: fft -> n * ifft(ct), ifft -> fft(ct) / n."""
    z, ct = fg.constant(_z((2, 4))), _z((2, 4))
    _, vjp = fg.vjp(S.fft, z)
    np.testing.assert_allclose(vjp(fg.constant(ct))[0].numpy(), 4 * np.fft.ifft(ct), atol=1e-12)
    _, vjp = fg.vjp(S.ifft2d, z)
    np.testing.assert_allclose(vjp(fg.constant(ct))[0].numpy(), np.fft.fft2(ct) / 8,
                               atol=1e-12)


# ---- rfft and irfft --------------------------------------------------------------------------

def _rfft_loss(fn, fft_length):
    def loss(lib, x):
        y = getattr(lib.signal, fn)(x, fft_length)
        # weights on imaginary parts too: TensorFlow's treatment of DC and Nyquist shows
        return lib.reduce_sum(lib.math.real(y) * _w(y.shape, 1) +
                              lib.math.imag(y) ** 2 * _w(y.shape, 2))
    return loss


def _irfft_loss(fn, fft_length):
    def loss(lib, z):
        y = getattr(lib.signal, fn)(z, fft_length)
        return lib.reduce_sum(y * _w(y.shape, 3) + y ** 2)
    return loss


# (function, input shape, fft_length): TensorFlow's gradients need fft_length to match the
# input (tested below against finite differences otherwise)
_REAL = [("rfft", (6,), None), ("rfft", (2, 5), None), ("rfft", (2, 3, 4), [4]),
         ("rfft2d", (3, 4), None), ("rfft2d", (2, 3, 5), [3, 5]), ("rfft2d", (2, 4, 4), None),
         ("rfft3d", (2, 3, 4), None), ("rfft3d", (2, 2, 3, 3), [2, 3, 3])]
_INV = [("irfft", (4,), None), ("irfft", (2, 4), [7]), ("irfft", (2, 3, 3), [4]),
        ("irfft2d", (3, 4), None), ("irfft2d", (2, 3, 3), [3, 5]), ("irfft2d", (2, 2, 4), [2, 6]),
        ("irfft3d", (2, 2, 3), None), ("irfft3d", (2, 2, 2, 3), [2, 2, 5])]


@pytest.mark.parametrize("fn, shape, fft_length", _REAL + _INV,
                         ids=[f"{f}-{s}-{n}" for f, s, n in _REAL + _INV])
@pytest.mark.parametrize("real_dtype", [np.float32, np.float64])
def test_real_transforms_match_tensorflow(tf, fn, shape, fft_length, real_dtype):
    inverse = fn.startswith("i")
    x = _z(shape, CPLX[real_dtype]) if inverse else RNG.standard_normal(shape).astype(real_dtype)
    got = getattr(S, fn)(fg.constant(x), fft_length)
    want = getattr(tf.signal, fn)(tf.constant(x), fft_length)
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(real_dtype))
    loss = (_irfft_loss if inverse else _rfft_loss)(fn, fft_length)
    if fn.endswith("3d"):   # TensorFlow registers no gradient for RFFT3D and IRFFT3D
        if real_dtype == np.float64:
            check_gradients(lambda x: loss(fg, x), [x])
        return
    _compare(tf, loss, x)
    _compare(tf, loss, x, traced=True)
    if real_dtype == np.float64:
        _compare(tf, loss, x, order=2)


# crop and pad: values against TensorFlow, gradients against finite differences
_FIT = [("rfft", (2, 6), [4]), ("rfft", (2, 6), [9]), ("rfft2d", (3, 4), [2, 7]),
        ("irfft", (2, 4), [4]), ("irfft", (2, 4), [11]), ("irfft2d", (3, 4), [5, 3]),
        ("rfft3d", (2, 3, 4), [3, 2, 5]), ("irfft3d", (2, 3, 4), [1, 4, 4])]


@pytest.mark.parametrize("fn, shape, fft_length", _FIT, ids=[f"{f}-{s}-{n}" for f, s, n in _FIT])
def test_fft_length_crops_and_pads(tf, fn, shape, fft_length):
    inverse = fn.startswith("i")
    x = _z(shape) if inverse else RNG.standard_normal(shape)
    got = getattr(S, fn)(fg.constant(x), fft_length)
    want = getattr(tf.signal, fn)(tf.constant(x), fft_length)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-12)
    f = getattr(S, fn)
    if inverse:
        check_gradients(lambda z: f(z, fft_length), [x])
    else:
        check_gradients(lambda x: fg.math.real(f(x, fft_length)) * 2 +
                        fg.math.imag(f(x, fft_length)), [x])


def test_rfft_gradient_is_tensorflows_formula():
    """TensorFlow's RFFT gradient: (n irfft(ct) + Re(ct_0) + Re(ct_{n/2}) (-1)^k) / 2."""
    x, ct = fg.constant(RNG.standard_normal(6)), _z(4)
    _, vjp = fg.vjp(S.rfft, x)
    want = 0.5 * (6 * np.fft.irfft(ct, 6) + ct[0].real + ct[3].real * (-1.) ** np.arange(6))
    np.testing.assert_allclose(vjp(fg.constant(ct))[0].numpy(), want, atol=1e-12)


def test_real_transforms_round_trip():
    x = RNG.standard_normal((2, 3, 5))
    np.testing.assert_allclose(S.irfft(S.rfft(x), [5]).numpy(), x, atol=1e-12)
    np.testing.assert_allclose(S.irfft2d(S.rfft2d(x), [3, 5]).numpy(), x, atol=1e-12)
    assert S.rfft(x.astype(np.float32)).dtype == fg.complex64
    assert S.irfft(S.rfft(x.astype(np.float32))).dtype == fg.float32


# ---- shifts, frames, windows -----------------------------------------------------------------

_SHIFTS = [((5,), None), ((4, 5), None), ((4, 5), 1), ((3, 4, 5), [0, -1]), ((3, 4), [])]


@pytest.mark.parametrize("shape, axes", _SHIFTS, ids=[f"{s}-{a}" for s, a in _SHIFTS])
@pytest.mark.parametrize("fn", ["fftshift", "ifftshift"])
def test_shifts_match_tensorflow(tf, fn, shape, axes):
    x = RNG.standard_normal(shape)
    want = getattr(tf.signal, fn)(tf.constant(x), axes=axes)
    np.testing.assert_array_equal(getattr(S, fn)(fg.constant(x), axes=axes).numpy(),
                                  want.numpy())

    def loss(lib, x):
        return lib.reduce_sum(getattr(lib.signal, fn)(x, axes=axes) * _w(shape))
    _compare(tf, loss, x)
    _compare(tf, loss, x, traced=True)


_FRAMES = [((7,), 3, 2, False, 0, -1), ((7,), 3, 2, True, -1.5, -1), ((2, 9), 4, 3, True, 0, 1),
           ((6, 2), 2, 1, False, 0, 0), ((2, 5, 3), 2, 2, True, 2.0, -2), ((3,), 4, 1, False, 0, 0),
           ((3,), 4, 2, True, 0, 0), ((2, 8), 8, 8, False, 0, -1)]


@pytest.mark.parametrize("shape, length, step, pad_end, pad_value, axis", _FRAMES,
                         ids=[str(c) for c in _FRAMES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_frame_matches_tensorflow(tf, shape, length, step, pad_end, pad_value, axis, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    kw = dict(frame_length=length, frame_step=step, pad_end=pad_end, pad_value=pad_value,
              axis=axis)
    want = tf.signal.frame(tf.constant(x), **kw)
    got = S.frame(fg.constant(x), **kw)
    assert got.shape == tuple(want.shape) and got.dtype.name == want.dtype.name
    np.testing.assert_array_equal(got.numpy(), want.numpy())

    def loss(lib, x):
        y = lib.signal.frame(x, **kw)
        return lib.reduce_sum(y * y * _w(tuple(y.shape)).astype(dtype))
    _compare(tf, loss, x)
    _compare(tf, loss, x, traced=True)


@pytest.mark.parametrize("fn", ["hann_window", "hamming_window"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_tensorflow(tf, fn, dtype, periodic):
    for n in range(8):
        want = getattr(tf.signal, fn)(n, periodic=periodic, dtype=getattr(tf, dtype))
        got = getattr(S, fn)(n, periodic=periodic, dtype=getattr(fg, dtype))
        assert got.dtype.name == dtype and got.shape == (n,)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kaiser_kbd_and_vorbis_windows_match_tensorflow(tf, dtype):
    for n in range(8):
        for beta in (0.0, 2.5, 12.0, 800.0) if n else ():   # TensorFlow's fails on length 0
            want = tf.signal.kaiser_window(n, beta=beta, dtype=getattr(tf, dtype))
            got = S.kaiser_window(n, beta=beta, dtype=getattr(fg, dtype))
            assert got.dtype.name == dtype and got.shape == (n,)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-7)
        for beta in (0.0, 2.5, 12.0):
            want = tf.signal.kaiser_bessel_derived_window(n, beta=beta, dtype=getattr(tf, dtype))
            got = S.kaiser_bessel_derived_window(n, beta=beta, dtype=getattr(fg, dtype))
            assert got.dtype.name == dtype and got.shape == tuple(want.shape)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-7)
        want = tf.signal.vorbis_window(n, dtype=getattr(tf, dtype))
        got = S.vorbis_window(n, dtype=getattr(fg, dtype))
        assert got.dtype.name == dtype and got.shape == (n,)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("shape", [(5,), (2, 3, 8)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mfccs_match_tensorflow(tf, shape, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    want = tf.signal.mfccs_from_log_mel_spectrograms(tf.constant(x))
    got = S.mfccs_from_log_mel_spectrograms(fg.constant(x))
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))

    def loss(lib, x):
        y = lib.signal.mfccs_from_log_mel_spectrograms(x)
        return lib.reduce_sum(y * y * _w(shape).astype(dtype))
    _compare(tf, loss, x)
    _compare(tf, loss, x, traced=True)


_MEL = [dict(), dict(num_mel_bins=8, num_spectrogram_bins=33, sample_rate=16000,
                     lower_edge_hertz=0.0, upper_edge_hertz=8000.0),
        dict(num_mel_bins=3, num_spectrogram_bins=2, sample_rate=100, lower_edge_hertz=10,
             upper_edge_hertz=40)]


@pytest.mark.parametrize("kw", _MEL, ids=[str(k) for k in _MEL])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_to_mel_weight_matrix_matches_tensorflow(tf, kw, dtype):
    want = tf.signal.linear_to_mel_weight_matrix(**kw, dtype=getattr(tf, dtype))
    got = S.linear_to_mel_weight_matrix(**kw, dtype=getattr(fg, dtype))
    assert got.dtype.name == dtype and got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_signal_ops_inside_function():
    @fg.function
    def spectrum(x):
        frames = S.frame(x, 4, 2) * S.hann_window(4, dtype=fg.float64)
        return S.fftshift(fg.abs(S.rfft(frames)), axes=-1)
    x = RNG.standard_normal(10)
    frames = np.stack([x[i:i + 4] for i in range(0, 7, 2)]) * S.hann_window(4, dtype=fg.float64)
    want = np.fft.fftshift(np.abs(np.fft.rfft(frames)), axes=-1)
    np.testing.assert_allclose(spectrum(fg.constant(x)).numpy(), want, atol=1e-12)


# ---- dct, idct, stft ------------------------------------------------------------------------

_DCT = [(t, norm, n) for t in (1, 2, 3, 4) for norm in (None, "ortho") for n in (None, 3, 7)
        if not (t == 1 and norm)]


@pytest.mark.parametrize("kind", ["dct", "idct"])
@pytest.mark.parametrize("type_, norm, n", _DCT, ids=[str(c) for c in _DCT])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dct_matches_tensorflow(tf, kind, type_, norm, n, dtype):
    x = RNG.standard_normal((2, 3, 5)).astype(dtype)
    kw = dict(type=type_, norm=norm, n=n)
    got = getattr(S, kind)(fg.constant(x), **kw)
    want = getattr(tf.signal, kind)(tf.constant(x), **kw)
    assert got.dtype.name == want.dtype.name and got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))

    def loss(lib, x):
        y = getattr(lib.signal, kind)(x, **kw)
        return lib.reduce_sum(y * _w(tuple(y.shape)) + y ** 2 * 0.1)
    _compare(tf, loss, x)
    if dtype == np.float64 and n is None:
        _compare(tf, loss, x, traced=True)
        _compare(tf, loss, x, order=2)


_STFT = [((2, 16), 5, 3, None, True, False), ((16,), 8, 4, 8, True, True),
         ((2, 1, 12), 4, 4, 6, False, False)]


@pytest.mark.parametrize("shape, length, step, fft_length, window, pad_end", _STFT,
                         ids=[str(c) for c in _STFT])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stft_matches_tensorflow(tf, shape, length, step, fft_length, window, pad_end, dtype):
    x = RNG.standard_normal(shape).astype(dtype)

    def kw(lib):
        return dict(frame_length=length, frame_step=step, fft_length=fft_length,
                    window_fn=lib.signal.hann_window if window else None, pad_end=pad_end)
    got = S.stft(fg.constant(x), **kw(fg))
    want = tf.signal.stft(tf.constant(x), **kw(tf))
    assert got.dtype.name == want.dtype.name and got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))

    def loss(lib, x):
        y = lib.signal.stft(x, **kw(lib))
        return lib.reduce_sum(lib.math.real(y * lib.math.conj(y)) * _w(tuple(y.shape)))
    _compare(tf, loss, x)
    _compare(tf, loss, x, traced=True)


_OLA = [((3, 4), 2), ((2, 3, 5), 3), ((1, 2, 4, 2), 4), ((2, 3), 1), ((0, 3), 2)]


@pytest.mark.parametrize("shape, step", _OLA, ids=[str(c) for c in _OLA])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_overlap_and_add_matches_tensorflow(tf, shape, step, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    want = tf.signal.overlap_and_add(tf.constant(x), step)
    got = S.overlap_and_add(fg.constant(x), step)
    assert got.shape == tuple(want.shape) and got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))

    def loss(lib, x):
        y = lib.signal.overlap_and_add(x, step)
        return lib.reduce_sum(y * y * _w(tuple(y.shape)).astype(dtype))
    if x.size:
        _compare(tf, loss, x)
        _compare(tf, loss, x, traced=True)


_ISTFT = [((2, 5, 5), 8, 4, None, "inverse"), ((7, 3), 4, 2, 4, "hann"),
          ((2, 4, 5), 6, 3, 8, None), ((3, 9), 16, 8, 16, "inverse"), ((4, 3), 6, 2, 4, "hann")]


@pytest.mark.parametrize("shape, length, step, fft_length, window", _ISTFT,
                         ids=[str(c) for c in _ISTFT])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_inverse_stft_matches_tensorflow(tf, shape, length, step, fft_length, window, dtype):
    z = _z(shape, dtype)

    def kw(lib):
        fn = {None: None, "hann": lib.signal.hann_window,
              "inverse": lib.signal.inverse_stft_window_fn(step)}[window]
        return dict(frame_length=length, frame_step=step, fft_length=fft_length, window_fn=fn)
    want = tf.signal.inverse_stft(tf.constant(z), **kw(tf))
    got = S.inverse_stft(fg.constant(z), **kw(fg))
    assert got.shape == tuple(want.shape) and got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))

    def loss(lib, z):
        y = lib.signal.inverse_stft(z, **kw(lib))
        return lib.reduce_sum(y * _w(tuple(y.shape)) + y ** 2)
    _compare(tf, loss, z)
    _compare(tf, loss, z, traced=True)


@pytest.mark.parametrize("length, step", [(4, 2), (5, 2), (8, 3), (6, 6), (3, 5)])
def test_inverse_stft_window_matches_tensorflow_and_reconstructs(tf, length, step):
    for fwd in ("hann_window", "hamming_window"):
        want = tf.signal.inverse_stft_window_fn(step, getattr(tf.signal, fwd))(
            length, dtype=tf.float64)
        got = S.inverse_stft_window_fn(step, getattr(S, fwd))(length, dtype=fg.float64)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    x = RNG.standard_normal(40)
    s = S.stft(x, 8, 2)
    y = S.inverse_stft(s, 8, 2, window_fn=S.inverse_stft_window_fn(2))
    np.testing.assert_allclose(y.numpy()[8:-8], x[8:len(y.numpy()) - 8], atol=1e-12)


_MDCT = [((16,), 8, "vorbis", False, None), ((2, 13), 4, None, True, "ortho"),
         ((2, 1, 20), 8, "hann", True, None)]


@pytest.mark.parametrize("shape, length, window, pad_end, norm", _MDCT,
                         ids=[str(c) for c in _MDCT])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mdct_and_inverse_match_tensorflow(tf, shape, length, window, pad_end, norm, dtype):
    x = RNG.standard_normal(shape).astype(dtype)

    def fn(lib):
        return {None: None, "vorbis": lib.signal.vorbis_window,
                "hann": lib.signal.hann_window}[window]
    want = tf.signal.mdct(tf.constant(x), length, window_fn=fn(tf), pad_end=pad_end, norm=norm)
    got = S.mdct(fg.constant(x), length, window_fn=fn(fg), pad_end=pad_end, norm=norm)
    assert got.shape == tuple(want.shape) and got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))
    m = want.numpy()
    want = tf.signal.inverse_mdct(tf.constant(m), window_fn=fn(tf), norm=norm)
    got = S.inverse_mdct(fg.constant(m), window_fn=fn(fg), norm=norm)
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))

    def loss(lib, x):
        y = lib.signal.mdct(x, length, window_fn=fn(lib), pad_end=pad_end, norm=norm)
        back = lib.signal.inverse_mdct(y * y, window_fn=fn(lib), norm=norm)
        return lib.reduce_sum(back * _w(tuple(back.shape)).astype(dtype))
    _compare(tf, loss, x)
    _compare(tf, loss, x, traced=True)


def test_dct_errors():
    x = fg.ones((2, 4))
    for kw, kind, pattern in (
            (dict(type=5), ValueError, r"argument 'type' must be 1, 2, 3 or 4, got 5"),
            (dict(norm="l2"), ValueError, r"argument 'norm' must be None or 'ortho', got 'l2'"),
            (dict(type=1, norm="ortho"), ValueError, r"argument 'norm' must be None for type 1"),
            (dict(n=0), ValueError, r"argument 'n' must be a positive integer or None, got 0"),
            (dict(axis=0), NotImplementedError, r"argument 'axis' must be -1")):
        with pytest.raises(kind, match=r"finegrad\.signal\.dct: " + pattern):
            S.dct(x, **kw)
    with pytest.raises(TypeError, match=r"finegrad\.signal\.idct: argument 'input' must be "
                                        r"float32 or float64, got int32"):
        S.idct(fg.constant([1, 2]))
    with pytest.raises(ValueError, match=r"finegrad\.signal\.dct: type 1 needs at least 2"):
        S.dct(fg.ones(1), type=1)
    with pytest.raises(TypeError, match=r"finegrad\.signal\.stft: argument 'signals' must be "
                                        r"float32 or float64, got complex64"):
        S.stft(fg.ones(8, fg.complex64), 4, 2)
    with pytest.raises(ValueError, match=r"finegrad\.signal\.mdct: argument 'frame_length' "
                                         r"must be a multiple of 4, got 6"):
        S.mdct(fg.ones(12), 6)
    with pytest.raises(TypeError, match=r"finegrad\.signal\.inverse_stft: argument 'stfts' "
                                        r"must be complex64 or complex128, got float32"):
        S.inverse_stft(fg.ones((2, 3)), 4, 2)
    with pytest.raises(ValueError, match=r"finegrad\.signal\.overlap_and_add: argument "
                                         r"'signal' must have rank at least 2, got shape \(3,\)"):
        S.overlap_and_add(fg.ones(3), 1)


# ---- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [f for f, _ in _COMPLEX])
def test_complex_transforms_refuse_real_input(fn):
    with pytest.raises(TypeError, match=rf"finegrad\.signal\.{fn}: argument 'input' must be "
                                        r"complex64 or complex128, got float32"):
        getattr(S, fn)(fg.ones((2, 2, 2)))


def test_transform_errors():
    with pytest.raises(ValueError, match=r"finegrad\.signal\.fft2d: argument 'input' must "
                                         r"have rank at least 2, got shape \(3,\)"):
        S.fft2d(fg.constant([1j, 2j, 3j]))
    with pytest.raises(TypeError, match=r"finegrad\.signal\.rfft: argument 'input_tensor' must "
                                        r"be float32 or float64, got complex128"):
        S.rfft(fg.constant([1j]))
    with pytest.raises(TypeError, match=r"finegrad\.signal\.irfft2d: argument 'input_tensor' "
                                        r"must be complex64 or complex128, got float32"):
        S.irfft2d(fg.ones((2, 2)))
    with pytest.raises(ValueError, match=r"finegrad\.signal\.rfft2d: argument 'fft_length' "
                                         r"must be 2 positive integer\(s\), got \[4\]"):
        S.rfft2d(fg.ones((2, 2)), [4])
    with pytest.raises(ValueError, match=r"finegrad\.signal\.irfft: .*'fft_length'.*got \[0\]"):
        S.irfft(fg.constant([1j, 2j]), [0])


def test_signal_helper_errors():
    with pytest.raises(TypeError, match=r"finegrad\.signal\.frame: argument 'frame_length' "
                                        r"must be an integer, got 2\.5"):
        S.frame(fg.ones(4), 2.5, 1)
    with pytest.raises(ValueError, match=r"finegrad\.signal\.frame: argument 'frame_step' "
                                         r"must be at least 1, got 0"):
        S.frame(fg.ones(4), 2, 0)
    with pytest.raises(ValueError, match=r"finegrad\.signal\.frame: argument 'signal' must "
                                         r"have rank at least 1"):
        S.frame(fg.constant(1.), 2, 1)
    with pytest.raises(TypeError, match=r"finegrad\.signal\.fftshift: argument 'axes' must be "
                                        r"an int or a list of ints, got 0\.5"):
        S.fftshift(fg.ones(4), axes=0.5)
    with pytest.raises(ValueError, match=r"finegrad\.signal\.hann_window: argument 'dtype' "
                                         r"must be a floating dtype, got int32"):
        S.hann_window(4, dtype=fg.int32)
    with pytest.raises(ValueError, match=r"finegrad\.signal\.mfccs_from_log_mel_spectrograms: "
                                         r"argument 'log_mel_spectrograms' must have at least"):
        S.mfccs_from_log_mel_spectrograms(fg.ones((2, 0)))
    with pytest.raises(TypeError, match=r"finegrad\.signal\.mfccs_from_log_mel_spectrograms: "
                                        r"argument 'log_mel_spectrograms' must be float32"):
        S.mfccs_from_log_mel_spectrograms(fg.constant([1, 2]))
    with pytest.raises(ValueError, match=r"finegrad\.signal\.linear_to_mel_weight_matrix: "
                                         r"argument 'upper_edge_hertz' must not exceed"):
        S.linear_to_mel_weight_matrix(upper_edge_hertz=5000.)
    with pytest.raises(ValueError, match=r"finegrad\.signal\.linear_to_mel_weight_matrix: "
                                         r"argument 'lower_edge_hertz' must be below"):
        S.linear_to_mel_weight_matrix(lower_edge_hertz=300., upper_edge_hertz=200.)
    with pytest.raises(ValueError, match=r"finegrad\.signal\.hamming_window: argument "
                                         r"'window_length' must be at least 0, got -1"):
        S.hamming_window(-1)


def test_signal_helpers_load_on_first_use():
    """``import finegrad`` registers the transforms' primitives but leaves the helpers built
    on them (dct, stft, windows, mel) unloaded until a name is used."""
    import subprocess
    import sys
    code = ("import sys, finegrad as fg\n"
            "from finegrad._src.core import primitives\n"
            "mods = [f'finegrad._src.ops.signal.{m}'\n"
            "        for m in ('shifts_frames_windows', 'dct', 'spectral', 'mel')]\n"
            "print({'fft', 'rfft', 'irfft'} <= set(primitives()),\n"
            "      any(m in sys.modules for m in mods))\n"
            "print(float(fg.signal.dct(fg.constant([1., 2.]))[0]), 'dct' in dir(fg.signal))\n"
            "print(all(m in sys.modules for m in mods[1:2]))\n"
            "try:\n    fg.signal.nothing\nexcept AttributeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[:4] == ["True False", "6.0 True", "True",
                       "module 'finegrad.signal' has no attribute 'nothing'"]
