"""The core group of Keras 3's `keras.ops` (Keras has no `keras.ops.core` module; these
names are at `finegrad.ops`'s top level too)."""
from finegrad._src.backends.dispatch.core import (  # noqa: F401
    associative_scan, cast, cond, fori_loop, map, rearrange, saturate_cast, scan, scatter,
    scatter_update, slice, slice_update, stop_gradient, switch, unstack, vectorized_map,
    while_loop)
from finegrad._src.backends.dispatch.tensors import (  # noqa: F401
    convert_to_numpy, convert_to_tensor, dtype, is_tensor, shape)
from finegrad._src.backends.dispatch.differentiation import (  # noqa: F401
    custom_gradient)

__all__ = """
associative_scan cast cond convert_to_numpy convert_to_tensor custom_gradient dtype
fori_loop is_tensor map rearrange saturate_cast scan scatter scatter_update shape slice
slice_update stop_gradient switch unstack vectorized_map while_loop
""".split()
