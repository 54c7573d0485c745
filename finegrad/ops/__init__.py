"""Keras 3's `keras.ops` on four backends: finegrad (the default), JAX, PyTorch, TensorFlow.

Each function is a thin dispatch to the active backend and returns that framework's own
tensor, so results go straight into ``jax.grad``/``jax.jit``/``jax.vmap``,
``torch.autograd``/``torch.func``, ``tf.GradientTape``/``tf.function``. The backend is the
innermost ``backend_scope`` of the thread, else ``set_backend``'s, else the
``FINEGRAD_BACKEND`` environment variable, else ``"finegrad"``. Importing this module imports
no framework; a framework is imported when its backend is first selected.

``custom_gradient`` compiles to each framework's own mechanism (``jax.custom_vjp``,
``torch.autograd.Function``, ``tf.custom_gradient``; finegrad's ``custom_gradient`` on the
finegrad backend) and accepts one grad signature everywhere: ``grad(*upstreams)``, and
Keras's ``grad(upstream)`` and ``grad(*args, upstream=...)``.

>>> from finegrad import ops
>>> @ops.custom_gradient
... def log1pexp(x):
...     e = ops.exp(x)
...     def grad(upstream):
...         return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))
...     return ops.log(1 + e), grad
>>> ops.grad(log1pexp)(ops.convert_to_tensor(100.)).numpy()
np.float32(1.0)
"""
from finegrad.ops import core, image, linalg, math, nn, numpy  # noqa: F401
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
from finegrad._src.backends.dispatch.nn import (  # noqa: F401
    adaptive_average_pool, adaptive_max_pool, average_pool, batch_normalization,
    binary_crossentropy, categorical_crossentropy, celu, conv, conv_transpose, ctc_decode,
    ctc_loss, depth_to_space, depthwise_conv, dot_product_attention, elu, fold, gelu, glu,
    hard_shrink, hard_sigmoid, hard_silu, hard_swish, hard_tanh, layer_normalization,
    leaky_relu, log_sigmoid, log_softmax, max_pool, moments, multi_hot, normalize, one_hot,
    polar, psnr, relu, relu6, rms_normalization, selu, separable_conv, sigmoid, silu,
    soft_shrink, softmax, softplus, softsign, space_to_depth, sparse_categorical_crossentropy,
    sparse_plus, sparse_sigmoid, sparsemax, squareplus, swish, tanh_shrink, threshold, unfold)
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
from finegrad._src.backends.dispatch.core import (  # noqa: F401
    associative_scan, cast, cond, fori_loop, map, rearrange, saturate_cast, scan, scatter,
    scatter_update, slice, slice_update, stop_gradient, switch, unstack, vectorized_map,
    while_loop)
from finegrad._src.backends.dispatch.selection import (  # noqa: F401
    backend, backend_scope, set_backend)
from finegrad._src.backends.dispatch.math import (  # noqa: F401
    cdist, erf, erfc, erfinv, extract_sequences, fft, fft2, ifft2, in_top_k, irfft, istft,
    logdet, logsumexp, rfft, rsqrt, segment_max, segment_min, segment_prod, segment_sum, stft,
    top_k, view_as_complex, view_as_real)
from finegrad._src.backends.dispatch.linalg import (  # noqa: F401
    cholesky, cholesky_inverse, det, eig, eigh, inv, jvp, lstsq, lu_factor, matrix_rank, norm,
    pinv, qr, solve, solve_triangular, svd)
from finegrad._src.backends.dispatch.tensors import (  # noqa: F401
    convert_to_numpy, convert_to_tensor, dtype, is_tensor, result_type, shape)
from finegrad._src.backends.dispatch.differentiation import (  # noqa: F401
    custom_gradient, grad, value_and_grad)

__all__ = """
abs absolute adaptive_average_pool adaptive_max_pool add all allclose amax amin angle any
append arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin
argpartition argsort array array_split associative_scan average average_pool backend
backend_scope bartlett batch_normalization binary_crossentropy bincount bitwise_and
bitwise_invert bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
blackman broadcast_to cast categorical_crossentropy cbrt cdist ceil celu cholesky
cholesky_inverse clip concatenate cond conj conjugate conv conv_transpose convert_to_numpy
convert_to_tensor copy core corrcoef correlate cos cosh count_nonzero cross ctc_decode
ctc_loss cumprod cumsum custom_gradient deg2rad depth_to_space depthwise_conv det diag
diagflat diagonal diff digitize divide divide_no_nan dot dot_product_attention dsplit dstack
dtype eig eigh einsum elu empty empty_like equal erf erfc erfinv exp exp2 expand_dims expm1
extract_sequences eye fabs fft fft2 flip fliplr flipud floor floor_divide fmax fmin fmod
fold fori_loop full full_like gcd gelu geomspace get_item glu grad greater greater_equal
hamming hanning hard_shrink hard_sigmoid hard_silu hard_swish hard_tanh heaviside histogram
hsplit hstack hypot i0 identity ifft2 imag image in_top_k inner inv irfft is_tensor isclose
isfinite isin isinf isnan isneginf isposinf isreal istft jvp kaiser kron layer_normalization
lcm ldexp leaky_relu left_shift less less_equal linalg linspace log log10 log1p log2
log_sigmoid log_softmax logaddexp logaddexp2 logdet logical_and logical_not logical_or
logical_xor logspace logsumexp lstsq lu_factor map math matmul matrix_rank max max_pool
maximum mean median meshgrid min minimum mod moments moveaxis multi_hot multiply nan_to_num
nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile
nanprod nanquantile nanstd nansum nanvar ndim negative nextafter nn nonzero norm normalize
not_equal numpy one_hot ones ones_like outer pad percentile pinv polar power prod psnr ptp
qr quantile rad2deg ravel real rearrange reciprocal relu relu6 repeat reshape result_type
rfft right_shift rms_normalization roll rot90 round rsqrt saturate_cast scan scatter
scatter_update searchsorted segment_max segment_min segment_prod segment_sum select selu
separable_conv set_backend shape sigmoid sign signbit silu sin sinc sinh size slice
slice_update slogdet soft_shrink softmax softplus softsign solve solve_triangular sort
space_to_depth sparse_categorical_crossentropy sparse_plus sparse_sigmoid sparsemax split
sqrt square squareplus squeeze stack std stft stop_gradient subtract sum svd swapaxes swish
switch take take_along_axis tan tanh tanh_shrink tensordot threshold tile top_k trace
transpose trapezoid tri tril triu true_divide trunc unfold unique unravel_index unstack
value_and_grad vander var vdot vectorize vectorized_map view view_as_complex view_as_real
vsplit vstack where while_loop zeros zeros_like
""".split()
