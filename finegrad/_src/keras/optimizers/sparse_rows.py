"""Keras 3's arithmetic on `IndexedSlices` gradients (its TensorFlow backend's rules), for the
optimizers' sparse steps.

On TensorFlow, Keras keeps a gradient sparse through ops that preserve zeros (a product with
a scalar, ``square``, a quotient by a dense tensor: the divisor's rows are gathered) and
densifies it where a dense tensor is added or subtracted; ``assign``/``assign_add``/
``assign_sub`` of a sparse value scatter into the rows. These helpers reproduce those rules,
so only the rows an embedding lookup touched change where Keras's do, with Keras's values
(repeated indices: each duplicate row is squared or scaled on its own, then they add up).
"""
from typing import Any

from finegrad._src.ops.array.gather import IndexedSlices, gather
from finegrad._src.ops.array.structural import cast, convert_to_tensor


def is_sparse(g: Any) -> bool:
    """Whether ``g`` is an `IndexedSlices`."""
    return type(g) is IndexedSlices


def map_values(g: Any, fn: Any) -> Any:
    """``fn`` applied to the values of ``g`` (an `IndexedSlices`, kept sparse), or to ``g``."""
    if is_sparse(g):
        return IndexedSlices(fn(g.values), g.indices, g.dense_shape)
    return fn(g)


def dense(g: Any) -> Any:
    """``g``'s dense value (repeated rows summed)."""
    return convert_to_tensor(g)


def rows_of(x: Any, g: Any) -> Any:
    """The rows of dense ``x`` that the `IndexedSlices` ``g`` names."""
    return gather(convert_to_tensor(x), g.indices)


def cast_grad(g: Any, dtype: Any) -> Any:
    """``g`` cast to ``dtype``, an `IndexedSlices` staying sparse."""
    return map_values(g, lambda t: cast(t, dtype))


def assign_sub(variable: Any, value: Any) -> None:
    """``variable -= value``: a scatter into its rows for an `IndexedSlices`."""
    if is_sparse(value):
        variable.scatter_sub(value)
    else:
        variable.assign_sub(value)


def assign_add(variable: Any, value: Any) -> None:
    """``variable += value``: a scatter into its rows for an `IndexedSlices`."""
    if is_sparse(value):
        variable.scatter_add(value)
    else:
        variable.assign_add(value)
