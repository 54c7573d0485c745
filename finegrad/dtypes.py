"""TensorFlow's ``tf.dtypes`` namespace: the dtype objects (the same objects as
``finegrad.float32`` and the others), `DType`, `as_dtype` and the casts.

>>> import finegrad as fg
>>> fg.dtypes.float32 is fg.float32, fg.dtypes.as_dtype("int64")
(True, finegrad.int64)
"""
from finegrad._src.dtypes import (DType, as_dtype, float16, float32, float64, int8,
                                  int16, int32, int64, uint8, uint16, uint32, uint64,
                                  bool_ as bool, complex64, complex128, half, double, string)
from finegrad._src.ops.array.structural import cast
from finegrad._src.ops.math.complex_numbers import complex  # TF's tf.dtypes.complex
from finegrad._src.ops.math.counts_and_casts import saturate_cast

__all__ = ["DType", "as_dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "half",
           "double", "string", "cast", "complex", "saturate_cast"]


def __getattr__(name):
    # TensorFlow's bfloat16 gets a reason, not a bare AttributeError
    if name == "bfloat16":
        from finegrad._src.dtypes import unsupported_bfloat16
        raise unsupported_bfloat16("finegrad.dtypes.bfloat16")
    raise AttributeError(f"module 'finegrad.dtypes' has no attribute {name!r}")
