"""``tf``'s array names (TensorFlow's ``array_ops``): the structural primitives (conversion,
cast, reshape, broadcast, transpose, concat, stack, split, tile, ``reduce_sum``), constants,
indexing and slicing, gathers and scatters, ``boolean_mask``, shape queries, the
rearrangements (reverse, roll, pad, repeat, one_hot, sequences, depth/space blocks) and the
sparse updates of a ``Variable``, and ``bitcast``.

Modules: `structural`, `indexing`, `slicing`, `constants`, `gather`, `scatter_nd`,
`boolean_mask`, `shape_queries`, `manipulation`, `sequences_and_blocks`, `variable_scatter`,
`bitcast`.
"""
from finegrad._src.ops.array import (indexing, structural, constants, gather,  # noqa: F401
                                     shape_queries, slicing, manipulation, scatter_nd,
                                     boolean_mask, sequences_and_blocks, variable_scatter,
                                     bitcast)
