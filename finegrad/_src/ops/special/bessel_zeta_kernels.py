"""The kernels of `bessel_zeta_beta` on NumPy float64 arrays (no SciPy at runtime): erfcinv
(and ndtri
through it), the exponentially scaled modified Bessel functions i0e and i1e, the Hurwitz zeta
function on TensorFlow's whole domain, and the regularized incomplete beta function.

Methods:

- erfcinv(c) for c in [0, 2]: M. Giles' erfinv approximation as the starting point, written in
  ``w = -log(c (2 - c))`` so it is computed from ``c`` itself (``1 - c`` would lose the digits
  of a small ``c``), then Newton steps on ``log(erfc(y)) = log(c)`` (Halley on erf for c near
  1); ``c > 1`` by ``erfcinv(c) = -erfcinv(2 - c)`` (``2 - c`` is exact there).
- i0e, i1e: the power series of I_nu (positive terms: no cancellation) times ``exp(-|x|)`` for
  ``|x| <= 20``; Hankel's asymptotic expansion beyond (its smallest term is about
  ``exp(-2 |x|)``, below the rounding error).
- zeta(x, q): `special_kernels.hurwitz_zeta` (Euler-Maclaurin) for q > 0; for q < 0 (not an
  integer, x an integer, as TensorFlow) the terms up to q + n > 0 summed first; inf at x = 1
  and at the poles q = 0, -1, ... for an even integer x (nan for other x), nan for x < 1
  (TensorFlow's conventions).
- betainc(a, b, x): the continued fraction of Numerical Recipes (modified Lentz), on
  ``I_x(a, b)`` or on ``1 - I_{1-x}(b, a)``, whichever converges fast.
"""
import math

import numpy as np

from finegrad._src.ops.special.erf_gamma_kernels import (_GILES_CENTRAL, _GILES_TAIL, _horner,
                                                         hurwitz_zeta, lgamma, refine_erf_root)


def _erfcinv_upper(c):
    """erfcinv(c) for c in (0, 1] (result >= 0)."""
    a = 1 - c       # exact for c >= 1/2; only a factor of the starting guess below that
    with np.errstate(all="ignore"):
        w = -np.log(c * (2 - c))
        y = a * np.where(w < 5, _horner(_GILES_CENTRAL, w - 2.5),
                         _horner(_GILES_TAIL, np.sqrt(w) - 3))
        # beyond Giles' range (c < 1e-16): erfc(y) ~ exp(-y^2) / (y sqrt(pi)) solved once
        lc = -np.log(c)
        y = np.where(w > 36, np.sqrt(lc - 0.5 * np.log(np.pi * lc)), y)
        # c near 1: Halley on erf(y) = 1 - c; small c: Newton on erfc(y) = c
        return refine_erf_root(y, a, c, c > 0.5)


def erfcinv(c):
    """erfcinv of a float64 array: +inf at 0, -inf at 2, nan outside [0, 2]."""
    c = np.asarray(c, np.float64)
    lower = c > 1
    cc = np.where(lower, 2 - c, c)
    inside = (cc > 0) & (cc <= 1)
    y = _erfcinv_upper(np.where(inside, cc, 0.5))
    y = np.where(inside, y, np.where(cc == 0, np.inf, np.nan))
    return np.where(lower, -y, y)


def ndtri(p):
    """The inverse of the standard normal CDF of a float64 array: -inf at 0, +inf at 1, nan
    outside [0, 1]; ``-sqrt(2) erfcinv(2 p)`` (2 p is exact)."""
    # + 0.0: ndtri(1/2) is +0, as TensorFlow's (the product is -0)
    return -math.sqrt(2) * erfcinv(2 * np.asarray(p, np.float64)) + 0.0


def _bessel_ie(nu, x):
    """exp(-|x|) I_nu(|x|) for nu in (0, 1) of a float64 array."""
    ax = np.abs(np.asarray(x, np.float64))
    small = ax <= 20
    with np.errstate(all="ignore"):
        # power series sum_k (x/2)^(2k + nu) / (k! (k + nu)!)
        xs = np.where(small, ax, 0.0)
        h2 = (xs / 2) ** 2
        term = np.ones_like(xs) if nu == 0 else xs / 2
        total = term
        for k in range(1, 80):
            term = term * h2 / (k * (k + nu))
            total = total + term
        series = total * np.exp(-xs)
        # Hankel: exp(x) / sqrt(2 pi x) sum_k (-1)^k prod_{j <= k} (4 nu^2 - (2j - 1)^2)
        # / (k! 8^k x^k)
        xl = np.where(small, 1.0, ax)
        mu = 4.0 * nu * nu
        term = np.ones_like(xl)
        total = term
        for k in range(1, 40):
            term = -term * (mu - (2 * k - 1) ** 2) / (k * 8 * xl)
            total = total + term
        tail = total / np.sqrt(2 * np.pi * xl)
        out = np.where(small, series, tail)
    return np.where(np.isinf(ax), 0.0, out)


def i0e(x):
    """exp(-|x|) I0(x) of a float64 array."""
    return _bessel_ie(0, x)


def i1e(x):
    """exp(-|x|) I1(x) of a float64 array (odd)."""
    x = np.asarray(x, np.float64)
    return np.copysign(_bessel_ie(1, x), x)


def i0(x):
    """I0(x) of a float64 array (the scale applied in two halves: finite up to |x| ~ 713)."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore"):
        half = np.exp(np.abs(x) / 2)
        return np.where(np.isinf(x), np.inf, i0e(x) * half * half)


def i1(x):
    """I1(x) of a float64 array."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore"):
        half = np.exp(np.abs(x) / 2)
        return np.where(np.isinf(x), x, i1e(x) * half * half)


def zeta(s, q):
    """Hurwitz zeta(s, q) of float64 arrays with TensorFlow's conventions (module docstring)."""
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    with np.errstate(all="ignore"):
        negative = (q <= 0) & np.isfinite(q)
        shift = np.where(negative, np.floor(-q) + 1, 0.0)
        n = int(np.max(shift, initial=0.0))
        head = np.zeros(s.shape)
        for i in range(n):
            head = head + np.where(i < shift, (q + i) ** -s, 0.0)
        out = head + hurwitz_zeta(s, q + shift)
        # a pole q = 0, -1, ...: inf for an even integer x, nan otherwise (as Eigen's zeta)
        even = (s == np.floor(s)) & (np.fmod(s, 2) == 0)
        out = np.where((q <= 0) & (q == np.floor(q)), np.where(even, np.inf, np.nan), out)
        out = np.where(negative & (s != np.floor(s)), np.nan, out)
        out = np.where(s == 1, np.inf, out)
        return np.where((s < 1) | np.isnan(s) | np.isnan(q), np.nan, out)


def _betacf(a, b, x, iters=300):
    """The continued fraction of I_x(a, b) (modified Lentz), times its prefactor's a."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c = np.ones_like(x)
    d = 1 - qab * x / qap
    d = 1 / np.where(np.abs(d) < tiny, tiny, d)
    h = d
    for m in range(1, iters + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / np.where(np.abs(d) < tiny, tiny, d)
        c = 1 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / np.where(np.abs(d) < tiny, tiny, d)
        c = 1 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1) < 1e-16):
            break
    return h


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b) of float64 arrays: a, b > 0 and x in
    [0, 1] (nan elsewhere, as TensorFlow)."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    valid = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    flip = x > (a + 1) / (a + b + 2)
    aa, bb = np.where(flip, b, a), np.where(flip, a, b)
    xx = np.where(flip, 1 - x, x)
    inner = valid & (xx > 0)
    aa, bb = np.where(inner, aa, 1.0), np.where(inner, bb, 1.0)
    xx = np.where(inner, xx, 0.5)
    with np.errstate(all="ignore"):
        front = np.exp(aa * np.log(xx) + bb * np.log1p(-xx) + lgamma(aa + bb) - lgamma(aa)
                       - lgamma(bb)) / aa
        part = front * _betacf(aa, bb, xx)
    part = np.where(inner, part, 0.0)
    out = np.where(flip, 1 - part, part)
    return np.where(valid, out, np.nan)
