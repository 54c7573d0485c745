"""Discrete Fourier transforms over the innermost axes (TensorFlow's ``tf.signal.fft`` family).

Three primitives, each a linear map with its rank (how many innermost axes) as a parameter:

- ``fft`` (``inverse`` False or True): the complex transform and its inverse, which divides by
  the number of points ``n``, as NumPy's and TensorFlow's. Complex-linear, so in TensorFlow's
  gradient convention (`complex_numbers`) the VJP is the adjoint: ``n * ifft(ct)`` for ``fft``
  and ``fft(ct) / n`` for ``ifft``, TensorFlow's registered gradients.
- ``rfft``: real input whose inner axes are exactly ``fft_length`` (the public function crops
  or zero-pads first, with differentiable ops), to the ``fft_length[-1] // 2 + 1``
  non-redundant coefficients. Its VJP is the adjoint for the real inner product,
  ``Re(n * ifftn(ct padded with zeros to the full spectrum))``, which is TensorFlow's gradient
  (TensorFlow writes it as ``(n * irfft(ct) + the DC and Nyquist terms) / 2``).
- ``irfft``: the half spectrum (inner axes exactly ``fft_length[:-1]`` and
  ``fft_length[-1] // 2 + 1``) to a real signal of ``fft_length``; the imaginary parts of the
  DC and (for even lengths) Nyquist coefficients are ignored. Its VJP is
  ``rfft(ct) * mask / n`` with ``mask`` 1 at DC and Nyquist and 2 elsewhere, TensorFlow's.

Every JVP is the op applied to the tangent. All rules are written with the primitives
themselves, so derivatives of any order follow.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import _t, broadcast_to, concat, zeros_like
from finegrad._src.ops.math.complex_numbers import _complex_dtype, conj, real
from finegrad._src.ops.array.manipulation import pad
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike



def _public_name(stem, rank, inverse=False):
    """``finegrad.signal.<name>`` of a transform: ``fft``, ``ifft2d``, ``rfft3d``, ..."""
    return f"finegrad.signal.{'i' if inverse else ''}{stem}{'' if rank == 1 else f'{rank}d'}"


def _inner_size(shape, rank):
    return int(np.prod(shape[len(shape) - rank:], dtype=np.int64))


def _axes(rank):
    return tuple(range(-rank, 0))


def _vmap_same(prim):
    """The ops act on innermost axes: a batch at axis 0 is one more outer axis."""
    return lambda args, batched, **params: bind(prim, args[0], **params)


# ---- fft and ifft ----------------------------------------------------------------------------

fft_p = Primitive("fft", batch_rule=True, fresh=True, shape_rule=core.same_shape_rule)


@fft_p.def_impl
def _fft_impl(x, *, rank, inverse):
    if x.size == 0:   # a transform of nothing is nothing (TensorFlow's), not NumPy's error
        return np.array(x, x.dtype)
    f = np.fft.ifftn if inverse else np.fft.fftn
    return np.asarray(f(x, axes=_axes(rank)), x.dtype)


@fft_p.def_lowering
def _fft_lower(x, *, rank, inverse):
    import jax.numpy as jnp
    if x.size == 0:
        return x
    f = jnp.fft.ifftn if inverse else jnp.fft.fftn
    return f(x, axes=_axes(rank)).astype(x.dtype)


@fft_p.def_jvp
def _fft_jvp(primals, tangents, *, out, rank, inverse):
    return bind(fft_p, tangents[0], rank=rank, inverse=inverse)


@fft_p.def_vjp
def _fft_vjp(ct, x, *, out, needs, batch, rank, inverse):
    """VJP of fft: n * ifft(ct); of ifft: fft(ct) / n (the adjoints, TensorFlow's), written
    as conj(fft(conj(ct))) and conj(ifft(conj(ct))) so no size enters the graph."""
    return (conj(bind(fft_p, conj(ct), rank=rank, inverse=inverse)),)


fft_p.def_vmap(_vmap_same(fft_p))


def _complex_transform(input, rank, inverse):  # TensorFlow's keyword
    name = _public_name("fft", rank, inverse)
    x = _t(input)
    if x._value.dtype.kind != "c":
        raise TypeError(f"{name}: argument 'input' must be complex64 or complex128, got "
                        f"{x.dtype.name} (make it complex with finegrad.cast or "
                        f"finegrad.complex, or use finegrad.signal.rfft for real signals)")
    if x._value.ndim < rank:
        raise ValueError(f"{name}: argument 'input' must have rank at least {rank}, got "
                         f"shape {tuple(x._value.shape)}")
    return bind(fft_p, x, rank=rank, inverse=inverse)


def fft(input: TensorLike, name: str | None = None) -> Tensor:  # TensorFlow's keyword
    """The discrete Fourier transform over the innermost axis of a complex tensor.

    Primitive ``fft``; gradient ``n * ifft(ct)`` (TensorFlow's), JVP ``fft`` of the tangent.

    >>> import finegrad as fg
    >>> fg.signal.fft(fg.constant([1 + 0j, 2, 3, 4], fg.complex64)).numpy()
    array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)

    Raises:
        TypeError: for a real (or integer) ``input``; ValueError: for a scalar.
    """
    return _complex_transform(input, 1, False)


def ifft(input: TensorLike, name: str | None = None) -> Tensor:  # TensorFlow's keyword
    """The inverse discrete Fourier transform over the innermost axis (divides by its length).

    Primitive ``fft`` (``inverse=True``); gradient ``fft(ct) / n``.

    >>> import finegrad as fg
    >>> fg.signal.ifft(fg.constant([10 + 0j, -2 + 2j, -2, -2 - 2j])).numpy().real
    array([1., 2., 3., 4.])

    Raises:
        TypeError: for a real (or integer) ``input``; ValueError: for a scalar.
    """
    return _complex_transform(input, 1, True)


def fft2d(input: TensorLike,  # TensorFlow's keyword
          name: str | None = None) -> Tensor:
    """The 2-D discrete Fourier transform over the two innermost axes of a complex tensor.

    >>> import finegrad as fg
    >>> fg.signal.fft2d(fg.constant([[1 + 0j, 2], [3, 4]])).numpy().real
    array([[10., -2.],
           [-4.,  0.]])

    Raises:
        TypeError: for a real (or integer) ``input``; ValueError: for rank below 2.
    """
    return _complex_transform(input, 2, False)


def ifft2d(input: TensorLike,  # TensorFlow's keyword
           name: str | None = None) -> Tensor:
    """The inverse 2-D discrete Fourier transform over the two innermost axes.

    >>> import finegrad as fg
    >>> fg.signal.ifft2d(fg.constant([[10 + 0j, -2], [-4, 0]])).numpy().real
    array([[1., 2.],
           [3., 4.]])

    Raises:
        TypeError: for a real (or integer) ``input``; ValueError: for rank below 2.
    """
    return _complex_transform(input, 2, True)


def fft3d(input: TensorLike,  # TensorFlow's keyword
          name: str | None = None) -> Tensor:
    """The 3-D discrete Fourier transform over the three innermost axes of a complex tensor.

    >>> import finegrad as fg
    >>> fg.signal.fft3d(fg.ones((2, 2, 2), fg.complex64)).numpy()[0, 0, 0]
    np.complex64(8+0j)

    Raises:
        TypeError: for a real (or integer) ``input``; ValueError: for rank below 3.
    """
    return _complex_transform(input, 3, False)


def ifft3d(input: TensorLike,  # TensorFlow's keyword
           name: str | None = None) -> Tensor:
    """The inverse 3-D discrete Fourier transform over the three innermost axes.

    >>> import finegrad as fg
    >>> fg.signal.ifft3d(fg.ones((2, 2, 2), fg.complex64)).numpy()[0, 0, 0]
    np.complex64(1+0j)

    Raises:
        TypeError: for a real (or integer) ``input``; ValueError: for rank below 3.
    """
    return _complex_transform(input, 3, True)


# ---- rfft and irfft --------------------------------------------------------------------------

def _rfft_shape(shape, *, fft_length):
    return tuple(shape[:-1]) + (fft_length[-1] // 2 + 1,)


def _irfft_shape(shape, *, fft_length):
    return tuple(shape[:-1]) + (fft_length[-1],)


rfft_p = Primitive("rfft", batch_rule=True, fresh=True, shape_rule=_rfft_shape)
irfft_p = Primitive("irfft", batch_rule=True, fresh=True, shape_rule=_irfft_shape)


@rfft_p.def_impl
def _rfft_impl(x, *, fft_length):
    out = np.fft.rfftn(x, axes=_axes(len(fft_length)))
    return np.asarray(out, _complex_dtype(x.dtype))


@rfft_p.def_lowering
def _rfft_lower(x, *, fft_length):
    import jax.numpy as jnp
    return jnp.fft.rfftn(x, axes=_axes(len(fft_length))).astype(_complex_dtype(x.dtype))


@rfft_p.def_jvp
def _rfft_jvp(primals, tangents, *, out, fft_length):
    return bind(rfft_p, tangents[0], fft_length=fft_length)


@rfft_p.def_vjp
def _rfft_vjp(ct, x, *, out, needs, batch, fft_length):
    """VJP of rfft: Re(n * ifftn(ct with the redundant half filled with zeros)), written as
    Re(fftn(conj(that))) so no size enters the graph."""
    m = fft_length[-1] // 2 + 1
    missing = fft_length[-1] - m
    full = conj(ct)
    if missing:
        full = concat([full, zeros_like(full[..., :missing])], axis=-1)
    return (real(bind(fft_p, full, rank=len(fft_length), inverse=False)),)


rfft_p.def_vmap(_vmap_same(rfft_p))


@irfft_p.def_impl
def _irfft_impl(y, *, fft_length):
    out = np.fft.irfftn(y, s=fft_length, axes=_axes(len(fft_length)))
    return np.asarray(out, np.float64 if y.dtype == np.complex128 else np.float32)


@irfft_p.def_lowering
def _irfft_lower(y, *, fft_length):
    import jax.numpy as jnp
    out = jnp.fft.irfftn(y, s=tuple(fft_length), axes=_axes(len(fft_length)))
    return out.astype(np.float64 if y.dtype == np.complex128 else np.float32)


@irfft_p.def_jvp
def _irfft_jvp(primals, tangents, *, out, fft_length):
    return bind(irfft_p, tangents[0], fft_length=fft_length)


@irfft_p.def_vjp
def _irfft_vjp(ct, y, *, out, needs, batch, fft_length):
    """VJP of irfft: rfft(ct) * mask / n, mask 1 at DC and Nyquist, 2 elsewhere."""
    m = fft_length[-1] // 2 + 1
    mask = np.full(m, 2.0)
    mask[0] = 1.0
    if fft_length[-1] % 2 == 0:
        mask[-1] = 1.0
    mask /= _inner_size(fft_length, len(fft_length))
    return (bind(rfft_p, ct, fft_length=fft_length) * mask.astype(y._value.dtype),)


irfft_p.def_vmap(_vmap_same(irfft_p))


def _check_fft_length(fft_length, rank, name, default):
    """``fft_length`` as a tuple of ``rank`` positive ints (``default`` when None)."""
    if fft_length is None:
        return default
    value = fft_length.numpy() if hasattr(fft_length, "numpy") else fft_length
    lengths = np.asarray(value)
    if lengths.shape != (rank,) or lengths.dtype.kind not in "iu" or (lengths < 1).any():
        raise ValueError(f"{name}: argument 'fft_length' must be {rank} positive "
                         f"integer(s), got {value!r}")
    return tuple(int(v) for v in lengths)


def pad_axis_end(x, axis, count, value=0):
    """``x`` with ``count`` entries of ``value`` appended along ``axis`` (a concat, so other
    axes may stay dynamic inside a shape-polymorphic trace, unlike `pad`'s)."""
    shape = core.shape_of(x)
    if not count:
        return x
    if not shape[axis]:
        paddings = [[0, 0]] * len(shape)
        paddings[axis] = [0, count]
        return pad(x, paddings, constant_values=value)
    index = [slice(None)] * len(shape)
    index[axis] = slice(0, 1)
    filler = zeros_like(x[tuple(index)])
    if value:
        filler = filler + x._value.dtype.type(value)
    sizes = list(shape)
    sizes[axis] = count
    return concat([x, broadcast_to(filler, tuple(sizes))], axis=axis)


def _fit_inner(x, sizes, name):
    """Crop or zero-pad the ``len(sizes)`` innermost axes of ``x`` to ``sizes``
    (differentiable: slicing and concat)."""
    shape = x._value.shape
    rank = len(sizes)
    have = dims.pin(core.shape_of(x)[len(shape) - rank:], f"{name} along a dynamic axis")
    for i, (size, n) in enumerate(zip(sizes, have, strict=True)):
        axis = i - rank
        if n > size:
            index = [slice(None)] * len(shape)
            index[axis] = slice(0, size)
            x = x[tuple(index)]
        elif n < size:
            x = pad_axis_end(x, axis, size - n)
    return x


def _inner_sizes(x, rank, name, what):
    """The sizes of the ``rank`` innermost axes, kept at their traced values inside a
    shape-polymorphic trace (the transform's length is a parameter of the graph)."""
    if x._value.ndim < rank:
        raise ValueError(f"{name}: argument {what!r} must have rank at least {rank}, got "
                         f"shape {tuple(x._value.shape)}")
    shape = core.shape_of(x)
    return dims.pin(shape[len(shape) - rank:], f"{name} along a dynamic axis")


def _real_transform(input_tensor, fft_length, rank):
    name = _public_name("rfft", rank)
    x = _t(input_tensor)
    if x._value.dtype not in (np.float32, np.float64):
        raise TypeError(f"{name}: argument 'input_tensor' must be float32 or float64, got "
                        f"{x.dtype.name}")
    inner = _inner_sizes(x, rank, name, "input_tensor")
    if fft_length is None and 0 in inner:   # TensorFlow: an empty result of the same shape
        return Tensor(np.zeros(x._value.shape, _complex_dtype(x._value.dtype)))
    sizes = _check_fft_length(fft_length, rank, name, inner)
    return bind(rfft_p, _fit_inner(x, sizes, name), fft_length=sizes)


def _inverse_real_transform(input_tensor, fft_length, rank):
    name = _public_name("rfft", rank, inverse=True)
    y = _t(input_tensor)
    if y._value.dtype.kind != "c":
        raise TypeError(f"{name}: argument 'input_tensor' must be complex64 or complex128, "
                        f"got {y.dtype.name}")
    inner = _inner_sizes(y, rank, name, "input_tensor")
    sizes = _check_fft_length(fft_length, rank, name,
                              inner[:-1] + (max(2 * (inner[-1] - 1), 0),))
    if 0 in sizes:   # (TensorFlow aborts the process here: "no zero-sized FFTs")
        raise ValueError(f"{name}: the signal length would be 0 (the default fft_length is "
                         f"2 * (n - 1) for n = {inner[-1]} coefficients); give fft_length "
                         f">= 1, e.g. fft_length=[1] for one coefficient")
    half = sizes[:-1] + (sizes[-1] // 2 + 1,)
    return bind(irfft_p, _fit_inner(y, half, name), fft_length=sizes)


def rfft(input_tensor: TensorLike, fft_length: Any = None, name: str | None = None) -> Tensor:
    """The discrete Fourier transform of a real signal over its innermost axis: the
    ``fft_length // 2 + 1`` non-redundant coefficients (float32 gives complex64, float64
    complex128). The signal is cropped or zero-padded to ``fft_length`` (default: its length).

    Primitive ``rfft``; its gradient is TensorFlow's (the adjoint for real inputs).

    >>> import finegrad as fg
    >>> fg.signal.rfft(fg.constant([1., 2., 3., 4.])).numpy()
    array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)

    Raises:
        TypeError: for an input that is not float32 or float64.
        ValueError: for a scalar, or an ``fft_length`` that is not one positive integer.
    """
    return _real_transform(input_tensor, fft_length, 1)


def irfft(input_tensor: TensorLike, fft_length: Any = None, name: str | None = None) -> Tensor:
    """The real signal of length ``fft_length`` whose Fourier transform has the non-redundant
    coefficients ``input_tensor`` (cropped or zero-padded to ``fft_length // 2 + 1``; default
    ``fft_length``: ``2 * (n - 1)`` for ``n`` coefficients). complex64 gives float32.

    Primitive ``irfft``; the imaginary parts at DC (and Nyquist) are ignored, as TensorFlow's.

    >>> import finegrad as fg
    >>> fg.signal.irfft(fg.constant([10 + 0j, -2 + 2j, -2], fg.complex64)).numpy()
    array([1., 2., 3., 4.], dtype=float32)

    Raises:
        TypeError: for an input that is not complex64 or complex128.
        ValueError: for a scalar, or an ``fft_length`` that is not one positive integer.
    """
    return _inverse_real_transform(input_tensor, fft_length, 1)


def rfft2d(input_tensor: TensorLike, fft_length: Any = None, name: str | None = None) -> Tensor:
    """The 2-D discrete Fourier transform of a real signal over its two innermost axes,
    keeping ``fft_length[1] // 2 + 1`` coefficients on the last (see `rfft`).

    >>> import finegrad as fg
    >>> fg.signal.rfft2d(fg.constant([[1., 2.], [3., 4.]])).numpy()
    array([[10.+0.j, -2.+0.j],
           [-4.+0.j,  0.+0.j]], dtype=complex64)

    Raises:
        TypeError: for an input that is not float32 or float64.
        ValueError: for rank below 2, or an ``fft_length`` that is not two positive ints.
    """
    return _real_transform(input_tensor, fft_length, 2)


def irfft2d(input_tensor: TensorLike, fft_length: Any = None, name: str | None = None) -> Tensor:
    """The inverse of `rfft2d`: a real signal of shape ``fft_length`` over the two innermost
    axes (default: the input's size on the second-to-last, ``2 * (n - 1)`` on the last).

    >>> import finegrad as fg
    >>> fg.signal.irfft2d(fg.constant([[10 + 0j, -2], [-4, 0]], fg.complex64)).numpy()
    array([[1., 2.],
           [3., 4.]], dtype=float32)

    Raises:
        TypeError: for an input that is not complex64 or complex128.
        ValueError: for rank below 2, or an ``fft_length`` that is not two positive ints.
    """
    return _inverse_real_transform(input_tensor, fft_length, 2)



def rfft3d(input_tensor: TensorLike, fft_length: Any = None, name: str | None = None) -> Tensor:
    """The 3-D discrete Fourier transform of a real signal over its three innermost axes,
    keeping ``fft_length[2] // 2 + 1`` coefficients on the last (see `rfft`). TensorFlow
    registers no gradient for it; finegrad's is the adjoint, as for `rfft`.

    >>> import finegrad as fg
    >>> fg.signal.rfft3d(fg.ones((2, 2, 2))).numpy()[..., 0]
    array([[8.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]], dtype=complex64)

    Raises:
        TypeError: for an input that is not float32 or float64.
        ValueError: for rank below 3, or an ``fft_length`` that is not three positive ints.
    """
    return _real_transform(input_tensor, fft_length, 3)


def irfft3d(input_tensor: TensorLike, fft_length: Any = None, name: str | None = None) -> Tensor:
    """The inverse of `rfft3d`: a real signal of shape ``fft_length`` over the three innermost
    axes (default: the input's sizes, ``2 * (n - 1)`` on the last). TensorFlow registers no
    gradient for it; finegrad's is the adjoint, as for `irfft`.

    >>> import finegrad as fg
    >>> fg.signal.irfft3d(fg.signal.rfft3d(fg.ones((2, 2, 2)))).numpy()[0]
    array([[1., 1.],
           [1., 1.]], dtype=float32)

    Raises:
        TypeError: for an input that is not complex64 or complex128.
        ValueError: for rank below 3, or an ``fft_length`` that is not three positive ints.
    """
    return _inverse_real_transform(input_tensor, fft_length, 3)
