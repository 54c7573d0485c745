"""The TensorFlow-named finegrad functions the native backend of `finegrad.ops` calls, as
``fg.<name>`` and ``fg.linalg.<name>``: imported from the modules that define them, since the
backends sit below the public package (tests/test_layering.py)."""
from types import SimpleNamespace

from finegrad._src.ad.functional import (jvp)
from finegrad._src.control_flow.cond_while import (cond, while_loop)
from finegrad._src.control_flow.vectorized_map import (vectorized_map)
from finegrad._src.ops.array.constants import (eye, ones, range_ as range, zeros)
from finegrad._src.ops.array.gather import (gather)
from finegrad._src.ops.array.manipulation import (pad, repeat, reverse, roll)
from finegrad._src.ops.array.scatter_nd import (tensor_scatter_nd_add, tensor_scatter_nd_max,
    tensor_scatter_nd_min, tensor_scatter_nd_update)
from finegrad._src.ops.array.structural import (broadcast_to, cast, concat, convert_to_tensor,
    expand_dims, reduce_sum, reshape, split, squeeze, stack, stop_gradient, tile, transpose,
    unstack)
from finegrad._src.ops.linalg.cholesky_eigh import (cholesky as _linalg_cholesky, eigh as
    _linalg_eigh)
from finegrad._src.ops.linalg.determinants import (det as _linalg_det, slogdet as _linalg_slogdet)
from finegrad._src.ops.linalg.diag_inv_det import (diag as _linalg_diag,
    diag_part as _linalg_diag_part, inv as _linalg_inv)
from finegrad._src.ops.linalg.eig import (eig as _linalg_eig)
from finegrad._src.ops.linalg.lu import (lu as _linalg_lu)
from finegrad._src.ops.linalg.products import (einsum, matmul, tensordot)
from finegrad._src.ops.linalg.solvers import (adjoint as _linalg_adjoint, solve as _linalg_solve,
    triangular_solve as _linalg_triangular_solve)
from finegrad._src.ops.linalg.svd_qr import (qr as _linalg_qr, svd as _linalg_svd)
from finegrad._src.ops.math.arithmetic import (add, clip_by_value, divide, floordiv as
    _math_floordiv, maximum, minimum, mod as _math_floormod, multiply, negative, pow, subtract)
from finegrad._src.ops.math.complex_numbers import (angle as _math_angle, complex, conj as
    _math_conj, imag as _math_imag, real as _math_real)
from finegrad._src.ops.math.counts_and_casts import (nextafter as _math_nextafter, truncatemod)
from finegrad._src.ops.math.elementwise import (abs, acos, asin, asinh, atan, ceil as _math_ceil,
    cos, cosh, equal, exp, expm1 as _math_expm1, floor, greater, greater_equal, is_finite as
    _math_is_finite, is_inf as _math_is_inf, is_nan as _math_is_nan, less, less_equal, log as
    _math_log, log1p as _math_log1p, logical_and, logical_not, logical_or, logical_xor as
    _math_logical_xor, not_equal, relu as _nn_relu, sigmoid, sign, sin, sinh, softplus as
    _math_softplus, sqrt, tan, tanh, where)
from finegrad._src.ops.math.inverse_trig import (acosh, atan2, atanh, rint as _math_rint)
from finegrad._src.ops.math.reductions import (cumprod as _math_cumprod, cumsum, reduce_logsumexp,
    reduce_max, reduce_mean, reduce_min, reduce_prod)
from finegrad._src.ops.math.sorting import (argmax, argmin, argsort, sort, top_k as _math_top_k)
from finegrad._src.ops.math.statistics import (reduce_all, reduce_any)
from finegrad._src.ops.nn.by_rank import (avg_pool as _nn_avg_pool, convolution as
    _nn_convolution, max_pool as _nn_max_pool)
from finegrad._src.ops.nn.conv import depthwise_conv2d as _nn_depthwise_conv2d
from finegrad._src.ops.nn.softmax_cross_entropy import (log_softmax as _nn_log_softmax, softmax as
    _nn_softmax)
from finegrad._src.ops.signal.fft import (fft as _signal_fft, irfft as _signal_irfft, rfft as
    _signal_rfft)
from finegrad._src.ops.special.bessel_zeta_beta import (bessel_i0 as _math_bessel_i0)
from finegrad._src.ops.special.error_and_gamma import (erf as _math_erf, erfinv as _math_erfinv)
from finegrad._src.tensor import (Tensor)

linalg = SimpleNamespace(adjoint=_linalg_adjoint, cholesky=_linalg_cholesky, det=_linalg_det,
    diag=_linalg_diag, diag_part=_linalg_diag_part, eig=_linalg_eig, eigh=_linalg_eigh,
    inv=_linalg_inv, lu=_linalg_lu, qr=_linalg_qr, slogdet=_linalg_slogdet, solve=_linalg_solve,
    svd=_linalg_svd, triangular_solve=_linalg_triangular_solve)
math = SimpleNamespace(angle=_math_angle, bessel_i0=_math_bessel_i0, ceil=_math_ceil,
    conj=_math_conj, cumprod=_math_cumprod, erf=_math_erf, erfinv=_math_erfinv, expm1=_math_expm1,
    floordiv=_math_floordiv, floormod=_math_floormod, imag=_math_imag, is_finite=_math_is_finite,
    is_inf=_math_is_inf, is_nan=_math_is_nan, log=_math_log, log1p=_math_log1p,
    logical_xor=_math_logical_xor, nextafter=_math_nextafter, real=_math_real, rint=_math_rint,
    softplus=_math_softplus, top_k=_math_top_k)
nn = SimpleNamespace(avg_pool=_nn_avg_pool, convolution=_nn_convolution,
    depthwise_conv2d=_nn_depthwise_conv2d, log_softmax=_nn_log_softmax, max_pool=_nn_max_pool,
    relu=_nn_relu, softmax=_nn_softmax)
signal = SimpleNamespace(fft=_signal_fft, irfft=_signal_irfft, rfft=_signal_rfft)

__all__ = ["Tensor", "abs", "acos", "acosh", "add", "argmax", "argmin", "argsort", "asin", "asinh",
           "atan", "atan2", "atanh", "broadcast_to", "cast", "clip_by_value", "complex", "concat",
           "cond", "convert_to_tensor", "cos", "cosh", "cumsum", "divide", "einsum", "equal",
           "exp", "expand_dims", "eye", "floor", "gather", "greater", "greater_equal", "jvp",
           "less", "less_equal", "linalg", "logical_and", "logical_not", "logical_or", "math",
           "matmul", "maximum", "minimum", "multiply", "negative", "nn", "not_equal", "ones",
           "pad", "pow", "range", "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_max",
           "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum", "repeat", "reshape",
           "reverse", "roll", "sigmoid", "sign", "signal", "sin", "sinh", "sort", "split", "sqrt",
           "squeeze", "stack", "stop_gradient", "subtract", "tan", "tanh", "tensor_scatter_nd_add",
           "tensor_scatter_nd_max", "tensor_scatter_nd_min", "tensor_scatter_nd_update",
           "tensordot", "tile", "transpose", "truncatemod", "unstack", "vectorized_map", "where",
           "while_loop", "zeros"]
