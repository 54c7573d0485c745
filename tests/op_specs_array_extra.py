"""Op-table rows for TensorFlow's explicit slicing and rearranging composites (`slice`,
`strided_slice` with its masks; registered into the shared table by `op_specs`, which imports
this module). Bounds and masks are fixed inside each row's function: only the float
arguments are checked."""
import finegrad as fg

from op_table import OpSpec, _add, _named

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

NONDIFF = ("searchsorted",)   # positions in a sorted sequence
