"""Keras 3's accuracy metrics and their functions: ``Accuracy``, ``BinaryAccuracy``,
``CategoricalAccuracy``, ``SparseCategoricalAccuracy``, ``TopKCategoricalAccuracy`` and
``SparseTopKCategoricalAccuracy``."""
from typing import Any
from finegrad._src.keras.loss_functions import squeeze_or_expand_to_same_rank
from finegrad._src.keras.metrics.reduction import _Wrapped
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, expand_dims, reshape,
                                                squeeze)
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.counts_and_casts import in_top_k
from finegrad._src.ops.math.sorting import argmax
from finegrad._src.ops.math.statistics import reduce_any


def accuracy(y_true: Any, y_pred: Any) -> Any:
    """1.0 where ``y_true == y_pred``, else 0.0.

    >>> from finegrad._src.keras.metrics.accuracy import accuracy
    >>> accuracy([1., 2.], [1., 3.]).numpy()
    array([1., 0.], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return cast(ew.equal(y_true, y_pred), "float32")


def binary_accuracy(y_true: Any, y_pred: Any, threshold: Any = 0.5) -> Any:
    """1.0 where ``y_pred > threshold`` matches the binary label ``y_true``.

    >>> import finegrad as fg
    >>> fg.keras.metrics.binary_accuracy([[1.], [0.]], [[0.7], [0.7]]).numpy()
    array([[1.],
           [0.]], dtype=float32)
    """
    y_pred, y_true = convert_to_tensor(y_pred), convert_to_tensor(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = cast(y_pred > cast(convert_to_tensor(threshold), y_pred.dtype), y_true.dtype)
    return cast(ew.equal(y_true, y_pred), "float32")


def _matches(y_true, y_pred):
    """1.0 where the class id ``y_true`` equals the arg max of ``y_pred``."""
    reshaped = len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1
    if reshaped:
        y_true = squeeze(y_true, -1)
    predicted = cast(argmax(y_pred, axis=-1), y_true.dtype)
    matches = cast(ew.equal(y_true, predicted), "float32")
    return expand_dims(matches, -1) if reshaped else matches


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    """1.0 where the arg max of the one-hot ``y_true`` equals that of ``y_pred``.

    >>> import finegrad as fg
    >>> fg.keras.metrics.categorical_accuracy([[0., 1.]], [[0.3, 0.7]]).numpy()
    array([1.], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(argmax(convert_to_tensor(y_true), axis=-1), y_pred.dtype)
    return _matches(y_true, y_pred)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    """1.0 where the class id ``y_true`` equals the arg max of ``y_pred``.

    >>> import finegrad as fg
    >>> fg.keras.metrics.sparse_categorical_accuracy([1, 0], [[0.3, 0.7], [0.4, 0.6]]).numpy()
    array([1., 0.], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(convert_to_tensor(y_true), y_pred.dtype)
    matches = _matches(y_true, y_pred)
    if len(matches.shape) > 1 and matches.shape[-1] == 1:
        matches = squeeze(matches, -1)
    return matches


def _reshape_to(x, static_shape):
    """``x`` reshaped to a static shape with at most one open size (-1 there)."""
    dims = [-1 if d is None else d for d in static_shape]
    return reshape(x, dims)


def _top_k_matches(ids, y_pred, k):
    ids_shape, rank = tuple(ids.shape), len(ids.shape)
    if len(y_pred.shape) > 2:
        y_pred = reshape(y_pred, [-1, y_pred.shape[-1]])
    if len(ids.shape) > 1:
        ids = reshape(ids, [-1])
    matches = cast(in_top_k(cast(ids, "int32"), cast(y_pred, "float32"), k), "float32")
    return _reshape_to(matches, ids_shape) if rank > 1 else matches


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: Any = 5) -> Any:
    """1.0 where the one-hot label's class is among the ``k`` largest predictions.

    >>> import finegrad as fg
    >>> fg.keras.metrics.top_k_categorical_accuracy([[0., 1., 0.]], [[.5, .2, .3]], k=2).numpy()
    array([0.], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = argmax(cast(convert_to_tensor(y_true), y_pred.dtype), axis=-1)
    return _top_k_matches(y_true, y_pred, k)


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: Any = 5,
                                      from_sorted_ids: bool = False) -> Any:
    """1.0 where the class id ``y_true`` is among the ``k`` largest predictions (or, with
    ``from_sorted_ids``, among the first ``k`` ids of ``y_pred``).

    >>> import finegrad as fg
    >>> fg.keras.metrics.sparse_top_k_categorical_accuracy([1], [[.5, .2, .3]], k=2).numpy()
    array([0.], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    if from_sorted_ids:
        ids = cast(convert_to_tensor(y_true), y_pred.dtype)
        hit = ew.equal(reshape(ids, [-1, 1]), y_pred[:, :k])
        return cast(reduce_any(hit, axis=1), "float32")
    return _top_k_matches(cast(convert_to_tensor(y_true), "int32"), y_pred, k)


class Accuracy(_Wrapped):
    """How often predictions equal labels.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.Accuracy()([1, 2, 3], [1, 2, 0]))
    0.6666666865348816
    """

    _fn_default, _default_name = staticmethod(accuracy), "accuracy"

    def __init__(self, name: str | None = "accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype)


class BinaryAccuracy(_Wrapped):
    """How often ``y_pred > threshold`` matches the binary labels.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.BinaryAccuracy()([[1.], [0.]], [[0.7], [0.7]]))
    0.5
    """

    _fn_default = staticmethod(binary_accuracy)

    def __init__(self, name: str | None = "binary_accuracy", dtype: Any = None,
                 threshold: Any = 0.5) -> None:
        super().__init__(name, dtype, threshold=threshold)
        self.threshold = threshold


class CategoricalAccuracy(_Wrapped):
    """How often the arg max of predictions matches that of one-hot labels.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.CategoricalAccuracy()([[0., 1.]], [[0.3, 0.7]]))
    1.0
    """

    _fn_default = staticmethod(categorical_accuracy)

    def __init__(self, name: str | None = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype)


class SparseCategoricalAccuracy(_Wrapped):
    """How often the arg max of predictions matches integer labels.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.SparseCategoricalAccuracy()([1, 0], [[.3, .7], [.4, .6]]))
    0.5
    """

    _fn_default = staticmethod(sparse_categorical_accuracy)

    def __init__(self, name: str | None = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype)


class TopKCategoricalAccuracy(_Wrapped):
    """How often the one-hot label is among the ``k`` largest predictions.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.TopKCategoricalAccuracy(k=1)([[0., 1.]], [[0.3, 0.7]]))
    1.0
    """

    _fn_default = staticmethod(top_k_categorical_accuracy)

    def __init__(self, k: Any = 5, name: str | None = "top_k_categorical_accuracy",
                 dtype: Any = None) -> None:
        super().__init__(name, dtype, k=k)
        self.k = k


class SparseTopKCategoricalAccuracy(_Wrapped):
    """How often the integer label is among the ``k`` largest predictions.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.SparseTopKCategoricalAccuracy(k=1)([1], [[0.3, 0.7]]))
    1.0
    """

    _fn_default = staticmethod(sparse_top_k_categorical_accuracy)

    def __init__(self, k: Any = 5, name: str | None = "sparse_top_k_categorical_accuracy",
                 dtype: Any = None,
                 from_sorted_ids: bool = False) -> None:
        kwargs = {"k": k, "from_sorted_ids": True} if from_sorted_ids else {"k": k}
        super().__init__(name, dtype, **kwargs)
        self.k, self.from_sorted_ids = k, from_sorted_ids
