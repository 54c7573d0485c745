"""``tf.bitcast``: the same bytes read as another dtype (primitive ``bitcast``, no gradient).

Element sizes decide the shape, as in TensorFlow: equal sizes keep it; a larger input element
gains a last axis of ``size_in / size_out``; a smaller one needs a last axis of
``size_out / size_in``, which disappears.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.array.structural import convert_to_tensor

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

# TensorFlow's allowed types: numbers (bool and strings are refused)
_KINDS = "iufc"

# (not ``fresh``: its impl returns a view of its input, which may be a read-only buffer)
bitcast_p = def_nondiff(Primitive("bitcast", unify=False))


# ``axis``: 0 keeps the shape, k > 1 appends an axis of k, -1 drops the last axis
bitcast_p.def_shape(lambda x, *, dtype, axis: tuple(x) + (axis,) if axis > 1 else
                    tuple(x)[:-1] if axis < 0 else tuple(x))


@bitcast_p.def_impl
def _bitcast_impl(x, *, dtype, axis):
    out = np.ascontiguousarray(x).view(dtype)
    shape = x.shape + (axis,) if axis > 1 else x.shape[:-1] if axis < 0 else x.shape
    return out.reshape(shape)


@bitcast_p.def_lowering
def _bitcast_lower(x, *, dtype, axis):
    # through bytes: lax.bitcast_convert_type has no complex types, so a complex value is
    # its (real, imag) pair of floats, as in memory
    import jax.numpy as jnp
    from jax import lax
    dtype = np.dtype(dtype)
    shape = x.shape + (axis,) if axis > 1 else x.shape[:-1] if axis < 0 else x.shape
    if x.dtype.kind == "c":
        x = jnp.stack([jnp.real(x), jnp.imag(x)], -1)
    b = lax.bitcast_convert_type(x, jnp.uint8)
    b = b.reshape(shape + ((dtype.itemsize,) if dtype.itemsize > 1 else ()))
    if dtype.kind != "c":
        return lax.bitcast_convert_type(b, dtype)
    part = np.dtype(f"f{dtype.itemsize // 2}")
    re_im = lax.bitcast_convert_type(b.reshape(shape + (2, part.itemsize)), part)
    return lax.complex(re_im[..., 0], re_im[..., 1])


def bitcast(input: TensorLike, type: Any,  # TensorFlow's argument names
            name: str | None = None) -> Tensor:
    """The bytes of ``input`` read as dtype ``type``, without copying values (``tf.bitcast``).

    >>> import finegrad as fg
    >>> fg.bitcast(fg.constant([1., 2.]), fg.int32).numpy()
    array([1065353216, 1073741824], dtype=int32)
    >>> fg.bitcast(fg.constant([1., 2.]), fg.uint8).shape
    TensorShape([2, 4])

    Raises:
        InvalidArgumentError: for a bool or string dtype, or when a smaller input element's
            last axis is not ``size_out / size_in`` long (TensorFlow's "Cannot bitcast").
    """
    x = convert_to_tensor(input)
    out = dtypes.as_dtype(type)
    for what, d in (("input", x.dtype), ("type", out)):
        if np.dtype(d._np).kind not in _KINDS:
            raise InvalidArgumentError(None, None, f"finegrad.bitcast: {what} dtype must be a "
                                                   f"number type, got {d.name}")
    size_in, size_out = np.dtype(x.dtype._np).itemsize, np.dtype(out._np).itemsize
    shape = x.shape.as_list()
    if size_in < size_out and (not shape or shape[-1] != size_out // size_in):
        raise InvalidArgumentError(None, None, f"finegrad.bitcast: Cannot bitcast from "
                                               f"{x.dtype.name} to {out.name}: the last axis of "
                                               f"the input must be {size_out // size_in} long, "
                                               f"got shape {tuple(shape)}")
    axis = size_in // size_out if size_in > size_out else -1 if size_in < size_out else 0
    return bind(bitcast_p, x, dtype=out._np, axis=axis)
