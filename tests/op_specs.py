"""The op table: one `OpSpec` row per differentiable public op, run by test_op_gradients.py.

Each row names a function of float tensors, where its inputs are drawn from (a `Domain` per
argument), the shapes to try, the order to check, and the primitive(s) it covers. Anything
the function needs that is not differentiable (integer labels, gather indices, a `where`
condition) is fixed inside the function, so every argument a row declares is a float64
input of `finegrad.testing.check_gradients`.

`NONDIFF` lists the registered primitives that carry no gradient; `INTERNAL` the ones users
never call directly, each reached by the rows named beside it. The guard test in
test_op_gradients.py fails when a registered primitive is in none of these.
"""

import numpy as np

import finegrad as fg


from op_table import (ANY, AWAY_FROM_ZERO, BINARY_SHAPES, POSITIVE, SPECS, UNARY_SHAPES,  # noqa: F401
                      UNIT, Domain, OpSpec, _add, _named)




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

# ---- linear algebra --------------------------------------------------------------------------

_add(
    OpSpec(fg.matmul, nargs=2,
           shapes=(((2, 3), (3, 2)),
                   ((2, 2, 3), (3, 2)),         # batch on the left only
                   ((1, 2, 3), (2, 3, 2)),      # batch axes broadcast
                   ((2, 1, 2, 3), (3, 3, 1))),  # more batch axes, both broadcast
           ),
    OpSpec(fg.matmul, nargs=2, name="matmul(1-D operands)",
           shapes=(((3,), (3, 2)), ((2, 3), (3,)), ((3,), (3,)), ((3,), (2, 3, 2))),
           prims=("matmul", "reshape")),
    OpSpec(fg.matmul, nargs=2, kwargs=dict(transpose_a=True),
           shapes=(((3, 2), (3, 2)), ((2, 3, 2), (3, 2))), prims=("matmul", "transpose")),
    OpSpec(fg.matmul, nargs=2, kwargs=dict(transpose_b=True),
           shapes=(((2, 3), (2, 3)), ((2, 3), (2, 2, 3))), prims=("matmul", "transpose")),
    OpSpec(fg.matmul, nargs=2, kwargs=dict(transpose_a=True, transpose_b=True),
           shapes=(((3, 2), (2, 3)),), prims=("matmul", "transpose")),
    OpSpec(fg.matmul, nargs=2, kwargs=dict(adjoint_a=True, adjoint_b=True),
           shapes=(((3, 2), (2, 3)),), prims=("matmul", "transpose")),
    OpSpec(_named("x @ y", lambda x, y: x @ y), nargs=2, shapes=(((2, 3), (3, 2)),),
           prims=("matmul",)),
    OpSpec(fg.linalg.matvec, nargs=2,
           shapes=(((2, 3), (3,)), ((2, 2, 3), (2, 3)), ((2, 2, 3), (3,))),
           prims=("matmul",)),
    OpSpec(fg.linalg.matvec, nargs=2, kwargs=dict(transpose_a=True),
           shapes=(((3, 2), (3,)),), prims=("matmul", "transpose")),
    OpSpec(fg.tensordot, nargs=2, kwargs=dict(axes=1),
           shapes=(((2, 3), (3, 2)), ((2, 2, 3), (3,))), prims=("matmul",)),
    OpSpec(fg.tensordot, nargs=2, kwargs=dict(axes=[[0], [1]]),
           shapes=(((3, 2), (2, 3)),), prims=("matmul", "transpose")),
    OpSpec(fg.tensordot, nargs=2, kwargs=dict(axes=2),
           shapes=(((2, 3), (2, 3)),), prims=("matmul",)),
    OpSpec(fg.tensordot, nargs=2, kwargs=dict(axes=0),
           shapes=(((2,), (3,)),), prims=("matmul",)),
)

_EINSUMS = (
    ("ij,jk->ik", ((2, 3), (3, 2))),
    ("ij,jk", ((2, 3), (3, 2))),  # implicit output
    ("ij->ji", ((2, 3),)),
    ("ij->", ((2, 3),)),
    ("ij->j", ((2, 3),)),
    ("i,i->", ((3,), (3,))),
    ("i,j->ij", ((2,), (3,))),
    ("ij,ij->i", ((2, 3), (2, 3))),
    ("bij,bjk->bik", ((2, 2, 3), (2, 3, 2))),
    ("...ij,...jk->...ik", ((2, 2, 3), (2, 3, 2))),
    ("...ij,...jk->...ik", ((1, 2, 3), (2, 3, 2))),  # ellipsis axes broadcast
    ("...i,i->...", ((2, 3), (3,))),
    ("i...->...", ((2, 3),)),
    ("ij,jk,kl->il", ((2, 3), (3, 2), (2, 2))),
    ("ij,k->ijk", ((2, 2), (3,))),  # an axis only one operand has
    ("...ij,...jk,...k->...i", ((1, 2, 3), (2, 3, 2), (2,))),
)
for _eq, _shapes in _EINSUMS:
    _add(OpSpec(_named(f"einsum({_eq!r})", lambda *xs, _eq=_eq: fg.einsum(_eq, *xs)),
                nargs=len(_shapes), shapes=(_shapes if len(_shapes) == 1 else (_shapes,)),
                prims=("einsum",)))

_add(
    OpSpec(fg.norm, shapes=((3,), (2, 3)), prims=("multiply", "reduce_sum", "sqrt")),
    OpSpec(fg.norm, shapes=((2, 3),), kwargs=dict(axis=-1),
           prims=("multiply", "reduce_sum", "sqrt")),
    OpSpec(fg.norm, shapes=((2, 3),), kwargs=dict(ord="fro", axis=(0, 1), keepdims=True),
           prims=("multiply", "reduce_sum", "sqrt")),
    OpSpec(fg.norm, shapes=((3,), (2, 3)), kwargs=dict(ord=2, axis=0),
           prims=("multiply", "reduce_sum", "sqrt")),
    OpSpec(fg.norm, domain=AWAY_FROM_ZERO, shapes=((3,), (2, 3)), kwargs=dict(ord=1),
           prims=("abs", "reduce_sum")),
    OpSpec(fg.norm, domain=AWAY_FROM_ZERO, shapes=((3,), (2, 3)), kwargs=dict(ord=np.inf),
           prims=("abs", "reduce_max")),
    OpSpec(fg.norm, domain=AWAY_FROM_ZERO, shapes=((3,), (2, 3)),
           kwargs=dict(ord=3, axis=-1), prims=("abs", "pow_scalar", "reduce_sum")),
)

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


# ---- shapes, slicing, gathering -------------------------------------------------------------

_add(
    OpSpec(fg.reshape, shapes=((2, 3),), kwargs=dict(shape=(3, 2))),
    OpSpec(fg.reshape, shapes=((2, 3),), kwargs=dict(shape=(-1,))),
    OpSpec(fg.reshape, shapes=((),), kwargs=dict(shape=(1, 1))),
    OpSpec(fg.transpose, shapes=((2, 3),)),
    OpSpec(fg.transpose, shapes=((2, 3, 2),), kwargs=dict(perm=(2, 0, 1))),
    OpSpec(fg.transpose, shapes=((2, 3, 2),), kwargs=dict(perm=(-1, 0, 1))),
    OpSpec(fg.expand_dims, shapes=((), (3,), (2, 3)), kwargs=dict(axis=0), prims=("reshape",)),
    OpSpec(fg.expand_dims, shapes=((2, 3),), kwargs=dict(axis=-1), prims=("reshape",)),
    OpSpec(fg.squeeze, shapes=((1, 3, 1),), prims=("reshape",)),
    OpSpec(fg.squeeze, shapes=((1, 3, 1),), kwargs=dict(axis=0), prims=("reshape",)),
    OpSpec(fg.broadcast_to, shapes=((), (3,), (1, 3)), kwargs=dict(shape=(2, 3))),
    OpSpec(fg.broadcast_to, shapes=((2, 1),), kwargs=dict(shape=(2, 2, 3))),
    OpSpec(fg.tile, shapes=((2, 3),), kwargs=dict(multiples=(2, 1))),
    OpSpec(fg.tile, shapes=((3,),), kwargs=dict(multiples=(3,))),
    OpSpec(fg.tile, shapes=((2, 1),), kwargs=dict(multiples=(2, 3))),
    OpSpec(fg.tile, shapes=((2, 1, 2),), kwargs=dict(multiples=(2, 1, 3))),
    OpSpec(_named("concat(axis=0)", lambda x, y: fg.concat([x, y], axis=0)), nargs=2,
           shapes=(((3,), (2,)), ((2, 3), (1, 3))), prims=("concat",)),
    OpSpec(_named("concat(axis=-1)", lambda x, y, z: fg.concat([x, y, z], axis=-1)),
           nargs=3, shapes=(((2, 3), (2, 1), (2, 2)),), prims=("concat",)),
    OpSpec(_named("stack(axis=0)", lambda x, y: fg.stack([x, y])), nargs=2,
           shapes=(((), ()), ((3,), (3,)), ((2, 3), (2, 3))), prims=("concat", "reshape")),
    OpSpec(_named("stack(axis=1)", lambda x, y: fg.stack([x, y], axis=1)), nargs=2,
           shapes=(((3,), (3,)), ((2, 3), (2, 3))), prims=("concat", "reshape")),
    OpSpec(_named("stack(axis=-1)", lambda x, y: fg.stack([x, y], axis=-1)), nargs=2,
           shapes=(((2, 3), (2, 3)),), prims=("concat", "reshape")),
    OpSpec(fg.unstack, shapes=((3,), (2, 3)), prims=("strided_slice",)),
    OpSpec(fg.unstack, shapes=((2, 3),), kwargs=dict(axis=1), prims=("strided_slice",)),
    OpSpec(fg.split, shapes=((2, 3),), kwargs=dict(num_or_size_splits=[1, 2], axis=1),
           prims=("strided_slice",)),
    OpSpec(fg.split, shapes=((4,), (4, 2)), kwargs=dict(num_or_size_splits=2),
           prims=("strided_slice",)),
    OpSpec(fg.split, shapes=((2, 3),), kwargs=dict(num_or_size_splits=[1, -1], axis=-1),
           prims=("strided_slice",)),
)

_SLICES = (
    ("x[0::2]", lambda x: x[0::2], ((5,), (4, 2))),
    ("x[1:, ::-1]", lambda x: x[1:, ::-1], ((3, 4),)),
    ("x[..., None]", lambda x: x[..., None], ((), (2, 3))),
    ("x[::-2]", lambda x: x[::-2], ((5,),)),
    ("x[None, 1:]", lambda x: x[None, 1:], ((3, 2),)),
    ("x[1]", lambda x: x[1], ((3,), (2, 3))),
    ("x[-1]", lambda x: x[-1], ((2, 3),)),
    ("x[:, -1]", lambda x: x[:, -1], ((2, 3),)),
    ("x[1:, [0, 0]]", lambda x: x[1:, [0, 0]], ((3, 2),)),
    ("x[[0, 2, 0]] (duplicates)", lambda x: x[[0, 2, 0]], ((3,), (3, 2))),
    ("x[[0, 1, 1], [2, 0, 2]]", lambda x: x[[0, 1, 1], [2, 0, 2]], ((2, 3),)),
    ("x[:, [[1, 1], [0, 2]]]", lambda x: x[:, np.array([[1, 1], [0, 2]])], ((2, 3),)),
    ("x[mask]", lambda x: x[np.array([True, False, True])], ((3,), (3, 2))),
    ("x[mask2d]", lambda x: x[np.array([[True, False, True], [False, True, True]])],
     ((2, 3),)),
)
for _name, _fn, _shapes in _SLICES:
    _add(OpSpec(_named(_name, _fn), shapes=_shapes,
                prims=("strided_slice", "scatter_add_into_zeros")))

_add(
    OpSpec(_named("gather([2, 0, 2])", lambda x: fg.gather(x, [2, 0, 2])),
           shapes=((4,), (3, 2)), prims=("gather", "gather_transpose")),
    OpSpec(_named("gather(axis=1)", lambda x: fg.gather(x, [[0, 3], [1, 1]], axis=1)),
           shapes=((2, 4),), prims=("gather", "gather_transpose")),
    OpSpec(_named("gather(scalar index)", lambda x: fg.gather(x, 1)),
           shapes=((3,), (3, 2)), prims=("gather", "gather_transpose")),
    OpSpec(_named("gather(axis=-1)", lambda x: fg.gather(x, [1, 0, 1], axis=-1)),
           shapes=((2, 3),), prims=("gather", "gather_transpose")),
    OpSpec(_named("gather(2-D indices)", lambda x: fg.gather(x, [[1, 0], [2, 2]])),
           shapes=((3, 2),), prims=("gather", "gather_transpose")),
    OpSpec(_named("gather(batch_dims=1)",
                  lambda x: fg.gather(x, [[0, 3, 3], [1, 2, 0]], axis=1, batch_dims=1)),
           shapes=((2, 4),), prims=("gather", "gather_transpose")),
    OpSpec(_named("gather(batch_dims=1, axis=2)",
                  lambda x: fg.gather(x, [[1, 1], [0, 2]], axis=2, batch_dims=1)),
           shapes=((2, 2, 3),), prims=("gather", "gather_transpose")),
)


def _vjp_of(name, fn):
    """``x, u -> vjp(fn, x)(u)``, with the cotangent ``u`` an input too.

    check_gradients' second order differentiates ``vjp(fn, x)(u)`` in ``x`` only; for a linear
    ``fn`` that is constant, so the rules of the primitive its VJP emits (a scatter) would
    never run. Making ``u`` an input checks them at first order and their own VJP rules at
    second order.
    """
    return _named(f"vjp({name})", lambda x, u: fg.vjp(fn, x)[1](u)[0])


_TRANSPOSES = (
    ("x[0::2]", lambda x: x[0::2], (((5,), (3,)), ((4, 2), (2, 2))), "scatter_add_into_zeros"),
    ("x[1:, ::-1]", lambda x: x[1:, ::-1], (((3, 4), (2, 4)),), "scatter_add_into_zeros"),
    ("x[1]", lambda x: x[1], (((3,), ()), ((2, 3), (3,))), "scatter_add_into_zeros"),
    ("x[[0, 2, 0]]", lambda x: x[[0, 2, 0]], (((3,), (3,)), ((3, 2), (3, 2))),
     "scatter_add_into_zeros"),
    ("x[[0, 1, 1], [2, 0, 2]]", lambda x: x[[0, 1, 1], [2, 0, 2]], (((2, 3), (3,)),),
     "scatter_add_into_zeros"),
    ("x[mask]", lambda x: x[np.array([True, False, True])], (((3, 2), (2, 2)),),
     "scatter_add_into_zeros"),
    ("gather([2, 0, 2])", lambda x: fg.gather(x, [2, 0, 2]), (((4,), (3,)), ((3, 2), (3, 2))),
     "gather_transpose"),
    ("gather(axis=1)", lambda x: fg.gather(x, [[0, 3], [1, 1]], axis=1),
     (((2, 4), (2, 2, 2)),), "gather_transpose"),
    ("gather(batch_dims=1)",
     lambda x: fg.gather(x, [[0, 3, 3], [1, 2, 0]], axis=1, batch_dims=1),
     (((2, 4), (2, 3)),), "gather_transpose"),
    ("gather(batch_dims=1, axis=2)", lambda x: fg.gather(x, [[1, 1], [0, 2]], axis=2,
                                                         batch_dims=1),
     (((2, 2, 3), (2, 2, 2)),), "gather_transpose"),
)
for _name, _fn, _shapes, _prim in _TRANSPOSES:
    _add(OpSpec(_vjp_of(_name, _fn), nargs=2, shapes=_shapes, prims=(_prim,)))

# ---- neural-network ops ----------------------------------------------------------------------

_add(
    OpSpec(fg.nn.softmax, shapes=((3,), (2, 3))),
    OpSpec(fg.nn.softmax, shapes=((2, 3),), kwargs=dict(axis=0)),
    OpSpec(fg.math.softmax, shapes=((2, 3, 2),), kwargs=dict(axis=1)),
    OpSpec(fg.nn.log_softmax, shapes=((3,), (2, 3))),
    OpSpec(fg.nn.log_softmax, shapes=((2, 3),), kwargs=dict(axis=0)),
    OpSpec(fg.nn.softmax_cross_entropy_with_logits, nargs=2,
           shapes=(((3,), (3,)), ((2, 3), (2, 3))),
           prims=("log_softmax", "multiply", "reduce_sum")),
    OpSpec(fg.nn.softmax_cross_entropy_with_logits, nargs=2, kwargs=dict(axis=0),
           shapes=(((2, 3), (2, 3)),), prims=("log_softmax", "multiply", "reduce_sum")),
    OpSpec(_named("sparse_softmax_cross_entropy_with_logits(labels=1)",
                  lambda x: fg.nn.sparse_softmax_cross_entropy_with_logits(1, x)),
           shapes=((3,),), prims=("log_softmax", "multiply")),
    OpSpec(_named("sparse_softmax_cross_entropy_with_logits(labels=[0, 2])",
                  lambda x: fg.nn.sparse_softmax_cross_entropy_with_logits([0, 2], x)),
           shapes=((2, 3),), prims=("log_softmax", "multiply")),
    OpSpec(_named("sparse_softmax_cross_entropy_with_logits(labels=[[0, 1], [2, 2]])",
                  lambda x: fg.nn.sparse_softmax_cross_entropy_with_logits([[0, 1], [2, 2]],
                                                                           x)),
           shapes=((2, 2, 3),), prims=("log_softmax", "multiply")),
    # smooth in the logits although written with `where` (both branches agree at 0)
    OpSpec(fg.nn.sigmoid_cross_entropy_with_logits, nargs=2, domains=((0., 1.), ANY),
           shapes=(((), ()), ((3,), (3,)), ((2, 3), (2, 3))),
           prims=("select", "log1p", "exp", "multiply")),
    OpSpec(fg.clip_by_norm, nargs=2, domains=(ANY, (0.5, 1.5)),
           shapes=(((3,), ()), ((2, 3), ())),
           prims=("reduce_sum", "sqrt", "maximum", "divide"), name="clip_by_norm(clipped)"),
    OpSpec(fg.clip_by_norm, nargs=2, domains=(ANY, (8., 9.)),
           shapes=(((3,), ()), ((2, 3), ())),
           prims=("reduce_sum", "sqrt", "maximum", "divide"), name="clip_by_norm(unclipped)"),
    OpSpec(fg.clip_by_norm, nargs=2, domains=(ANY, (0.5, 2.)), kwargs=dict(axes=[1]),
           shapes=(((2, 3), ()), ((2, 3), (2, 1))),
           prims=("reduce_sum", "sqrt", "maximum", "divide")),
)


# ---- custom_gradient ----------------------------------------------------------------------

@fg.custom_gradient
def log1pexp(x):
    """log(1 + e**x) with the stable gradient 1 - 1 / (1 + e**x) (DESIGN.md's example)."""
    e = fg.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return fg.math.log(1 + e), grad


@fg.custom_gradient
def _scaled_product(x, y):
    """x * y with its true gradient, written by hand: two inputs, rules of several ops."""
    def grad(dy):
        return dy * y, dy * x
    return x * y, grad


_add(
    OpSpec(log1pexp, prims=("custom_gradient",)),
    OpSpec(_named("custom_gradient(x * y)", _scaled_product), nargs=2,
           shapes=(((), ()), ((3,), (3,)), ((2, 3), (2, 3))), prims=("custom_gradient",)),
)


# ---- control flow in traced functions (the graph's cond / while_loop nodes) -----------------

@fg.function
def _traced_cond(x):
    return fg.cond(fg.reduce_sum(x) > 0, lambda: fg.sin(x) * x, lambda: fg.exp(x) * 2.)


@fg.function
def _traced_while(x):
    _, y = fg.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, fg.sin(y) * x),
                         [fg.constant(0), x])
    return y


_add(
    OpSpec(_named("function(cond) true branch", lambda x: _traced_cond(x)), domain=POSITIVE,
           prims=("cond",)),
    OpSpec(_named("function(cond) false branch", lambda x: _traced_cond(x)),
           domain=(-2.0, -0.5), prims=("cond",)),
    # called eagerly, while_loop's gradient re-runs the loop under a tape (any order)
    OpSpec(_named("function(while_loop)", lambda x: _traced_while(x)), prims=("while_loop",)),
)


# ---- the rest of the registry ---------------------------------------------------------------

#: registered primitives that carry no gradient (def_nondiff): gradients stop there.
NONDIFF = (
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "is_nan", "is_inf", "is_finite",
    "floor", "ceil", "round", "rint", "floordiv",
    "stop_gradient",
    # a traced function's variable read and update: effects, run in program order
    "read_variable", "assign_variable",
    # a check that a traced int used as a size has its traced value (tests/test_traced_ints.py)
    "size_guard",
    # constants of a symbolic shape (shape-polymorphic graphs), and a shape's value
    "full", "shape",
)

#: primitives covered by tests outside the table, or reached only inside other ops' rules.
INTERNAL = {
    "custom_gradient": "the op `custom_gradient` records; rows log1pexp and "
                       "custom_gradient(x * y) reach it, test_custom_gradient.py covers the rest",
    "scatter_add_into_zeros": "the VJP of strided_slice; the vjp(x[...]) rows check its rules "
                              "(the cotangent is an input there)",
    "gather_transpose": "the VJP of gather; the vjp(gather(...)) rows check its rules (the "
                        "cotangent is an input there)",
    "cast": "float64 -> float32 loses the precision finite differences need; checked exactly "
            "in test_op_gradients.py::test_cast_gradient",
    "random_gamma": "random draws (finite differences redraw); tests/test_random_gamma.py checks "
                    "the implicit gradient, whose gamma_sample_grad row is here",
    "stateless_gamma": "as random_gamma: its draws move with alpha by the sampler, not by "
                       "the CDF inversion the gradient follows; tests/test_random_gamma.py",
    "py_function": "Python code run as an op inside a trace; tests/test_tf_parity_sweep.py "
                   "checks its gradient (first order only, by design)",
    "py_function_vjp": "the gradient of a traced py_function (its func re-run under a tape)",
    "while_grad": "the derivatives of a while_loop inside a trace (re-run the loop under "
                  "nested tapes); tests/test_control_flow.py checks them to third order",
}


# ---- TensorFlow functions written with existing ops (no primitive of their own) ---------------
# Each row names the primitives it must reach; the kinks of leaky_relu, elu and selu sit at 0,
# which their domain avoids.

_add(
    OpSpec(fg.nn.leaky_relu, domain=AWAY_FROM_ZERO, prims=("select", "greater")),
    OpSpec(fg.nn.leaky_relu, domain=AWAY_FROM_ZERO, kwargs=dict(alpha=0.01), prims=("select",)),
    OpSpec(fg.nn.elu, domain=AWAY_FROM_ZERO, prims=("select", "expm1")),
    OpSpec(fg.nn.selu, domain=AWAY_FROM_ZERO, prims=("select", "expm1")),
    OpSpec(fg.nn.gelu, kwargs=dict(approximate=True), prims=("tanh",)),
    OpSpec(fg.nn.silu, prims=("sigmoid",)),
    OpSpec(fg.nn.silu, kwargs=dict(beta=2.0), prims=("sigmoid",)),
    OpSpec(fg.nn.relu6, domain=Domain(0.5, 5.5, signed=True), prims=("relu", "minimum")),
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

# shapes and indexing: composites of strided_slice, concat and gather
_add(OpSpec(fg.reverse, shapes=((3,), (2, 3)), kwargs=dict(axis=[0]), prims=("strided_slice",)),
     OpSpec(fg.roll, shapes=((2, 3),), kwargs=dict(shift=1, axis=0), prims=("concat",)),
     OpSpec(fg.pad, shapes=((3,),), kwargs=dict(paddings=[[1, 2]]), prims=("concat",)),
     OpSpec(fg.pad, shapes=((3, 4),), prims=("strided_slice", "concat"),
            kwargs=dict(paddings=[[1, 2], [2, 0]], mode="REFLECT")),
     OpSpec(fg.pad, shapes=((3, 4),), prims=("strided_slice", "concat"),
            kwargs=dict(paddings=[[2, 3], [0, 1]], mode="SYMMETRIC")),
     OpSpec(fg.repeat, shapes=((2, 3),), kwargs=dict(repeats=[1, 0, 2], axis=1), prims=("gather",)),
     OpSpec(_named("meshgrid", lambda x, y: fg.math.multiply(*fg.meshgrid(x, y))), nargs=2,
            shapes=(((3,), (2,)),), prims=("broadcast_to",)))

# ---- tf.linalg band_part/diag/diag_part/trace (masks); batch axis 0 stays open
_M, _MUL, _SUM = ((1, 3, 3), (2, 2, 3), (2, 3, 2), (2, 3, 3)), ("multiply",), ("reduce_sum",)
_add(OpSpec(fg.linalg.band_part, kwargs=dict(num_lower=1, num_upper=0), shapes=_M, prims=_MUL),
     OpSpec(fg.linalg.band_part, kwargs=dict(num_lower=-1, num_upper=1), shapes=_M, prims=_MUL),
     OpSpec(fg.linalg.diag_part, shapes=_M, prims=_MUL + _SUM),
     OpSpec(fg.linalg.trace, shapes=_M, prims=_MUL + _SUM),
     OpSpec(fg.linalg.diag, shapes=((1, 3), (2, 3)), prims=_MUL))
_SQ = ((1, 3, 3), (2, 3, 3))   # A + 3 I: well conditioned, det > 0
_add(*(OpSpec(_named(f"linalg.{n}", lambda x, f=f: f(x + 3 * np.eye(3))), shapes=_SQ, prims=p)
       for n, f, p in (("inv", fg.linalg.inv, ("inv",)), ("det", fg.linalg.det, ("det",)),
                       ("slogdet", lambda x: fg.linalg.slogdet(x)[1], ("log_abs_det",)))))
NONDIFF += ("det_sign",)  # the sign of slogdet, which carries no gradient
NONDIFF += ("lu_perm",)   # the row permutation of linalg.lu
NONDIFF += ("bitcast",)   # the same bytes as another dtype (TensorFlow: no gradient)

import op_specs_decompositions  # noqa: E402,F401 (solves and decompositions)
import op_specs_conv  # noqa: E402  (random, dropout, convolutions and pooling)
NONDIFF += op_specs_conv.NONDIFF
import op_specs_nd  # noqa: E402  (gather_nd, scatter_nd, tensor_scatter_nd_*, boolean_mask)
import op_specs_signal  # noqa: E402,F401 (tf.signal: Fourier transforms, frame, fftshift)
import op_specs_image  # noqa: E402 (tf.image: resize, flips, crops, color, patches)
NONDIFF += op_specs_nd.NONDIFF
from op_specs_math_extra import NONDIFF_MATH_EXTRA  # noqa: E402  (tf.math special functions, sorting, segments)
NONDIFF += NONDIFF_MATH_EXTRA
import op_specs_array_extra  # noqa: E402  (slice, strided_slice and other array composites)
NONDIFF += op_specs_array_extra.NONDIFF
from op_specs_tf_names import NONDIFF_TF_NAMES  # noqa: E402  (ops/math/counts_and_casts.py, linalg_more.py)
NONDIFF += NONDIFF_TF_NAMES

INTERNAL.update(op_specs_image.NO_GRADIENT)
