"""More of ``tf.linalg``: band_part, diag, diag_part and trace, written with existing ops
(a constant mask times the matrix), as TensorFlow's gradients of them are those masks; and
``inv`` (the determinants are in `determinants`)."""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims
from finegrad._src.ops.array.structural import _t, reduce_sum, expand_dims
from finegrad._src.ops.batching import leading_vmap
from finegrad._src.tensor import Tensor
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.linalg.checks import square_matrix, static_matrix
from finegrad._src.ops.linalg.products import matmul, _swap
from finegrad._src.ops.math.complex_numbers import conj_if_complex

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _mask(x, keep):
    """A constant of ``x``'s dtype over its last two axes: 1 where ``keep(i, j)``, else 0."""
    m, n = x._value.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    return Tensor(keep(i, j).astype(x._value.dtype))


def _int_arg(v, fn, arg):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"finegrad.{fn}: {arg} must be an int, got {v!r}")
    return int(v)


def band_part(input: TensorLike, num_lower: Any,  # TensorFlow's keyword
              num_upper: Any, name: str | None = None) -> Tensor:
    """Keep a band of each matrix: entries ``(i, j)`` with ``i - j <= num_lower`` and
    ``j - i <= num_upper`` (a negative count keeps that whole triangle), zero elsewhere.

    The gradient is the cotangent times the same mask, as TensorFlow's.

    >>> import finegrad as fg
    >>> fg.linalg.band_part(fg.ones((3, 3)), 0, -1).numpy()
    array([[1., 1., 1.],
           [0., 1., 1.],
           [0., 0., 1.]], dtype=float32)
    """
    x = static_matrix(input, "linalg.band_part")
    lo = _int_arg(num_lower, "linalg.band_part", "num_lower")
    up = _int_arg(num_upper, "linalg.band_part", "num_upper")
    return ar.multiply(x, _mask(x, lambda i, j: ((lo < 0) | (i - j <= lo))
                                & ((up < 0) | (j - i <= up))))


def diag_part(input: TensorLike, name: str | None = None, k: int = 0,
              padding_value: int = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """The main diagonal of each matrix (of length ``min(rows, cols)``); only ``k=0``.

    >>> import finegrad as fg
    >>> fg.linalg.diag_part(fg.constant([[1., 2.], [3., 4.]])).numpy()
    array([1., 4.], dtype=float32)
    """
    if k != 0:
        raise ValueError(f"finegrad.linalg.diag_part: only k=0 is supported, got {k!r}")
    x = static_matrix(input, "linalg.diag_part")
    m, n = x._value.shape[-2:]
    picked = ar.multiply(x, _mask(x, lambda i, j: i == j))
    return reduce_sum(picked, -1 if m <= n else -2)


def diag(diagonal: TensorLike, name: str | None = None, k: int = 0, num_rows: int = -1,
         num_cols: int = -1, padding_value: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """Square matrices with ``diagonal``'s last axis on their main diagonal, zero elsewhere
    (only ``k=0`` and the default sizes).

    >>> import finegrad as fg
    >>> fg.linalg.diag(fg.constant([1., 2.])).numpy()
    array([[1., 0.],
           [0., 2.]], dtype=float32)
    """
    if k != 0 or num_rows != -1 or num_cols != -1 or padding_value != 0:
        raise ValueError("finegrad.linalg.diag: only k=0, the default num_rows/num_cols and "
                         "padding_value=0 are supported")
    v = _t(diagonal)
    if v._value.ndim < 1:
        raise ValueError(f"finegrad.linalg.diag: diagonal must have rank >= 1, got shape "
                         f"{tuple(v._value.shape)}")
    dims.pin(core.shape_of(v)[-1:], "linalg.diag over a dynamic axis")
    n = v._value.shape[-1]
    eye = Tensor(np.eye(n, dtype=v._value.dtype))
    return ar.multiply(expand_dims(v, -1), eye)


def trace(x: TensorLike, name: str | None = None) -> Tensor:
    """The sum of each matrix's main diagonal (over the last two axes).

    >>> import finegrad as fg
    >>> fg.linalg.trace(fg.constant([[1., 2.], [3., 4.]])).numpy()
    np.float32(5.0)
    """
    return reduce_sum(diag_part(static_matrix(x, "linalg.trace")), -1)


def _batch_shape(x):
    """Shape rule of an op over the last two axes that drops them (det): the batch axes."""
    return tuple(x[:-2])


inv_p = Primitive("inv", batch_rule=True, fresh=True,
                  shape_rule=lambda x, **params: tuple(x))


def inv(input: TensorLike, adjoint: bool = False,  # TensorFlow's keyword
        name: str | None = None) -> Tensor:
    """The inverse of each square matrix (of its adjoint with ``adjoint=True``).

    Gradient: ``-inv(A)^H @ ct @ inv(A)^H``, TensorFlow's.

    >>> import finegrad as fg
    >>> fg.linalg.inv(fg.constant([[2., 0.], [0., 4.]])).numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    x = square_matrix(input, "linalg.inv")
    if adjoint:
        x = _swap(conj_if_complex(x))
    return bind(inv_p, x)


@inv_p.def_lowering
def _inv_lower(a, *, at_singular="raise"):
    # a singular matrix gives inf/nan entries where impl raises (XLA cannot raise)
    import jax.numpy as jnp
    return jnp.linalg.inv(a)


inv_p.def_vmap(leading_vmap(inv_p))   # leading axes are batch axes


@inv_p.def_impl
def _inv_impl(a, *, at_singular="raise"):
    """``at_singular="inf"`` (the gradient of slogdet): a singular matrix's inverse is the
    SVD's, with the singular values that are 0 to rounding inverted to inf."""
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        if at_singular == "raise":
            raise
    u, s, vh = np.linalg.svd(a)
    tiny = s <= s[..., :1] * (s.shape[-1] * np.finfo(s.dtype).eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(tiny, np.inf, 1 / np.where(tiny, 1, s))
        out = np.matmul(np.conj(np.swapaxes(vh, -1, -2)) * r[..., None, :],
                        np.conj(np.swapaxes(u, -1, -2)))
    return out.astype(a.dtype, copy=False)


@inv_p.def_jvp
def _inv_jvp(primals, tangents, *, out, at_singular="raise"):
    return -matmul(matmul(out, tangents[0]), out)


@inv_p.def_vjp
def _inv_vjp(ct, a, *, out, needs, batch, at_singular="raise"):
    oh = _swap(conj_if_complex(out))
    return (-matmul(matmul(oh, ct), oh),)
