"""Keras 3's loss functions (``keras.losses.mean_squared_error``...): per-sample losses,
the mean (or sum) over the last axis, written with finegrad ops so gradients of every order
come from the ops' rules. The `Loss` classes (``losses.py``) wrap them with a reduction.
"""
import math

from typing import Any
from finegrad._src.ops.array.manipulation import one_hot
from finegrad._src.ops.array.shape_queries import shape
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, expand_dims,
                                                reduce_sum, squeeze)
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum, minimum, pow as _pow
from finegrad._src.ops.math.reductions import reduce_max, reduce_mean
from finegrad._src.ops.nn.softmax_cross_entropy import (
    sigmoid_cross_entropy_with_logits, softmax, softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits)
from finegrad._src.ops.math.statistics import reduce_all

EPSILON = 1e-7   # Keras's backend.epsilon()


def squeeze_or_expand_to_same_rank(x1: Any, x2: Any, expand_rank_1: bool = True) -> Any:
    """Make two tensors' ranks equal when they differ by a trailing axis of size 1 (Keras's
    rule: a rank-1 partner is expanded, else the size-1 axis is squeezed)."""
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = expand_dims(x2, -1)
        else:
            x1 = squeeze(x1, -1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = expand_dims(x1, -1)
        else:
            x2 = squeeze(x2, -1)
    return x1, x2


def _pair(y_true, y_pred, same_rank=True):
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(convert_to_tensor(y_true), y_pred.dtype)
    if same_rank:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return y_true, y_pred


def _clip(x, low, high):
    return minimum(maximum(x, low), high)


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    """``mean(square(y_true - y_pred), axis=-1)``.

    >>> import finegrad as fg
    >>> fg.keras.losses.mean_squared_error([[0., 1.]], [[1., 1.]]).numpy()
    array([0.5], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return reduce_mean(ew.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    """``mean(abs(y_true - y_pred), axis=-1)``.

    >>> import finegrad as fg
    >>> fg.keras.losses.mean_absolute_error([[0., 1.]], [[2., 1.]]).numpy()
    array([1.], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return reduce_mean(ew.abs(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)``.

    >>> import finegrad as fg
    >>> fg.keras.losses.mean_absolute_percentage_error([[2., 4.]], [[1., 4.]]).numpy()
    array([25.], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    diff = ew.abs((y_true - y_pred) / maximum(ew.abs(y_true), EPSILON))
    return 100.0 * reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``.

    >>> import finegrad as fg
    >>> float(fg.keras.losses.mean_squared_logarithmic_error([[0.]], [[0.]])[0])
    0.0
    """
    y_true, y_pred = _pair(y_true, y_pred)
    first = ew.log(maximum(y_pred, EPSILON) + 1.0)
    second = ew.log(maximum(y_true, EPSILON) + 1.0)
    return reduce_mean(ew.square(first - second), axis=-1)


def _l2_normalize(x, axis):
    return x * minimum(ew.rsqrt(reduce_sum(ew.square(x), axis=axis, keepdims=True)),
                       1.0 / EPSILON)


def cosine_similarity(y_true: Any, y_pred: Any, axis: Any = -1) -> Any:
    """Minus the cosine similarity along ``axis`` (so that minimizing aligns the vectors).

    >>> import finegrad as fg
    >>> fg.keras.losses.cosine_similarity([[1., 0.]], [[2., 0.]]).numpy()
    array([-1.], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return -reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis), axis=axis)


def huber(y_true: Any, y_pred: Any, delta: Any = 1.0) -> Any:
    """``mean(0.5 e^2 if |e| <= delta else delta |e| - 0.5 delta^2, axis=-1)``,
    ``e = y_pred - y_true``.

    >>> import finegrad as fg
    >>> fg.keras.losses.huber([[0., 0.]], [[0.5, 3.]]).numpy()
    array([1.3125], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    delta = cast(convert_to_tensor(delta), y_pred.dtype)
    error = y_pred - y_true
    abs_error = ew.abs(error)
    return reduce_mean(ew.where(abs_error <= delta, 0.5 * ew.square(error),
                                delta * abs_error - 0.5 * ew.square(delta)), axis=-1)


def log_cosh(y_true: Any, y_pred: Any) -> Any:
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed without overflow.

    >>> import finegrad as fg
    >>> float(fg.keras.losses.log_cosh([[0.]], [[0.]])[0])
    0.0
    """
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return reduce_mean(x + ew.softplus(x * -2.0) - math.log(2.0), axis=-1)


def kl_divergence(y_true: Any, y_pred: Any) -> Any:
    """``sum(y_true * log(y_true / y_pred), axis=-1)``, both clipped to ``[epsilon, 1]``.

    >>> import finegrad as fg
    >>> float(fg.keras.losses.kl_divergence([[0.5, 0.5]], [[0.5, 0.5]])[0])
    0.0
    """
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    y_true, y_pred = _clip(y_true, EPSILON, 1.0), _clip(y_pred, EPSILON, 1.0)
    return reduce_sum(y_true * ew.log(y_true / y_pred), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Any:
    """``mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``.

    >>> import finegrad as fg
    >>> fg.keras.losses.poisson([[0.]], [[2.]]).numpy()
    array([2.], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    return reduce_mean(y_pred - y_true * ew.log(y_pred + EPSILON), axis=-1)


def _hinge_labels(y_true):
    """Labels in {0, 1} become {-1, 1}; other labels are kept."""
    binary = ew.logical_or(ew.equal(y_true, 0.0), ew.equal(y_true, 1.0))
    return ew.where(reduce_all(binary), 2.0 * y_true - 1.0, y_true)


def hinge(y_true: Any, y_pred: Any) -> Any:
    """``mean(max(1 - y_true * y_pred, 0), axis=-1)``; labels 0/1 are read as -1/1.

    >>> import finegrad as fg
    >>> fg.keras.losses.hinge([[0., 1.]], [[-1., 0.5]]).numpy()
    array([0.25], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    return reduce_mean(maximum(1.0 - _hinge_labels(y_true) * y_pred, 0.0), axis=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    """``mean(square(max(1 - y_true * y_pred, 0)), axis=-1)``; labels 0/1 read as -1/1.

    >>> import finegrad as fg
    >>> fg.keras.losses.squared_hinge([[0., 1.]], [[-1., 0.5]]).numpy()
    array([0.125], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    return reduce_mean(ew.square(maximum(1.0 - _hinge_labels(y_true) * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    """``max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)`` over the last axis.

    >>> import finegrad as fg
    >>> fg.keras.losses.categorical_hinge([[0., 1.]], [[0.3, 0.8]]).numpy()
    array([0.5], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    pos = reduce_sum(y_true * y_pred, axis=-1)
    neg = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(neg - pos + 1.0, 0.0)


def _classes(y_true):
    """The size of the last axis as a float tensor (dynamic: it may be open in a trace)."""
    return cast(shape(y_true)[-1], y_true.dtype)


def _check_axis(axis, fn):
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ValueError(f"keras.losses.{fn}: axis must be an int, got {axis!r}")


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                             label_smoothing: Any = 0.0, axis: Any = -1) -> Any:
    """``-sum(y_true * log(y_pred), axis)`` with ``y_pred`` normalized and clipped to
    ``[epsilon, 1 - epsilon]`` (or the softmax cross-entropy of logits); ``label_smoothing``
    mixes the labels with the uniform distribution.

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.categorical_crossentropy([[0., 1.]], [[0.5, 0.5]])[0]), 4)
    0.6931

    Raises:
        ValueError: for an axis that is not an int.
    """
    _check_axis(axis, "categorical_crossentropy")
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / _classes(y_true)
    if from_logits:
        return softmax_cross_entropy_with_logits(y_true, y_pred, axis=axis)
    output = y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)
    output = _clip(output, EPSILON, 1.0 - EPSILON)
    return -reduce_sum(y_true * ew.log(output), axis=axis)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                                    ignore_class: Any = None,
                                    axis: Any = -1) -> Any:
    """The categorical cross-entropy of integer class ids ``y_true``. With ``ignore_class``,
    entries of that label give a loss of 0 (the `Loss` class also leaves them out of the
    mean).

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.sparse_categorical_crossentropy([1], [[0.5, 0.5]])[0]), 4)
    0.6931

    Raises:
        ValueError: for an axis other than the last.
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if axis not in (-1, len(y_pred.shape) - 1):
        raise ValueError(f"keras.losses.sparse_categorical_crossentropy: only the last axis "
                         f"is supported, got axis={axis}")
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    valid = None
    if ignore_class is not None:
        valid = ew.not_equal(y_true, cast(convert_to_tensor(ignore_class), y_true.dtype))
        y_true = ew.where(valid, y_true, y_true * 0)
        y_pred = ew.where(expand_dims(valid, -1), y_pred, y_pred * 0)
    labels = cast(y_true, "int64")
    logits = y_pred if from_logits else ew.log(_clip(y_pred, EPSILON, 1 - EPSILON))
    result = sparse_softmax_cross_entropy_with_logits(labels, logits)
    if valid is not None:
        result = ew.where(valid, result, result * 0)
    return result


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                        label_smoothing: Any = 0.0, axis: Any = -1) -> Any:
    """``mean(-(y log p + (1 - y) log(1 - p)), axis)``, ``p`` clipped to
    ``[epsilon, 1 - epsilon]`` (or the sigmoid cross-entropy of logits).

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.binary_crossentropy([[1.]], [[0.5]])[0]), 4)
    0.6931
    """
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return reduce_mean(_bce(y_true, y_pred, from_logits), axis=axis)


def _bce(y_true, y_pred, from_logits):
    if from_logits:
        return sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    p = _clip(y_pred, EPSILON, 1.0 - EPSILON)
    return -(y_true * ew.log(p) + (1 - y_true) * ew.log(1 - p))


def binary_focal_crossentropy(y_true: Any, y_pred: Any, apply_class_balancing: bool = False,
                              alpha: Any = 0.25,
                              gamma: Any = 2.0, from_logits: bool = False,
                              label_smoothing: Any = 0.0, axis: Any = -1) -> Any:
    """The binary cross-entropy scaled by ``(1 - p_t)^gamma`` (and by ``alpha`` /
    ``1 - alpha`` with ``apply_class_balancing``), ``p_t`` the probability of the true class.

    >>> import finegrad as fg
    >>> float(fg.keras.losses.binary_focal_crossentropy([[1.]], [[1.]])[0]) < 1e-6
    True
    """
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = ew.sigmoid(y_pred)
    bce = _bce(y_true, y_pred, False)
    p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
    focal = _pow(1.0 - p_t, cast(convert_to_tensor(gamma), y_pred.dtype)) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1 - y_true) * (1 - alpha)) * focal
    return reduce_mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true: Any, y_pred: Any, alpha: Any = 0.25, gamma: Any = 2.0,
                                   from_logits: bool = False,
                                   label_smoothing: Any = 0.0, axis: Any = -1) -> Any:
    """The categorical cross-entropy with each term scaled by ``alpha * (1 - p)^gamma``.

    >>> import finegrad as fg
    >>> float(fg.keras.losses.categorical_focal_crossentropy([[0., 1.]], [[0., 1.]])[0]) < 1e-6
    True

    Raises:
        ValueError: for an axis that is not an int.
    """
    _check_axis(axis, "categorical_focal_crossentropy")
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / _classes(y_true)
    if from_logits:
        y_pred = softmax(y_pred, axis=axis)
    output = _clip(y_pred / reduce_sum(y_pred, axis=axis, keepdims=True), EPSILON,
                   1.0 - EPSILON)
    cce = -y_true * ew.log(output)
    factor = _pow(1.0 - output, cast(convert_to_tensor(gamma), y_pred.dtype)) * alpha
    return reduce_sum(factor * cce, axis=axis)


def dice(y_true: Any, y_pred: Any, axis: Any = None) -> Any:
    """``1 - 2 sum(y_true y_pred) / (sum(y_true) + sum(y_pred) + epsilon)`` over ``axis``
    (everything by default).

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.dice([[1., 0.]], [[1., 0.]])), 5)
    0.0
    """
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    intersection = reduce_sum(y_true * y_pred, axis=axis)
    return 1 - 2.0 * intersection / (reduce_sum(y_true, axis=axis) +
                                     reduce_sum(y_pred, axis=axis) + EPSILON)


def tversky(y_true: Any, y_pred: Any, alpha: Any = 0.5, beta: Any = 0.5, axis: Any = None) -> Any:
    """``1 - TP / (TP + alpha FP + beta FN + epsilon)`` with soft counts over ``axis``
    (Keras's naming: ``FP = sum((1 - y_pred) y_true)``, ``FN = sum(y_pred (1 - y_true))``).

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.tversky([[1., 0.]], [[1., 0.]])), 5)
    0.0
    """
    y_true, y_pred = _pair(y_true, y_pred, same_rank=False)
    intersection = reduce_sum(y_true * y_pred, axis=axis)
    fp = reduce_sum((1 - y_pred) * y_true, axis=axis)
    fn = reduce_sum(y_pred * (1 - y_true), axis=axis)
    return 1 - intersection / (intersection + fp * alpha + fn * beta + EPSILON)


def categorical_generalized_cross_entropy(y_true: Any, y_pred: Any, q: Any) -> Any:
    """``(1 - p^q) / q``, ``p`` the predicted probability of the integer class ``y_true``
    (robust to noisy labels; Zhang & Sabuncu, 2018).

    >>> import finegrad as fg
    >>> float(fg.keras.losses.categorical_generalized_cross_entropy([1], [[0., 1.]], 0.5)[0])
    0.0
    """
    y_pred = convert_to_tensor(y_pred)
    labels = cast(convert_to_tensor(y_true), "int32")
    p = reduce_sum(y_pred * one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype), axis=-1)
    return (1 - _pow(p, cast(convert_to_tensor(q), y_pred.dtype))) / q
