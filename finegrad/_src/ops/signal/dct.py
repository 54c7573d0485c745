"""Discrete cosine transforms (``tf.signal.dct``, ``idct``), written with the real FFTs of
`fft` and ordinary ops, so their gradients (TensorFlow's: the adjoints) and derivatives of any
order follow.

For a signal ``x`` of length ``N`` along the last axis (SciPy's definitions, which
TensorFlow's follow):

- type I: ``rfft`` of the even extension ``[x, reverse(x[1:-1])]`` (length ``2N - 2``);
- type II: ``2 Re(exp(-i pi k / 2N) rfft(x, 2N)_k)``;
- type III: ``2N irfft(x_k exp(i pi k / 2N), 2N)[:N]``;
- type IV: the odd coefficients of type II of ``x`` zero-padded to ``2N``.

``norm='ortho'`` scales them to orthonormal maps (types II, III and IV).
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims
from finegrad._src.ops.array.structural import _t, concat
from finegrad._src.ops.math.complex_numbers import complex as make_complex, real
from finegrad._src.ops.signal.fft import irfft, pad_axis_end, rfft
from finegrad._src.ops.array.manipulation import reverse

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor


def _check_dct_args(x, type, n, axis, norm, name):  # TensorFlow's keyword
    if x._value.dtype not in (np.float32, np.float64):
        raise TypeError(f"{name}: argument 'input' must be float32 or float64, got "
                        f"{x.dtype.name}")
    if x._value.ndim < 1:
        raise ValueError(f"{name}: argument 'input' must have rank at least 1, got a scalar")
    if type not in (1, 2, 3, 4) or isinstance(type, bool):
        raise ValueError(f"{name}: argument 'type' must be 1, 2, 3 or 4, got {type!r}")
    if norm not in (None, "ortho"):
        raise ValueError(f"{name}: argument 'norm' must be None or 'ortho', got {norm!r}")
    if type == 1 and norm == "ortho":
        raise ValueError(f"{name}: argument 'norm' must be None for type 1 (TensorFlow has "
                         f"no orthonormal type-I DCT), got 'ortho'")
    if axis != -1:
        raise NotImplementedError(f"{name}: argument 'axis' must be -1 (TensorFlow's "
                                  f"transforms the last axis only), got {axis!r}")
    if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer))
                          or n < 1):
        raise ValueError(f"{name}: argument 'n' must be a positive integer or None, got "
                         f"{n!r}")


def _fit_last(x, n, name):
    """``x`` cropped or zero-padded to ``n`` along the last axis; returns it and its length."""
    size, = dims.pin([core.shape_of(x)[-1]], f"{name} along a dynamic axis")
    if n is None or n == size:
        return x, size
    return (x[..., :n] if n < size else pad_axis_end(x, -1, n - size)), n


def _dct1(x, size, name):
    if size < 2:
        raise ValueError(f"{name}: type 1 needs at least 2 points along the last axis, "
                         f"got {size}")
    extended = concat([x, reverse(x[..., 1:-1], [-1])], axis=-1) if size > 2 else x
    return real(rfft(extended))


def _dct2(x, size, ortho):
    k = np.arange(size)
    twiddle = 2 * np.exp(-0.5j * np.pi * k / size)
    if ortho:
        twiddle = twiddle * np.where(k == 0, np.sqrt(0.25 / size), np.sqrt(0.5 / size))
    spectrum = rfft(x, [2 * size])[..., :size]
    return real(spectrum * twiddle.astype(spectrum._value.dtype))


def _dct3(x, size, ortho):
    k = np.arange(size)
    scale = np.where(k == 0, np.sqrt(1 / size), np.sqrt(0.5 / size)) if ortho else 1.0
    twiddle = (2 * size * scale * np.exp(0.5j * np.pi * k / size))
    z = make_complex(x, x * 0)
    return irfft(z * twiddle.astype(z._value.dtype), [2 * size])[..., :size]


def _dct4(x, size, ortho):
    out = _dct2(pad_axis_end(x, -1, size), 2 * size, False)[..., 1::2]
    return out * x._value.dtype.type(np.sqrt(0.5 / size)) if ortho else out


def _transform(input, type, n, axis, norm, name):  # TensorFlow's keywords
    x = _t(input)
    _check_dct_args(x, type, n, axis, norm, name)
    x, size = _fit_last(x, n, name)
    if type == 1:
        return _dct1(x, size, name)
    if type == 2:
        return _dct2(x, size, norm == "ortho")
    if type == 3:
        return _dct3(x, size, norm == "ortho")
    return _dct4(x, size, norm == "ortho")


def dct(input: TensorLike, type: int = 2, n: Any = None, axis: int = -1,
        norm: Any = None, name: str | None = None) -> Tensor:
    """The discrete cosine transform of ``type`` (1 to 4) along the last axis, SciPy's and
    TensorFlow's definitions: type II is ``2 sum_n x_n cos(pi k (2n + 1) / 2N)``. ``n``
    crops or zero-pads the signal first; ``norm='ortho'`` makes types II-IV orthonormal.
    Differentiable (built on `rfft`/`irfft`).

    >>> import finegrad as fg
    >>> fg.signal.dct(fg.constant([1., 2., 3.])).numpy().round(4)
    array([12.    , -3.4641,  0.    ], dtype=float32)

    Raises:
        TypeError: for an input that is not float32 or float64.
        ValueError: for a bad ``type``, ``n`` or ``norm`` (``'ortho'`` with type 1), or type
            1 on fewer than 2 points. NotImplementedError: ``axis`` other than -1.
    """
    return _transform(input, type, n, axis, norm, "finegrad.signal.dct")


def idct(input: TensorLike, type: int = 2, n: Any = None, axis: int = -1,
         norm: Any = None, name: str | None = None) -> Tensor:
    """The inverse DCT, as TensorFlow's: the `dct` of the inverse type (III for II, II for
    III, I and IV themselves). With ``norm='ortho'`` it inverts `dct` exactly; without, the
    result is the inverse scaled by ``2N`` (``2(N - 1)`` for type I).

    >>> import finegrad as fg
    >>> x = fg.constant([1., 2., 3.])
    >>> fg.signal.idct(fg.signal.dct(x, norm="ortho"), norm="ortho").numpy().round(4)
    array([1., 2., 3.], dtype=float32)

    Raises:
        TypeError, ValueError, NotImplementedError: as `dct`.
    """
    inverse = {1: 1, 2: 3, 3: 2, 4: 4}.get(type, type)
    return _transform(input, inverse, n, axis, norm, "finegrad.signal.idct")


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms: Any, name: str | None = None) -> Tensor:
    """Mel-frequency cepstral coefficients: the type-II `dct` of the last axis scaled by
    ``1 / sqrt(2 num_mel_bins)`` (orthonormal but for the first coefficient, as
    TensorFlow's). Differentiable.

    >>> import finegrad as fg
    >>> fg.signal.mfccs_from_log_mel_spectrograms(fg.ones((1, 2))).numpy()
    array([[2., 0.]], dtype=float32)

    Raises:
        TypeError: for an input that is not float32 or float64.
        ValueError: for a scalar or an empty last axis.
    """
    name = "finegrad.signal.mfccs_from_log_mel_spectrograms"
    x = _t(log_mel_spectrograms)
    if x._value.ndim >= 1 and x._value.shape[-1] == 0:
        raise ValueError(f"{name}: argument 'log_mel_spectrograms' must have at least one "
                         f"mel bin on its last axis, got shape {tuple(x._value.shape)}")
    try:
        _check_dct_args(x, 2, None, -1, None, name)
    except (TypeError, ValueError) as e:
        raise type(e)(str(e).replace("'input'", "'log_mel_spectrograms'")) from None
    x, size = _fit_last(x, None, name)
    return _dct2(x, size, False) * x._value.dtype.type(1 / np.sqrt(2 * size))
