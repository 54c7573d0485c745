"""One small call of (nearly) every `keras.ops` function, as NumPy inputs: the table that
tests/test_ops_keras.py runs on each finegrad.ops backend and on Keras itself.

``CASES[name]`` is a list of ``(args, kwargs)``; a name starting with ``image.`` is in
``ops.image``. Inputs are NumPy arrays (Keras accepts them on every backend) chosen inside
each function's domain. Functions whose result is random or not a tensor of fixed values
(``custom_gradient``, ``vectorize``, ``jvp``...) are in ``NOT_COMPARED`` with the reason.
"""
import numpy as np

_rng = np.random.default_rng(0)
A = np.round(_rng.uniform(0.1, 0.9, (2, 3)), 3).astype(np.float32)
B = np.round(_rng.uniform(0.1, 0.9, (2, 3)), 3).astype(np.float32)
S = np.round(_rng.uniform(-2, 2, (2, 3)), 3).astype(np.float32)       # signed
T = np.round(_rng.uniform(-2, 2, (2, 3)), 3).astype(np.float32)
M = np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]], np.float32)   # s.p.d.
I = np.array([[1, 5, 2], [4, 0, 3]], np.int32)                                  # noqa: E741
J = np.array([[2, 2, 7], [1, 3, 3]], np.int32)
V = np.array([0.3, 0.1, 0.7, 0.2], np.float32)
IMG = np.round(_rng.uniform(0, 1, (1, 4, 6, 3)), 3).astype(np.float32)
SEQ = np.round(_rng.uniform(-1, 1, (2, 5, 3)), 3).astype(np.float32)          # N, W, C
K1 = np.round(_rng.uniform(-1, 1, (2, 3, 4)), 3).astype(np.float32)           # W, Cin, Cout
K2 = np.round(_rng.uniform(-1, 1, (2, 2, 3, 2)), 3).astype(np.float32)        # H, W, Cin, Cout
Q = np.round(_rng.uniform(-1, 1, (1, 3, 2, 4)), 3).astype(np.float32)         # B, T, N, H

UNARY_DOMAIN_01 = """arccos arcsin arctanh erfinv""".split()
UNARY = """abs absolute arccosh arcsinh arctan cbrt ceil conj conjugate cos cosh deg2rad exp
exp2 expm1 fabs floor i0 isfinite isinf isnan isneginf isposinf isreal log log10 log1p log2
logical_not negative rad2deg real imag reciprocal round sign signbit sin sinc sinh sqrt
square tan tanh trunc angle copy ravel ndim size nonzero relu relu6 sigmoid softplus softsign
silu swish log_sigmoid leaky_relu hard_sigmoid hard_silu hard_swish elu selu gelu celu
hard_tanh hard_shrink soft_shrink tanh_shrink sparse_plus sparse_sigmoid squareplus
softmax log_softmax sparsemax erf erfc rsqrt glu""".split()
BINARY = """add subtract multiply divide true_divide power maximum minimum fmax fmin hypot
arctan2 logaddexp logaddexp2 heaviside nextafter equal not_equal less less_equal greater
greater_equal logical_and logical_or logical_xor divide_no_nan mod fmod floor_divide
isclose allclose""".split()
INT_BINARY = """bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift
left_shift right_shift gcd lcm""".split()
REDUCTIONS = """sum mean max min prod std var all any amax amin argmax argmin ptp nansum nanmean
nanmax nanmin nanprod nanstd nanvar nanargmax nanargmin median nanmedian count_nonzero
logsumexp""".split()

CASES = {}
for _n in UNARY:
    CASES[_n] = [((S if _n not in ("arccosh", "log", "log10", "log2", "sqrt", "rsqrt", "cbrt",
                                    "log1p", "reciprocal") else A + 1.0,), {})]
for _n in UNARY_DOMAIN_01:
    CASES[_n] = [((A,), {})]
CASES["glu"] = [((np.concatenate([S, T], -1),), {})]
CASES["round"] += [((S * 10,), {"decimals": -1}), ((S,), {"decimals": 2})]
for _n in BINARY:
    CASES[_n] = [((S, T), {}), ((A, 2), {}), ((I, A), {})]
CASES["equal"] += [((I, np.array([1.5, 5.0, 2.0], np.float32)), {})]
CASES["power"] = [((A, B), {}), ((A, 2), {}), ((I, 2), {})]
CASES["mod"] = CASES["fmod"] = CASES["floor_divide"] = [((S, A), {}), ((I, J), {})]
CASES["divide_no_nan"] = [((S, np.array([[1.0, 0.0, 2.0]], np.float32)), {})]
for _n in INT_BINARY:
    CASES[_n] = [((I, J), {})]
CASES["bitwise_invert"] = CASES["bitwise_not"] = [((I,), {})]
for _n in REDUCTIONS:
    CASES[_n] = [((S,), {}), ((S,), {"axis": 1}), ((S,), {"axis": 0, "keepdims": True})]
CASES["all"] = CASES["any"] = [((S > 0,), {}), ((S > 0,), {"axis": 1})]
CASES["count_nonzero"] = [((I,), {}), ((I,), {"axis": 1})]

CASES.update({
    "arange": [((5,), {}), ((1, 4, 0.5), {}), ((2, 8, 2), {"dtype": "float32"})],
    "linspace": [((0.0, 1.0, 5), {}), ((0.0, 1.0, 4), {"endpoint": False})],
    "logspace": [((0.0, 2.0, 3), {})], "geomspace": [((1.0, 8.0, 4), {})],
    "zeros": [(((2, 3),), {})], "ones": [(((2,),), {"dtype": "int32"})],
    "full": [(((2, 2), 7.5), {})], "eye": [((3,), {}), ((2, 3, 1), {})],
    "identity": [((3,), {})], "tri": [((3, 4, 1), {})],
    "zeros_like": [((S,), {})], "ones_like": [((I,), {})], "full_like": [((S, 2.0), {})],
    "empty": [(((2, 2),), {})], "empty_like": [((S,), {})],
    "array": [(([1.0, 2.0],), {})], "tril": [((M,), {}), ((M, -1), {})], "triu": [((M, 1), {})],
    "reshape": [((S, (3, 2)), {}), ((S, (-1,)), {})], "transpose": [((S,), {})],
    "expand_dims": [((S, 1), {})], "squeeze": [((S[None],), {})],
    "concatenate": [(([S, T],), {"axis": 1}), (([I, S],), {})],
    "stack": [(([S, T],), {"axis": 1})], "hstack": [(([S, T],), {})],
    "vstack": [(([S, T],), {})], "dstack": [(([S, T],), {})],
    "split": [((SEQ, 5, 1), {}), ((V, [1, 3]), {})], "array_split": [((V, 3), {})],
    "hsplit": [((S, 3), {})], "vsplit": [((S, 2), {})], "dsplit": [((SEQ, 3), {})],
    "where": [((S > 0, S, T), {}), ((S > 0, I, 0.5), {})],
    "clip": [((S, -1.0, 1.0), {}), ((I, 1, 3), {})],
    "einsum": [(("ij,kj->ik", S, T), {})], "matmul": [((S, T.T), {}), ((S, V[:3]), {})],
    "dot": [((S, T.T), {})], "inner": [((S, T), {})], "outer": [((V, V), {})],
    "vdot": [((S, T), {})], "tensordot": [((S, T.T), {"axes": 1})], "kron": [((S, T), {})],
    "cross": [((S, T), {})], "trace": [((M,), {})], "diagonal": [((M,), {"offset": 1})],
    "diag": [((V,), {}), ((M,), {})], "diagflat": [((S,), {})],
    "cumsum": [((S,), {"axis": 1}), ((S,), {})], "cumprod": [((S,), {"axis": 0})],
    "nancumsum": [((S,), {"axis": 1})], "nancumprod": [((S,), {"axis": 1})],
    "sort": [((S,), {}), ((S,), {"axis": 0})], "argsort": [((S,), {})],
    "flip": [((S,), {"axis": 1}), ((S,), {})], "fliplr": [((S,), {})], "flipud": [((S,), {})],
    "rot90": [((S,), {})], "roll": [((S, 1), {"axis": 1}), ((S, 2), {})],
    "tile": [((S, (2, 1)), {})], "repeat": [((S, 2), {"axis": 0}), ((S, 2), {})],
    "pad": [((S, ((1, 0), (0, 2))), {}), ((S, 1), {"mode": "reflect"})],
    "take": [((S, np.array([2, 0], np.int32)), {"axis": 1}), ((S, np.array([4, 1])), {})],
    "take_along_axis": [((S, np.argsort(S, 1).astype(np.int32)), {"axis": 1})],
    "moveaxis": [((SEQ, 0, -1), {})], "swapaxes": [((SEQ, 0, 2), {})],
    "broadcast_to": [((V[:3], (2, 3)), {})], "append": [((S, T), {}), ((S, T), {"axis": 0})],
    "diff": [((S,), {}), ((S,), {"n": 2, "axis": 1})],
    "average": [((S,), {"axis": 1, "weights": np.array([1.0, 2.0, 3.0], np.float32)})],
    "quantile": [((S, 0.3), {}), ((S, [0.25, 0.5]), {"axis": 1})],
    "percentile": [((S, 40.0), {"axis": 0})], "nanquantile": [((S, 0.3), {})],
    "nanpercentile": [((S, 30.0), {})],
    "searchsorted": [((np.array([0.1, 0.4, 0.9], np.float32), V), {})],
    "digitize": [((V, np.array([0.0, 0.25, 0.5], np.float32)), {})],
    "isin": [((I, np.array([1, 4], np.int32)), {})],
    "select": [(([S > 1, S < 0], [S, T]), {})],
    "meshgrid": [((V[:2], V), {}), ((V[:2], V), {"indexing": "ij"})],
    "unravel_index": [((np.array([1, 5], np.int32), (2, 3)), {})],
    "vander": [((V,), {"N": 3})], "trapezoid": [((S,), {}), ((S,), {"dx": 0.5, "axis": 0})],
    "nan_to_num": [((np.array([np.nan, np.inf, -1.0], np.float32),), {})],
    "corrcoef": [((S,), {})], "correlate": [((V, V[:2]), {}), ((V, V[:3]), {"mode": "full"})],
    "histogram": [((V,), {"bins": 3})], "bincount": [((np.array([0, 2, 2, 5], np.int32),), {})],
    "argpartition": [((V, 1), {})], "unique": [((np.array([3, 1, 3, 2], np.int32),), {})],
    "get_item": [((S, 1), {})], "view": [((I, "float32"), {})],
    "bartlett": [((5,), {})], "blackman": [((5,), {})], "hamming": [((5,), {})],
    "hanning": [((5,), {})], "kaiser": [((5, 2.0), {})], "ldexp": [((S, J), {})],
    "slogdet": [((M,), {})],
    # nn
    "softmax": [((S,), {}), ((S,), {"axis": 0})], "log_softmax": [((S,), {"axis": 0})],
    "one_hot": [((np.array([0, 2, 1], np.int32), 3), {})],
    "multi_hot": [((np.array([[0, 2], [1, 1]], np.int32), 3), {})],
    "moments": [((S, [1]), {}), ((S, [0]), {"keepdims": True})],
    "normalize": [((S,), {})], "rms_normalization": [((S,), {})],
    "layer_normalization": [((S,), {})],
    "batch_normalization": [((S, V[:3], A[0], -1), {"epsilon": 0.01})],
    "binary_crossentropy": [((A, B), {}), ((A, S), {"from_logits": True})],
    "categorical_crossentropy": [((A / A.sum(1, keepdims=True), B), {})],
    "sparse_categorical_crossentropy": [((np.array([0, 2], np.int32), S), {"from_logits": True})],
    "psnr": [((A, B, 1.0), {})], "threshold": [((S, 0.5, -1.0), {})],
    "depth_to_space": [((np.arange(16, dtype=np.float32).reshape(1, 1, 1, 16), 2), {})],
    "space_to_depth": [((np.arange(16, dtype=np.float32).reshape(1, 2, 2, 4), 2), {})],
    "conv": [((SEQ, K1), {}), ((IMG, K2), {"padding": "same"})],
    "depthwise_conv": [((IMG, K2[..., :1]), {})],
    "separable_conv": [((IMG, K2[..., :1], K2[:1, :1, :, :]), {})],
    "max_pool": [((IMG, 2), {})], "average_pool": [((IMG, 2), {})],
    "dot_product_attention": [((Q, Q, Q), {}), ((Q, Q, Q), {"is_causal": True})],
    # linalg and math
    "cholesky": [((M,), {})], "det": [((M,), {})], "inv": [((M,), {})],
    "solve": [((M, V[:3]), {})], "solve_triangular": [((np.tril(M), V[:3]), {"lower": True})],
    "norm": [((S,), {}), ((S,), {"axis": 1}), ((S,), {"ord": 1, "axis": 1}),
             ((M,), {"ord": "fro"})],
    "logdet": [((M,), {})], "matrix_rank": [((M,), {})], "pinv": [((M,), {})],
    "cholesky_inverse": [((np.linalg.cholesky(M),), {})],
    "lstsq": [((M, V[:3]), {})], "cdist": [((S, T), {})],
    "top_k": [((S, 2), {})], "in_top_k": [((np.array([0, 2], np.int32), S, 1), {})],
    "segment_sum": [((V, np.array([0, 0, 1, 1], np.int32)), {"num_segments": 2})],
    "segment_max": [((V, np.array([0, 0, 1, 1], np.int32)), {"num_segments": 2})],
    "extract_sequences": [((V, 2, 1), {})],
    "fft": [(((S, T),), {})], "rfft": [((V,), {})],
    "irfft": [(((V[:3], np.zeros(3, np.float32)),), {})],
    "view_as_real": [((np.array([1 + 2j], np.complex64),), {})],
    # core
    "cast": [((S, "int32"), {}), ((I, "float32"), {})],
    "saturate_cast": [((S * 200, "int8"), {})], "stop_gradient": [((S,), {})],
    "convert_to_tensor": [((S,), {}), (([1, 2],), {})], "convert_to_numpy": [((S,), {})],
    "shape": [((S,), {})], "dtype": [((I,), {})], "is_tensor": [((S,), {})],
    "scatter": [((np.array([[0, 1], [1, 2]], np.int32), V[:2], (2, 3)), {})],
    "scatter_update": [((S, np.array([[0, 1]], np.int32), V[:1]), {})],
    "slice": [((S, (0, 1), (2, 2)), {})], "slice_update": [((S, (1, 1), A[:1, :2]), {})],
    "unstack": [((S,), {})], "rearrange": [((SEQ, "b w c -> b (w c)"), {})],
    "image.resize": [((IMG, (2, 3)), {}), ((IMG, (8, 3)), {"interpolation": "nearest"})],
    "image.rgb_to_grayscale": [((IMG,), {})],
    "stft": [((np.arange(16, dtype=np.float32) / 7.0, 6, 3, 8), {}),
             ((np.arange(16, dtype=np.float32) / 7.0, 4, 2, 4), {"window": "hamming",
                                                                 "center": False})],
    "unfold": [((np.moveaxis(IMG, -1, 1), 2), {}), ((np.moveaxis(IMG, -1, 1), (2, 3)),
                                                    {"padding": 1, "stride": 2})],
    "image.rgb_to_hsv": [((IMG,), {})], "image.hsv_to_rgb": [((IMG,), {})],
    "adaptive_average_pool": [((IMG, (2, 4)), {})], "adaptive_max_pool": [((IMG, 2), {})],
    "eigh": [((M,), {})], "lu_factor": [((M,), {})], "qr": [((M,), {})],
    "svd": [((M,), {"compute_uv": False})], "fft2": [(((S, T),), {})],
    "ifft2": [(((S, T),), {})], "polar": [((A, S), {})],
    "view_as_complex": [((np.stack([S, T], -1),), {})],
    "segment_min": [((V, np.array([0, 0, 1, 1], np.int32)), {"num_segments": 2})],
    "segment_prod": [((V, np.array([0, 0, 1, 1], np.int32)), {"num_segments": 2})],
    "image.extract_patches": [((IMG, 2), {})],
    "image.crop_images": [((IMG,), {"top_cropping": 1, "left_cropping": 2, "target_height": 2,
                                    "target_width": 3})],
    "image.pad_images": [((IMG,), {"top_padding": 1, "left_padding": 2, "target_height": 6,
                                   "target_width": 9})],
})

NOT_COMPARED = {
    "custom_gradient": "a decorator (tests/test_ops_backends.py)",
    "vectorize": "returns a function", "jvp": "takes a function",
    "cond": "takes functions", "while_loop": "takes functions", "fori_loop": "takes functions",
    "scan": "takes functions", "map": "takes functions", "switch": "takes functions",
    "vectorized_map": "takes functions", "associative_scan": "takes functions",
    "ctc_loss": "not implemented", "ctc_decode": "not implemented",
}
