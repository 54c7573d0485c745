"""Op-table rows of the tf.math families in ops/special/error_and_gamma.py, ops/math/sorting.py and
ops/math/segments.py (kept out of op_specs.py, which imports this module, to keep it short).

`NONDIFF_MATH_EXTRA` names their primitives that carry no gradient.
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

# ---- sorting: sort and top_k gather the values at the sorting indices (random inputs: no ties)
_add(
    OpSpec(fg.sort, shapes=((3,), (2, 3)), prims=("gather", "argsort")),
    OpSpec(fg.sort, shapes=((2, 3),), kwargs=dict(axis=0, direction="DESCENDING"),
           prims=("gather", "transpose")),
    OpSpec(_named("top_k", lambda x: fg.math.top_k(x, k=2).values), shapes=((3,), (2, 3)),
           prims=("gather", "argsort")),
)

# ---- segments: the first axis (4 rows) goes to segments [0, 0, 1, 3] (segment 2 empty), or in
# any order with a dropped row (-1) for the unsorted ops, or by a 2-D id array
_IDS, _UIDS, _ROWS = [0, 0, 1, 3], [2, 0, -1, 2], ((4,), (4, 2))
_KINDS = (("sum", ANY, ("gather_transpose",)), ("mean", ANY, ("divide",)),
          ("max", ANY, ("segment_max",)), ("min", ANY, ("segment_min",)),
          ("prod", AWAY_FROM_ZERO, ("segment_prod",)))


def _segment_row(kind, dom, prims, unsorted):
    name = f"unsorted_segment_{kind}" if unsorted else f"segment_{kind}"
    f = getattr(fg.math, name)
    fn = (lambda x: f(x, _UIDS, 3)) if unsorted else (lambda x: f(x, _IDS))
    return OpSpec(_named(name, fn), shapes=_ROWS, domain=dom, prims=prims)


_add(*(_segment_row(*row, unsorted) for unsorted in (False, True) for row in _KINDS))
_add(OpSpec(_named("unsorted_segment_max(2-D ids)",
                   lambda x: fg.math.unsorted_segment_max(x, [[0, 1], [1, 2]], 3)),
            shapes=((2, 2), (2, 2, 3)), prims=("segment_max",)))

# ---- polyval (Horner) and confusion_matrix's weights (a scatter-add into the cells)
_add(
    OpSpec(_named("polyval", lambda c, x: fg.math.polyval([c, 1.5, c], x)), nargs=2,
           prims=("multiply", "add")),
    OpSpec(_named("confusion_matrix(weights)", lambda w: fg.math.confusion_matrix(
        [0, 1, 1], [1, 1, 0], weights=w, dtype=w.dtype)), shapes=((3,),),
        prims=("gather_transpose",)),
)

NONDIFF_MATH_EXTRA = ("truncatediv", "argmax", "argmin", "argsort")
