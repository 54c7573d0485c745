"""TensorFlow's ``tf.math`` namespace."""
from finegrad._src.ops.math.arithmetic import (add, subtract, multiply, divide,
                                               negative, pow, maximum, minimum, floordiv, mod)
from finegrad._src.ops.math.elementwise import (exp, expm1, log, log1p, sqrt, rsqrt,
                                                reciprocal, square, abs, sign, sin, cos, tan, tanh,
                                                sinh, cosh, asin, acos, atan, asinh, sigmoid,
                                                softplus, floor, ceil, round, equal, not_equal,
                                                less, less_equal, greater, greater_equal,
                                                logical_and, logical_or, logical_not, logical_xor,
                                                is_nan, is_inf, is_finite, tanh_grad, sigmoid_grad)
from finegrad._src.ops.array.structural import reduce_sum
from finegrad._src.ops.math.complex_numbers import real, imag, conj, angle
from finegrad._src.ops.math.reductions import (reduce_mean, reduce_max, reduce_min,
                                               reduce_prod, reduce_logsumexp, cumsum, cumprod)
from finegrad._src.ops.nn.softmax_cross_entropy import softmax, log_softmax
from finegrad._src.ops.math.statistics import (reduce_variance, reduce_std,
                                     reduce_euclidean_norm, reduce_any, reduce_all, l2_normalize,
                                     add_n, divide_no_nan)
from finegrad._src.ops.math.inverse_trig import (acosh, atanh, rint, log_sigmoid,
                                                 squared_difference, atan2)
from finegrad._src.ops.special.error_and_gamma import (erf, erfc, erfinv, lgamma,
                                                       digamma, polygamma, xlogy, xlog1py, polyval)
from finegrad._src.ops.special.bessel_zeta_beta import (ndtri, erfcinv, bessel_i0e,
                                                        bessel_i1e, bessel_i0, bessel_i1, zeta,
                                                        betainc)
from finegrad.math import special
from finegrad._src.ops.special.igamma import igamma, igammac, lbeta
from finegrad._src.ops.math.cumulative_logsumexp import cumulative_logsumexp
from finegrad._src.ops.math.no_nan import reciprocal_no_nan, multiply_no_nan, xdivy
from finegrad._src.ops.nn.embedding_and_bias import softsign
from finegrad._src.ops.math.counting import bincount, confusion_matrix
from finegrad._src.ops.math.sorting import argmax, argmin, top_k
from finegrad._src.ops.math.segments import (segment_sum, segment_mean, segment_max,
                                             segment_min, segment_prod, unsorted_segment_sum,
                                             unsorted_segment_mean, unsorted_segment_max,
                                             unsorted_segment_min, unsorted_segment_prod,
                                             unsorted_segment_sqrt_n)
from finegrad._src.ops.math.counts_and_casts import (scalar_mul, nextafter,
                                                     count_nonzero, zero_fraction,
                                                     is_non_decreasing, is_strictly_increasing,
                                                     invert_permutation, accumulate_n, in_top_k,
                                                     approx_max_k, approx_min_k)

__all__ = ["add", "subtract", "multiply", "divide", "negative", "pow", "maximum", "minimum",
           "floordiv", "mod", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "reciprocal",
           "square", "abs", "sign", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos",
           "atan", "asinh", "sigmoid", "softplus", "floor", "ceil", "round", "equal", "not_equal",
           "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
           "logical_not", "logical_xor", "is_nan", "is_inf", "is_finite", "tanh_grad",
           "sigmoid_grad", "reduce_sum", "real", "imag", "conj", "angle", "reduce_mean",
           "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp", "cumsum", "cumprod",
           "softmax", "log_softmax", "reduce_variance", "reduce_std", "reduce_euclidean_norm",
           "reduce_any", "reduce_all", "l2_normalize", "add_n", "divide_no_nan", "acosh", "atanh",
           "rint", "log_sigmoid", "squared_difference", "atan2", "erf", "erfc", "erfinv", "lgamma",
           "digamma", "polygamma", "xlogy", "xlog1py", "polyval", "ndtri", "erfcinv", "bessel_i0e",
           "bessel_i1e", "bessel_i0", "bessel_i1", "zeta", "betainc", "special", "igamma",
           "igammac", "lbeta", "cumulative_logsumexp", "reciprocal_no_nan", "multiply_no_nan",
           "xdivy", "softsign", "bincount", "confusion_matrix", "argmax", "argmin", "top_k",
           "segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod",
           "unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max",
           "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n",
           "scalar_mul", "nextafter", "count_nonzero", "zero_fraction", "is_non_decreasing",
           "is_strictly_increasing", "invert_permutation", "accumulate_n", "in_top_k",
           "approx_max_k", "approx_min_k", "truediv", "floormod"]

truediv = divide
floormod = mod
