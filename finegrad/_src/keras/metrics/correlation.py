"""Keras 3's correlation metrics: ``PearsonCorrelation`` and ``ConcordanceCorrelation``,
the mean over samples of a correlation along ``axis``."""
from typing import Any
from finegrad._src.keras.loss_functions import EPSILON, squeeze_or_expand_to_same_rank
from finegrad._src.keras.metrics.reduction import _Wrapped
from finegrad._src.ops.array.structural import cast, convert_to_tensor
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.reductions import reduce_mean


def _pair(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(convert_to_tensor(y_true), y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def _centered(x, axis):
    return x - reduce_mean(x, axis=axis, keepdims=True)


def pearson_correlation(y_true: Any, y_pred: Any, axis: Any = -1) -> Any:
    """Pearson's correlation of ``y_true`` and ``y_pred`` along ``axis``.

    >>> import finegrad as fg
    >>> round(float(fg.keras.metrics.pearson_correlation([1., 2., 3.], [2., 4., 6.])), 4)
    1.0
    """
    y_true, y_pred = _pair(y_true, y_pred)
    t, p = _centered(y_true, axis), _centered(y_pred, axis)
    t = t / ew.sqrt(reduce_mean(ew.square(_centered(t, axis)), axis=axis, keepdims=True))
    p = p / ew.sqrt(reduce_mean(ew.square(_centered(p, axis)), axis=axis, keepdims=True))
    return reduce_mean(t * p, axis=axis)


def concordance_correlation(y_true: Any, y_pred: Any, axis: Any = -1) -> Any:
    """Lin's concordance correlation along ``axis``, as Keras 3 computes it (its
    covariance term centers ``y_true`` on the mean of ``y_pred``).

    >>> import finegrad as fg
    >>> round(float(fg.keras.metrics.concordance_correlation([1., 2., 3.], [1., 2., 3.])), 4)
    1.0
    """
    y_true, y_pred = _pair(y_true, y_pred)
    t_mean = reduce_mean(y_true, axis=axis, keepdims=True)
    p_mean = reduce_mean(y_pred, axis=axis, keepdims=True)
    t_var = reduce_mean(ew.square(_centered(y_true - t_mean, axis)), axis=axis, keepdims=True)
    p_var = reduce_mean(ew.square(_centered(y_pred - p_mean, axis)), axis=axis, keepdims=True)
    covar = (y_true - p_mean) * (y_pred - p_mean)
    norm = t_var + p_var + ew.square(t_mean - p_mean)
    return reduce_mean(2 * covar / (norm + EPSILON), axis=axis)


class PearsonCorrelation(_Wrapped):
    """The mean `pearson_correlation` over the samples seen.

    >>> import finegrad as fg
    >>> round(float(fg.keras.metrics.PearsonCorrelation()([[1., 2., 3.]], [[2., 4., 6.]])), 4)
    1.0
    """

    _fn_default = staticmethod(pearson_correlation)

    def __init__(self, name: str | None = "pearson_correlation", dtype: Any = None,
                 axis: Any = -1) -> None:
        super().__init__(name, dtype, axis=axis)
        self.axis = axis


class ConcordanceCorrelation(_Wrapped):
    """The mean `concordance_correlation` over the samples seen.

    >>> import finegrad as fg
    >>> m = fg.keras.metrics.ConcordanceCorrelation()
    >>> round(float(m([[1., 2., 3.]], [[1., 2., 3.]])), 4)
    1.0
    """

    _fn_default = staticmethod(concordance_correlation)

    def __init__(self, name: str | None = "concordance_correlation", dtype: Any = None,
                 axis: Any = -1) -> None:
        super().__init__(name, dtype, axis=axis)
        self.axis = axis
