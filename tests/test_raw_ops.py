"""``finegrad.raw_ops``: TensorFlow's op names with TensorFlow's keyword-only arguments. Every
op of the table is compared with TensorFlow's own raw op (live, when TensorFlow is installed);
a few gradients are compared too, and the calling rules (keywords only) are TensorFlow's."""
import inspect

import numpy as np
import pytest

import finegrad as fg

_rng = np.random.default_rng(0)


def _f(*shape, lo=-2., hi=2.):
    return _rng.uniform(lo, hi, size=shape).astype(np.float32)


_X, _Y, _POS = _f(2, 3), _f(2, 3), _f(2, 3, lo=0.2, hi=2.)
_UNIT = _f(2, 3, lo=-0.9, hi=0.9)
_SPD = (lambda a: (a @ a.T + 3 * np.eye(3)).astype(np.float32))(_f(3, 3))
_IMG, _KER = _f(1, 5, 5, 2), _f(3, 3, 2, 4)
_I = np.array([[2, 0, 1], [1, 1, 0]], np.int32)

_DOMAIN = {"Acos": _UNIT, "Asin": _UNIT, "Atanh": _UNIT, "Acosh": _POS + 1, "Log": _POS,
           "Log1p": _POS, "Rsqrt": _POS, "Sqrt": _POS, "Lgamma": _POS, "Digamma": _POS,
           "Reciprocal": _POS, "Inv": _POS}
_POS_SECOND = {"Pow": (_POS, _Y), "Xlogy": (_X, _POS), "Xlog1py": (_X, _POS), "Div": (_X, _POS),
               "RealDiv": (_X, _POS), "DivNoNan": (_X, np.where(_Y > 0, _POS, 0)),
               "FloorDiv": (_X, _POS), "FloorMod": (_X, _POS), "Xdivy": (_X, _POS),
               "Zeta": (_POS + 1, _POS), "Polygamma": (np.ones((2, 3), np.float32), _POS),
               "Igamma": (_POS, _POS), "Igammac": (_POS, _POS), "Atan2": (_X, _Y),
               "TruncateDiv": (np.array([7, -7, 5], np.int32), np.array([2, 2, -3], np.int32))}


def _case(op):
    """TensorFlow-named keyword arguments for ``op`` (NumPy values)."""
    raw = fg.raw_ops.__dict__[op]
    keys = [k for k in inspect.signature(raw).parameters if k != "name"]
    if op in _POS_SECOND:
        return dict(zip(keys, _POS_SECOND[op], strict=True))
    if keys == ["x"]:
        return {"x": _DOMAIN.get(op, _X)}
    if keys == ["x", "y"]:
        return {"x": _X, "y": _Y} if op not in ("LogicalAnd", "LogicalOr") else \
            {"x": _X > 0, "y": _Y > 0}
    if keys == ["features"]:
        return {"features": _X}
    return _SPECIAL[op]()


_SPECIAL = {
    "LogicalNot": lambda: {"x": _X > 0},
    "Equal": lambda: {"x": np.round(_X), "y": np.round(_Y)},
    "NotEqual": lambda: {"x": np.round(_X), "y": np.round(_Y)},
    "LeakyRelu": lambda: {"features": _X, "alpha": 0.1},
    "ReluGrad": lambda: {"gradients": _Y, "features": _X},
    "Relu6Grad": lambda: {"gradients": _Y, "features": _X * 4},
    "EluGrad": lambda: {"gradients": _Y, "outputs": np.where(_X > 0, _X, np.expm1(_X))},
    "SeluGrad": lambda: {"gradients": _Y, "outputs": _X},
    "LeakyReluGrad": lambda: {"gradients": _Y, "features": _X, "alpha": 0.3},
    "SoftplusGrad": lambda: {"gradients": _Y, "features": _X},
    "SigmoidGrad": lambda: {"y": _UNIT, "dy": _Y}, "TanhGrad": lambda: {"y": _UNIT, "dy": _Y},
    "RsqrtGrad": lambda: {"y": _POS, "dy": _Y}, "SqrtGrad": lambda: {"y": _POS, "dy": _Y},
    "ReciprocalGrad": lambda: {"y": _POS, "dy": _Y},
    "Select": lambda: {"condition": np.array([True, False]), "x": _X, "y": _Y},
    "SelectV2": lambda: {"condition": _X > 0, "t": _X, "e": np.float32(0.5)},
    "ClipByValue": lambda: {"t": _X, "clip_value_min": np.float32(-0.5),
                            "clip_value_max": np.float32(1.)},
    "AddN": lambda: {"inputs": [_X, _Y, _POS]},
    "Cast": lambda: {"x": _X * 3, "DstT": "int32"},
    "Bitcast": lambda: {"input": _X, "type": "int32"},
    "Identity": lambda: {"input": _X}, "IdentityN": lambda: {"input": [_X, _I]},
    "StopGradient": lambda: {"input": _X},
    "Reshape": lambda: {"tensor": _X, "shape": [3, -1]},
    "Transpose": lambda: {"x": _X, "perm": [1, 0]},
    "ConcatV2": lambda: {"values": [_X, _Y], "axis": 1},
    "Concat": lambda: {"concat_dim": 0, "values": [_X, _Y]},
    "Pack": lambda: {"values": [_X, _Y], "axis": 1},
    "Unpack": lambda: {"value": _X, "num": 3, "axis": 1},
    "Split": lambda: {"axis": 1, "value": _X, "num_split": 3},
    "SplitV": lambda: {"value": _X, "size_splits": [1, 2], "axis": 1, "num_split": 2},
    "ExpandDims": lambda: {"input": _X, "axis": 1},
    "Squeeze": lambda: {"input": _X[:, None, :, None], "axis": [3]},
    "Tile": lambda: {"input": _X, "multiples": [2, 1]},
    "BroadcastTo": lambda: {"input": _X[:1], "shape": [4, 3]},
    "Fill": lambda: {"dims": [2, 2], "value": np.float32(1.5)},
    "Range": lambda: {"start": 1, "limit": 10, "delta": 3},
    "Shape": lambda: {"input": _X, "out_type": "int64"}, "Size": lambda: {"input": _X},
    "Rank": lambda: {"input": _X},
    "ZerosLike": lambda: {"x": _X}, "OnesLike": lambda: {"x": _I},
    "Slice": lambda: {"input": _X, "begin": [0, 1], "size": [2, -1]},
    "StridedSlice": lambda: {"input": _X, "begin": [0, 2], "end": [2, 0], "strides": [1, -1],
                             "shrink_axis_mask": 0},
    "GatherV2": lambda: {"params": _X, "indices": _I, "axis": 1},
    "GatherNd": lambda: {"params": _X, "indices": [[0, 1], [1, 2]]},
    "ScatterNd": lambda: {"indices": [[0], [2]], "updates": _X, "shape": [4, 3]},
    "TensorScatterUpdate": lambda: {"tensor": _X, "indices": [[1, 0]],
                                    "updates": np.float32([9.])},
    "TensorScatterAdd": lambda: {"tensor": _X, "indices": [[1, 0], [1, 0]],
                                 "updates": np.float32([9., 1.])},
    "Pad": lambda: {"input": _X, "paddings": [[1, 0], [0, 2]]},
    "PadV2": lambda: {"input": _X, "paddings": [[1, 0], [0, 2]],
                      "constant_values": np.float32(7.)},
    "MirrorPad": lambda: {"input": _X, "paddings": [[1, 1], [2, 1]], "mode": "REFLECT"},
    "ReverseV2": lambda: {"tensor": _X, "axis": [1]},
    "Roll": lambda: {"input": _X, "shift": [1, -1], "axis": [0, 1]},
    "OneHot": lambda: {"indices": _I, "depth": 4, "on_value": np.float32(2.),
                       "off_value": np.float32(-1.), "axis": 1},
    "DepthToSpace": lambda: {"input": _f(1, 2, 2, 4), "block_size": 2},
    "SpaceToDepth": lambda: {"input": _f(1, 4, 4, 1), "block_size": 2},
    **{op: (lambda: {"input": _X, "axis": [1], "keep_dims": True})
       for op in ("Sum", "Mean", "Max", "Min", "Prod")},
    "All": lambda: {"input": _X > -1, "axis": 0}, "Any": lambda: {"input": _X > 1, "axis": 0},
    "ArgMax": lambda: {"input": _X, "dimension": 1},
    "ArgMin": lambda: {"input": _X, "dimension": 0, "output_type": "int32"},
    "Cumsum": lambda: {"x": _X, "axis": 1, "exclusive": True, "reverse": True},
    "Cumprod": lambda: {"x": _X, "axis": 1, "exclusive": False, "reverse": True},
    "TopKV2": lambda: {"input": _X, "k": 2},
    "InTopKV2": lambda: {"predictions": _X, "targets": np.array([0, 2], np.int32), "k": 2},
    "Unique": lambda: {"x": np.array([3, 1, 3, 2, 1], np.int32)},
    "SegmentSum": lambda: {"data": _X.T, "segment_ids": [0, 0, 1]},
    "UnsortedSegmentSum": lambda: {"data": _X.T, "segment_ids": [2, 0, 2], "num_segments": 3},
    "MatMul": lambda: {"a": _X, "b": _Y, "transpose_b": True},
    "BatchMatMul": lambda: {"x": _f(2, 2, 3), "y": _f(2, 2, 3), "adj_y": True},
    "BatchMatMulV2": lambda: {"x": _f(2, 3, 2), "y": _f(1, 3, 4), "adj_x": True},
    "Einsum": lambda: {"inputs": [_X, _Y], "equation": "ij,kj->ik"},
    "BiasAdd": lambda: {"value": _X, "bias": _Y[0]},
    "Conv2D": lambda: {"input": _IMG, "filter": _KER, "strides": [1, 2, 2, 1],
                       "padding": "SAME"},
    "DepthwiseConv2dNative": lambda: {"input": _IMG, "filter": _f(3, 3, 2, 2),
                                      "strides": [1, 1, 1, 1], "padding": "VALID"},
    "Conv2DBackpropInput": lambda: {"input_sizes": [1, 5, 5, 2], "filter": _KER,
                                    "out_backprop": _f(1, 3, 3, 4), "strides": [1, 2, 2, 1],
                                    "padding": "SAME"},
    "BiasAddGrad": lambda: {"out_backprop": _IMG},
    "Where": lambda: {"condition": _X > 0},
    "MaxPool": lambda: {"input": _IMG, "ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                        "padding": "SAME"},
    "AvgPool": lambda: {"value": _IMG, "ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1],
                        "padding": "VALID"},
    "Softmax": lambda: {"logits": _X}, "LogSoftmax": lambda: {"logits": _X},
    "SoftmaxCrossEntropyWithLogits": lambda: {"features": _X,
                                              "labels": np.float32([[.2, .3, .5], [1, 0, 0]])},
    "SparseSoftmaxCrossEntropyWithLogits": lambda: {"features": _X,
                                                    "labels": np.array([2, 0], np.int32)},
    "L2Loss": lambda: {"t": _X},
    "Cholesky": lambda: {"input": _SPD},
    "MatrixInverse": lambda: {"input": _SPD, "adjoint": True},
    "MatrixDeterminant": lambda: {"input": _SPD},
    "LogMatrixDeterminant": lambda: {"input": -_SPD},
    "MatrixSolve": lambda: {"matrix": _SPD, "rhs": _X.T},
    "MatrixTriangularSolve": lambda: {"matrix": np.tril(_SPD), "rhs": _X.T, "adjoint": True},
    "MatrixBandPart": lambda: {"input": _SPD, "num_lower": 0, "num_upper": 1},
    "Qr": lambda: {"input": _X.T}, "Svd": lambda: {"input": _X, "compute_uv": False},
    "SelfAdjointEigV2": lambda: {"input": _SPD, "compute_v": False},
    "Cross": lambda: {"a": _X, "b": _Y},
}

OPS = sorted(fg.raw_ops.__all__)


def _numpy(value):
    if value is None:
        return None
    if hasattr(value, "_fields"):   # TensorFlow's namedtuples of several outputs
        return type(value)(*[_numpy(v) for v in value])
    if isinstance(value, (list, tuple)):
        return [_numpy(v) for v in value]
    return np.asarray(value)


def _assert_same(ours, theirs, op):
    if isinstance(theirs, (list, tuple)):
        if hasattr(theirs, "_fields"):
            assert type(ours).__name__ == type(theirs).__name__, op
            assert ours._fields == theirs._fields, op
        assert len(ours) == len(theirs), op
        for a, b in zip(ours, theirs, strict=True):
            _assert_same(a, b, op)
        return
    if theirs is None or (np.ndim(theirs) == 0 and ours is None):
        return
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.dtype == b.dtype and a.shape == b.shape, (op, a.dtype, b.dtype, a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6, err_msg=op)


@pytest.mark.parametrize("op", OPS)
def test_raw_op_matches_tensorflow(op):
    tf = pytest.importorskip("tensorflow")
    kwargs = _case(op)
    theirs = getattr(tf.raw_ops, op)(**kwargs)
    ours = getattr(fg.raw_ops, op)(**kwargs)
    _assert_same(_numpy(ours), _numpy(theirs), op)


@pytest.mark.parametrize("op", OPS)
def test_raw_op_has_tensorflows_parameters(op):
    tf = pytest.importorskip("tensorflow")
    theirs = inspect.signature(getattr(tf.raw_ops, op)).parameters
    ours = inspect.signature(getattr(fg.raw_ops, op)).parameters
    assert list(ours) == list(theirs)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in ours.values())
    assert [k for k, p in ours.items() if p.default is p.empty] == \
        [k for k, p in theirs.items() if p.default is p.empty]


def test_every_op_of_the_table_has_a_case():
    for op in OPS:
        assert isinstance(_case(op), dict), op


def test_positional_arguments_and_unknown_keywords_are_type_errors():
    with pytest.raises(TypeError, match=r"Relu only takes keyword args \(possible keys: "
                                        r"\['features', 'name'\]\)"):
        fg.raw_ops.Relu(fg.constant([1.]))
    with pytest.raises(TypeError, match="raw_ops.Relu: .*feature"):
        fg.raw_ops.Relu(feature=fg.constant([1.]))
    with pytest.raises(TypeError, match="raw_ops.AddV2: missing .*'y'"):
        fg.raw_ops.AddV2(x=1.)
    with pytest.raises(AttributeError, match="no raw op 'NoSuchOp'"):
        _ = fg.raw_ops.NoSuchOp


def test_name_is_accepted_and_names_the_op_in_a_graph():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [2])
        y = fg.raw_ops.Relu(features=x, name="my_relu")
        assert y.name == "my_relu:0"
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: [-1., 2.]}), [0., 2.])


def _grads(lib, op, kwargs, wrt):
    x = {k: lib.constant(v) for k, v in kwargs.items() if k in wrt}
    with lib.GradientTape() as tape:
        tape.watch(list(x.values()))
        out = getattr(lib.raw_ops, op)(**{**kwargs, **x})
        out = out[0] if isinstance(out, tuple) else out
        loss = lib.reduce_sum(out * out)
    return [np.asarray(g) for g in tape.gradient(loss, [x[k] for k in wrt])]


@pytest.mark.parametrize("op,wrt", [
    ("Relu", ["features"]), ("MatMul", ["a", "b"]), ("Conv2D", ["input", "filter"]),
    ("SparseSoftmaxCrossEntropyWithLogits", ["features"]), ("ReluGrad", ["gradients"]),
    ("SigmoidGrad", ["y", "dy"]), ("ConcatV2", []), ("GatherV2", ["params"]),
    ("Cumsum", ["x"]), ("Einsum", []), ("BiasAdd", ["value", "bias"]), ("MaxPool", ["input"]),
    ("LogSoftmax", ["logits"]), ("Select", ["x", "y"]), ("Elu", ["features"]),
    ("Cholesky", ["input"]), ("Prod", ["input"]), ("Transpose", ["x"]),
    ("Conv2DBackpropInput", ["filter", "out_backprop"]), ("BiasAddGrad", ["out_backprop"])])
def test_gradients_match_tensorflow(op, wrt):
    tf = pytest.importorskip("tensorflow")
    kwargs = _case(op)
    if not wrt:   # a list argument: differentiate through its first entry
        key = next(k for k, v in kwargs.items() if isinstance(v, list))
        first = kwargs[key][0]
        ours = _list_grad(fg, op, kwargs, key, first)
        theirs = _list_grad(tf, op, kwargs, key, first)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
        return
    for a, b in zip(_grads(fg, op, kwargs, wrt), _grads(tf, op, kwargs, wrt), strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5, err_msg=op)


def _list_grad(lib, op, kwargs, key, first):
    x = lib.constant(first)
    with lib.GradientTape() as tape:
        tape.watch(x)
        out = getattr(lib.raw_ops, op)(**{**kwargs, key: [x] + kwargs[key][1:]})
        loss = lib.reduce_sum(lib.sin(out))
    return np.asarray(tape.gradient(loss, x))


def test_gradients_against_finite_differences_without_tensorflow():
    x = np.array([[0.3, -1.2, 2.0]])
    check = fg.testing.check_gradients
    check(lambda f: fg.raw_ops.Softplus(features=f), [x], order=2)
    check(lambda a, b: fg.raw_ops.MatMul(a=a, b=b, transpose_b=True), [x, x + 1.], order=2)
    check(lambda t: fg.raw_ops.TanhGrad(y=fg.tanh(t), dy=t * t), [x], order=2)
    check(lambda f: fg.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
        features=f, labels=np.array([1])).loss, [x], order=2)
