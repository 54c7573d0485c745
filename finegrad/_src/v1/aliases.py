"""TensorFlow 1's other names for functions finegrad has under TensorFlow 2's names.

``tf.compat.v1.matrix_inverse`` is ``tf.linalg.inv``, ``tf.compat.v1.log1p`` is
``tf.math.log1p``, ``tf.compat.v1.initialize_all_variables`` is
``global_variables_initializer``: TensorFlow keeps these names in ``compat.v1`` (the same
function objects), and TF1 programs use them. `TF1_NAMES` maps each one to its path under
the ``finegrad`` package; `resolve` looks one up. The table was made by matching TensorFlow
2.21's ``tf.compat.v1`` objects with its TF2 namespaces (every name whose TF2 function
finegrad has), plus the deprecated aliases TensorFlow documents for them.
"""
from __future__ import annotations

import sys
from typing import Any

#: TF1 name -> its path under ``finegrad`` (dots: submodules)
TF1_NAMES = {
    "string_to_number": "strings.to_number", "substr": "strings.substr",
    "string_join": "strings.join",
    "string_strip": "strings.strip", "regex_replace": "strings.regex_replace",
    "FixedLenFeature": "io.FixedLenFeature",
    "FixedLenSequenceFeature": "io.FixedLenSequenceFeature", "NoGradient": "no_gradient",
    "NotDifferentiable": "no_gradient", "OpError": "errors.OpError",
    "SparseFeature": "io.SparseFeature", "VarLenFeature": "io.VarLenFeature",
    "accumulate_n": "math.accumulate_n", "all_variables": "compat.v1.global_variables",
    "angle": "math.angle", "assert_integer": "debugging.assert_integer",
    "assert_rank_in": "debugging.assert_rank_in",
    "assert_same_float_dtype": "debugging.assert_same_float_dtype", "betainc": "math.betainc",
    "bincount": "math.bincount", "ceil": "math.ceil", "cholesky": "linalg.cholesky",
    "cholesky_solve": "linalg.cholesky_solve", "confusion_matrix": "math.confusion_matrix",
    "conj": "math.conj", "count_nonzero": "math.count_nonzero", "cross": "linalg.cross",
    "cumprod": "math.cumprod", "decode_base64": "io.decode_base64",
    "decode_compressed": "io.decode_compressed", "decode_raw": "io.decode_raw",
    "depth_to_space": "nn.depth_to_space", "diag": "linalg.tensor_diag",
    "diag_part": "linalg.tensor_diag_part", "digamma": "math.digamma",
    "div_no_nan": "math.divide_no_nan", "encode_base64": "io.encode_base64", "erf": "math.erf",
    "erfc": "math.erfc", "expm1": "math.expm1", "fft": "signal.fft", "fft2d": "signal.fft2d",
    "fft3d": "signal.fft3d", "floor_div": "math.floordiv", "floordiv": "math.floordiv",
    "floormod": "math.floormod", "global_norm": "linalg.global_norm", "ifft": "signal.ifft",
    "ifft2d": "signal.ifft2d", "ifft3d": "signal.ifft3d", "igamma": "math.igamma",
    "igammac": "math.igammac", "imag": "math.imag",
    "initialize_all_variables": "compat.v1.global_variables_initializer",
    "initialize_local_variables": "compat.v1.local_variables_initializer",
    "initialize_variables": "compat.v1.variables_initializer",
    "invert_permutation": "math.invert_permutation", "is_finite": "math.is_finite",
    "is_inf": "math.is_inf", "is_nan": "math.is_nan",
    "is_non_decreasing": "math.is_non_decreasing",
    "is_numeric_tensor": "debugging.is_numeric_tensor",
    "is_strictly_increasing": "math.is_strictly_increasing", "lbeta": "math.lbeta",
    "lgamma": "math.lgamma", "lin_space": "linspace", "log1p": "math.log1p",
    "log_sigmoid": "math.log_sigmoid", "logical_xor": "math.logical_xor",
    "matching_files": "io.matching_files", "matrix_band_part": "linalg.band_part",
    "matrix_determinant": "linalg.det", "matrix_diag": "linalg.diag",
    "matrix_diag_part": "linalg.diag_part", "matrix_inverse": "linalg.inv",
    "matrix_set_diag": "linalg.set_diag", "matrix_solve": "linalg.solve",
    "matrix_solve_ls": "linalg.lstsq", "matrix_transpose": "linalg.matrix_transpose",
    "matrix_triangular_solve": "linalg.triangular_solve", "parse_example": "io.parse_example",
    "parse_single_example": "io.parse_single_example", "parse_tensor": "io.parse_tensor",
    "polygamma": "math.polygamma", "qr": "linalg.qr", "random_crop": "image.random_crop",
    "read_file": "io.read_file", "real": "math.real", "reciprocal": "math.reciprocal",
    "reverse_v2": "reverse", "rint": "math.rint", "rsqrt": "math.rsqrt",
    "segment_max": "math.segment_max", "segment_mean": "math.segment_mean",
    "segment_min": "math.segment_min", "segment_prod": "math.segment_prod",
    "segment_sum": "math.segment_sum", "self_adjoint_eig": "linalg.eigh",
    "self_adjoint_eigvals": "linalg.eigvalsh", "serialize_tensor": "io.serialize_tensor",
    "space_to_depth": "nn.space_to_depth", "squared_difference": "math.squared_difference",
    "svd": "linalg.svd", "tensor_scatter_add": "tensor_scatter_nd_add",
    "tensor_scatter_sub": "tensor_scatter_nd_sub",
    "tensor_scatter_update": "tensor_scatter_nd_update", "trace": "linalg.trace",
    "unsorted_segment_max": "math.unsorted_segment_max",
    "unsorted_segment_mean": "math.unsorted_segment_mean",
    "unsorted_segment_min": "math.unsorted_segment_min",
    "unsorted_segment_prod": "math.unsorted_segment_prod",
    "unsorted_segment_sqrt_n": "math.unsorted_segment_sqrt_n",
    "unsorted_segment_sum": "math.unsorted_segment_sum",
    "verify_tensor_all_finite": "debugging.check_numerics", "where_v2": "where",
    "write_file": "io.write_file", "zeta": "math.zeta"
}


def resolve(name: str) -> Any:
    """The object ``finegrad.compat.v1.<name>`` is for a TF1 alias ``name`` (AttributeError
    when ``name`` is not one)."""
    path = TF1_NAMES.get(name)
    if path is None:
        raise AttributeError(name)
    obj: Any = sys.modules["finegrad"]
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj
