"""``tf.types.experimental``: `TensorLike`, the union of everything `finegrad.convert_to_tensor`
and the ops accept (tensors, variables, NumPy values, Python numbers and sequences, and
anything NumPy converts to an array), for annotating your own functions.

>>> import finegrad as fg
>>> from finegrad.types.experimental import TensorLike
>>> def double(x: TensorLike) -> fg.Tensor:
...     return fg.convert_to_tensor(x) * 2
>>> double([1., 2.]).numpy()
array([2., 4.], dtype=float32)
"""
from finegrad._src.types import TensorLike

__all__ = ["TensorLike"]
