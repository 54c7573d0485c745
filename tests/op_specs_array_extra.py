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

NONDIFF = ()
