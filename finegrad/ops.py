"""Keras 3's `keras.ops` on four backends: finegrad (the default), JAX, PyTorch, TensorFlow.

The implementation is `finegrad._src.backends.keras_ops`.
"""
from finegrad._src.backends.keras_ops import (backend, set_backend, backend_scope, custom_gradient,
                                              value_and_grad, grad, convert_to_tensor,
                                              convert_to_numpy, cast, shape, zeros, ones, reshape,
                                              transpose, expand_dims, squeeze, concatenate, stack,
                                              where, clip, einsum, softmax, log_softmax, abs, exp,
                                              log, log1p, expm1, sqrt, square, sin, cos, tan, tanh,
                                              sign, negative, floor, sigmoid, softplus, relu,
                                              stop_gradient, add, subtract, multiply, divide,
                                              power, maximum, minimum, equal, not_equal, less,
                                              less_equal, greater, greater_equal, matmul, sum,
                                              mean, max, min, prod, logsumexp)

__all__ = ["backend", "set_backend", "backend_scope", "custom_gradient", "value_and_grad", "grad",
           "convert_to_tensor", "convert_to_numpy", "cast", "shape", "zeros", "ones", "reshape",
           "transpose", "expand_dims", "squeeze", "concatenate", "stack", "where", "clip",
           "einsum", "softmax", "log_softmax", "abs", "exp", "log", "log1p", "expm1", "sqrt",
           "square", "sin", "cos", "tan", "tanh", "sign", "negative", "floor", "sigmoid",
           "softplus", "relu", "stop_gradient", "add", "subtract", "multiply", "divide", "power",
           "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "matmul", "sum", "mean", "max", "min", "prod", "logsumexp"]
