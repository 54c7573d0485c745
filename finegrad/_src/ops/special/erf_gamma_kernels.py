"""Special functions on NumPy arrays (NumPy has none, and SciPy is not a runtime dependency):
erf, erfc, erfinv, lgamma, digamma and polygamma, vectorized, in float64.

The primitives of `ops.special.error_and_gamma` call these on float64 copies of their inputs and
cast the results back, so float16 and float32 get correctly rounded float64 values. Methods:

- erf, erfc: W. J. Cody, "Rational Chebyshev approximations for the error function",
  Math. Comp. 23 (1969) 631-637, as in his CALERF routine: three rational approximations on
  |x| <= 0.46875, <= 4 and > 4; erfc is computed directly (exp(-x^2) split in two factors to
  keep its accuracy), so it stays accurate far into its tail where 1 - erf(x) is 0.
- erfinv: M. Giles, "Approximating the erfinv function", GPU Computing Gems (2011), as the
  starting point, then two Halley steps on erf(y) = x (on erfc(y) = 1 - x for |x| > 0.5,
  which keeps the residual accurate as x approaches 1).
- lgamma: the argument is moved into [1.5, 2.5) by the recurrence Gamma(x + 1) = x Gamma(x),
  where the Taylor series of lgamma(2 + z) in the zeta values zeta(k) - 1 (Abramowitz and
  Stegun 6.1.33) is accurate also near the zeros at 1 and 2; Stirling's series for x >= 10;
  the reflection formula for x < 0.
- digamma: the recurrence psi(x + 1) = psi(x) + 1/x up to x >= 10, then the asymptotic
  series (A&S 6.3.18); near its positive zero, the Taylor series there; reflection for x < 0.
- polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta function summed with the
  Euler-Maclaurin formula (as Cephes' zeta); reflection for x < 0 through the derivatives of
  pi cot(pi x), written as polynomials in cot(pi x).
"""
import math
from fractions import Fraction

import numpy as np

# --- erf and erfc: W. J. Cody's CALERF coefficients -------------------------------------------
_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
      2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
      2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
      1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)
_SQRPI = 5.6418958354775628695e-1   # 1 / sqrt(pi)


def _erf_small(x):
    """erf(x) for |x| <= 0.46875."""
    ysq = x * x
    num, den = _A[4] * ysq, ysq
    for i in range(3):
        num = (num + _A[i]) * ysq
        den = (den + _B[i]) * ysq
    return x * (num + _A[3]) / (den + _B[3])


def _erfc_large(y):
    """erfc(y) for y > 0.46875 (two rational approximations, split at 4)."""
    with np.errstate(all="ignore"):
        num, den = _C[8] * y, y
        for i in range(7):
            num = (num + _C[i]) * y
            den = (den + _D[i]) * y
        mid = (num + _C[7]) / (den + _D[7])
        r = 1 / (y * y)
        num, den = _P[5] * r, r
        for i in range(4):
            num = (num + _P[i]) * r
            den = (den + _Q[i]) * r
        tail = (_SQRPI - r * (num + _P[4]) / (den + _Q[4])) / y
        res = np.where(y <= 4, mid, tail)
        # exp(-y^2) as exp(-s^2) exp(-(y - s)(y + s)) with s = y rounded down to 1/16: exact
        # products, so the large exponent loses no digits
        s = np.trunc(y * 16) / 16
        out = np.exp(-s * s) * np.exp(-(y - s) * (y + s)) * res
    return np.where(np.isposinf(y), 0.0, out)


def erf(x):
    """erf of a float64 array."""
    x = np.asarray(x, np.float64)
    y = np.abs(x)
    small = y <= 0.46875
    big = np.copysign(1.0 - _erfc_large(np.where(small, 1.0, y)), x)
    return np.where(small, _erf_small(np.where(small, x, 0.0)), big)


def erfc(x):
    """erfc of a float64 array (accurate in the tail: erfc(26) = 5.6e-296)."""
    x = np.asarray(x, np.float64)
    y = np.abs(x)
    small = y <= 0.46875
    tail = _erfc_large(np.where(small, 1.0, y))
    big = np.where(x < 0, 2.0 - tail, tail)
    return np.where(small, 1.0 - _erf_small(np.where(small, x, 0.0)), big)


# --- erfinv: Giles' single-precision approximation, then Halley steps --------------------------
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                  0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
               0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coeffs, w):
    p = np.full_like(w, coeffs[0])
    for c in coeffs[1:]:
        p = p * w + c
    return p


def refine_erf_root(y, a, c, halley_where):
    """Four refinements of ``y`` toward ``erf(y) = a``, i.e. ``erfc(y) = c`` (``c = 1 - a``
    given separately, so that a small ``c`` keeps its digits): Halley on ``erf(y) - a``
    (``f'' = -2 y f'``) where ``halley_where``, else Newton on ``log(erfc(y)) - log(c)``,
    nearly linear in ``y`` in the tail. Call under ``np.errstate(all="ignore")``."""
    for _ in range(4):
        dens = 2 * _SQRPI * np.exp(-y * y)
        step = (erf(y) - a) / dens
        halley = y - step / (1 + y * step)
        ec = erfc(y)
        newton = y + (np.log(ec) - np.log(c)) * ec / dens
        y = np.where(halley_where, halley, newton)
    return y


def erfinv(x):
    """erfinv of a float64 array: +-inf at +-1, nan outside [-1, 1]."""
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    inside = a < 1
    a0 = np.where(inside, a, 0.5)
    with np.errstate(all="ignore"):
        w = -np.log((1 - a0) * (1 + a0))
        y = a0 * np.where(w < 5, _horner(_GILES_CENTRAL, w - 2.5),
                          _horner(_GILES_TAIL, np.sqrt(w) - 3))
        # |x| <= 0.5: Halley on erf; beyond, Newton on erfc against 1 - a0 (exact there)
        y = refine_erf_root(y, a0, 1 - a0, a0 <= 0.5)
    out = np.where(inside, y, np.where(a == 1, np.inf, np.nan))
    return np.copysign(out, x)


# --- zeta values and the Hurwitz zeta function -------------------------------------------------
# Bernoulli numbers B_2 .. B_24
_BERNOULLI = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330), Fraction(854513, 138),
              Fraction(-236364091, 2730))
# B_2j / (2j)!, the Euler-Maclaurin coefficients
_EM = tuple(float(b / math.factorial(2 * j + 2)) for j, b in enumerate(_BERNOULLI))


def hurwitz_zeta(s, q):
    """zeta(s, q) = sum_{i >= 0} (q + i)^-s for s > 1 and q > 0 (float64 arrays): ten terms
    summed, the rest by the Euler-Maclaurin formula at w = q + 10 >= 10."""
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    with np.errstate(all="ignore"):
        total = np.zeros(s.shape)
        for i in range(10):
            total = total + (q + i) ** -s
        w = q + 10
        b = w ** -s
        total = total + w ** (1 - s) / (s - 1) + 0.5 * b
        fac = s.copy()          # s (s + 1) ... (s + 2j - 2)
        b = b / w
        for j, c in enumerate(_EM):
            total = total + c * fac * b
            fac = fac * (s + 2 * j + 1) * (s + 2 * j + 2)
            b = b / (w * w)
    return total


def _zeta_minus_one(k):
    """zeta(k) - 1 = zeta(k, 2) for an integer k >= 2."""
    return float(hurwitz_zeta(float(k), 2.0))


# lgamma(2 + z) = (1 - gamma) z + sum_{k >= 2} (-1)^k (zeta(k) - 1) / k z^k  (|z| <= 1/2)
_EULER = 0.57721566490153286061
_LGAMMA2 = tuple((-1) ** k * _zeta_minus_one(k) / k for k in range(2, 30))


def _lgamma_near_2(z):
    """lgamma(2 + z) for |z| <= 1/2, accurate relative to its value (0 at z = 0)."""
    p = np.zeros_like(z)
    for c in reversed(_LGAMMA2):
        p = (p + c) * z
    return z * (1 - _EULER + p)


# Stirling: lgamma(x) = (x - 1/2) log x - x + log(2 pi) / 2 + sum B_2k / (2k (2k-1) x^(2k-1))
_STIRLING = tuple(float(b / ((2 * k + 2) * (2 * k + 1))) for k, b in enumerate(_BERNOULLI[:8]))
_HALF_LOG_2PI = 0.91893853320467274178


def _lgamma_positive(x):
    """lgamma(x) for x > 0 (float64 array)."""
    with np.errstate(all="ignore"):
        large = x >= 10
        xl = np.where(large, x, 10.0)
        r = 1 / (xl * xl)
        series = np.zeros_like(xl)
        for c in reversed(_STIRLING):
            series = series * r + c
        stirling = (xl - 0.5) * np.log(xl) - xl + _HALF_LOG_2PI + series / xl
        # small x: lgamma(x) = lgamma(2 + z) + log(prod) - down, with z computed exactly
        # (Sterbenz) so that the zeros at 1 and 2 keep their relative accuracy
        y = np.where(large, 2.0, x)
        below = y < 0.5          # lgamma(x) = lgamma(x + 2) - log(x (x + 1)), z = x
        one = (y >= 0.5) & (y < 1.5)     # lgamma(x) = lgamma(x + 1) - log(x), z = x - 1
        down = np.where(below, np.log(y) + np.log1p(y), np.where(one, np.log(y), 0.0))
        prod = np.ones_like(y)
        for _ in range(8):
            step = y >= 2.5
            y = np.where(step, y - 1, y)
            prod = np.where(step, prod * y, prod)
        z = np.where(below, y, np.where(one, y - 1, y - 2))
        small = _lgamma_near_2(z) + np.log(prod) - down
    return np.where(large, np.where(np.isposinf(x), np.inf, stirling), small)


def _sinpi_abs(x):
    """|sin(pi x)|, exact at integers (the argument is reduced first)."""
    r = x - np.round(x)
    return np.abs(np.sin(np.pi * r))


def lgamma(x):
    """log|Gamma(x)| of a float64 array: inf at the poles (0, -1, ...) and at +-inf."""
    x = np.asarray(x, np.float64)
    neg = x < 0
    pos = _lgamma_positive(np.where(neg, 1 - x, np.where(x > 0, x, 1.0)))
    with np.errstate(all="ignore"):
        refl = np.log(np.pi / _sinpi_abs(x)) - pos
    out = np.where(neg, refl, pos)
    out = np.where((x <= 0) & (x == np.floor(x)), np.inf, out)
    return np.where(np.isnan(x), np.nan, out)


# --- digamma -----------------------------------------------------------------------------------
_ROOT_HI, _ROOT_LO = 1.4616321449683622, 9.549995429965697e-17   # psi(root) = 0
# psi(root + h) = sum_{k >= 1} (-1)^(k+1) zeta(k + 1, root) h^k
_ROOT_SERIES = tuple((-1) ** (k + 1) * float(hurwitz_zeta(k + 1.0, _ROOT_HI))
                     for k in range(1, 26))
_DIGAMMA_ASYMPTOTIC = tuple(float(b / (2 * k + 2)) for k, b in enumerate(_BERNOULLI[:8]))


def _digamma_positive(x):
    """psi(x) for x > 0 (float64 array)."""
    with np.errstate(all="ignore"):
        shift = np.zeros_like(x)
        y = x.copy()
        for _ in range(10):
            step = y < 10
            shift = np.where(step, shift + 1 / y, shift)
            y = np.where(step, y + 1, y)
        r = 1 / (y * y)
        series = np.zeros_like(y)
        for c in reversed(_DIGAMMA_ASYMPTOTIC):
            series = series * r + c
        far = np.log(y) - 0.5 / y - series * r - shift
        h = (x - _ROOT_HI) - _ROOT_LO
        near = np.zeros_like(h)
        for c in reversed(_ROOT_SERIES):
            near = (near + c) * h
    return np.where(np.abs(h) < 0.3, near, np.where(np.isposinf(x), np.inf, far))


def digamma(x):
    """psi(x) of a float64 array; nan at 0, the negative integers and -inf (as TensorFlow)."""
    x = np.asarray(x, np.float64)
    neg = x <= 0
    pos = _digamma_positive(np.where(neg, 1 - x, x))
    with np.errstate(all="ignore"):
        r = x - np.round(x)
        refl = pos - np.pi / np.tan(np.pi * r)
    out = np.where(neg, refl, pos)
    return np.where(neg & (x == np.floor(x)), np.nan, out)


# --- polygamma ---------------------------------------------------------------------------------

def _cot_derivative(n):
    """Coefficients (lowest first) of P_n with d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x))."""
    p = np.polynomial.Polynomial([0.0, 1.0])
    minus_one_plus_c2 = np.polynomial.Polynomial([-1.0, 0.0, -1.0])
    for _ in range(n):
        p = p.deriv() * minus_one_plus_c2
    return p


_MAX_ORDER = 170     # 171! overflows float64


def _polygamma_positive(n, x):
    """psi^(n)(x) for integer n >= 1 and x > 0."""
    sign = np.where(n % 2 == 1, 1.0, -1.0)
    fact = np.exp(_lgamma_positive(n + 1.0))
    return sign * np.round(fact) * hurwitz_zeta(n + 1.0, x)


def polygamma(n, x):
    """psi^(n)(x) for float64 arrays: n a non-negative integer (nan otherwise, as TensorFlow);
    n = 0 is digamma. At the poles: inf for odd n, nan for even n (TensorFlow's values)."""
    n, x = np.broadcast_arrays(np.asarray(n, np.float64), np.asarray(x, np.float64))
    valid = (n >= 0) & (n == np.floor(n))
    nn = np.where(valid & (n >= 1), n, 1.0)
    neg = x <= 0
    with np.errstate(all="ignore"):
        out = _polygamma_positive(nn, np.where(neg, 1 - x, x))
        c = 1 / np.tan(np.pi * (x - np.round(x)))
        refl = np.zeros_like(x)
        for k in np.unique(nn[neg]):
            here = neg & (nn == k)
            if k > _MAX_ORDER:      # n! overflows: no finite value to reflect
                refl = np.where(here, np.nan, refl)
                continue
            poly = _cot_derivative(int(k))
            refl = np.where(here, (-1) ** int(k) * out - np.pi ** (k + 1) * poly(c), refl)
        out = np.where(neg, refl, out)
        pole = neg & (x == np.floor(x))
        out = np.where(pole, np.where(nn % 2 == 1, np.inf, np.nan), out)
        out = np.where(np.isneginf(x), np.where(nn == 1, np.inf, np.nan), out)
        out = np.where(np.isposinf(x), np.where(nn % 2 == 1, 0.0, -0.0), out)
    out = np.where(valid & (n == 0), digamma(x), out)
    return np.where(valid, out, np.nan)
