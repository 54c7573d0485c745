"""``tf.math``: elementwise functions of one input (`elementwise`: exp, log, trigonometric,
activations' kernels, rounding, ``where``, comparisons), binary arithmetic (`arithmetic`),
inverse hyperbolic functions and ``atan2`` (`inverse_trig`), complex numbers, reductions and
cumulative sums (`reductions`, `cumulative_logsumexp`), segment reductions (`segments`),
sorting and top-k (`sorting`), counting (`counting`: unique, bincount, confusion_matrix;
`counts_and_casts`: count_nonzero, realdiv, truncatemod, saturate_cast, in_top_k, ...) and
the ``*_no_nan`` ops (`no_nan`), and the statistics written with ops (`statistics`:
variance, moments, norms, add_n, divide_no_nan, ...).
"""
from finegrad._src.ops.math import (complex_numbers, elementwise, arithmetic,  # noqa: F401
                                    reductions, inverse_trig, sorting, segments, counting,
                                    counts_and_casts, cumulative_logsumexp, no_nan,
                                    statistics)
