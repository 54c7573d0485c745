"""TensorFlow's ``tf.math`` namespace."""
from finegrad._src.ops.math.arithmetic import (add, subtract, multiply, divide,  # noqa: F401
                                               negative, pow, maximum, minimum, floordiv, mod)
from finegrad._src.ops.math.elementwise import (exp, expm1, log, log1p, sqrt, rsqrt,  # noqa: F401
                                                reciprocal, square, abs, sign, sin, cos, tan, tanh,
                                                sinh, cosh, asin, acos, atan, asinh, sigmoid,
                                                softplus, floor, ceil, round, equal, not_equal,
                                                less, less_equal, greater, greater_equal,
                                                logical_and, logical_or, logical_not, logical_xor,
                                                is_nan, is_inf, is_finite, tanh_grad, sigmoid_grad)
from finegrad._src.ops.array.structural import reduce_sum  # noqa: F401
from finegrad._src.ops.math.complex_numbers import real, imag, conj, angle  # noqa: F401
from finegrad._src.ops.math.reductions import (reduce_mean, reduce_max, reduce_min,  # noqa
                                               reduce_prod, reduce_logsumexp, cumsum, cumprod)
from finegrad._src.ops.nn.softmax_cross_entropy import softmax, log_softmax  # noqa: F401
from finegrad._src.statistics import (reduce_variance, reduce_std,  # noqa: F401
                                     reduce_euclidean_norm, reduce_any, reduce_all, l2_normalize,
                                     add_n, divide_no_nan)
from finegrad._src.ops.math.inverse_trig import (acosh, atanh, rint, log_sigmoid,  # noqa: F401
                                                 squared_difference, atan2)
from finegrad._src.ops.special.error_and_gamma import (erf, erfc, erfinv, lgamma,  # noqa: F401
                                                       digamma, polygamma, xlogy, xlog1py, polyval)
from finegrad._src.ops.special.bessel_zeta_beta import (ndtri, erfcinv, bessel_i0e,  # noqa: F401
                                                        bessel_i1e, bessel_i0, bessel_i1, zeta,
                                                        betainc)
from finegrad.math import special  # noqa: F401,E402
from finegrad._src.ops.special.igamma import igamma, igammac, lbeta  # noqa: F401
from finegrad._src.ops.math.cumulative_logsumexp import cumulative_logsumexp  # noqa: F401
from finegrad._src.ops.math.no_nan import reciprocal_no_nan, multiply_no_nan, xdivy  # noqa: F401
from finegrad._src.ops.nn.embedding_and_bias import softsign  # noqa: F401
from finegrad._src.ops.math.counting import bincount, confusion_matrix  # noqa: F401
from finegrad._src.ops.math.sorting import argmax, argmin, top_k  # noqa: F401
from finegrad._src.ops.math.segments import (segment_sum, segment_mean, segment_max,  # noqa: F401
                                             segment_min, segment_prod, unsorted_segment_sum,
                                             unsorted_segment_mean, unsorted_segment_max,
                                             unsorted_segment_min, unsorted_segment_prod,
                                             unsorted_segment_sqrt_n)
from finegrad._src.ops.math.counts_and_casts import (scalar_mul, nextafter,  # noqa: F401
                                                     count_nonzero, zero_fraction,
                                                     is_non_decreasing, is_strictly_increasing,
                                                     invert_permutation, accumulate_n, in_top_k,
                                                     approx_max_k, approx_min_k)

truediv = divide
floormod = mod
