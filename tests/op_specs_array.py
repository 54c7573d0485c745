"""Op-table rows for TensorFlow's explicit slicing and rearranging composites (`slice`,
`strided_slice` with its masks; registered into the shared table by `op_specs`, which imports
this module). Bounds and masks are fixed inside each row's function: only the float
arguments are checked."""
import numpy as np

import finegrad as fg

from op_table import (OpSpec, _add, _named)

_SLICE = ("strided_slice", "scatter_add_into_zeros")

_add(
    OpSpec(_named("slice", lambda x: fg.slice(x, [1] * len(x.shape), [-1] * len(x.shape))),
           shapes=((3,), (2, 3)), prims=_SLICE),
    OpSpec(_named("slice(block)", lambda x: fg.slice(x, [0, 1], [2, 2])),
           shapes=((2, 3),), prims=_SLICE),
    OpSpec(_named("strided_slice(masks)", lambda x: fg.strided_slice(
        x, [1, 0, 2], [2, 0, 0], [1, 1, -1], end_mask=0b100, new_axis_mask=0b010,
        shrink_axis_mask=0b001)), shapes=((2, 3),), prims=_SLICE),
    OpSpec(_named("strided_slice(ellipsis)", lambda x: fg.strided_slice(
        x, [0, 2], [0, 0], [1, -2], begin_mask=0b10, end_mask=0b10, ellipsis_mask=0b01)),
           shapes=((3,), (2, 3)), prims=_SLICE),
)

# reverse_sequence: one gather of the flat input; the depth rearrangements: reshapes around a
# transpose
_add(
    OpSpec(_named("reverse_sequence", lambda x: fg.reverse_sequence(x, [2, 3], 1, 0)),
           shapes=((2, 3),), prims=("gather", "reshape")),
    OpSpec(_named("reverse_sequence(seq_axis=0)",
                  lambda x: fg.reverse_sequence(x, [1, 2, 0], 0, 2)),
           shapes=((2, 2, 3),), prims=("gather", "reshape")),
    OpSpec(_named("space_to_depth", lambda x: fg.nn.space_to_depth(x, 2)),
           shapes=((1, 2, 4, 2),), prims=("reshape", "transpose")),
    OpSpec(_named("depth_to_space", lambda x: fg.nn.depth_to_space(x, 2)),
           shapes=((1, 2, 1, 8),), prims=("reshape", "transpose")),
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


# ---- N-dimensional gathers and scatters, boolean_mask
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


NONDIFF = ("searchsorted",   # positions in a sorted sequence
           "mask_indices",  # the positions boolean_mask selects
           "bitcast")       # the same bytes as another dtype (TensorFlow: no gradient)
