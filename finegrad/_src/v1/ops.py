"""TensorFlow 1's spellings of ops that TensorFlow 2 renamed or re-signed: ``tf.log``,
``tf.random_normal``, ``reduce_sum(..., reduction_indices=, keep_dims=)``,
``argmax(..., dimension=)``, ``nn.dropout(x, keep_prob)``, ``tf.div``, ``tf.Print``, ...
Each is the TensorFlow 2 op under its TensorFlow 1 name and arguments."""

from __future__ import annotations

import sys

import numpy as np

from finegrad._src import core

from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.math import arithmetic
from finegrad._src.ops.array import structural as array
from finegrad._src.ops.array.gather import _gather
from finegrad._src.ops.math import elementwise
from finegrad._src.ops.random import gamma as gamma_ops
from finegrad._src.ops.random import sampling as random_ops
from finegrad._src.ops.math import reductions as reduce
from finegrad._src.ops.math import sorting
from finegrad._src.ops.nn.dropout import dropout as _dropout
from finegrad._src.ops.nn.softmax_cross_entropy import (
    softmax_cross_entropy_with_logits as _softmax_xent)
from finegrad._src.ops.linalg.products import matmul
from finegrad._src.ops.nn.conv import conv2d as _conv2d
from finegrad._src.ops.nn.pool import avg_pool2d as _avg_pool2d, max_pool2d as _max_pool2d
from finegrad._src.ops.nn.softmax_cross_entropy import (log_softmax as _log_softmax,
                                                         softmax as _softmax)
from finegrad._src import dtypes
from finegrad._src.ops.math import statistics
from finegrad._src.core import bind
from finegrad._src.ops.random import streams
from finegrad._src.tensor import Tensor
from finegrad._src.ops.assertion import run_print
from finegrad._src.api.printing import format_float
from finegrad._src.api.scopes import control_dependencies
from finegrad._src.ops.math.counts_and_casts import in_top_k as _in_top_k
from finegrad._src.v1 import graphs

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike

log = elementwise.log
random_shuffle = random_ops.shuffle
random_gamma = gamma_ops.gamma


def multinomial(logits: TensorLike, num_samples: Any, seed: Any = None, name: str | None = None,
                output_dtype: DTypeLike | None = None) -> Any:
    """TensorFlow 1's ``multinomial``: `finegrad.random.categorical` with ``output_dtype``.

    >>> import finegrad as fg
    >>> fg.compat.v1.multinomial([[0., -1e9]], 2, seed=3).numpy()
    array([[0, 0]])
    """
    return random_ops.categorical(logits, num_samples, dtype=output_dtype, seed=seed, name=name)


def random_poisson(lam: Any, shape: Any, dtype: DTypeLike = dtypes.float32, seed: Any = None,
                   name: str | None = None) -> Any:
    """TensorFlow 1's ``random_poisson`` (``lam`` first): `finegrad.random.poisson`.

    >>> import finegrad as fg
    >>> fg.compat.v1.random_poisson([1., 5.], [4], seed=2).shape
    TensorShape([4, 2])
    """
    return random_ops.poisson(shape, lam, dtype=dtype, seed=seed, name=name)


def _shaped_like(shape):
    """The tensor whose `shape` op made ``shape`` in the TF1 graph being built (the
    ``random_normal(tf.shape(x))`` idiom, whose size may be open), else None."""
    g = graphs.current_graph()
    entry = g._tensor_ops.get(id(shape)) if g is not None and isinstance(shape, Tensor) \
        else None
    if entry is None or entry[0].type != "Shape" or not entry[0].inputs:
        return None
    return entry[0].inputs[0]


def _draw_like(like, dist, dtype, seed, fn):
    dt = dtypes.as_dtype(dtype)
    return bind(streams.random_like_p, like, stream=streams.op_stream(seed, fn), dist=dist,
                dtype=dt._np)


def random_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0,
                  dtype: DTypeLike = dtypes.float32, seed: Any = None,
                  name: str | None = None) -> Any:
    """TensorFlow 1's ``random_normal``; ``shape`` may be ``tf.shape(x)`` of a tensor whose
    sizes are open (a placeholder's None)."""
    like = _shaped_like(shape)
    if like is None:
        return random_ops.normal(shape, mean, stddev, dtype, seed)
    noise = _draw_like(like, "normal", dtype, seed, "finegrad.compat.v1.random_normal")
    return random_ops._scaled(noise, stddev, mean, dtypes.as_dtype(dtype))


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0,
                     dtype: DTypeLike = dtypes.float32, seed: Any = None,
                     name: str | None = None) -> Any:
    """TensorFlow 1's ``truncated_normal`` (``shape`` as in `random_normal`)."""
    like = _shaped_like(shape)
    if like is None:
        return random_ops.truncated_normal(shape, mean, stddev, dtype, seed)
    noise = _draw_like(like, "truncated_normal", dtype, seed,
                       "finegrad.compat.v1.truncated_normal")
    return random_ops._scaled(noise, stddev, mean, dtypes.as_dtype(dtype))


def random_uniform(shape: Any, minval: int = 0, maxval: Any = None,
                   dtype: DTypeLike = dtypes.float32, seed: Any = None,
                   name: str | None = None) -> Tensor:
    """TensorFlow 1's ``random_uniform`` (``shape`` as in `random_normal`, for floats)."""
    like = _shaped_like(shape)
    if like is None or not dtypes.as_dtype(dtype).is_floating:
        return random_ops.uniform(shape, minval, maxval, dtype, seed)
    noise = _draw_like(like, "uniform", dtype, seed, "finegrad.compat.v1.random_uniform")
    return random_ops._bounded(noise, minval, 1.0 if maxval is None else maxval,
                               dtypes.as_dtype(dtype))


def _axis(axis, reduction_indices, fn):
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError(f"{fn}: cannot specify both 'axis' and 'reduction_indices'")
        return reduction_indices
    return axis


def _keep(keepdims, keep_dims):
    return bool(keep_dims) if keep_dims is not None else bool(keepdims)


def _reduction(op, fn):
    def reduction(input_tensor: TensorLike, axis: Any = None, keepdims: bool | None = None,
                  name: str | None = None, reduction_indices: Any = None,
                  keep_dims: bool | None = None) -> Tensor:
        return op(input_tensor, _axis(axis, reduction_indices, fn), _keep(keepdims, keep_dims))
    reduction.__name__ = fn.rpartition(".")[2]
    reduction.__doc__ = (f"TensorFlow 1's ``{reduction.__name__}``: ``reduction_indices`` and "
                         f"``keep_dims`` are the old names of ``axis`` and ``keepdims``.")
    return reduction


reduce_sum = _reduction(array.reduce_sum, "finegrad.compat.v1.reduce_sum")
reduce_mean = _reduction(reduce.reduce_mean, "finegrad.compat.v1.reduce_mean")
reduce_max = _reduction(reduce.reduce_max, "finegrad.compat.v1.reduce_max")
reduce_min = _reduction(reduce.reduce_min, "finegrad.compat.v1.reduce_min")
reduce_prod = _reduction(reduce.reduce_prod, "finegrad.compat.v1.reduce_prod")
reduce_logsumexp = _reduction(reduce.reduce_logsumexp, "finegrad.compat.v1.reduce_logsumexp")
reduce_any = _reduction(statistics.reduce_any, "finegrad.compat.v1.reduce_any")
reduce_all = _reduction(statistics.reduce_all, "finegrad.compat.v1.reduce_all")


def argmax(input: TensorLike, axis: Any = None, name: str | None = None,
           dimension: Any = None, output_type: Any = None) -> Any:
    """TensorFlow 1's ``argmax``: ``dimension`` is the old name of ``axis`` (default 0)."""
    axis = _axis(axis, dimension, "finegrad.compat.v1.argmax")
    kwargs = {} if output_type is None else {"output_type": output_type}
    return sorting.argmax(input, 0 if axis is None else axis, **kwargs)


def argmin(input: TensorLike, axis: Any = None, name: str | None = None,
           dimension: Any = None, output_type: Any = None) -> Any:
    """TensorFlow 1's ``argmin``: ``dimension`` is the old name of ``axis`` (default 0)."""
    axis = _axis(axis, dimension, "finegrad.compat.v1.argmin")
    kwargs = {} if output_type is None else {"output_type": output_type}
    return sorting.argmin(input, 0 if axis is None else axis, **kwargs)


arg_max, arg_min = argmax, argmin


def expand_dims(input: TensorLike, axis: Any = None,  # TensorFlow's keyword
                name: str | None = None, dim: Any = None) -> Any:
    """TensorFlow 1's ``expand_dims``: ``dim`` is the old name of ``axis``."""
    return array.expand_dims(input, _axis(axis, dim, "finegrad.compat.v1.expand_dims"))


def squeeze(input: TensorLike, axis: Any = None, name: str | None = None,
            squeeze_dims: Any = None) -> Any:
    """TensorFlow 1's ``squeeze``: ``squeeze_dims`` is the old name of ``axis``."""
    return array.squeeze(input, _axis(axis, squeeze_dims, "finegrad.compat.v1.squeeze"))


def div(x: TensorLike, y: TensorLike, name: str | None = None) -> Any:
    """TensorFlow 1's ``div``: Python 2's division (floor division of integers)."""
    x = array.convert_to_tensor(x)
    if x.dtype.is_integer:
        return arithmetic.floordiv(x, y)
    return arithmetic.divide(x, y)


def batch_gather(params: TensorLike, indices: TensorLike, name: str | None = None) -> Any:
    """TensorFlow 1's ``batch_gather``: `gather` along the axis after the leading axes that
    ``params`` and ``indices`` share (``batch_dims = rank(indices) - 1``). An index out of
    range raises (TensorFlow reads a neighbouring batch's row instead).

    >>> import finegrad as fg
    >>> fg.compat.v1.batch_gather([[1., 2., 3.], [4., 5., 6.]], [[2, 0], [1, 1]]).numpy()
    array([[3., 1.],
           [5., 5.]], dtype=float32)
    """
    ind = array.convert_to_tensor(indices)
    if ind._value.ndim == 0:
        raise ValueError("finegrad.compat.v1.batch_gather: indices must have rank >= 1, got "
                         "a scalar")
    fn = "finegrad.compat.v1.batch_gather"
    try:
        return _gather(params, ind, None, ind._value.ndim - 1, fn, sparse_grad=False)
    except InvalidArgumentError as e:   # the gather's message, under the name the user called
        raise InvalidArgumentError(str(e).replace("finegrad.gather:", f"{fn}:", 1)) from None


mod = arithmetic.mod
multiply = arithmetic.multiply
mul = arithmetic.multiply
sub = arithmetic.subtract
neg = arithmetic.negative


def Print(input_: Any, data: Any, message: Any = None, first_n: Any = None,  # TensorFlow 1's name
          summarize: Any = None, name: str | None = None) -> Any:
    """TensorFlow 1's ``Print``: ``input_``, printing ``message`` and ``data`` to stderr each
    time it is computed (eagerly: now; in a graph: each run that fetches something made from
    it; at most ``first_n`` times), each value as TensorFlow 1 summarizes it
    (``[1 2 3...]``: its first ``summarize`` elements, default 3).

    >>> import finegrad as fg
    >>> fg.compat.v1.Print(fg.constant([1., 2.]), [fg.constant(3.)]).numpy()
    array([1., 2.], dtype=float32)
    """
    limit = 3 if summarize is None else int(summarize)
    left = [None if first_n is None or int(first_n) < 0 else int(first_n)]
    items = list(data)
    shown = [k for k, d in enumerate(items) if not isinstance(d, (str, bytes))]

    def emit(*values: Any) -> None:
        if left[0] is not None:
            if left[0] <= 0:
                return
            left[0] -= 1
        texts = [str(d) if isinstance(d, str) else d.decode() if isinstance(d, bytes)
                 else None for d in items]
        for k, v in zip(shown, values, strict=True):
            texts[k] = _summary(np.asarray(v), limit)
        sys.stderr.write((message or "") + "".join(f"[{t}]" for t in texts) + "\n")
    tensors = [items[k] for k in shown]
    if core.current_tracer() is None:
        emit(*[np.asarray(array.convert_to_tensor(t)._value) for t in tensors])
        return array.identity(input_)
    op = run_print(emit, *tensors)
    with control_dependencies([op] if op is not None else []):
        return array.identity(input_)


def _summary(a: np.ndarray, limit: int) -> str:
    """TensorFlow 1's summary of a value: its first ``limit`` elements, bracketed by axis,
    ``...`` where it stops."""
    flat = a.reshape(-1)
    if a.ndim == 0:
        return _element(flat[0])
    count = [0]

    def dims(axis: int) -> str:
        out = ""
        if axis == a.ndim - 1:
            for i in range(a.shape[axis]):
                if count[0] >= limit:
                    return out + ("..." if axis else "")
                out += (" " if i else "") + _element(flat[count[0]])
                count[0] += 1
            return out
        for _ in range(a.shape[axis]):
            opened = count[0] < limit
            out += "[" if opened else ""
            out += dims(axis + 1)
            out += "]" if count[0] < limit or opened else ""
        return out
    return dims(0) + ("..." if limit < flat.size else "")


def _element(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode(errors="replace")
    return format_float(v) if isinstance(v, np.floating) else str(v)


def dropout(x: TensorLike, keep_prob: Any = None, noise_shape: Any = None, seed: Any = None,
            name: str | None = None, rate: Any = None) -> Any:
    """TensorFlow 1's ``nn.dropout``: ``keep_prob`` is ``1 - rate``."""
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'rate' and 'keep_prob'.")
        rate = 1. - keep_prob
    return _dropout(x, rate, noise_shape, seed)


def softmax_cross_entropy_with_logits_v2(labels: TensorLike, logits: TensorLike, axis: int = -1,
                                         name: str | None = None, dim: Any = None) -> Any:
    """TensorFlow 1's name of `finegrad.nn.softmax_cross_entropy_with_logits`."""
    return _softmax_xent(labels, logits, axis if dim is None else dim)


def xw_plus_b(x: TensorLike, weights: Any, biases: Any, name: str | None = None) -> Any:
    """``matmul(x, weights) + biases``."""
    return matmul(x, weights) + biases


def conv2d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,
           use_cudnn_on_gpu: Any = True, data_format: Any = "NHWC", dilations: Any = None,
           name: str | None = None, filters: Any = None) -> Any:
    """TensorFlow 1's ``nn.conv2d``: ``filter`` is the old name of ``filters``."""
    return _conv2d(input, filters if filter is None else filter, strides, padding,
                   data_format, dilations)


def softmax(logits: TensorLike, axis: Any = None, name: str | None = None, dim: Any = None) -> Any:
    """TensorFlow 1's ``nn.softmax``: ``dim`` is the old name of ``axis`` (default -1)."""
    axis = _axis(axis, dim, "finegrad.compat.v1.nn.softmax")
    return _softmax(logits, -1 if axis is None else axis)


def log_softmax(logits: TensorLike, axis: Any = None, name: str | None = None,
                dim: Any = None) -> Any:
    """TensorFlow 1's ``nn.log_softmax``: ``dim`` is the old name of ``axis``."""
    axis = _axis(axis, dim, "finegrad.compat.v1.nn.log_softmax")
    return _log_softmax(logits, -1 if axis is None else axis)


def max_pool(value: TensorLike, ksize: Any, strides: Any, padding: Any,
             data_format: str = "NHWC", name: str | None = None,
             input: TensorLike | None = None) -> Any:
    """TensorFlow 1's ``nn.max_pool``: ``value`` is the old name of ``input``."""
    return _max_pool2d(value if input is None else input, ksize, strides, padding, data_format)


def avg_pool(value: TensorLike, ksize: Any, strides: Any, padding: Any,
             data_format: str = "NHWC", name: str | None = None,
             input: TensorLike | None = None) -> Any:
    """TensorFlow 1's ``nn.avg_pool``: ``value`` is the old name of ``input``."""
    return _avg_pool2d(value if input is None else input, ksize, strides, padding, data_format)


def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> Tensor:
    """TensorFlow 1's ``tf.nn.in_top_k``: `finegrad.math.in_top_k` with ``predictions``
    first (TF2 takes ``targets`` first).

    >>> import finegrad as fg
    >>> fg.compat.v1.nn.in_top_k(fg.constant([[0.1, 0.9]]), fg.constant([1]), 1).numpy()
    array([ True])
    """
    return _in_top_k(targets, predictions, k)
