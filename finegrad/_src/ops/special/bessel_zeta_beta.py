"""The Bessel, zeta and incomplete beta functions of ``tf.math`` as primitives: ndtri (and
erfcinv through it), the
modified Bessel functions i0, i1 and their exponentially scaled forms i0e, i1e, the Hurwitz
zeta function and the regularized incomplete beta function.

Values from the float64 kernels of `ops.special.bessel_zeta_kernels`, rounded once to the input's
dtype. The derivatives are TensorFlow's, written with finegrad ops so every order works:
ndtri' = sqrt(2 pi) exp(ndtri(x)^2 / 2), i0e' = i1e - sign(x) i0e,
i1e' = i0e - i1e (sign(x) + 1/x) and i1' = i0 - i1 / x (both 1/2 next to 0), i0' = i1,
d zeta(x, q) / dq = -x zeta(x + 1, q) (none in x), d betainc(a, b, x) / dx the beta density
(none in a and b, as TensorFlow).
"""

from __future__ import annotations

import math

import numpy as np

from finegrad._src.core import Primitive, bind
from finegrad._src.ops.special import bessel_zeta_kernels as kernels
from finegrad._src.ops.declare import def_partials, float_only, lowered_in_float64, unary
from finegrad._src.ops.array.structural import ones_like
from finegrad._src.ops.math.elementwise import abs, exp, sign, where
from finegrad._src.ops.special.error_and_gamma import _in_float64, lgamma, xlog1py, xlogy

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

_SQRT_2PI = math.sqrt(2 * math.pi)

ndtri_p, ndtri = unary("ndtri", _in_float64(kernels.ndtri),
                        lambda x, out: _SQRT_2PI * exp(0.5 * (out * out)), """Elementwise
    inverse of the standard normal CDF on (0, 1): -inf at 0, +inf at 1, nan outside [0, 1];
    accurate down to the smallest float64 (computed from erfcinv of 2 x, which is exact).
    Derivative sqrt(2 pi) exp(ndtri(x)^2 / 2).

    >>> import finegrad as fg
    >>> round(float(fg.math.ndtri(fg.constant(0.975, fg.float64))), 12)
    1.95996398454""", real=True)
ndtri_p.def_lowering(lowered_in_float64('scipy.special.ndtri'))   # as the impl


def erfcinv(x: Any, name: str | None = None) -> Tensor:
    """Elementwise inverse of erfc on (0, 2): ``-ndtri(x / 2) / sqrt(2)``, TensorFlow's formula
    (+inf at 0, -inf at 2, nan outside [0, 2]); differentiable through ndtri, to any order.

    >>> import finegrad as fg
    >>> round(float(fg.math.erfcinv(fg.constant(0.5, fg.float64))), 12)
    0.476936276204
    """
    return ndtri(0.5 * x) * -math.sqrt(0.5)


def _tiny_safe(x):
    """``(away, safe_x)``: where |x| is above the dtype's eps, and x with eps elsewhere."""
    eps = float(np.finfo(x._value.dtype).eps)
    away = abs(x) > eps
    return away, where(away, x, ones_like(x) * eps)


def _i1e_deriv(x, out):
    away, sx = _tiny_safe(x)
    return where(away, bessel_i0e(sx) - out * (sign(sx) + 1 / sx), ones_like(x) * 0.5)


def _i1_deriv(x, out):
    away, sx = _tiny_safe(x)
    return where(away, bessel_i0(sx) - out / sx, ones_like(x) * 0.5)


bessel_i0e_p, bessel_i0e = unary("bessel_i0e", _in_float64(kernels.i0e),
                                  lambda x, out: bessel_i1e(x) - sign(x) * out, """Elementwise
    exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)`` (finite for
    every x); derivative ``i1e(x) - sign(x) i0e(x)``.

    >>> import finegrad as fg
    >>> round(float(fg.math.bessel_i0e(fg.constant(1., fg.float64))), 12)
    0.465759607594""", real=True)
bessel_i0e_p.def_lowering(lowered_in_float64('lax.bessel_i0e'))   # as the impl

bessel_i1e_p, bessel_i1e = unary("bessel_i1e", _in_float64(kernels.i1e), _i1e_deriv,
                                  """Elementwise exponentially scaled modified Bessel function of
    order 1, ``exp(-|x|) I1(x)``; derivative ``i0e(x) - i1e(x) (sign(x) + 1/x)`` (1/2 where
    |x| is below the dtype's eps, as TensorFlow).

    >>> import finegrad as fg
    >>> round(float(fg.math.bessel_i1e(fg.constant(1., fg.float64))), 12)
    0.20791041535""", real=True)
bessel_i1e_p.def_lowering(lowered_in_float64('lax.bessel_i1e'))   # as the impl

bessel_i0_p, bessel_i0 = unary("bessel_i0", _in_float64(kernels.i0),
                                lambda x, out: bessel_i1(x), """Elementwise modified Bessel
    function of order 0, ``I0(x)`` (inf beyond |x| ~ 713 in float64); derivative ``I1(x)``.

    >>> import finegrad as fg
    >>> round(float(fg.math.bessel_i0(fg.constant(1., fg.float64))), 12)
    1.266065877752""", real=True)
bessel_i0_p.def_lowering(lowered_in_float64('scipy.special.i0'))   # as the impl

bessel_i1_p, bessel_i1 = unary("bessel_i1", _in_float64(kernels.i1), _i1_deriv,
                                """Elementwise modified Bessel function of order 1, ``I1(x)``;
    derivative ``I0(x) - I1(x) / x`` (1/2 where |x| is below the dtype's eps: the true
    derivative; TensorFlow 2.21 gives 1 at exactly 0, 1/2 next to it).

    >>> import finegrad as fg
    >>> round(float(fg.math.bessel_i1(fg.constant(1., fg.float64))), 12)
    0.565159103992""", real=True)
bessel_i1_p.def_lowering(lowered_in_float64('scipy.special.i1'))   # as the impl


def _check_float(fn, values):
    """TypeError naming ``finegrad.<fn>`` unless every input is a real float (bind has already
    refused inputs of different dtypes)."""
    for v in values:
        if np.dtype(v.dtype).kind != "f":
            float_only(fn, v, real=True)


# ---- zeta(x, q): the Hurwitz zeta function, differentiable in q ------------------------------

zeta_p = Primitive("zeta", batch_rule=True, elementwise=True, fresh=True)


def zeta(x: TensorLike, q: Any, name: str | None = None) -> Tensor:
    """Elementwise Hurwitz zeta function ``zeta(x, q) = sum_{n >= 0} (q + n)^-x`` with
    broadcasting, TensorFlow's conventions: inf at x = 1, and at q = 0, -1, -2, ... for an
    even integer x (nan for other x); nan for x < 1, and for q < 0 unless x is an integer.
    Gradient ``-x zeta(x + 1, q)`` for q; none for x (as TensorFlow). Primitive ``zeta``;
    float inputs of one dtype.

    >>> import finegrad as fg
    >>> round(float(fg.math.zeta(fg.constant(2., fg.float64), 1.)), 12)   # pi^2 / 6
    1.644934066848
    """
    return bind(zeta_p, x, q)


_zeta_kernel = _in_float64(kernels.zeta)


@zeta_p.def_impl
def _zeta_impl(x, q):
    _check_float("math.zeta", (x, q))
    return _zeta_kernel(x, q)


zeta_p.def_lowering(lowered_in_float64("scipy.special.zeta"))   # in float64, as the impl


@def_partials(zeta_p)
def _zeta_partials(x, q, *, out):
    """-x zeta(x + 1, q) for q; none for x."""
    return None, -x * zeta(x + 1, q)


# ---- betainc(a, b, x): the regularized incomplete beta function, differentiable in x ---------

betainc_p = Primitive("betainc", batch_rule=True, elementwise=True, fresh=True)


def betainc(a: TensorLike, b: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise regularized incomplete beta function
    ``I_x(a, b) = int_0^x t^(a-1) (1-t)^(b-1) dt / B(a, b)`` with broadcasting (``a, b > 0``,
    ``0 <= x <= 1``; nan elsewhere, as TensorFlow). Gradient the beta density for ``x``; none
    for ``a`` and ``b`` (as TensorFlow). Primitive ``betainc``; float inputs of one dtype.

    >>> import finegrad as fg
    >>> round(float(fg.math.betainc(fg.constant(2., fg.float64), 3., 0.5)), 12)   # 11/16
    0.6875
    """
    return bind(betainc_p, a, b, x)


_betainc_kernel = _in_float64(kernels.betainc)


@betainc_p.def_impl
def _betainc_impl(a, b, x):
    _check_float("math.betainc", (a, b, x))
    return _betainc_kernel(a, b, x)


@betainc_p.def_lowering
def _betainc_lower(a, b, x):
    # in float64, as the impl; nan outside a, b > 0 and 0 <= x <= 1 as TensorFlow's (JAX's
    # gives a limit at a = 0 or b = 0)
    import jax.numpy as jnp
    out = lowered_in_float64("scipy.special.betainc")(a, b, x)
    valid = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    return jnp.where(valid, out, jnp.asarray(np.nan, out.dtype))


def _beta_density(a, b, x):
    """x^(a-1) (1-x)^(b-1) / B(a, b), as TensorFlow writes it (xlogy and xlog1py)."""
    return exp(xlogy(a - 1, x) + xlog1py(b - 1, -x) - (lgamma(a) + lgamma(b) - lgamma(a + b)))


@def_partials(betainc_p)
def _betainc_partials(a, b, x, *, out):
    """The beta density for x; none for a and b (as TensorFlow)."""
    return None, None, _beta_density(a, b, x)


