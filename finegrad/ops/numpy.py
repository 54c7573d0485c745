"""Keras 3's `keras.ops.numpy` namespace on the active backend (see `finegrad.ops`)."""
from finegrad._src.backends.dispatch.numpy_elementwise import (  # noqa: F401
    abs, absolute, add, angle, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh,
    bartlett, bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_not, bitwise_or,
    bitwise_right_shift, bitwise_xor, blackman, broadcast_to, cbrt, ceil, conj, conjugate,
    copy, corrcoef, cos, cosh, deg2rad, digitize, divide, divide_no_nan, dot, dsplit, dstack,
    equal, exp, exp2, expand_dims, expm1, fabs, fliplr, flipud, floor, floor_divide, fmax,
    fmin, fmod, gcd, get_item, greater, greater_equal, hamming, hanning, heaviside, hsplit,
    hstack, hypot, i0, imag, inner, isfinite, isinf, isnan, isneginf, isposinf, isreal, kaiser,
    kron, lcm, ldexp, left_shift, less, less_equal, log, log10, log1p, log2, logaddexp,
    logaddexp2, logical_and, logical_not, logical_or, logical_xor, matmul, maximum, minimum,
    mod, multiply, ndim, negative, nextafter, nonzero, not_equal, outer, power, rad2deg, ravel,
    real, reciprocal, reshape, right_shift, sign, signbit, sin, sinc, sinh, size, slogdet,
    sqrt, square, subtract, tan, tanh, tile, true_divide, trunc, unravel_index, vdot, vsplit,
    vstack)
from finegrad._src.backends.dispatch.numpy_arrays import (  # noqa: F401
    all, allclose, amax, amin, any, append, arange, argmax, argmin, argpartition, argsort,
    array, array_split, average, bincount, clip, concatenate, correlate, count_nonzero, cross,
    cumprod, cumsum, diag, diagflat, diagonal, diff, einsum, empty, empty_like, eye, flip,
    full, full_like, geomspace, histogram, identity, isclose, isin, linspace, logspace, max,
    mean, median, meshgrid, min, moveaxis, nan_to_num, nanargmax, nanargmin, nancumprod,
    nancumsum, nanmax, nanmean, nanmedian, nanmin, nanpercentile, nanprod, nanquantile, nanstd,
    nansum, nanvar, ones, ones_like, pad, percentile, prod, ptp, quantile, repeat, roll, rot90,
    round, searchsorted, select, sort, split, squeeze, stack, std, sum, swapaxes, take,
    take_along_axis, tensordot, trace, transpose, trapezoid, tri, tril, triu, unique, vander,
    var, vectorize, view, where, zeros, zeros_like)

__all__ = """
abs absolute add all allclose amax amin angle any append arange arccos arccosh arcsin
arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort array array_split average
bartlett bincount bitwise_and bitwise_invert bitwise_left_shift bitwise_not bitwise_or
bitwise_right_shift bitwise_xor blackman broadcast_to cbrt ceil clip concatenate conj
conjugate copy corrcoef correlate cos cosh count_nonzero cross cumprod cumsum deg2rad diag
diagflat diagonal diff digitize divide divide_no_nan dot dsplit dstack einsum empty
empty_like equal exp exp2 expand_dims expm1 eye fabs flip fliplr flipud floor floor_divide
fmax fmin fmod full full_like gcd geomspace get_item greater greater_equal hamming hanning
heaviside histogram hsplit hstack hypot i0 identity imag inner isclose isfinite isin isinf
isnan isneginf isposinf isreal kaiser kron lcm ldexp left_shift less less_equal linspace log
log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor
logspace matmul max maximum mean median meshgrid min minimum mod moveaxis multiply
nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin
nanpercentile nanprod nanquantile nanstd nansum nanvar ndim negative nextafter nonzero
not_equal ones ones_like outer pad percentile power prod ptp quantile rad2deg ravel real
reciprocal repeat reshape right_shift roll rot90 round searchsorted select sign signbit sin
sinc sinh size slogdet sort split sqrt square squeeze stack std subtract sum swapaxes take
take_along_axis tan tanh tensordot tile trace transpose trapezoid tri tril triu true_divide
trunc unique unravel_index vander var vdot vectorize view vsplit vstack where zeros
zeros_like
""".split()
