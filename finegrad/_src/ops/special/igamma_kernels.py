"""NumPy kernels (float64, vectorized) of the regularized incomplete gamma functions
P(a, x) = gamma(a, x) / Gamma(a), Q = 1 - P, and their derivatives in ``a`` of any order.

The methods are Cephes' (as in Eigen, which TensorFlow uses): the power series
``P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))`` where ``x <= 1`` or
``x <= a``, else the continued fraction for ``Q``. The derivatives in ``a`` come from running
the same recurrences on truncated Taylor series in ``a`` ("jets": ``c[j] = f^(j)(a) / j!``),
which is what Eigen does for the first derivative by carrying it beside the value; a
recurrence stops when every coefficient has converged.
"""
import math

import numpy as np

from finegrad._src.ops.special import erf_gamma_kernels as kernels

# The derivative coefficients settle a few ulps wide (rounding in the recurrences) and may
# cross zero, so a recurrence stops when every coefficient moves by less than 16 ulps of the
# largest coefficient.
_EPS = 16 * np.finfo(np.float64).eps
_BIG = 2.0 ** 52
_MAX_TERMS = 20000


def _mul(f, g):
    """The product of two jets (a Cauchy product, truncated)."""
    out = np.zeros(np.broadcast_shapes(f.shape, g.shape))
    for n in range(out.shape[0]):
        for j in range(n + 1):
            out[n] += f[j] * g[n - j]
    return out


def _div(f, g):
    """The quotient of two jets: ``h = f / g`` from ``f = h g``, coefficient by coefficient."""
    out = np.zeros(np.broadcast_shapes(f.shape, g.shape))
    for n in range(out.shape[0]):
        acc = f[n].copy() if n < f.shape[0] else np.zeros(out.shape[1:])
        for j in range(1, n + 1):
            acc = acc - out[n - j] * g[j]
        out[n] = acc / g[0]
    return out


def _exp(f):
    """``exp`` of a jet: ``h' = f' h`` gives ``n h_n = sum_j j f_j h_(n-j)``."""
    out = np.zeros(f.shape)
    out[0] = np.exp(f[0])
    for n in range(1, f.shape[0]):
        out[n] = sum(j * f[j] * out[n - j] for j in range(1, n + 1)) / n
    return out


def _lgamma_jet(a, order):
    """The jet of ``lgamma`` at ``a``: lgamma(a), psi(a), psi'(a) / 2!, ..."""
    out = [kernels.lgamma(a)]
    for j in range(1, order + 1):
        out.append(kernels.polygamma(np.full_like(a, j - 1.0), a) / math.factorial(j))
    return np.stack(out)


def _variable(a, order):
    """The jet of the identity at ``a`` (``a + t``)."""
    out = np.zeros((order + 1,) + a.shape)
    out[0] = a
    if order:
        out[1] = 1.0
    return out


def _converged(change, total):
    return np.all(np.abs(change) <= _EPS * np.max(np.abs(total), axis=0), axis=0)


def _series(a, x, order, scaled):
    """The jet of P(a, x) by the power series (for ``x <= 1`` or ``x <= a``); with
    ``scaled``, divided by the density ``p(a, x)`` (at this ``a``: a constant)."""
    av = _variable(a, order)
    log_x = np.log(x)
    expo = av * log_x
    expo[0] = expo[0] - x
    expo = expo - _lgamma_jet(a + 1.0, order)
    if scaled:   # x^a e^-x / Gamma(a + 1) over x^(a-1) e^-x / Gamma(a), without cancellation
        expo[0] = log_x - np.log(a)
    term = np.zeros_like(av)
    term[0] = 1.0
    total = term.copy()
    for n in range(1, _MAX_TERMS):
        denom = av.copy()
        denom[0] = denom[0] + n
        term = _div(term * x, denom)
        total = total + term
        if np.all(_converged(term, total)):
            break
    return _mul(_exp(expo), total)


def _continued_fraction(a, x, order, scaled):
    """The jet of Q(a, x) by Cephes' continued fraction (for ``x > 1`` and ``x > a``); with
    ``scaled``, divided by the density ``p(a, x)``."""
    av = _variable(a, order)
    one = np.zeros_like(av)
    one[0] = 1.0
    xj = np.zeros_like(av)
    xj[0] = x
    y = one - av
    z = xj + y + one
    pkm2, qkm2, pkm1, qkm1 = one, xj, xj + one, _mul(z, xj)
    ans = _div(pkm1, qkm1)
    for c in range(1, _MAX_TERMS):
        y = y + one
        z = z + 2 * one
        yc = y * c
        pk = _mul(pkm1, z) - _mul(pkm2, yc)
        qk = _mul(qkm1, z) - _mul(qkm2, yc)
        ok = qk[0] != 0
        r = _div(pk, np.where(ok, qk, 1.0))
        done = _converged(ans - r, r) | ~ok
        ans = np.where(ok, r, ans)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        big = np.abs(pk[0]) > _BIG
        scale = np.where(big, 1.0 / _BIG, 1.0)
        pkm2, pkm1, qkm2, qkm1 = (v * scale for v in (pkm2, pkm1, qkm2, qkm1))
        if np.all(done):
            break
    expo = av * np.log(x)
    expo[0] = expo[0] - x
    expo = expo - _lgamma_jet(a, order)
    if scaled:   # x^a e^-x / Gamma(a) over x^(a-1) e^-x / Gamma(a)
        expo[0] = np.log(x)
    return _mul(_exp(expo), ans)


def igamma(a, x, order=0, upper=False, scaled=False):
    """The ``order``-th derivative in ``a`` of P(a, x) (of Q(a, x) with ``upper``), float64,
    elementwise over the broadcast of ``a`` and ``x``; with ``scaled``, divided by the density
    ``p(a, x) = x^(a-1) e^-x / Gamma(a)`` (finite where both underflow). Outside the domain
    (``a <= 0``, ``x < 0``, nan) the value is nan, as TensorFlow's; ``x == 0`` gives P = 0 and
    ``x = inf`` P = 1 (their derivatives in ``a``: 0, and 0 scaled, their limits)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    valid = (a > 0) & (x >= 0)
    edge = valid & ((x == 0) | np.isinf(x) | np.isinf(a))
    if not scaled:
        # far in the upper tail Q and its derivatives are below the smallest double (and the
        # continued fraction would overflow): P = 1 there, as TensorFlow gives
        with np.errstate(all="ignore"):
            far = valid & (x > a + 1) & (np.log(x) * a - x - kernels.lgamma(a) < -800.0)
        edge = edge | far
    at_zero = (x == 0) | (np.isinf(a) & ~np.isinf(x))
    p_edge = np.where(at_zero, 0.0, 1.0)
    if order == 0 and not scaled:
        out[edge] = (1.0 - p_edge[edge]) if upper else p_edge[edge]
    else:
        out[edge] = np.inf if (upper and order == 0) else 0.0
    inner = valid & ~edge
    use_series = inner & ((x <= 1) | (x <= a))
    sign = -1.0 if (upper and order > 0) else 1.0
    for mask, lower in ((use_series, True), (inner & ~use_series, False)):
        if not mask.any():
            continue
        jet = (_series if lower else _continued_fraction)(a[mask], x[mask], order, scaled)
        value = jet[order] * math.factorial(order)
        if order == 0 and lower == upper:
            am, xm = a[mask], x[mask]
            one = np.exp(kernels.lgamma(am) + xm - (am - 1) * np.log(xm)) if scaled else 1.0
            value = one - value
        elif order > 0 and not lower:
            value = -value      # the derivatives of P are minus those of Q
        out[mask] = sign * value
    return out
