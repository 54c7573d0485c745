"""TensorFlow's ``tf.raw_ops``: TensorFlow's op names called with keyword arguments only, each
computed by finegrad's own function for it (so differentiable where that function is).

>>> import finegrad as tf
>>> tf.raw_ops.Relu(features=tf.constant([-1., 2.])).numpy()
array([0., 2.], dtype=float32)
>>> tf.raw_ops.MatMul(a=tf.ones([2, 3]), b=tf.ones([2, 3]), transpose_b=True).numpy()
array([[3., 3.],
       [3., 3.]], dtype=float32)

A positional argument is a TypeError, as in TensorFlow; an op name finegrad lacks is an
AttributeError naming it.
"""
from typing import Any as _Any

from finegrad._src.api.raw_ops import RAW_OPS as _RAW_OPS

globals().update(_RAW_OPS)
__all__ = sorted(_RAW_OPS)


def __getattr__(name: str) -> _Any:   # (the ops: names of the table, for type checkers)
    raise AttributeError(f"module 'finegrad.raw_ops' has no attribute {name!r}: finegrad has "
                         f"no raw op {name!r} (its raw ops are the names of "
                         f"finegrad.raw_ops.__all__)")
