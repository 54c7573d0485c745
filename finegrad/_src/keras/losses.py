"""Keras 3's loss classes (``keras.losses``): ``loss(y_true, y_pred, sample_weight=None)``
computes the per-sample losses of a loss function (``loss_functions.py``), weights them and
reduces them by ``reduction``:

- ``"sum_over_batch_size"`` (the default) and ``"mean"``: the weighted sum divided by the
  number of per-sample losses (0 when there are none);
- ``"mean_with_sample_weight"``: the weighted sum divided by the sum of the weights;
- ``"sum"``: the weighted sum; ``None`` or ``"none"``: the weighted per-sample losses.

Inputs are converted to the loss's dtype (float32) first, integer labels included, as Keras
does.
"""

from __future__ import annotations

import re
from typing import Any


from finegrad._src.keras import loss_functions as F
from finegrad._src.keras import pairwise_and_sequence_losses as P
from finegrad._src.keras.loss_functions import squeeze_or_expand_to_same_rank
from finegrad._src.ops.array.shape_queries import size
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reduce_sum
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.statistics import divide_no_nan

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor

_REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")


def standardize_reduction(reduction: Any) -> Any:
    """``reduction`` itself, checked against Keras's names.

    Raises:
        ValueError: for an unknown reduction.
    """
    if reduction not in _REDUCTIONS:
        raise ValueError(f"keras.losses.Loss: invalid value for argument reduction; expected "
                         f"one of {_REDUCTIONS}, got {reduction!r}")
    return reduction


def apply_mask(sample_weight: Any, mask: Any, dtype: Any, reduction: Any) -> Any:
    """Fold a boolean ``mask`` into ``sample_weight``; for the mean reductions the kept
    entries are scaled by ``total / kept`` so the mean is over the kept entries."""
    if mask is None:
        return sample_weight
    mask = convert_to_tensor(mask)
    if reduction in ("mean", "sum_over_batch_size"):
        total = cast(size(mask), dtype)
        kept = reduce_sum(cast(mask, dtype))   # may be 0
        float_mask = ew.where(cast(mask, "bool"), divide_no_nan(total, kept), total * 0)
    else:
        float_mask = cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = cast(convert_to_tensor(sample_weight), dtype)
    float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
    return sample_weight * float_mask


def reduce_values(values: Any, sample_weight: Any = None,
                  reduction: Any = "sum_over_batch_size") -> Any:
    """Reduce already weighted per-sample ``values`` by ``reduction``."""
    if reduction in (None, "none") or tuple(values.shape) in ((), (0,)):
        return values
    loss = reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = cast(reduce_sum(sample_weight), loss.dtype)
        else:
            divisor = cast(size(values), loss.dtype)   # dynamic: open batch sizes in traces
        loss = divide_no_nan(loss, divisor)
    return loss


def reduce_weighted_values(values: Any, sample_weight: Any = None, mask: Any = None,
                           reduction: Any = "sum_over_batch_size", dtype: Any = None) -> Any:
    """Weight ``values`` by ``sample_weight`` (broadcast from the batch axes) and ``mask``,
    then reduce them by ``reduction``."""
    reduction = standardize_reduction(reduction)
    values = convert_to_tensor(values)
    if dtype is not None:
        values = cast(values, dtype)
    sample_weight = apply_mask(sample_weight, mask, values.dtype, reduction)
    if sample_weight is not None:
        sample_weight = cast(convert_to_tensor(sample_weight), values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)


def _snake(name):
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", re.sub(r"\W+", "", name))
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


class Loss:
    """The base class: subclasses define ``call(y_true, y_pred)`` returning per-sample
    losses; ``loss(y_true, y_pred, sample_weight=None)`` weights and reduces them.

    >>> import finegrad as fg
    >>> class Abs(fg.keras.losses.Loss):
    ...     def call(self, y_true, y_pred):
    ...         return fg.abs(y_true - y_pred)
    >>> float(Abs(reduction="sum")([1., 2.], [0., 0.]))
    3.0

    Raises:
        ValueError: for an unknown reduction.
    """

    def __init__(self, name: str | None = None, reduction: Any = "sum_over_batch_size",
                 dtype: Any = None) -> None:
        self.name = name or _snake(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self._dtype = "float32" if dtype is None else str(getattr(dtype, "name", dtype))

    @property
    def dtype(self) -> Any:
        """The dtype inputs are converted to (float32 by default)."""
        return self._dtype

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        in_mask = getattr(y_pred, "_keras_mask", None)
        y_pred = cast(convert_to_tensor(y_pred), self.dtype)
        y_true = cast(convert_to_tensor(y_true), self.dtype)
        losses = self.call(y_true, y_pred)
        mask = in_mask
        if isinstance(losses, tuple):    # (values, mask): a loss that drops entries
            losses, out_mask = losses
            mask = out_mask if mask is None else ew.logical_and(cast(mask, "bool"), out_mask)
        return reduce_weighted_values(losses, sample_weight, mask, self.reduction, self.dtype)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        """The per-sample losses (each loss defines it)."""
        raise NotImplementedError(f"{type(self).__name__} must define call")

    def get_config(self) -> dict:
        """The constructor's arguments."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """A loss made from ``get_config()``'s dict."""
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A `Loss` computing ``fn(y_true, y_pred, **kwargs)``.

    >>> import finegrad as fg
    >>> from finegrad._src.keras.losses import LossFunctionWrapper
    >>> loss = LossFunctionWrapper(fg.keras.losses.mean_absolute_error)
    >>> float(loss([[1., 2.]], [[0., 0.]]))
    1.5
    """

    def __init__(self, fn: Any, reduction: Any = "sum_over_batch_size", name: str | None = None,
                 dtype: Any = None, **kwargs) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn, self._fn_kwargs = fn, kwargs

    def call(self, y_true: Any, y_pred: Any) -> Any:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> Any:
        return {**super().get_config(), **self._fn_kwargs}

    @classmethod
    def from_config(cls, config: Any) -> Any:
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__}({getattr(self.fn, '__name__', self.fn)}, " \
               f"kwargs={self._fn_kwargs})>"


class _Builtin(LossFunctionWrapper):
    """A built-in loss: its function is fixed, ``from_config`` passes only the options."""

    _fn: Any = None
    _default_name: Any = None

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str | None = None,
                 dtype: Any = None, **kwargs) -> None:
        super().__init__(type(self)._fn, reduction, name or self._default_name, dtype,
                         **kwargs)


# The built-in losses with no options of their own: class name -> (loss function, default
# name, the docstring's summary, an example's labels and predictions, and its value).
# keras.metrics averages the same functions, with the same examples (metrics/loss_metrics.py).
PLAIN_LOSSES = {
    "MeanSquaredError": (F.mean_squared_error, "mean_squared_error",
                         "Mean of squares of errors (`mean_squared_error`), reduced.",
                         "[[0., 1.]], [[1., 1.]]", "0.5"),
    "MeanAbsoluteError": (F.mean_absolute_error, "mean_absolute_error",
                          "Mean of absolute errors (`mean_absolute_error`), reduced.",
                          "[[0., 1.]], [[2., 1.]]", "1.0"),
    "MeanAbsolutePercentageError": (
        F.mean_absolute_percentage_error, "mean_absolute_percentage_error",
        "`mean_absolute_percentage_error`, reduced.", "[[2.]], [[1.]]", "50.0"),
    "MeanSquaredLogarithmicError": (
        F.mean_squared_logarithmic_error, "mean_squared_logarithmic_error",
        "`mean_squared_logarithmic_error`, reduced.", "[[1.]], [[1.]]", "0.0"),
    "LogCosh": (F.log_cosh, "log_cosh", "`log_cosh`, reduced.", "[[0.]], [[0.]]", "0.0"),
    "KLDivergence": (F.kl_divergence, "kl_divergence", "`kl_divergence`, reduced.",
                     "[[1., 0.]], [[1., 0.]]", "0.0"),
    "Poisson": (F.poisson, "poisson", "`poisson`, reduced.", "[[0.]], [[2.]]", "2.0"),
    "Hinge": (F.hinge, "hinge", "`hinge`, reduced.", "[[1.]], [[0.5]]", "0.5"),
    "SquaredHinge": (F.squared_hinge, "squared_hinge", "`squared_hinge`, reduced.",
                     "[[1.]], [[0.5]]", "0.25"),
    "CategoricalHinge": (F.categorical_hinge, "categorical_hinge",
                         "`categorical_hinge`, reduced.", "[[0., 1.]], [[0.3, 0.8]]", "0.5"),
}


def example_doc(summary: str, example_call: str, value: str) -> str:
    """A class docstring: ``summary``, then a doctest of ``example_call`` giving ``value``."""
    return (f"{summary}\n\n    >>> import finegrad as fg\n    >>> {example_call}\n"
            f"    {value}\n    ")


def _builtin(cls_name):
    fn, default_name, summary, example, value = PLAIN_LOSSES[cls_name]
    doc = example_doc(summary, f"float(fg.keras.losses.{cls_name}()({example}))", value)
    return type(cls_name, (_Builtin,), {"_fn": staticmethod(fn), "__doc__": doc,
                                        "_default_name": default_name,
                                        "__module__": __name__})


MeanSquaredError = _builtin("MeanSquaredError")
MeanAbsoluteError = _builtin("MeanAbsoluteError")
MeanAbsolutePercentageError = _builtin("MeanAbsolutePercentageError")
MeanSquaredLogarithmicError = _builtin("MeanSquaredLogarithmicError")
LogCosh = _builtin("LogCosh")
KLDivergence = _builtin("KLDivergence")
Poisson = _builtin("Poisson")
Hinge = _builtin("Hinge")
SquaredHinge = _builtin("SquaredHinge")
CategoricalHinge = _builtin("CategoricalHinge")


class CosineSimilarity(_Builtin):
    """`cosine_similarity` along ``axis``, reduced.

    >>> import finegrad as fg
    >>> float(fg.keras.losses.CosineSimilarity()([[1., 0.]], [[3., 0.]]))
    -1.0
    """

    _fn, _default_name = staticmethod(F.cosine_similarity), "cosine_similarity"

    def __init__(self, axis: Any = -1, reduction: Any = "sum_over_batch_size",
                 name: str | None = None, dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, axis=axis)


class Huber(_Builtin):
    """`huber` with ``delta``, reduced.

    >>> import finegrad as fg
    >>> float(fg.keras.losses.Huber(delta=1.)([[0.]], [[3.]]))
    2.5
    """

    _fn, _default_name = staticmethod(F.huber), "huber_loss"

    def __init__(self, delta: Any = 1.0, reduction: Any = "sum_over_batch_size",
                 name: str | None = None, dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, delta=delta)


class BinaryCrossentropy(_Builtin):
    """`binary_crossentropy` (``from_logits``, ``label_smoothing``, ``axis``), reduced.

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.BinaryCrossentropy(from_logits=True)([[1.]], [[0.]])), 4)
    0.6931
    """

    _fn, _default_name = staticmethod(F.binary_crossentropy), "binary_crossentropy"

    def __init__(self, from_logits: bool = False, label_smoothing: Any = 0.0, axis: Any = -1,
                 reduction: Any = "sum_over_batch_size", name: str | None = None,
                 dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class BinaryFocalCrossentropy(_Builtin):
    """`binary_focal_crossentropy` (``apply_class_balancing``, ``alpha``, ``gamma``,
    ``from_logits``, ``label_smoothing``, ``axis``), reduced.

    >>> import finegrad as fg
    >>> loss = fg.keras.losses.BinaryFocalCrossentropy(gamma=0.)
    >>> round(float(loss([[1.]], [[0.5]])), 4)
    0.6931
    """

    _fn, _default_name = staticmethod(F.binary_focal_crossentropy), "binary_focal_crossentropy"

    def __init__(self, apply_class_balancing: bool = False, alpha: Any = 0.25, gamma: Any = 2.0,
                 from_logits: bool = False,
                 label_smoothing: Any = 0.0, axis: Any = -1,
                 reduction: Any = "sum_over_batch_size", name: str | None = None,
                 dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis,
                         apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma)


class CategoricalCrossentropy(_Builtin):
    """`categorical_crossentropy` (``from_logits``, ``label_smoothing``, ``axis``), reduced.

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.CategoricalCrossentropy()([[0., 1.]], [[.5, .5]])), 4)
    0.6931
    """

    _fn, _default_name = staticmethod(F.categorical_crossentropy), "categorical_crossentropy"

    def __init__(self, from_logits: bool = False, label_smoothing: Any = 0.0, axis: Any = -1,
                 reduction: Any = "sum_over_batch_size", name: str | None = None,
                 dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class CategoricalFocalCrossentropy(_Builtin):
    """`categorical_focal_crossentropy` (``alpha``, ``gamma``, ``from_logits``,
    ``label_smoothing``, ``axis``), reduced.

    >>> import finegrad as fg
    >>> float(fg.keras.losses.CategoricalFocalCrossentropy()([[0., 1.]], [[0., 1.]])) < 1e-6
    True
    """

    _fn = staticmethod(F.categorical_focal_crossentropy)
    _default_name = "categorical_focal_crossentropy"

    def __init__(self, alpha: Any = 0.25, gamma: Any = 2.0, from_logits: bool = False,
                 label_smoothing: Any = 0.0, axis: Any = -1,
                 reduction: Any = "sum_over_batch_size", name: str | None = None,
                 dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, alpha=alpha, gamma=gamma,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(_Builtin):
    """`sparse_categorical_crossentropy` (``from_logits``, ``ignore_class``), reduced; the
    entries labelled ``ignore_class`` are left out of the mean.

    >>> import finegrad as fg
    >>> loss = fg.keras.losses.SparseCategoricalCrossentropy(ignore_class=-1)
    >>> round(float(loss([1, -1], [[.5, .5], [.1, .9]])), 4)
    0.6931
    """

    _fn = staticmethod(F.sparse_categorical_crossentropy)
    _default_name = "sparse_categorical_crossentropy"

    def __init__(self, from_logits: bool = False, ignore_class: Any = None,
                 reduction: Any = "sum_over_batch_size",
                 name: str | None = None, dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, from_logits=from_logits,
                         ignore_class=ignore_class)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        values = F.sparse_categorical_crossentropy(y_true, y_pred, **self._fn_kwargs)
        ignore = self._fn_kwargs["ignore_class"]
        if ignore is None:
            return values
        if len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1:
            y_true = y_true[..., 0]
        return values, ew.not_equal(y_true, cast(convert_to_tensor(ignore), y_true.dtype))


class Dice(_Builtin):
    """`dice` over ``axis`` (everything by default), reduced.

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.Dice()([[1., 0.]], [[0.5, 0.5]])), 4)
    0.5
    """

    _fn, _default_name = staticmethod(F.dice), "dice"

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str | None = None,
                 axis: Any = None, dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, axis=axis)


class Tversky(_Builtin):
    """`tversky` (``alpha``, ``beta``, ``axis``), reduced.

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.Tversky()([[1., 0.]], [[0.5, 0.5]])), 4)
    0.5
    """

    _fn, _default_name = staticmethod(F.tversky), "tversky"

    def __init__(self, alpha: Any = 0.5, beta: Any = 0.5, reduction: Any = "sum_over_batch_size",
                 name: str | None = None,
                 axis: Any = None, dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, alpha=alpha, beta=beta, axis=axis)


class CategoricalGeneralizedCrossEntropy(_Builtin):
    """`categorical_generalized_cross_entropy` with ``q`` in (0, 1), reduced.

    >>> import finegrad as fg
    >>> loss = fg.keras.losses.CategoricalGeneralizedCrossEntropy(q=0.5)
    >>> float(loss([0], [[0.25, 0.75]]))
    1.0

    Raises:
        ValueError: for ``q`` outside (0, 1).
    """

    _fn = staticmethod(F.categorical_generalized_cross_entropy)
    _default_name = "categorical_generalized_cross_entropy"

    def __init__(self, q: Any = 0.5, reduction: Any = "sum_over_batch_size",
                 name: str | None = None, dtype: Any = None) -> None:
        if not 0 < q < 1:
            raise ValueError(f"CategoricalGeneralizedCrossEntropy: q must be in the interval "
                             f"(0, 1), got {q}")
        super().__init__(reduction, name, dtype, q=q)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return self.fn(y_true, y_pred, **self._fn_kwargs)


class CTC(_Builtin):
    """`ctc` (integer label sequences, 0 the blank; logits), reduced.

    >>> import finegrad as fg
    >>> round(float(fg.keras.losses.CTC()([[1]], [[[0., 0.]]])), 4)
    0.6931
    """

    _fn, _default_name = staticmethod(P.ctc), "ctc"

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str | None = None,
                 dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return self.fn(y_true, y_pred)


class Circle(_Builtin):
    """`circle` (``gamma``, ``margin``, ``remove_diagonal``), reduced over the rows whose
    loss is positive (Keras masks the others out).

    >>> import finegrad as fg
    >>> e = fg.constant([[1., 0.], [0.6, 0.8], [0., 1.]])
    >>> round(float(fg.keras.losses.Circle()([0, 0, 1], e)), 3)
    19.2
    """

    _fn, _default_name = staticmethod(P.circle), "circle"

    def __init__(self, gamma: Any = 80.0, margin: Any = 0.4, remove_diagonal: bool = True,
                 reduction: Any = "sum_over_batch_size", name: str | None = None,
                 dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype, gamma=gamma, margin=margin,
                         remove_diagonal=remove_diagonal)
        self.gamma, self.margin, self.remove_diagonal = gamma, margin, remove_diagonal

    def call(self, y_true: Any, y_pred: Any) -> Any:
        losses = self.fn(y_true, y_pred, **self._fn_kwargs)
        return losses, ew.greater(losses, 0)


# Keras's short names of the loss functions
mse = MSE = mean_squared_error = F.mean_squared_error
mae = MAE = mean_absolute_error = F.mean_absolute_error
mape = MAPE = mean_absolute_percentage_error = F.mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error = F.mean_squared_logarithmic_error
kld = KLD = kl_divergence = kullback_leibler_divergence = F.kl_divergence
logcosh = log_cosh = F.log_cosh
huber, poisson, cosine_similarity = F.huber, F.poisson, F.cosine_similarity
hinge, squared_hinge, categorical_hinge = F.hinge, F.squared_hinge, F.categorical_hinge
binary_crossentropy, categorical_crossentropy = F.binary_crossentropy, \
    F.categorical_crossentropy
sparse_categorical_crossentropy = F.sparse_categorical_crossentropy
binary_focal_crossentropy = F.binary_focal_crossentropy
categorical_focal_crossentropy = F.categorical_focal_crossentropy
dice, tversky = F.dice, F.tversky
categorical_generalized_cross_entropy = F.categorical_generalized_cross_entropy
ctc, circle = P.ctc, P.circle

_CLASSES = (Loss, LossFunctionWrapper, MeanSquaredError, MeanAbsoluteError,
            MeanAbsolutePercentageError, MeanSquaredLogarithmicError, LogCosh, KLDivergence,
            Poisson, Hinge, SquaredHinge, CategoricalHinge, CosineSimilarity, Huber,
            BinaryCrossentropy, BinaryFocalCrossentropy, CategoricalCrossentropy,
            CategoricalFocalCrossentropy, SparseCategoricalCrossentropy, Dice, Tversky,
            CategoricalGeneralizedCrossEntropy, CTC, Circle)
_BY_NAME = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update({fn.__name__: fn for fn in (
    F.mean_squared_error, F.mean_absolute_error, F.mean_absolute_percentage_error,
    F.mean_squared_logarithmic_error, F.kl_divergence, F.log_cosh, F.huber, F.poisson,
    F.cosine_similarity, F.hinge, F.squared_hinge, F.categorical_hinge, F.binary_crossentropy,
    F.categorical_crossentropy, F.sparse_categorical_crossentropy,
    F.binary_focal_crossentropy, F.categorical_focal_crossentropy, F.dice, F.tversky,
    F.categorical_generalized_cross_entropy, P.ctc, P.circle)})
_BY_NAME.update(mse=mse, MSE=mse, mae=mae, MAE=mae, mape=mape, MAPE=mape, msle=msle,
                MSLE=msle, kld=kld, KLD=kld, kullback_leibler_divergence=kld, logcosh=logcosh)


def serialize(loss: Any) -> Any:
    """Keras's config of a loss: a dict for a `Loss` object, the name for a function.

    >>> import finegrad as fg
    >>> fg.keras.losses.serialize(fg.keras.losses.Huber())["class_name"]
    'Huber'
    """
    if isinstance(loss, Loss):
        return {"module": "keras.losses", "class_name": type(loss).__name__,
                "config": loss.get_config(), "registered_name": None}
    return loss.__name__


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The loss a `serialize` config (a dict or a name) describes.

    >>> import finegrad as fg
    >>> fg.keras.losses.deserialize("mse").__name__
    'mean_squared_error'

    Raises:
        ValueError: for an unknown name.
    """
    name = config.get("class_name") if isinstance(config, dict) else config
    obj: Any = (custom_objects or {}).get(name) or _BY_NAME.get(name)
    if obj is None:
        raise ValueError(f"keras.losses.deserialize: unknown loss {name!r}")
    if isinstance(config, dict) and isinstance(obj, type) and issubclass(obj, Loss):
        return obj.from_config(config.get("config", {}))
    return obj


def get(identifier: Any) -> Any:
    """A loss from None, a name (``"mse"``, ``"categorical_crossentropy"``, a class name:
    then an instance), a config dict or a callable (returned).

    >>> import finegrad as fg
    >>> fg.keras.losses.get("mae").__name__
    'mean_absolute_error'

    Raises:
        ValueError: for an identifier that names no loss.
    """
    if identifier is None:
        return None
    obj = identifier
    if isinstance(identifier, (dict, str)):
        obj = deserialize(identifier)
    if isinstance(obj, type):
        obj = obj()
    if callable(obj):
        return obj
    raise ValueError(f"keras.losses.get: could not interpret loss identifier: {identifier!r}")
