"""Special functions as primitives: erf, erfc, erfinv, lgamma, digamma, polygamma, and the
binary xlogy, xlog1py (0 where x is 0) and truncatediv.

The values come from the float64 NumPy kernels of `ops.special.erf_gamma_kernels` (methods cited
there); float16 and float32 inputs are computed in float64 and rounded once. The derivatives
are TensorFlow's and are written with these same ops, so every order works:
erf' = 2/sqrt(pi) exp(-x^2), erfinv' = sqrt(pi)/2 exp(erfinv(x)^2), lgamma' = digamma,
digamma' = polygamma(1, .), polygamma(n, .)' = polygamma(n + 1, .).
"""

from __future__ import annotations

import math

import numpy as np

from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.declare import def_partials, float_only, lowered_in_float64, unary
from finegrad._src.ops.special import erf_gamma_kernels as kernels
from finegrad._src.ops.math.arithmetic import add, multiply
from finegrad._src.ops.array.structural import cast, convert_to_tensor, ones_like, zeros_like
from finegrad._src.tensor import Tensor
from finegrad._src.ops.math.elementwise import equal, exp, log, log1p, not_equal, where

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from collections.abc import Callable
    from finegrad._src.types import TensorLike

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _in_float64(kernel):
    """An impl that runs the float64 ``kernel`` and rounds back to the input's dtype."""
    def impl(*xs):
        out = np.asarray(kernel(*(np.asarray(x, np.float64) for x in xs)))
        return out.astype(np.result_type(*xs))[()]
    impl.__name__ = kernel.__name__
    return impl


erf_p, erf = unary("erf", _in_float64(kernels.erf),
                    lambda x, out: _TWO_OVER_SQRT_PI * exp(-(x * x)), """Elementwise error
    function erf(x) = 2/sqrt(pi) int_0^x exp(-t^2) dt (W. J. Cody's rational approximations);
    derivative 2/sqrt(pi) exp(-x^2).

    >>> import finegrad as fg
    >>> round(float(fg.math.erf(fg.constant(1., fg.float64))), 12)
    0.84270079295""", real=True)
erf_p.def_lowering(lowered_in_float64('lax.erf'))   # as the impl

erfc_p, erfc = unary("erfc", _in_float64(kernels.erfc),
                      lambda x, out: -_TWO_OVER_SQRT_PI * exp(-(x * x)), """Elementwise
    complementary error function 1 - erf(x), computed directly (accurate far into the tail,
    where 1 - erf(x) is 0); derivative -2/sqrt(pi) exp(-x^2).

    >>> import finegrad as fg
    >>> float(fg.math.erfc(fg.constant(10., fg.float64)))
    2.088487583762...e-45""", real=True)
erfc_p.def_lowering(lowered_in_float64('lax.erfc'))   # as the impl

erfinv_p, erfinv = unary("erfinv", _in_float64(kernels.erfinv),
                          lambda x, out: (math.sqrt(math.pi) / 2) * exp(out * out),
                          """Elementwise inverse of erf on (-1, 1): +-inf at +-1, nan outside
    [-1, 1] (Giles' approximation refined by Halley and Newton steps); derivative
    sqrt(pi)/2 exp(erfinv(x)^2).

    >>> import finegrad as fg
    >>> round(float(fg.math.erfinv(fg.constant(0.5, fg.float64))), 12)
    0.476936276204""", real=True)
erfinv_p.def_lowering(lowered_in_float64('lax.erf_inv'))   # as the impl

lgamma_p, lgamma = unary("lgamma", _in_float64(kernels.lgamma), lambda x, out: digamma(x),
                          """Elementwise log|Gamma(x)|, inf at the poles 0, -1, -2, ... and at
    +-inf (as TensorFlow); derivative digamma(x).

    >>> import finegrad as fg
    >>> round(float(fg.math.lgamma(fg.constant(5., fg.float64))), 12)  # log(4!)
    3.178053830348""", real=True)
lgamma_p.def_lowering(lowered_in_float64('lax.lgamma'))   # as the impl

digamma_p, digamma = unary("digamma", _in_float64(kernels.digamma),
                            lambda x, out: polygamma(1.0, x), """Elementwise digamma
    psi(x) = d/dx lgamma(x); nan at 0, the negative integers and -inf (as TensorFlow);
    derivative polygamma(1, x).

    >>> import finegrad as fg
    >>> round(float(fg.math.digamma(fg.constant(1., fg.float64))), 12)  # -Euler's gamma
    -0.577215664902""", real=True)
digamma_p.def_lowering(lowered_in_float64('lax.digamma'))   # as the impl


# ---- polygamma(a, x): elementwise in both, differentiable in x -------------------------------

polygamma_p = Primitive("polygamma", batch_rule=True, elementwise=True, fresh=True)


def polygamma(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise polygamma function psi^(a)(x), the a-th derivative of digamma; ``a`` a
    tensor of non-negative integer values (nan elsewhere, as TensorFlow), of ``x``'s float
    dtype. Gradient polygamma(a + 1, x) for ``x``; none for ``a`` (as TensorFlow).
    Primitive ``polygamma``.

    >>> import finegrad as fg
    >>> round(float(fg.math.polygamma(1., fg.constant(1., fg.float64))), 12)  # pi^2 / 6
    1.644934066848
    """
    return bind(polygamma_p, a, x)


_polygamma_kernel = _in_float64(kernels.polygamma)


@polygamma_p.def_impl
def _polygamma_impl(a, x):
    for v in (a, x):
        if np.dtype(v.dtype).kind != "f":
            float_only("polygamma", v, real=True)
    return _polygamma_kernel(a, x)


polygamma_p.def_lowering(lowered_in_float64("lax.polygamma"))   # float64, as the impl


@def_partials(polygamma_p)
def _polygamma_partials(a, x, *, out):
    """polygamma(a + 1, x) for x; none for the order a."""
    return None, polygamma(a + 1, x)


# ---- xlogy and xlog1py: x * log(y), 0 where x == 0 -------------------------------------------

def _x_log(name: Any, log_fn: Any, np_log: Any, shift: Any,
           doc: Any) -> tuple[Primitive, Callable[..., Tensor]]:
    """Declare ``name(x, y) = x * log_fn(y)``, exactly 0 where x == 0 (even where the log is
    -inf or nan). TensorFlow's gradients: ``log_fn(y)`` for x and ``x / (y + shift)`` for y,
    each 0 where x == 0."""
    prim = Primitive(name, batch_rule=True, elementwise=True, fresh=True)

    def op(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
        return bind(prim, x, y)

    @prim.def_impl
    def _impl(x, y):
        for v in (x, y):
            if np.dtype(v.dtype).kind not in "fc":
                float_only(name, v)
        with np.errstate(all="ignore"):
            out = np.where(x == 0, np.zeros((), np.result_type(x, y)), x * np_log(y))
        return out.astype(np.result_type(x, y))[()]

    @prim.def_lowering
    def _lower(x, y):
        import jax.numpy as jnp
        jax_log = getattr(jnp, np_log.__name__)
        dtype = jnp.result_type(x, y)
        return jnp.where(x == 0, jnp.zeros((), dtype), x * jax_log(y)).astype(dtype)

    @def_partials(prim)
    def grads(x, y, *, out):
        # TensorFlow's xlogy(x != 0, y) and xdivy(x, y + shift): 0 where x == 0
        zero = equal(x, 0)
        gx = op(cast(not_equal(x, 0), x.dtype), y)
        d = y + shift if shift else y
        gy = where(zero, zeros_like(d), x / where(zero, ones_like(d), d))
        return gx, gy

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + f"\n\n    Primitive ``{name}``; float inputs of one dtype.\n"
    return prim, op


xlogy_p, xlogy = _x_log("xlogy", log, np.log, 0, """Elementwise x * log(y), 0 where x is 0 (even
    where y is 0), with broadcasting; gradients log(y) for x and x / y for y, each 0 where x
    is 0 (TensorFlow's).

    >>> import finegrad as fg
    >>> fg.math.xlogy(fg.constant([0., 2.]), fg.constant([0., 1.])).numpy()
    array([0., 0.], dtype=float32)""")

xlog1py_p, xlog1py = _x_log("xlog1py", log1p, np.log1p, 1, """Elementwise x * log1p(y), 0 where
    x is 0 (even where y is -1), with broadcasting; gradients log1p(y) for x and
    x / (1 + y) for y, each 0 where x is 0 (TensorFlow's).

    >>> import finegrad as fg
    >>> fg.math.xlog1py(fg.constant([0., 2.]), fg.constant([-1., 0.])).numpy()
    array([0., 0.], dtype=float32)""")


# ---- truncatediv ------------------------------------------------------------------------------

truncatediv_p = def_nondiff(Primitive("truncatediv", elementwise=True, fresh=True))


def truncatediv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise x / y rounded toward zero (C's integer division): -7 / 2 is -3, where
    floordiv gives -4. Floats: trunc(x / y), as TensorFlow. Not differentiable. An integer
    division by zero raises `finegrad.errors.InvalidArgumentError`. Primitive
    ``truncatediv``.

    >>> import finegrad as fg
    >>> fg.truncatediv(fg.constant([7, -7]), 2).numpy()
    array([ 3, -3], dtype=int32)
    """
    return bind(truncatediv_p, x, y)


def truncated(name, x, y, ints, floats, float_zero):
    """A kernel of TensorFlow's truncated family (``truncatediv``, ``truncatemod``):
    ``ints(x, y)`` on integers, after TensorFlow's error for a zero divisor, ``floats(x, y)``
    on real floats (where a zero divisor gives ``float_zero``); a TypeError otherwise."""
    kind = np.result_type(x, y).kind
    if kind in "iu":
        if not np.all(y):
            raise InvalidArgumentError(f"finegrad.{name}: integer division by zero (as in "
                                       f"TensorFlow; cast to a float dtype for {float_zero})")
        return ints(x, y)
    if kind == "f":
        return floats(x, y)
    raise TypeError(f"finegrad.{name}: expected integer or real float tensors, got "
                    f"{np.result_type(x, y).name}")


def _truncated_quotient(x, y):
    q = np.floor_divide(x, y)
    # floor and truncation differ where the quotient is negative and inexact
    return q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)


def _float_quotient(x, y):
    with np.errstate(all="ignore"):
        return np.trunc(np.true_divide(x, y))


@truncatediv_p.def_impl
def _truncatediv_impl(x, y):
    return truncated("truncatediv", x, y, _truncated_quotient, _float_quotient, "inf/nan")


@truncatediv_p.def_lowering
def _truncatediv_lower(x, y):
    # floats: trunc(x / y), inf/nan at a zero divisor as impl. Integers decline (host
    # callback): XLA cannot raise impl's InvalidArgumentError for a divisor of 0
    import jax.numpy as jnp
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.trunc(x / y)
    return NotImplemented


# ---- polyval ----------------------------------------------------------------------------------

def polyval(coeffs: Any, x: TensorLike, name: str | None = None) -> Tensor:
    """The polynomial ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` at ``x`` by Horner's rule
    (differentiable in the coefficients and in ``x``); an empty ``coeffs`` gives zeros like
    ``x``, as TensorFlow.

    Args:
        coeffs: a list of tensors (or numbers), highest degree first.
        x: the points.

    >>> import finegrad as fg
    >>> fg.math.polyval([1., 2., 3.], fg.constant(2.)).numpy()   # x^2 + 2x + 3
    np.float32(11.0)
    """
    if not isinstance(coeffs, (list, tuple)):
        raise TypeError(f"finegrad.polyval: coeffs must be a list of tensors, got "
                        f"{type(coeffs).__name__}")
    x = convert_to_tensor(x)
    if not coeffs:
        return zeros_like(x)
    p = convert_to_tensor(coeffs[0], dtype=x.dtype) if not isinstance(coeffs[0], Tensor) \
        else coeffs[0]
    for c in coeffs[1:]:
        p = add(c, multiply(p, x))
    return p
