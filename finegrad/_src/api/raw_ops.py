"""``tf.raw_ops``: TensorFlow's op names (``Relu``, ``MatMul``, ``ConcatV2``...) called with
TensorFlow's keyword-only arguments, each mapped onto finegrad's own function for it.

One table, ``_TABLE``, maps each op name to a small function whose parameters are TensorFlow's
(names and defaults); `_raw_op` turns it into the public callable: keyword arguments only (a
positional argument is TensorFlow's TypeError), a missing or unknown keyword a TypeError naming
the op. The values and gradients are finegrad's functions', so every raw op is differentiable
where its finegrad function is; ops with several outputs return TensorFlow's namedtuples
(``TopKV2`` gives ``(values, indices)``). A name TensorFlow has and this table lacks is an
AttributeError on ``finegrad.raw_ops``.
"""

from __future__ import annotations

import collections
import inspect

import numpy as np

from finegrad._src import dtypes
from finegrad._src.api.debugging import identity_n
from finegrad._src.ops.array import constants as K
from finegrad._src.ops.array import manipulation as M
from finegrad._src.ops.array import scatter_nd as SN
from finegrad._src.ops.array import sequences_and_blocks as SB
from finegrad._src.ops.array import shape_queries as Q
from finegrad._src.ops.array import slicing as SL
from finegrad._src.ops.array import structural as S
from finegrad._src.ops.array.bitcast import bitcast
from finegrad._src.ops.array.gather import gather
from finegrad._src.ops.linalg import cholesky_eigh as CE
from finegrad._src.ops.linalg import diag_cross_rank as DC
from finegrad._src.ops.linalg import diag_inv_det as DI
from finegrad._src.ops.linalg import determinants as DET
from finegrad._src.ops.linalg import products as P
from finegrad._src.ops.linalg import solvers as LS
from finegrad._src.ops.linalg import svd_qr as SQ
from finegrad._src.ops.math import arithmetic as A
from finegrad._src.ops.math import counts_and_casts as CC
from finegrad._src.ops.math import elementwise as E
from finegrad._src.ops.math import inverse_trig as IT
from finegrad._src.ops.math import no_nan as NN
from finegrad._src.ops.math import reductions as R
from finegrad._src.ops.math import segments as SEG
from finegrad._src.ops.math import sorting as SO
from finegrad._src.ops.math import statistics as ST
from finegrad._src.ops.math.counting import unique
from finegrad._src.ops.nn import activations as ACT
from finegrad._src.ops.nn import conv as C
from finegrad._src.ops.nn import embedding_and_bias as EB
from finegrad._src.ops.nn import by_rank as PO
from finegrad._src.ops.nn import softmax_cross_entropy as SCE
from finegrad._src.ops.special import bessel_zeta_beta as BZ
from finegrad._src.ops.special import error_and_gamma as EG
from finegrad._src.ops.special import igamma as IG

from collections.abc import Callable
from typing import Any

def _outputs(op: str, *fields: str) -> Any:
    """The namedtuple TensorFlow returns for raw op ``op``'s several outputs."""
    return collections.namedtuple(op, fields)


_TopK = _outputs("TopKV2", "values", "indices")
_Xent = _outputs("SoftmaxCrossEntropyWithLogits", "loss", "backprop")
_SparseXent = _outputs("SparseSoftmaxCrossEntropyWithLogits", "loss", "backprop")
_LogDet = _outputs("LogMatrixDeterminant", "sign", "log_abs_determinant")
_Qr = _outputs("Qr", "q", "r")
_Svd = _outputs("Svd", "s", "u", "v")
_Eig = _outputs("SelfAdjointEigV2", "e", "v")
_Unique = _outputs("Unique", "y", "idx")


def _elementwise(fn: Callable, *names: str) -> Callable:
    """A table entry calling ``fn`` with the arguments ``names`` (TensorFlow's), in order."""
    takes_name = "name" in inspect.signature(fn).parameters

    def call(name=None, **kw):
        args = [kw[n] for n in names]
        return fn(*args, name=name) if takes_name else fn(*args)
    call.__signature__ = inspect.Signature(   # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in names] +
        [inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None)])
    return call


def _reduction(fn: Callable) -> Callable:
    return lambda input, axis, keep_dims=False, name=None: fn(input, axis=axis,
                                                              keepdims=keep_dims, name=name)


def _relu_grad(gradients, features, name=None):
    return E.where(E.greater(features, 0), gradients, S.zeros_like(gradients))


def _relu6_grad(gradients, features, name=None):
    inside = E.logical_and(E.greater(features, 0), E.less(features, 6))
    return E.where(inside, gradients, S.zeros_like(gradients))


def _elu_grad(gradients, outputs, name=None):
    return E.where(E.greater(outputs, 0), gradients, gradients * (outputs + 1))


def _selu_grad(gradients, outputs, name=None):
    scale, scale_alpha = 1.0507009873554804934193349852946, 1.7580993408473768599402175208123
    return E.where(E.greater(outputs, 0), gradients * scale, gradients * (outputs + scale_alpha))


def _leaky_relu_grad(gradients, features, alpha=0.2, name=None):
    return E.where(E.greater(features, 0), gradients, gradients * alpha)


def _select(condition, x, y, name=None):
    """TensorFlow 1's Select: a vector condition picks rows of higher-rank ``x`` and ``y``."""
    cond = S.convert_to_tensor(condition)
    x = S.convert_to_tensor(x)
    if cond.shape.rank == 1 and (x.shape.rank or 0) > 1:
        cond = S.reshape(cond, [-1] + [1] * (x.shape.rank - 1))
    return E.where(cond, x, y, name=name)


def _xent(features, labels, name=None):
    loss = SCE.softmax_cross_entropy_with_logits(labels=labels, logits=features, name=name)
    return _Xent(loss, SCE.softmax(features) - labels)


def _sparse_xent(features, labels, name=None):
    loss = SCE.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=features,
                                                        name=name)
    depth = S.convert_to_tensor(features).shape[-1]
    hot = M.one_hot(labels, depth, dtype=S.convert_to_tensor(features).dtype)
    return _SparseXent(loss, SCE.softmax(features) - hot)


def _batch_matmul(x, y, adj_x=False, adj_y=False, grad_x=False, grad_y=False, name=None):
    return P.matmul(x, y, adjoint_a=adj_x, adjoint_b=adj_y, name=name)


def _mirror_pad(input, paddings, mode, name=None):
    return M.pad(input, paddings, mode=mode.decode() if isinstance(mode, bytes) else mode,
                 name=name)


def _split(axis, value, num_split, name=None):
    return S.split(value, num_split, axis=axis, name=name)


def _split_v(value, size_splits, axis, num_split, name=None):
    return S.split(value, size_splits, axis=axis, num=num_split, name=name)


def _equal(fn):
    return lambda x, y, incompatible_shape_error=True, name=None: fn(x, y, name=name)


def _cast(x, DstT, Truncate=False, name=None):   # (TensorFlow's attribute names)
    return S.cast(x, DstT, name=name)


def _one_hot(indices, depth, on_value, off_value, axis=-1, name=None):
    return M.one_hot(indices, depth, on_value=on_value, off_value=off_value, axis=axis,
                     name=name)


def _strided_slice(input, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                   new_axis_mask=0, shrink_axis_mask=0, name=None):
    return SL.strided_slice(input, begin, end, strides, begin_mask=begin_mask,
                            end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                            new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask,
                            name=name)


def _conv2d(input, filter, strides, padding, use_cudnn_on_gpu=True, explicit_paddings=(),
            data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    pad = _explicit(padding, explicit_paddings, "Conv2D")
    return C.conv2d(input, filter, strides, pad, data_format=data_format, dilations=dilations,
                    name=name)


def _depthwise(input, filter, strides, padding, explicit_paddings=(), data_format="NHWC",
               dilations=(1, 1, 1, 1), name=None):
    pad = _explicit(padding, explicit_paddings, "DepthwiseConv2dNative")
    return C.depthwise_conv2d(input, filter, strides, pad, data_format=data_format,
                              dilations=dilations, name=name)


def _explicit(padding, explicit_paddings, op):
    """``padding`` as the finegrad function takes it: EXPLICIT as pairs per axis."""
    padding = padding.decode() if isinstance(padding, bytes) else padding
    if padding != "EXPLICIT":
        return padding
    flat = [int(v) for v in np.asarray(explicit_paddings).reshape(-1)]
    if len(flat) != 8:
        raise ValueError(f"finegrad.raw_ops.{op}: explicit_paddings must have 8 entries "
                         f"(4 axes, before and after) with padding='EXPLICIT', got {len(flat)}")
    return [flat[i:i + 2] for i in range(0, 8, 2)]


def _conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                           use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                           dilations=(1, 1, 1, 1), name=None):
    pad = _explicit(padding, explicit_paddings, "Conv2DBackpropInput")
    return C.conv2d_transpose(out_backprop, filter, input_sizes, strides, pad,
                              data_format=data_format, dilations=dilations, name=name)


def _bias_add_grad(out_backprop, data_format="NHWC", name=None):
    """BiasAdd's gradient in its bias: the sum over every axis but the channels'."""
    g = S.convert_to_tensor(out_backprop)
    rank = g.shape.rank or 0
    channel = 1 if str(data_format).startswith("NC") and rank > 2 else rank - 1
    return S.reduce_sum(g, [a for a in range(rank) if a != channel], name=name)


def _max_pool(input, ksize, strides, padding, explicit_paddings=(), data_format="NHWC",
              name=None):
    return PO.max_pool(input, ksize, strides, _explicit(padding, explicit_paddings, "MaxPool"),
                       data_format=data_format, name=name)


def _top_k(input, k, sorted=True, index_type=dtypes.int32, name=None):
    values, indices = SO.top_k(input, k=k, sorted=sorted, name=name)
    return _TopK(values, S.cast(indices, index_type) if index_type != dtypes.int32 else indices)


def _linalg(fn, wrap):
    return lambda input, name=None: wrap(*fn(input, name=name))


def _svd(input, compute_uv=True, full_matrices=False, name=None):
    if not compute_uv:
        s = SQ.svd(input, full_matrices=full_matrices, compute_uv=False, name=name)
        return _Svd(s, None, None)
    return _Svd(*SQ.svd(input, full_matrices=full_matrices, compute_uv=True, name=name))


def _eigh(input, compute_v=True, name=None):
    e, v = CE.eigh(input, name=name)
    return _Eig(e, v if compute_v else None)


def _unique(x, out_idx=dtypes.int32, name=None):
    return _Unique(*unique(x, out_idx=out_idx, name=name))


_Fns = dict[str, Callable[..., Any]]
_UNARY: _Fns = {
          "Abs": E.abs, "Acos": E.acos, "Acosh": IT.acosh, "Asin": E.asin, "Asinh": E.asinh,
          "Atan": E.atan, "Atanh": IT.atanh, "Ceil": E.ceil, "Cos": E.cos, "Cosh": E.cosh,
          "Digamma": EG.digamma, "Erf": EG.erf, "Erfc": EG.erfc, "Exp": E.exp,
          "Expm1": E.expm1, "Floor": E.floor, "Inv": E.reciprocal, "IsFinite": E.is_finite,
          "IsInf": E.is_inf, "IsNan": E.is_nan, "Lgamma": EG.lgamma, "Log": E.log,
          "Log1p": E.log1p, "LogicalNot": E.logical_not, "Neg": A.negative,
          "Reciprocal": E.reciprocal, "Rint": IT.rint, "Round": E.round, "Rsqrt": E.rsqrt,
          "Sigmoid": E.sigmoid, "Sign": E.sign, "Sin": E.sin, "Sinh": E.sinh, "Sqrt": E.sqrt,
          "Square": E.square, "Tan": E.tan, "Tanh": E.tanh, "BesselI0e": BZ.bessel_i0e,
          "BesselI1e": BZ.bessel_i1e, "ZerosLike": S.zeros_like, "OnesLike": S.ones_like}
_BINARY: _Fns = {
           "Add": A.add, "AddV2": A.add, "Sub": A.subtract, "Mul": A.multiply,
           "Div": A.divide, "RealDiv": A.divide, "DivNoNan": ST.divide_no_nan,
           "FloorDiv": A.floordiv, "FloorMod": A.mod, "Maximum": A.maximum,
           "Minimum": A.minimum, "Pow": A.pow, "SquaredDifference": IT.squared_difference,
           "Less": E.less, "LessEqual": E.less_equal, "Greater": E.greater,
           "GreaterEqual": E.greater_equal, "LogicalAnd": E.logical_and,
           "LogicalOr": E.logical_or, "Xlogy": EG.xlogy, "Xlog1py": EG.xlog1py,
           "Xdivy": NN.xdivy, "MulNoNan": NN.multiply_no_nan, "Zeta": BZ.zeta,
           "Polygamma": EG.polygamma, "Igamma": IG.igamma, "Igammac": IG.igammac,
           "Atan2": IT.atan2, "TruncateDiv": EG.truncatediv}
_BINARY_NAMES = {"Atan2": ("y", "x"), "Zeta": ("x", "q"), "Polygamma": ("a", "x"),
                 "Igamma": ("a", "x"), "Igammac": ("a", "x")}
_NN_UNARY: _Fns = {
             "Relu": E.relu, "Relu6": ACT.relu6, "Elu": ACT.elu, "Selu": ACT.selu,
             "Softplus": E.softplus, "Softsign": EB.softsign}

_TABLE: dict[str, Callable] = {
    **{op: _elementwise(fn, "x") for op, fn in _UNARY.items()},
    **{op: _elementwise(fn, *_BINARY_NAMES.get(op, ("x", "y"))) for op, fn in _BINARY.items()},
    **{op: _elementwise(fn, "features") for op, fn in _NN_UNARY.items()},
    "Equal": _equal(E.equal), "NotEqual": _equal(E.not_equal),
    "LeakyRelu": lambda features, alpha=0.2, name=None: ACT.leaky_relu(features, alpha, name),
    "ReluGrad": _relu_grad, "Relu6Grad": _relu6_grad, "EluGrad": _elu_grad,
    "SeluGrad": _selu_grad, "LeakyReluGrad": _leaky_relu_grad,
    "SoftplusGrad": lambda gradients, features, name=None: gradients * E.sigmoid(features),
    "SigmoidGrad": lambda y, dy, name=None: E.sigmoid_grad(y, dy),
    "TanhGrad": lambda y, dy, name=None: E.tanh_grad(y, dy),
    "RsqrtGrad": lambda y, dy, name=None: dy * y * y * y * -0.5,
    "SqrtGrad": lambda y, dy, name=None: dy * 0.5 / y,
    "ReciprocalGrad": lambda y, dy, name=None: -dy * y * y,
    "Select": _select,
    "SelectV2": lambda condition, t, e, name=None: E.where(condition, t, e, name=name),
    "ClipByValue": lambda t, clip_value_min, clip_value_max, name=None: A.clip_by_value(
        t, clip_value_min, clip_value_max, name=name),
    "AddN": lambda inputs, name=None: ST.add_n(inputs, name=name),
    "Cast": _cast,
    "Bitcast": lambda input, type, name=None: bitcast(input, type, name=name),
    "Identity": lambda input, name=None: S.identity(input, name=name),
    "IdentityN": lambda input, name=None: identity_n(input, name=name),
    "StopGradient": lambda input, name=None: S.stop_gradient(input, name=name),
    "Reshape": lambda tensor, shape, name=None: S.reshape(tensor, shape, name=name),
    "Transpose": lambda x, perm, name=None: S.transpose(x, perm, name=name),
    "ConcatV2": lambda values, axis, name=None: S.concat(values, axis, name=name),
    "Concat": lambda concat_dim, values, name=None: S.concat(values, concat_dim, name=name),
    "Pack": lambda values, axis=0, name=None: S.stack(values, axis=axis, name=name),
    "Unpack": lambda value, num, axis=0, name=None: S.unstack(value, num, axis=axis, name=name),
    "Split": _split, "SplitV": _split_v,
    "ExpandDims": lambda input, axis, name=None: S.expand_dims(input, axis, name=name),
    "Squeeze": lambda input, axis=(), name=None: S.squeeze(input, list(axis) or None,
                                                           name=name),
    "Tile": lambda input, multiples, name=None: S.tile(input, multiples, name=name),
    "BroadcastTo": lambda input, shape, name=None: S.broadcast_to(input, shape, name=name),
    "Fill": lambda dims, value, name=None: K.fill(dims, value, name=name),
    "Range": lambda start, limit, delta, name=None: K.range_(start, limit, delta),
    "Shape": lambda input, out_type=dtypes.int32, name=None: Q.shape(input, out_type, name),
    "Size": lambda input, out_type=dtypes.int32, name=None: Q.size(input, out_type, name),
    "Rank": lambda input, name=None: Q.rank(input, name=name),
    "Slice": lambda input, begin, size, name=None: SL.slice_(input, begin, size, name=name),
    "StridedSlice": _strided_slice,
    "GatherV2": lambda params, indices, axis, batch_dims=0, name=None: gather(
        params, indices, axis=axis, batch_dims=batch_dims, name=name),
    "GatherNd": lambda params, indices, bad_indices_policy="", name=None: SN.gather_nd(
        params, indices, name=name),
    "ScatterNd": lambda indices, updates, shape, bad_indices_policy="", name=None:
        SN.scatter_nd(indices, updates, shape, name=name),
    "TensorScatterUpdate": lambda tensor, indices, updates, bad_indices_policy="", name=None:
        SN.tensor_scatter_nd_update(tensor, indices, updates, name=name),
    "TensorScatterAdd": lambda tensor, indices, updates, bad_indices_policy="", name=None:
        SN.tensor_scatter_nd_add(tensor, indices, updates, name=name),
    "Pad": lambda input, paddings, name=None: M.pad(input, paddings, name=name),
    "PadV2": lambda input, paddings, constant_values, name=None: M.pad(
        input, paddings, constant_values=constant_values, name=name),
    "MirrorPad": _mirror_pad,
    "ReverseV2": lambda tensor, axis, name=None: M.reverse(tensor, axis, name=name),
    "Roll": lambda input, shift, axis, name=None: M.roll(input, shift, axis, name=name),
    "OneHot": _one_hot,
    "DepthToSpace": lambda input, block_size, data_format="NHWC", name=None:
        SB.depth_to_space(input, block_size, data_format=data_format, name=name),
    "SpaceToDepth": lambda input, block_size, data_format="NHWC", name=None:
        SB.space_to_depth(input, block_size, data_format=data_format, name=name),
    "Sum": _reduction(S.reduce_sum), "Mean": _reduction(R.reduce_mean),
    "Max": _reduction(R.reduce_max), "Min": _reduction(R.reduce_min),
    "Prod": _reduction(R.reduce_prod), "All": _reduction(ST.reduce_all),
    "Any": _reduction(ST.reduce_any),
    "ArgMax": lambda input, dimension, output_type=dtypes.int64, name=None: SO.argmax(
        input, dimension, output_type=output_type, name=name),
    "ArgMin": lambda input, dimension, output_type=dtypes.int64, name=None: SO.argmin(
        input, dimension, output_type=output_type, name=name),
    "Cumsum": lambda x, axis, exclusive=False, reverse=False, name=None: R.cumsum(
        x, axis, exclusive=exclusive, reverse=reverse, name=name),
    "Cumprod": lambda x, axis, exclusive=False, reverse=False, name=None: R.cumprod(
        x, axis, exclusive=exclusive, reverse=reverse, name=name),
    "TopKV2": _top_k,
    "InTopKV2": lambda predictions, targets, k, name=None: CC.in_top_k(targets, predictions,
                                                                       k, name=name),
    "Unique": _unique,
    "SegmentSum": lambda data, segment_ids, name=None: SEG.segment_sum(data, segment_ids,
                                                                       name=name),
    "UnsortedSegmentSum": lambda data, segment_ids, num_segments, name=None:
        SEG.unsorted_segment_sum(data, segment_ids, num_segments, name=name),
    "MatMul": lambda a, b, transpose_a=False, transpose_b=False, grad_a=False, grad_b=False,
    name=None: P.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, name=name),
    "BatchMatMul": _batch_matmul, "BatchMatMulV2": _batch_matmul,
    "Einsum": lambda inputs, equation, name=None: P.einsum(equation, *inputs, name=name),
    "BiasAdd": lambda value, bias, data_format="NHWC", name=None: EB.bias_add(
        value, bias, data_format=data_format, name=name),
    "Conv2D": _conv2d, "DepthwiseConv2dNative": _depthwise, "MaxPool": _max_pool,
    "Conv2DBackpropInput": _conv2d_backprop_input, "BiasAddGrad": _bias_add_grad,
    "Where": lambda condition, name=None: E.where(condition, name=name),
    "AvgPool": lambda value, ksize, strides, padding, data_format="NHWC", name=None:
        PO.avg_pool(value, ksize, strides, padding, data_format=data_format, name=name),
    "Softmax": lambda logits, name=None: SCE.softmax(logits, name=name),
    "LogSoftmax": lambda logits, name=None: SCE.log_softmax(logits, name=name),
    "SoftmaxCrossEntropyWithLogits": _xent,
    "SparseSoftmaxCrossEntropyWithLogits": _sparse_xent,
    "L2Loss": lambda t, name=None: SCE.l2_loss(t, name=name),
    "Cholesky": lambda input, name=None: CE.cholesky(input, name=name),
    "MatrixInverse": lambda input, adjoint=False, name=None: DI.inv(input, adjoint, name),
    "MatrixDeterminant": lambda input, name=None: DET.det(input, name=name),
    "LogMatrixDeterminant": _linalg(DET.slogdet, _LogDet),
    "MatrixSolve": lambda matrix, rhs, adjoint=False, name=None: LS.solve(matrix, rhs,
                                                                          adjoint, name),
    "MatrixTriangularSolve": lambda matrix, rhs, lower=True, adjoint=False, name=None:
        LS.triangular_solve(matrix, rhs, lower=lower, adjoint=adjoint, name=name),
    "MatrixBandPart": lambda input, num_lower, num_upper, name=None: DI.band_part(
        input, num_lower, num_upper, name=name),
    "Qr": lambda input, full_matrices=False, name=None: _Qr(*SQ.qr(input, full_matrices,
                                                                   name=name)),
    "Svd": _svd, "SelfAdjointEigV2": _eigh,
    "Cross": lambda a, b, name=None: DC.cross(a, b, name=name),
}


def _raw_op(op: str, fn: Callable) -> Callable[..., Any]:
    """The public callable of raw op ``op``: ``fn``'s parameters, keyword-only."""
    sig = inspect.signature(fn)
    # annotated for type checkers and IDEs: TF's raw ops take anything a tensor converts from
    sig = sig.replace(parameters=[p.replace(kind=inspect.Parameter.KEYWORD_ONLY,
                                            annotation=Any if p.annotation is p.empty
                                            else p.annotation)
                                  for p in sig.parameters.values()], return_annotation=Any)
    keys = list(sig.parameters)

    def raw_op(*args: Any, **kwargs: Any) -> Any:
        if args:
            raise TypeError(f"{op} only takes keyword args (possible keys: {keys}). Please "
                            f"pass these args as kwargs instead.")
        try:
            bound = sig.bind(**kwargs)
        except TypeError as e:
            raise TypeError(f"finegrad.raw_ops.{op}: {e}") from None
        bound.apply_defaults()
        name = bound.arguments["name"]  # noqa: F841 (a TF1 graph reads its op's name here)
        return fn(**bound.arguments)
    raw_op.__name__ = raw_op.__qualname__ = op
    raw_op.__signature__ = sig   # type: ignore[attr-defined]
    raw_op.__doc__ = (f"TensorFlow's raw op ``{op}``: keyword arguments only "
                      f"({', '.join(keys)}), computed by finegrad's own function for it.")
    return raw_op


RAW_OPS: dict[str, Callable[..., Any]] = {op: _raw_op(op, fn) for op, fn in _TABLE.items()}
