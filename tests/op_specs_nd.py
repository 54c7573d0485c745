"""Op-table rows for gather_nd, scatter_nd, the tensor_scatter_nd_* family and boolean_mask
(registered into the shared table by `op_specs`, which imports this module). Indices and
masks are fixed inside each row's function: only the float arguments are checked."""
import numpy as np

import finegrad as fg

from op_table import OpSpec, _add, _named

_ND = ("gather_nd", "scatter_nd")
_IDX = [[1], [3], [0]]   # no duplicates: update's gradient is then the true derivative

_add(
    OpSpec(_named("gather_nd", lambda x: fg.gather_nd(x, [[1, 0], [0, 2], [1, 0]])),
           shapes=((2, 3), (2, 3, 2)), prims=_ND),
    OpSpec(_named("gather_nd(slices)", lambda x: fg.gather_nd(x, [[[1]], [[0]]])),
           shapes=((2, 3),), prims=_ND),
    OpSpec(_named("gather_nd(batch_dims=1)",
                  lambda x: fg.gather_nd(x, [[[1], [0]], [[2], [2]]], batch_dims=1)),
           shapes=((2, 3, 2),), prims=_ND),
    OpSpec(_named("scatter_nd", lambda u: fg.scatter_nd([[1], [3], [1]], u, [4] + list(
        u.shape[1:]))), shapes=((3,), (3, 2)), prims=_ND),
    OpSpec(_named("tensor_scatter_nd_add", lambda t, u: fg.tensor_scatter_nd_add(t, _IDX, u)),
           nargs=2, shapes=(((4,), (3,)), ((4, 2), (3, 2))), prims=_ND + ("add",)),
    OpSpec(_named("tensor_scatter_nd_sub", lambda t, u: fg.tensor_scatter_nd_sub(t, _IDX, u)),
           nargs=2, shapes=(((4,), (3,)),), prims=_ND + ("subtract",)),
    OpSpec(_named("tensor_scatter_nd_update",
                  lambda t, u: fg.tensor_scatter_nd_update(t, _IDX, u)),
           nargs=2, shapes=(((4,), (3,)), ((4, 2), (3, 2))), prims=_ND + ("select",)),
    # random floats: no ties between the tensor and the updates (the kink is TF's tie share)
    OpSpec(_named("tensor_scatter_nd_max", lambda t, u: fg.tensor_scatter_nd_max(t, _IDX, u)),
           nargs=2, shapes=(((4,), (3,)), ((4, 2), (3, 2)))),
    OpSpec(_named("tensor_scatter_nd_min", lambda t, u: fg.tensor_scatter_nd_min(t, _IDX, u)),
           nargs=2, shapes=(((4,), (3,)),)),
    OpSpec(_named("boolean_mask", lambda x: fg.boolean_mask(
        x, np.arange(x.shape[0] * x.shape[1]).reshape(x.shape[:2]) % 3 != 1)),
           shapes=((2, 3), (2, 3, 2)), prims=("gather", "gather_transpose")),
    OpSpec(_named("boolean_mask(axis=1)", lambda x: fg.boolean_mask(
        x, [True, False, True], axis=1)), shapes=((2, 3),), prims=("gather",)),
)

# map_fn: fn per slice of one unstack, the results stacked; vectorized_map: fn's ops once
# over the batch (a slice, a size-1 axis after the batch axis, a product)
_add(OpSpec(_named("map_fn", lambda x: fg.map_fn(lambda r: fg.sin(r) * fg.reduce_sum(r), x)),
            shapes=((3,), (2, 3)), prims=("unstack_rows", "concat")),
     OpSpec(_named("vectorized_map", lambda x: fg.vectorized_map(lambda r: r * r[0], x)),
            shapes=((2, 3),), prims=("strided_slice", "reshape", "multiply")))

NONDIFF = ("mask_indices",)   # the positions boolean_mask selects
