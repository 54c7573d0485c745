"""More of ``tf.linalg``: band_part, diag, diag_part and trace, written with existing ops
(a constant mask times the matrix), as TensorFlow's gradients of them are those masks."""

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
                  shape_rule=lambda x: tuple(x))


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


inv_p.def_impl(np.linalg.inv)


@inv_p.def_lowering
def _inv_lower(a):
    # a singular matrix gives inf/nan entries where impl raises (XLA cannot raise)
    import jax.numpy as jnp
    return jnp.linalg.inv(a)


inv_p.def_vmap(leading_vmap(inv_p))   # leading axes are batch axes


@inv_p.def_jvp
def _inv_jvp(primals, tangents, *, out):
    return -matmul(matmul(out, tangents[0]), out)


@inv_p.def_vjp
def _inv_vjp(ct, a, *, out, needs, batch):
    oh = _swap(conj_if_complex(out))
    return (-matmul(matmul(oh, ct), oh),)


det_p = Primitive("det", batch_rule=True, fresh=True,
                  shape_rule=_batch_shape)


def det(input: TensorLike, name: str | None = None) -> Tensor:  # TensorFlow's keyword
    """The determinant of each square matrix (over the last two axes).

    Gradient: ``ct * det(A) * inv(A)^H``, TensorFlow's (nan-free only where A is invertible).

    >>> import finegrad as fg
    >>> fg.linalg.det(fg.constant([[1., 2.], [3., 4.]])).numpy()
    np.float32(-2.0)
    """
    return bind(det_p, square_matrix(input, "linalg.det"))


det_p.def_vmap(leading_vmap(det_p))   # leading axes are batch axes


@det_p.def_impl
def _det_impl(a):
    return np.asarray(np.linalg.det(a), a.dtype)


@det_p.def_lowering
def _det_lower(a):
    import jax.numpy as jnp
    return jnp.linalg.det(a).astype(a.dtype)


@det_p.def_jvp
def _det_jvp(primals, tangents, *, out):
    # d det(A) = det(A) * trace(inv(A) @ dA)
    (a,), (da,) = primals, tangents
    return out * reduce_sum(_swap(inv(a)) * da, [-2, -1])


@det_p.def_vjp
def _det_vjp(ct, a, *, out, needs, batch):
    scale = expand_dims(expand_dims(ct * conj_if_complex(out), -1), -1)
    return (scale * _swap(conj_if_complex(inv(a))),)


log_abs_det_p = Primitive("log_abs_det", batch_rule=True, fresh=True,
                          shape_rule=_batch_shape)
det_sign_p = core.def_nondiff(Primitive("det_sign", fresh=True,
                                        shape_rule=_batch_shape))


def slogdet(input: TensorLike,  # TensorFlow's keyword
            name: str | None = None) -> tuple[Tensor, ...]:
    """``(sign, log_abs_determinant)`` of each square matrix, without overflow.

    The sign carries no gradient; ``log|det A|``'s is ``ct * inv(A)^H``, TensorFlow's.

    >>> import finegrad as fg
    >>> sign, logdet = fg.linalg.slogdet(fg.constant([[-2., 0.], [0., 3.]]))
    >>> float(sign), round(float(logdet), 4)
    (-1.0, 1.7918)
    """
    x = square_matrix(input, "linalg.slogdet")
    if np.iscomplexobj(x._value):
        raise TypeError("finegrad.linalg.slogdet: complex matrices are not supported")
    return bind(det_sign_p, x), bind(log_abs_det_p, x)


det_sign_p.def_vmap(leading_vmap(det_sign_p))   # leading axes are batch axes


@det_sign_p.def_lowering
def _det_sign_lower(a):
    import jax.numpy as jnp
    return jnp.linalg.slogdet(a)[0].astype(a.dtype)


@det_sign_p.def_impl
def _det_sign_impl(a):
    return np.asarray(np.linalg.slogdet(a)[0], a.dtype)


log_abs_det_p.def_vmap(leading_vmap(log_abs_det_p))   # leading axes are batch axes


@log_abs_det_p.def_lowering
def _log_abs_det_lower(a):
    import jax.numpy as jnp
    return jnp.linalg.slogdet(a)[1].astype(a.dtype)


@log_abs_det_p.def_impl
def _log_abs_det_impl(a):
    return np.asarray(np.linalg.slogdet(a)[1], a.dtype)


@log_abs_det_p.def_jvp
def _log_abs_det_jvp(primals, tangents, *, out):
    # d log|det A| = trace(inv(A) @ dA) (real matrices)
    (a,), (da,) = primals, tangents
    return reduce_sum(_swap(inv(a)) * da, [-2, -1])


@log_abs_det_p.def_vjp
def _log_abs_det_vjp(ct, a, *, out, needs, batch):
    scale = expand_dims(expand_dims(ct, -1), -1)
    return (scale * _swap(inv(a)),)
