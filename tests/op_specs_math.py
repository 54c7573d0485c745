"""Op-table rows of the tf.math family (ops/math/): elementwise functions, arithmetic, `where`,
reductions and scans, complex numbers, statistics, sorting, segments, counting and the casts and
division variants. `NONDIFF` names their primitives that carry no gradient (the comparisons,
predicates and roundings are in op_specs.py's `NONDIFF`).
"""
import numpy as np

import finegrad as fg

from op_table import (ANY, AWAY_FROM_ZERO, POSITIVE, UNARY_SHAPES, UNIT, Domain,
                      OpSpec, _add, _named)


# ---- elementwise, unary ----------------------------------------------------------------------

_add(
    OpSpec(fg.exp),
    OpSpec(fg.math.expm1),
    OpSpec(fg.math.log, domain=POSITIVE),
    OpSpec(fg.math.log1p, domain=(-0.5, 2.0)),
    OpSpec(fg.sqrt, domain=POSITIVE),
    OpSpec(fg.math.rsqrt, domain=POSITIVE),
    OpSpec(fg.math.reciprocal, domain=AWAY_FROM_ZERO),
    OpSpec(fg.sin),
    OpSpec(fg.cos),
    OpSpec(fg.tan, domain=(-1.2, 1.2)),
    OpSpec(fg.tanh),
    OpSpec(fg.math.sinh),
    OpSpec(fg.math.cosh),
    OpSpec(fg.math.asin, domain=UNIT),
    OpSpec(fg.math.acos, domain=UNIT),
    OpSpec(fg.math.atan),
    OpSpec(fg.math.asinh),
    OpSpec(fg.sigmoid),
    OpSpec(fg.math.softplus),
    OpSpec(fg.nn.softplus, name="nn.softplus"),
    OpSpec(fg.square),
    OpSpec(fg.negative),
    OpSpec(fg.identity),
    OpSpec(lambda x: fg.debugging.check_numerics(x, "op table"),
           name="debugging.check_numerics", prims=("check_numerics",)),
    # kinks at 0: checked away from them here; the subgradients at 0 in test_op_gradients
    OpSpec(fg.abs, domain=AWAY_FROM_ZERO),
    OpSpec(fg.nn.relu, domain=AWAY_FROM_ZERO),
    OpSpec(fg.sign, domain=AWAY_FROM_ZERO),  # gradient 0 everywhere (TensorFlow's choice)
    OpSpec(fg.nn.l2_loss, prims=("multiply", "reduce_sum", "divide")),
)

# ---- elementwise, binary ---------------------------------------------------------------------

_add(
    OpSpec(fg.add, nargs=2),
    OpSpec(fg.math.tanh_grad, nargs=2),
    OpSpec(fg.math.sigmoid_grad, nargs=2),
    OpSpec(fg.subtract, nargs=2),
    OpSpec(fg.multiply, nargs=2),
    OpSpec(fg.divide, nargs=2, domains=(ANY, AWAY_FROM_ZERO)),
    OpSpec(fg.pow, nargs=2, domains=(POSITIVE, ANY)),
    OpSpec(_named("pow_scalar_base", lambda y: fg.pow(2.0, y)), prims=("pow",)),
    # maximum/minimum: random inputs never tie (ties: see the subgradient tests)
    OpSpec(fg.maximum, nargs=2),
    OpSpec(fg.minimum, nargs=2),
    # floormod, away from its jumps: x / y stays inside (0, 1), then inside (2, 3), (-1, 0)
    OpSpec(fg.math.mod, nargs=2, domains=((0.2, 0.8), (1.0, 1.5)), prims=("floormod",),
           name="mod(x/y in (0,1))"),
    OpSpec(fg.math.mod, nargs=2, domains=((2.2, 2.8), (1.0, 1.05)), prims=("floormod",),
           name="mod(x/y in (2,3))"),
    OpSpec(fg.math.mod, nargs=2, domains=((-0.8, -0.2), (1.0, 1.5)), prims=("floormod",),
           name="mod(x/y in (-1,0))"),
    OpSpec(fg.math.mod, nargs=2, domains=((0.2, 0.8), (-1.5, -1.0)), prims=("floormod",),
           name="mod(y < 0)"),
)

for _p in (2.0, 3.0, -1.5, 0.5, 0.0, 1):
    _add(OpSpec(_named(f"pow(x, {_p!r})", lambda x, _p=_p: fg.pow(x, _p)),
                domain=POSITIVE if _p != int(_p) or _p < 0 else ANY,
                prims=() if _p == 1 else ("pow_scalar",)))
_add(OpSpec(_named("x ** 2 (operator)", lambda x: x ** 2), prims=("pow_scalar",)))


def _checker(shape):
    """A fixed boolean pattern of ``shape`` (True, False, True, ...)."""
    return np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape) % 2 == 0


def _where(x, y):
    return fg.where(_checker(np.broadcast_shapes(tuple(x.shape), tuple(y.shape))), x, y)


def _where_wide_condition(x, y):
    return fg.where(_checker((2, 3)), x, y)


def _where_scalar_condition(x, y):
    return fg.where(False, x, y)


_add(
    OpSpec(_named("where", _where), nargs=2, prims=("select",)),
    OpSpec(_named("where(condition wider)", _where_wide_condition), nargs=2,
           shapes=(((), ()), ((3,), (1, 3)), ((2, 1), ())), prims=("select",)),
    OpSpec(_named("where(scalar condition)", _where_scalar_condition), nargs=2,
           shapes=(((2, 3), (3,)), ((), (2, 1))), prims=("select",)),
    OpSpec(fg.clip_by_value, nargs=3, domains=(ANY, (-1.5, -0.5), (0.5, 1.5)),
           shapes=(((), (), ()), ((3,), (3,), (3,)), ((2, 3), (), ()),
                   ((2, 3), (1, 3), (2, 1))),
           prims=("maximum", "minimum")),
    OpSpec(_named("clip_by_value(x, -0.5, 0.5)", lambda x: fg.clip_by_value(x, -0.5, 0.5)),
           prims=("maximum", "minimum")),
)

# ---- reductions and scans --------------------------------------------------------------------

_REDUCTIONS = (
    (fg.reduce_sum, ANY, ("reduce_sum",)),
    (fg.reduce_mean, ANY, ("reduce_sum", "divide")),
    (fg.reduce_max, ANY, ("reduce_max",)),
    (fg.reduce_min, ANY, ("reduce_min",)),
    (fg.reduce_prod, ANY, ("reduce_prod", "cumprod")),
    (fg.reduce_logsumexp, ANY, ("exp", "log", "reduce_sum")),
)

for _fn, _dom, _prims in _REDUCTIONS:
    _add(OpSpec(_fn, domain=_dom, prims=_prims, shapes=UNARY_SHAPES))
    for _axis in (0, -1, (0, 1)):
        for _keep in (False, True):
            _add(OpSpec(_fn, domain=_dom, prims=_prims, shapes=((2, 3),),
                        kwargs=dict(axis=_axis, keepdims=_keep)))
    _add(OpSpec(_fn, domain=_dom, prims=_prims, shapes=((2, 3),),
                kwargs=dict(axis=None, keepdims=True)))
    for _keep in (False, True):  # two axes that are not neighbours
        _add(OpSpec(_fn, domain=_dom, prims=_prims, shapes=((2, 3, 2),),
                    kwargs=dict(axis=(0, -1), keepdims=_keep)))

for _fn, _dom, _prims in ((fg.math.cumsum, ANY, ("cumsum",)),
                          (fg.math.cumprod, ANY, ("cumprod",))):
    _add(OpSpec(_fn, domain=_dom, prims=_prims, shapes=((3,), (2, 3))))
    _add(OpSpec(_fn, domain=_dom, prims=_prims, shapes=((2, 3),), kwargs=dict(axis=-1)))
    _add(OpSpec(_fn, domain=_dom, prims=_prims + ("concat", "strided_slice"),
                shapes=((3,), (2, 3)), kwargs=dict(exclusive=True)))
    _add(OpSpec(_fn, domain=_dom, prims=_prims + ("strided_slice",), shapes=((2, 3),),
                kwargs=dict(axis=1, reverse=True)))
    _add(OpSpec(_fn, domain=_dom, prims=_prims, shapes=((2, 3), (2, 3, 2)),
                kwargs=dict(axis=1, exclusive=True, reverse=True)))

# ---- complex numbers -------------------------------------------------------------------------
# Each row takes real inputs, builds z = complex(a, b) and returns the real and imaginary parts
# of a complex result, so the finite differences are over real numbers: a rule that broke
# TensorFlow's convention (VJP = ct * conj(f'(z))) anywhere in the chain fails here.
# tests/test_complex.py also checks complex inputs directly (check_gradients' complex mode).

def _parts(w):
    return fg.math.real(w), fg.math.imag(w)


def _complex_row(label, fn, domains=(ANY, ANY), prims=(), **kw):
    return OpSpec(_named(label, fn), nargs=2, domains=domains,
                  prims=("complex", "real", "imag") + tuple(prims), **kw)


_SAME2 = (((), ()), ((3,), (3,)), ((2, 3), (2, 3)))
_add(
    _complex_row("exp(complex)", lambda a, b: _parts(fg.exp(fg.complex(a, b))), prims=("exp",)),
    _complex_row("log(complex)", lambda a, b: _parts(fg.math.log(fg.complex(a, b))),
                 domains=(POSITIVE, ANY), prims=("log",)),
    _complex_row("sqrt(complex)", lambda a, b: _parts(fg.sqrt(fg.complex(a, b))),
                 domains=(POSITIVE, ANY), prims=("sqrt",)),
    _complex_row("sin,tanh(complex)", lambda a, b: _parts(fg.sin(fg.complex(a, b)) *
                                                          fg.tanh(fg.complex(b, a) * 0.3)),
                 prims=("sin", "tanh", "multiply")),
    _complex_row("sigmoid,square(complex)", lambda a, b: _parts(
        fg.sigmoid(fg.complex(a, b) * 0.5) + fg.square(fg.complex(b, a))),
                 prims=("sigmoid", "square")),
    _complex_row("divide,reciprocal(complex)", lambda a, b: _parts(
        fg.complex(a, b) / fg.complex(b, a) + fg.math.reciprocal(fg.complex(a, b))),
                 domains=(AWAY_FROM_ZERO, AWAY_FROM_ZERO), prims=("divide", "reciprocal")),
    _complex_row("pow(complex)", lambda a, b: _parts(fg.pow(fg.complex(a, b), fg.complex(b, a))),
                 domains=(POSITIVE, ANY), prims=("pow",)),
    OpSpec(_named("abs(complex)", lambda a, b: fg.abs(fg.complex(a, b))), nargs=2,
           domains=(AWAY_FROM_ZERO, AWAY_FROM_ZERO), prims=("complex", "abs")),
    OpSpec(_named("angle(complex)", lambda a, b: fg.math.angle(fg.complex(a, b))), nargs=2,
           domains=(AWAY_FROM_ZERO, AWAY_FROM_ZERO), prims=("complex", "angle")),
    _complex_row("conj(complex)", lambda a, b: _parts(fg.math.conj(fg.complex(a, b)) *
                                                      fg.complex(b, a)), prims=("conj",)),
    _complex_row("matmul(complex)", lambda a, b: _parts(fg.matmul(
        fg.complex(a, b), fg.complex(b, a), adjoint_b=True)),
                 shapes=(((2, 3), (2, 3)),), prims=("matmul", "conj")),
    _complex_row("einsum(complex)", lambda a, b: _parts(fg.einsum(
        "ij,ij->i", fg.complex(a, b), fg.complex(b, a))),
                 shapes=(((2, 3), (2, 3)),), prims=("einsum",)),
    _complex_row("reduce_prod(complex)", lambda a, b: _parts(fg.reduce_prod(
        fg.complex(a, b), axis=-1)), domains=(AWAY_FROM_ZERO, AWAY_FROM_ZERO),
                 shapes=_SAME2[1:], prims=("reduce_prod",)),
    _complex_row("cumprod(complex)", lambda a, b: _parts(fg.math.cumprod(
        fg.complex(a, b), axis=-1)), domains=(AWAY_FROM_ZERO, AWAY_FROM_ZERO),
                 shapes=_SAME2[1:], prims=("cumprod",)),
)


# ---- statistics of tf.math and tf.nn written with existing ops (no primitive of their own)
_add(
    OpSpec(fg.math.reduce_variance, shapes=((3,), (2, 3)), prims=("reduce_sum", "subtract")),
    OpSpec(fg.math.reduce_variance, shapes=((2, 3),), kwargs=dict(axis=1, keepdims=True),
           prims=("reduce_sum", "subtract")),
    OpSpec(fg.math.reduce_std, shapes=((3,), (2, 3)), kwargs=dict(axis=-1),
           prims=("reduce_sum", "sqrt")),
    OpSpec(fg.math.reduce_euclidean_norm, domain=AWAY_FROM_ZERO, prims=("reduce_sum", "sqrt")),
    OpSpec(fg.math.reduce_euclidean_norm, domain=AWAY_FROM_ZERO, shapes=((2, 3),),
           kwargs=dict(axis=0), prims=("reduce_sum", "sqrt")),
    OpSpec(fg.math.l2_normalize, domain=AWAY_FROM_ZERO, prims=("reduce_sum", "sqrt")),
    OpSpec(fg.math.l2_normalize, domain=AWAY_FROM_ZERO, shapes=((2, 3),),
           kwargs=dict(axis=1), prims=("reduce_sum", "maximum")),
    OpSpec(fg.nn.moments, shapes=((3,), (2, 3)), kwargs=dict(axes=[0]),
           prims=("reduce_sum", "subtract")),
    OpSpec(fg.nn.moments, shapes=((2, 3),), kwargs=dict(axes=[0, 1], keepdims=True),
           prims=("reduce_sum", "subtract")),
    OpSpec(fg.math.divide_no_nan, nargs=2, domains=(ANY, AWAY_FROM_ZERO),
           prims=("divide", "select")),
    OpSpec(_named("add_n", lambda x, y: fg.add_n([x, y, x])), nargs=2,
           shapes=(((), ()), ((3,), (3,)), ((2, 3), (2, 3))), prims=("add",)),
    OpSpec(fg.nn.compute_average_loss, shapes=((3,), (2, 3)), prims=("reduce_sum", "divide")),
)

# ops/math/inverse_trig.py: inverse hyperbolic functions and log_sigmoid
_add(
    OpSpec(fg.math.acosh, domain=Domain(1.5, 3.0)),
    OpSpec(fg.math.atanh, domain=UNIT),
    OpSpec(fg.math.log_sigmoid, prims=("softplus", "negative")),
    OpSpec(fg.math.squared_difference, nargs=2, prims=("subtract", "multiply")),
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


_SCALAR_FIRST = (((), ()), ((), (3,)), ((), (2, 3)))
_SAME = (((), ()), ((3,), (3,)), ((2, 3), (2, 3)))

# ---- ops/math/counts_and_casts.py
_add(
    OpSpec(fg.realdiv, nargs=2, domains=(ANY, AWAY_FROM_ZERO), prims=("divide",)),
    OpSpec(fg.scalar_mul, nargs=2, shapes=_SCALAR_FIRST, prims=("multiply",)),
    # its gradient is TensorFlow's: 1 for x1, 0 for x2 (random inputs: x2 never equals x1)
    OpSpec(fg.math.nextafter, nargs=2),
    OpSpec(_named("saturate_cast(own dtype)", lambda x: fg.saturate_cast(x, x.dtype)),
           prims=("maximum", "minimum")),
    OpSpec(_named("accumulate_n", lambda x, y: fg.math.accumulate_n([x, y, x])), nargs=2,
           shapes=_SAME, prims=("add",)),
    OpSpec(_named("unsorted_segment_sqrt_n", lambda x: fg.math.unsorted_segment_sqrt_n(
        x, [2, 0, -1, 2], 3)), shapes=((4,), (4, 2)), prims=("gather_transpose", "divide")),
    # sorted values (random inputs: no ties)
    OpSpec(_named("approx_max_k", lambda x: fg.math.approx_max_k(x, 2).values),
           shapes=((3,), (2, 3)), prims=("gather", "argsort")),
    OpSpec(_named("approx_min_k(reduction_dimension=0)",
                  lambda x: fg.math.approx_min_k(x, 1, reduction_dimension=0).values),
           shapes=((2, 3),), prims=("gather", "argsort")),
)


NONDIFF = ("argmax", "argmin", "argsort", "truncatemod", "invert_permutation")
