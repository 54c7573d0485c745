"""Op-table rows of the TensorFlow names of ops/math/counts_and_casts.py and
ops/linalg/diag_cross_rank.py (included by op_specs.py). Most are composites: each row names the
primitives it reaches.

`NONDIFF_TF_NAMES` names their primitives that carry no gradient.
"""
import finegrad as fg

from op_table import ANY, AWAY_FROM_ZERO, OpSpec, _add, _named

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

# ---- ops/linalg/diag_cross_rank.py (the norms are away from 0, where the euclidean one has a kink)
_add(
    OpSpec(_named("linalg.normalize", lambda x: fg.linalg.normalize(x)[0]),
           domain=AWAY_FROM_ZERO, shapes=((3,), (2, 3)), prims=("divide", "sqrt")),
    OpSpec(_named("linalg.normalize(ord=1, axis=1) norm",
                  lambda x: fg.linalg.normalize(x, ord=1, axis=1)[1]),
           domain=AWAY_FROM_ZERO, shapes=((2, 3),), prims=("abs", "reduce_sum")),
    OpSpec(_named("linalg.normalize(axis=1) * norm",
                  lambda x: fg.multiply(*fg.linalg.normalize(x, axis=1))),
           domain=AWAY_FROM_ZERO, shapes=((2, 3),), prims=("divide", "sqrt")),
    OpSpec(fg.linalg.cross, nargs=2, shapes=(((3,), (3,)), ((2, 3), (2, 3))),
           prims=("multiply", "subtract")),
    # the masks follow the matrix sizes (a trace keeps them): only a batch axis is left open
    OpSpec(fg.linalg.set_diag, nargs=2, shapes=(((1, 3, 3), (1, 3)), ((1, 2, 3), (1, 2)),
                                                ((2, 3, 2), (2, 2))), prims=("select",)),
    OpSpec(_named("linalg.set_diag(k=1)", lambda x, d: fg.linalg.set_diag(x, d, k=1)), nargs=2,
           shapes=(((1, 3, 4), (1, 3)), ((2, 4, 3), (2, 2))), prims=("select", "concat")),
    OpSpec(_named("linalg.set_diag(k=-1)", lambda x, d: fg.linalg.set_diag(x, d, k=-1)),
           nargs=2, shapes=(((1, 3, 3), (1, 2)),), prims=("select", "concat")),
    OpSpec(fg.linalg.tridiagonal_matmul, nargs=2, shapes=(((1, 3, 4), (1, 4, 2)),
                                                           ((2, 3, 3), (2, 3, 1))),
           prims=("multiply", "concat")),
    OpSpec(_named("tridiagonal_matmul(M=1)",
                  lambda d, r: fg.linalg.tridiagonal_matmul(d, r)), nargs=2,
           shapes=(((3, 1), (1, 2)),), prims=("multiply",)),
    OpSpec(fg.linalg.tensor_diag, shapes=((3,), (2, 2)), prims=("multiply", "reshape")),
    OpSpec(fg.linalg.tensor_diag_part, shapes=((3, 3), (2, 2, 2, 2)),
           prims=("multiply", "reduce_sum")),
)

NONDIFF_TF_NAMES = ("truncatemod", "invert_permutation")
