"""Op-table rows of the special functions (ops/special/): error and gamma functions, ndtri,
the modified Bessel functions, zeta, the incomplete gamma and beta functions.

`NONDIFF` names their primitives that carry no gradient.
"""
import finegrad as fg
from finegrad._src.ops.special.igamma import gamma_sample_grad

from op_table import ANY, AWAY_FROM_ZERO, POSITIVE, UNIT, Domain, OpSpec, _add, _named

# ---- special functions: erf, erfc, erfinv, lgamma, digamma, polygamma, xlogy, xlog1py ----
_add(
    OpSpec(fg.math.erf),
    OpSpec(fg.math.erfc),
    OpSpec(fg.math.erfinv, domain=UNIT),
    OpSpec(fg.math.lgamma, domain=POSITIVE),
    # between the poles -1 and 0 (the reflection formula)
    OpSpec(fg.math.lgamma, domain=Domain(-0.9, -0.1), name="lgamma(negative)"),
    OpSpec(fg.math.digamma, domain=POSITIVE),
    OpSpec(fg.math.digamma, domain=Domain(-0.9, -0.1), name="digamma(negative)"),
    OpSpec(_named("polygamma(1, x)", lambda x: fg.math.polygamma(1., x)), domain=POSITIVE,
           prims=("polygamma",)),
    OpSpec(_named("polygamma(2, x)", lambda x: fg.math.polygamma(2., x)),
           domain=Domain(-0.9, -0.1), prims=("polygamma",)),
    OpSpec(fg.math.xlogy, nargs=2, domains=(ANY, POSITIVE)),
    OpSpec(fg.math.xlog1py, nargs=2, domains=(ANY, (-0.5, 2.0))),
    OpSpec(fg.math.atan2, nargs=2, domains=(ANY, AWAY_FROM_ZERO)),
    OpSpec(fg.math.cumulative_logsumexp, shapes=((3,), (2, 3))),
    # exp() of it: the exclusive scan starts at -inf, which finite differences cannot take
    OpSpec(_named("exp(cumulative_logsumexp(axis=1, exclusive, reverse))",
                  lambda x: fg.exp(fg.math.cumulative_logsumexp(x, axis=1, exclusive=True,
                                                                reverse=True))),
           shapes=((2, 3),), prims=("cumulative_logsumexp",)),
    OpSpec(fg.nn.gelu, name="gelu(exact)", prims=("erfc",)),
)

# ---- ndtri, erfcinv, the modified Bessel functions (i0e and i1e have a kink at 0: away from
# it), Hurwitz zeta in q and betainc in x (their other arguments carry no gradient)
_add(
    OpSpec(fg.math.ndtri, domain=Domain(0.05, 0.95)),
    OpSpec(fg.math.erfcinv, domain=Domain(0.1, 1.9), prims=("ndtri",)),
    OpSpec(fg.math.bessel_i0e, domain=AWAY_FROM_ZERO),
    OpSpec(fg.math.bessel_i1e, domain=AWAY_FROM_ZERO),
    OpSpec(fg.math.bessel_i0),
    OpSpec(fg.math.bessel_i1),
    OpSpec(_named("zeta(3, q)", lambda q: fg.math.zeta(3., q)), domain=POSITIVE,
           prims=("zeta",)),
    OpSpec(_named("zeta(2.5, q)", lambda q: fg.math.zeta(2.5, q)), domain=Domain(2.0, 6.0),
           prims=("zeta",)),
    OpSpec(_named("betainc(2, 3, x)", lambda x: fg.math.betainc(2., 3., x)),
           domain=Domain(0.1, 0.9), prims=("betainc",)),
    OpSpec(_named("betainc(0.5, 4.5, x)", lambda x: fg.math.betainc(0.5, 4.5, x)),
           domain=Domain(0.2, 0.8), prims=("betainc",)),
)

# ---- incomplete gamma: the series (x <= a) and continued-fraction (x > 1, x > a) regimes, and
# the implicit-reparameterization derivative of gamma samples built on it
_add(
    OpSpec(fg.math.igamma, nargs=2, domains=(POSITIVE, POSITIVE)),
    OpSpec(fg.math.igammac, nargs=2, domains=(POSITIVE, Domain(2.5, 4.0)), prims=("igamma",)),
    OpSpec(_named("gamma_sample_grad", gamma_sample_grad), nargs=2,
           domains=(POSITIVE, POSITIVE), prims=("igamma", "digamma")),
)

NONDIFF = ("truncatediv",)   # (a primitive of special/error_and_gamma.py)
