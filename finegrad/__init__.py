"""finegrad: automatic differentiation on NumPy, with TensorFlow 2's API, built around
user-defined gradients (`custom_gradient`).

>>> import finegrad as tf
>>> x = tf.constant(2.)
>>> with tf.GradientTape() as tape:
...     tape.watch(x)
...     y = x * x
>>> tape.gradient(y, x).numpy()
np.float32(4.0)
"""
from finegrad._src import ops as _ops  # registers every primitive  # noqa: F401
from finegrad._src.dtypes import (DType, as_dtype, float16, float32, float64, int8, int16,
                                  int32, int64, uint8, uint16, uint32, uint64, bool_ as bool,
                                  complex64, complex128, half, double, string)
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable
from finegrad._src.module import Module
from finegrad._src.ops.array.constants import zeros, ones, fill, range_ as range, linspace, eye
from finegrad._src.ops.array.structural import (zeros_like, ones_like, identity, stop_gradient,
                                                cast, reshape, broadcast_to, reduce_sum, transpose,
                                                expand_dims, squeeze, concat, stack, unstack,
                                                split, tile)
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.array.shape_queries import shape, size, rank
from finegrad._src.ops.math.arithmetic import (add, subtract, multiply, divide, negative, pow,
                                               maximum, minimum, clip_by_value)
from finegrad._src.ops.math.elementwise import (exp, sqrt, square, abs, sign, sin, cos, tan, tanh,
                                                sigmoid, where, floor, round, equal, not_equal,
                                                less, less_equal, greater, greater_equal,
                                                logical_and, logical_or, logical_not)
from finegrad._src.ops.math.reductions import (reduce_mean, reduce_max, reduce_min, reduce_prod,
                                               reduce_logsumexp)
from finegrad._src.ops.linalg.products import matmul, tensordot, einsum, norm
from finegrad._src.ops.math.complex_numbers import complex  # noqa: A004 (TF's tf.complex)
from finegrad._src.ops.nn.softmax_cross_entropy import clip_by_norm
from finegrad._src.ops.nn.clipping import clip_by_global_norm
from finegrad._src.ad.tape import GradientTape, UnconnectedGradients
from finegrad._src.ad.custom import custom_gradient
from finegrad._src.ad.register import RegisterGradient, no_gradient
from finegrad._src.ad.companions import recompute_grad, grad_pass_through
from finegrad._src.ad.functional import (vjp, jvp, grad, value_and_grad,
                                         hessian_vector_product, jacfwd, jacrev)
from finegrad._src.graph.function import function, gradients, TensorSpec
from finegrad._src.graph.builder import get_static_value  # noqa: E402
from finegrad._src.graph.gradients import hessians  # noqa: E402
from finegrad._src.graph.pyfunc import numpy_function, py_function  # noqa: E402
from finegrad._src.graph import control as _control
from finegrad._src.graph.control import cond, while_loop
from finegrad._src.graph.branching import case, switch_case
from finegrad._src.scopes import (name_scope, control_dependencies, no_op, executing_eagerly,
                                  is_tensor, get_current_name_scope)
from finegrad._src.contexts import device, init_scope, inside_function, group
from finegrad._src.contexts import tuple_ as tuple  # noqa: A001 (TensorFlow's tf.tuple)
from finegrad._src.initializers import (constant_initializer, zeros_initializer,
                                        ones_initializer, random_normal_initializer,
                                        random_uniform_initializer)
from finegrad._src.printing import print_ as print  # noqa: A001 (TensorFlow's tf.print)
from finegrad._src.debugging import (assert_equal, assert_less, assert_greater, assert_rank,
                                     Assert, ensure_shape, identity_n)
from finegrad._src.shapes import TensorShape
from finegrad._src.statistics import add_n, reduce_any, reduce_all
from finegrad._src.ops.math.reductions import cumsum
from finegrad._src.ops.array.manipulation import reverse, roll, pad, repeat, one_hot, meshgrid
from finegrad._src.ops.array.scatter_nd import (gather_nd, scatter_nd, tensor_scatter_nd_add,
                                                tensor_scatter_nd_sub, tensor_scatter_nd_update,
                                                tensor_scatter_nd_max, tensor_scatter_nd_min)
from finegrad._src.ops.array.boolean_mask import boolean_mask
from finegrad._src.control_flow.map_fn import map_fn
from finegrad._src.control_flow.scan import scan, foldl, foldr
from finegrad._src.ops.array.variable_scatter import IndexedSlices
from finegrad._src.graph.vmap import vectorized_map
from finegrad._src.ops.math.elementwise import sinh, cosh, asinh, asin, acos, atan
from finegrad._src.ops.math.counts_and_casts import realdiv, truncatemod, scalar_mul, saturate_cast
from finegrad._src.ops.math.inverse_trig import acosh, atanh, atan2
from finegrad._src.ops.special.error_and_gamma import truncatediv
from finegrad._src.ops.math.sorting import argmax, argmin, sort, argsort
from finegrad._src.ops.math.counting import unique
from finegrad._src.ops.array.slicing import slice_ as slice, strided_slice  # noqa: A004
from finegrad._src.ops.array.sequences_and_blocks import (shape_n, sequence_mask, unravel_index,
                                                          reverse_sequence, parallel_stack,
                                                          broadcast_static_shape,
                                                          broadcast_dynamic_shape)
from finegrad._src.ops.math.sorting import searchsorted
from finegrad._src.ops.math.counting import unique_with_counts
from finegrad import (math, nn, linalg, autodiff, testing, stable, nest, errors,  # noqa: E402
                      debugging, compat, random, dtypes, signal, distribute, train)

newaxis = None

truediv = divide
__version__ = "0.1.0"


def constant(value, dtype=None, shape=None, name="Const"):  # noqa: F811 (TF's keyword `shape`)
    """A tensor from a Python number, nested list, NumPy array or tensor.

    Python floats become float32 and ints int32 (TensorFlow's defaults); NumPy arrays keep
    their dtype unless ``dtype`` is given. With ``shape``, a scalar is filled to that shape
    and other values are reshaped.

    >>> import finegrad as fg
    >>> fg.constant(1.).dtype, fg.constant([1, 2]).dtype
    (finegrad.float32, finegrad.int32)
    >>> fg.constant(0., shape=(2,)).numpy()
    array([0., 0.], dtype=float32)

    Raises:
        TypeError: for values that are neither numbers nor strings (naming their type).
            Strings (str or bytes) make a ``finegrad.string`` tensor holding bytes.
        ValueError: when the value cannot take ``shape``.
    """
    import numpy as _np
    from finegrad._src.tensor import filled, to_numpy_value
    from finegrad._src.shapes import as_ints
    if isinstance(value, (Tensor, Variable)):
        t = convert_to_tensor(value)
        v = t._value if dtype is None else _np.asarray(t._value).astype(as_dtype(dtype)._np)
    else:
        v = to_numpy_value(value, dtype, "finegrad.constant")
    if shape is not None:
        v = filled(v, as_ints(shape, "finegrad.constant", "shape"), "finegrad.constant")
    return Tensor(v)


def __getattr__(name):
    # TensorFlow names finegrad cannot have get a reason, not a bare AttributeError
    if name == "bfloat16":
        from finegrad._src.dtypes import unsupported_bfloat16
        raise unsupported_bfloat16("finegrad.bfloat16")
    if name == "ops":   # (an attribute once finegrad.ops is imported)
        raise AttributeError("module 'finegrad' has no attribute 'ops': TensorFlow has no "
                             "tf.ops namespace; Keras 3's keras.ops on finegrad, JAX, PyTorch "
                             "or TensorFlow is `from finegrad import ops`")
    raise AttributeError(f"module 'finegrad' has no attribute {name!r}")
