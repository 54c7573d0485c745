"""Keras 3's metrics that average a loss function: regression (``MeanSquaredError``,
``RootMeanSquaredError``, ``MeanAbsoluteError``, ``MeanAbsolutePercentageError``,
``MeanSquaredLogarithmicError``, ``CosineSimilarity``, ``LogCoshError``), probabilistic
(``BinaryCrossentropy``, ``CategoricalCrossentropy``, ``SparseCategoricalCrossentropy``,
``KLDivergence``, ``Poisson``) and hinge (``Hinge``, ``SquaredHinge``,
``CategoricalHinge``)."""
from typing import Any
from finegrad._src.keras import loss_functions as F
from finegrad._src.keras.loss_functions import squeeze_or_expand_to_same_rank
from finegrad._src.keras.losses import PLAIN_LOSSES, example_doc
from finegrad._src.keras.metrics.reduction import Mean, _Wrapped
from finegrad._src.ops.array.structural import cast, convert_to_tensor
from finegrad._src.ops.math import elementwise as ew


def cosine_similarity(y_true: Any, y_pred: Any, axis: Any = -1) -> Any:
    """The cosine similarity of ``y_true`` and ``y_pred`` along ``axis`` (the metric's
    function: positive, unlike the loss).

    >>> from finegrad._src.keras.metrics.loss_metrics import cosine_similarity
    >>> cosine_similarity([[1., 0.]], [[2., 0.]]).numpy()
    array([1.], dtype=float32)
    """
    return -F.cosine_similarity(y_true, y_pred, axis)


def _mean_of(loss, cls_name=None, default_name=None):
    """The metric averaging the function of the loss ``PLAIN_LOSSES[loss]`` over the samples
    seen, named as the loss unless ``cls_name`` and ``default_name`` are given."""
    fn, loss_default_name, _, example, value = PLAIN_LOSSES[loss]
    cls_name = cls_name or loss
    default = default_name or loss_default_name

    def __init__(self: Any, name: str | None = default, dtype: Any = None) -> None:
        _Wrapped.__init__(self, name, dtype)
    doc = example_doc(f"The mean of `{fn.__name__}` over the samples seen.",
                      f"float(fg.keras.metrics.{cls_name}()({example}))", value)
    return type(cls_name, (_Wrapped,), {"_fn_default": staticmethod(fn), "__doc__": doc,
                                        "__init__": __init__, "__module__": __name__})


MeanSquaredError = _mean_of("MeanSquaredError")
MeanAbsoluteError = _mean_of("MeanAbsoluteError")
MeanAbsolutePercentageError = _mean_of("MeanAbsolutePercentageError")
MeanSquaredLogarithmicError = _mean_of("MeanSquaredLogarithmicError")
LogCoshError = _mean_of("LogCosh", "LogCoshError", "logcosh")
KLDivergence = _mean_of("KLDivergence")
Poisson = _mean_of("Poisson")
Hinge = _mean_of("Hinge")
SquaredHinge = _mean_of("SquaredHinge")
CategoricalHinge = _mean_of("CategoricalHinge")


class RootMeanSquaredError(Mean):
    """The square root of the mean squared error over all entries seen.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.RootMeanSquaredError()([[0., 0.]], [[3., 4.]]))
    3.535533905029297
    """

    def __init__(self, name: str | None = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any,  # type: ignore[override]
                     sample_weight: Any = None) -> Any:
        y_true = cast(convert_to_tensor(y_true), self.dtype)
        y_pred = cast(convert_to_tensor(y_pred), self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return super().update_state(ew.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self) -> Any:
        return ew.sqrt(super().result())


class CosineSimilarity(_Wrapped):
    """The mean cosine similarity of labels and predictions along ``axis``.

    >>> import finegrad as fg
    >>> float(fg.keras.metrics.CosineSimilarity()([[1., 0.]], [[3., 0.]]))
    1.0
    """

    _fn_default = staticmethod(cosine_similarity)

    def __init__(self, name: str | None = "cosine_similarity", dtype: Any = None,
                 axis: Any = -1) -> None:
        super().__init__(name, dtype, axis=axis)

    def get_config(self) -> Any:
        return {"name": self.name, "dtype": self.dtype}


class BinaryCrossentropy(_Wrapped):
    """The mean `binary_crossentropy` (``from_logits``, ``label_smoothing``).

    >>> import finegrad as fg
    >>> round(float(fg.keras.metrics.BinaryCrossentropy()([[1.]], [[0.5]])), 4)
    0.6931
    """

    _fn_default = staticmethod(F.binary_crossentropy)

    def __init__(self, name: str | None = "binary_crossentropy", dtype: Any = None,
                 from_logits: bool = False,
                 label_smoothing: Any = 0) -> None:
        super().__init__(name, dtype, from_logits=from_logits, label_smoothing=label_smoothing)


class CategoricalCrossentropy(_Wrapped):
    """The mean `categorical_crossentropy` (``from_logits``, ``label_smoothing``, ``axis``).

    >>> import finegrad as fg
    >>> round(float(fg.keras.metrics.CategoricalCrossentropy()([[0., 1.]], [[.5, .5]])), 4)
    0.6931
    """

    _fn_default = staticmethod(F.categorical_crossentropy)

    def __init__(self, name: str | None = "categorical_crossentropy", dtype: Any = None,
                 from_logits: bool = False,
                 label_smoothing: Any = 0, axis: Any = -1) -> None:
        super().__init__(name, dtype, from_logits=from_logits, label_smoothing=label_smoothing,
                         axis=axis)


class SparseCategoricalCrossentropy(_Wrapped):
    """The mean `sparse_categorical_crossentropy` (``from_logits``, ``ignore_class``,
    ``axis``).

    >>> import finegrad as fg
    >>> round(float(fg.keras.metrics.SparseCategoricalCrossentropy()([1], [[.5, .5]])), 4)
    0.6931
    """

    _fn_default = staticmethod(F.sparse_categorical_crossentropy)

    def __init__(self, name: str | None = "sparse_categorical_crossentropy", dtype: Any = None,
                 from_logits: bool = False,
                 ignore_class: Any = None, axis: Any = -1) -> None:
        super().__init__(name, dtype, from_logits=from_logits, ignore_class=ignore_class,
                         axis=axis)
