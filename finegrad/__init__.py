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
from finegrad._src import ops as _ops  # registers every primitive

# ---- tensors, dtypes, shapes, variables, constants ---------------------------------------------
from finegrad._src.dtypes import (DType, as_dtype, float16, float32, float64, int8, int16,
                                  int32, int64, uint8, uint16, uint32, uint64, bool_ as bool,
                                  complex64, complex128, half, double, string)
from finegrad._src.dtypes import unsupported_bfloat16 as _unsupported_bfloat16
from typing import Any as _Any
from finegrad._src.tensor import Tensor
from finegrad._src.shapes import TensorShape
from finegrad._src.variables import Variable
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.ops.array.constants import (constant, zeros, ones, fill, range_ as range,
                                               linspace, eye)

# ---- array ops (tf.*) --------------------------------------------------------------------------
from finegrad._src.ops.array.structural import (zeros_like, ones_like, identity, stop_gradient,
                                                cast, reshape, broadcast_to, reduce_sum, transpose,
                                                expand_dims, squeeze, concat, stack,
                                                split, tile)
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.array.shape_queries import shape, size, rank
from finegrad._src.ops.array.manipulation import (reverse, roll, pad, repeat, one_hot, meshgrid,
                                                  unstack)
from finegrad._src.ops.array.scatter_nd import (gather_nd, scatter_nd, tensor_scatter_nd_add,
                                                tensor_scatter_nd_sub, tensor_scatter_nd_update,
                                                tensor_scatter_nd_max, tensor_scatter_nd_min)
from finegrad._src.ops.array.manipulation import boolean_mask
from finegrad._src.ops.array.variable_scatter import IndexedSlices
from finegrad._src.api.tensor_array import TensorArray
from finegrad._src.ops.array.partition_stitch import dynamic_partition, dynamic_stitch
from finegrad._src.ops.math.counting import histogram_fixed_width, histogram_fixed_width_bins
from finegrad._src.ops.array.slicing import slice_ as slice, strided_slice
from finegrad._src.ops.array.bitcast import bitcast
from finegrad._src.ops.array.sequences_and_blocks import (shape_n, sequence_mask, unravel_index,
                                                          reverse_sequence, parallel_stack,
                                                          broadcast_static_shape,
                                                          broadcast_dynamic_shape)

# ---- math ops (tf.* names of tf.math) ----------------------------------------------------------
from finegrad._src.ops.math.arithmetic import (add, subtract, multiply, divide, negative, pow,
                                               maximum, minimum, clip_by_value)
from finegrad._src.ops.math.elementwise import (exp, sqrt, square, abs, sign, sin, cos, tan, tanh,
                                                sigmoid, where, floor, round, equal, not_equal,
                                                less, less_equal, greater, greater_equal,
                                                logical_and, logical_or, logical_not, sinh, cosh,
                                                asinh, asin, acos, atan)
from finegrad._src.ops.math.inverse_trig import acosh, atanh, atan2
from finegrad._src.ops.math.complex_numbers import complex  # TF's tf.complex
from finegrad._src.ops.math.reductions import (reduce_mean, reduce_max, reduce_min, reduce_prod,
                                               reduce_logsumexp, cumsum)
from finegrad._src.ops.math.statistics import add_n, reduce_any, reduce_all
from finegrad._src.ops.math.counts_and_casts import realdiv, truncatemod, scalar_mul, saturate_cast
from finegrad._src.ops.special.error_and_gamma import truncatediv
from finegrad._src.ops.math.sorting import argmax, argmin, sort, argsort, searchsorted
from finegrad._src.ops.math.counting import unique, unique_with_counts
from finegrad._src.ops.linalg.products import matmul, tensordot, einsum, norm
from finegrad._src.ops.nn.softmax_cross_entropy import clip_by_norm
from finegrad._src.ops.nn.clipping import clip_by_global_norm

# ---- TensorFlow's other names: scopes, contexts, initializers, Module, print, assertions ------
from finegrad._src.api.module import Module
from finegrad._src.api.scopes import (name_scope, control_dependencies, no_op, executing_eagerly,
                                      is_tensor, get_current_name_scope)
from finegrad._src.api.contexts import device, init_scope, inside_function, group
from finegrad._src.api.contexts import tuple_ as tuple  # TensorFlow's tf.tuple
from finegrad._src.api.initializers import (constant_initializer, zeros_initializer,
                                            ones_initializer, random_normal_initializer,
                                            random_uniform_initializer)
from finegrad._src.api.printing import print_ as print  # TensorFlow's tf.print
from finegrad._src.api.debugging import (assert_equal, assert_less, assert_greater, assert_rank,
                                         Assert, ensure_shape, identity_n)

# ---- differentiation ---------------------------------------------------------------------------
from finegrad._src.ad.tape import GradientTape, UnconnectedGradients
from finegrad._src.ad.custom import custom_gradient
from finegrad._src.ad.register import RegisterGradient, no_gradient
from finegrad._src.ad.companions import recompute_grad, grad_pass_through
from finegrad._src.ad.functional import (vjp, jvp, grad, value_and_grad,
                                         hessian_vector_product, jacfwd, jacrev)

# ---- graphs: finegrad.function and what runs inside it -----------------------------------------
from finegrad._src.graph.tracing.function import function, gradients, TensorSpec
from finegrad._src.graph.tracing.builder import get_static_value
from finegrad._src.graph.tracing.gradients import hessians
from finegrad._src.graph.pyfunc import numpy_function, py_function

# ---- control flow ------------------------------------------------------------------------------
from finegrad._src.control_flow.cond_while import cond, while_loop
from finegrad._src.control_flow.switch_case import case, switch_case
from finegrad._src.control_flow.scan import map_fn, scan, foldl, foldr
from finegrad._src.control_flow.vectorized_map import vectorized_map

# ---- TensorFlow 1 graphs at the top level (tf.Graph, tf.Operation, tf.AggregationMethod) ------
from finegrad._src.v1.graphs import Graph, Operation
from finegrad._src.v1.gradients import AggregationMethod

# ---- namespaces --------------------------------------------------------------------------------
from finegrad import (math, nn, linalg, autodiff, testing, stable, nest, errors, debugging,
                      compat, random, dtypes, signal, image, distribute, train, experimental, types,
                      keras, optimizers, initializers, losses, metrics, data, raw_ops,
                      saved_model, config, io, strings)
from finegrad.strings import as_string
from finegrad._src.v1.tf_logging import get_logger

from finegrad._version import __version__  # one source: finegrad/_version.py

newaxis = None
truediv = divide

__all__ = ["DType", "as_dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "half",
           "double", "string", "Tensor", "TensorShape", "Variable", "convert_to_tensor",
           "constant", "zeros", "ones", "fill", "range", "linspace", "eye", "zeros_like",
           "ones_like", "identity", "stop_gradient", "cast", "reshape", "broadcast_to",
           "reduce_sum", "transpose", "expand_dims", "squeeze", "concat", "stack", "unstack",
           "split", "tile", "gather", "shape", "size", "rank", "reverse", "roll", "pad", "repeat",
           "one_hot", "meshgrid", "gather_nd", "scatter_nd", "tensor_scatter_nd_add",
           "tensor_scatter_nd_sub", "tensor_scatter_nd_update", "tensor_scatter_nd_max",
           "tensor_scatter_nd_min", "boolean_mask", "IndexedSlices", "TensorArray",
           "dynamic_partition", "dynamic_stitch", "histogram_fixed_width",
           "histogram_fixed_width_bins", "bitcast",
           "Graph",
           "Operation", "AggregationMethod", "distribute", "train", "experimental", "types",
           "keras", "optimizers", "initializers", "losses", "metrics", "data", "saved_model",
           "slice",
           "strided_slice", "shape_n", "sequence_mask", "unravel_index", "reverse_sequence",
           "parallel_stack", "broadcast_static_shape", "broadcast_dynamic_shape", "add",
           "subtract", "multiply", "divide", "negative", "pow", "maximum", "minimum",
           "clip_by_value", "exp", "sqrt", "square", "abs", "sign", "sin", "cos", "tan", "tanh",
           "sigmoid", "where", "floor", "round", "equal", "not_equal", "less", "less_equal",
           "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "sinh", "cosh",
           "asinh", "asin", "acos", "atan", "acosh", "atanh", "atan2", "complex", "reduce_mean",
           "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp", "cumsum", "add_n",
           "reduce_any", "reduce_all", "realdiv", "truncatemod", "scalar_mul", "saturate_cast",
           "truncatediv", "argmax", "argmin", "sort", "argsort", "searchsorted", "unique",
           "unique_with_counts", "matmul", "tensordot", "einsum", "norm", "clip_by_norm",
           "clip_by_global_norm", "Module", "name_scope", "control_dependencies", "no_op",
           "executing_eagerly", "is_tensor", "get_current_name_scope", "device", "init_scope",
           "inside_function", "group", "tuple", "constant_initializer", "zeros_initializer",
           "ones_initializer", "random_normal_initializer", "random_uniform_initializer", "print",
           "assert_equal", "assert_less", "assert_greater", "assert_rank", "Assert",
           "ensure_shape", "identity_n", "GradientTape", "UnconnectedGradients", "custom_gradient",
           "RegisterGradient", "no_gradient", "recompute_grad", "grad_pass_through", "vjp", "jvp",
           "grad", "value_and_grad", "hessian_vector_product", "jacfwd", "jacrev", "function",
           "gradients", "TensorSpec", "get_static_value", "hessians", "numpy_function",
           "py_function", "cond", "while_loop", "case", "switch_case", "map_fn", "scan", "foldl",
           "foldr", "vectorized_map", "raw_ops", "math", "nn", "linalg", "autodiff", "testing",
           "stable",
           "nest", "errors", "debugging", "compat", "random", "dtypes", "signal", "image",
           "config", "io", "strings", "as_string", "get_logger", "newaxis",
           "truediv"]


def __getattr__(name):
    # TensorFlow names finegrad cannot have get a reason, not a bare AttributeError
    if name == "bfloat16":
        raise _unsupported_bfloat16("finegrad.bfloat16")
    if name == "ops":   # (an attribute once finegrad.ops is imported)
        raise AttributeError("module 'finegrad' has no attribute 'ops': TensorFlow has no "
                             "tf.ops namespace; Keras 3's keras.ops on finegrad, JAX, PyTorch "
                             "or TensorFlow is `from finegrad import ops`")
    raise AttributeError(f"module 'finegrad' has no attribute {name!r}")
