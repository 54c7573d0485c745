"""Op-table rows of the tf.math families in ops/special_functions.py, ops/sorting.py and
ops/segments.py (kept out of op_specs.py, which imports this module, to keep it short).

`NONDIFF_MATH_EXTRA` names their primitives that carry no gradient.
"""
import finegrad as fg

from op_table import ANY, POSITIVE, UNIT, Domain, OpSpec, _add, _named

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
    OpSpec(fg.nn.gelu, name="gelu(exact)", prims=("erf",)),
)

NONDIFF_MATH_EXTRA = ("truncatediv",)
