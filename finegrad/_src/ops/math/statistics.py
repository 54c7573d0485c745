"""Reductions, normalizations and losses of ``tf.math`` and ``tf.nn`` written with existing
ops (so every mode and order of differentiation comes from the ops' own rules): variance and
standard deviation, Euclidean norms, moments, ``add_n``, ``divide_no_nan``, logical
reductions and ``compute_average_loss``.
"""

from __future__ import annotations

from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.array.structural import cast, reduce_sum, zeros_like
from finegrad._src.ops.array.shape_queries import shape
from finegrad._src.ops.math.reductions import reduce_mean
from finegrad._src.ops.math.complex_numbers import _is_complex, conj_if_complex, imag, real
from finegrad._src.ops.zeros_and_axes import normalize_axes
from finegrad._src.tensor import convert_to_tensor
from finegrad._src import dtypes

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def _checked(x, axis, fn):
    """``x`` as a tensor, once ``axis`` is checked in the name of the public ``fn``."""
    x = convert_to_tensor(x)
    normalize_axes(axis, x._value.ndim, f"finegrad.{fn}", reduction=True)
    return x


def reduce_variance(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
                    name: str | None = None) -> Tensor:
    """The variance ``mean(|x - mean(x)|^2)`` over ``axis`` (all axes when None); real for
    complex ``x`` (float32 for complex64), as TensorFlow's.

    >>> import finegrad as fg
    >>> float(fg.math.reduce_variance(fg.constant([1., 2., 3., 4.])))
    1.25
    """
    x = _checked(input_tensor, axis, "math.reduce_variance")
    if not (x.dtype.is_floating or x.dtype.is_complex):   # an integer mean would truncate
        raise TypeError(f"finegrad.math.reduce_variance: x must be real or complex (floating), "
                        f"got {x.dtype.name}, as in TensorFlow; cast it first")
    dev = x - reduce_mean(x, axis=axis, keepdims=True)
    if _is_complex(x):   # |dev|^2: a real variance (TensorFlow's float32 for complex64)
        return reduce_mean(ew.square(real(dev)) + ew.square(imag(dev)), axis=axis,
                           keepdims=keepdims)
    return reduce_mean(dev * dev, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """The standard deviation ``sqrt(reduce_variance(x))`` over ``axis``.

    >>> import finegrad as fg
    >>> float(fg.math.reduce_std(fg.constant([1., 3.])))
    1.0
    """
    x = _checked(input_tensor, axis, "math.reduce_std")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"finegrad.math.reduce_std: x must be real or complex (floating), got "
                        f"{x.dtype.name}, as in TensorFlow; cast it first")
    return ew.sqrt(reduce_variance(x, axis=axis, keepdims=keepdims))


def reduce_euclidean_norm(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
                          name: str | None = None) -> Tensor:
    """``sqrt(sum(x^2))`` over ``axis``.

    >>> import finegrad as fg
    >>> float(fg.math.reduce_euclidean_norm(fg.constant([3., 4.])))
    5.0
    """
    x = _checked(input_tensor, axis, "math.reduce_euclidean_norm")
    # complex: sqrt(sum |x|^2), of x's dtype with a zero imaginary part, as TensorFlow's
    return ew.sqrt(reduce_sum(x * conj_if_complex(x), axis=axis, keepdims=keepdims))


def reduce_any(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Logical or over ``axis`` (False for an empty reduction).

    >>> import finegrad as fg
    >>> fg.reduce_any(fg.constant([[True, False], [False, False]]), axis=1).numpy()
    array([ True, False])
    """
    x = cast(_checked(input_tensor, axis, "reduce_any"), dtypes.int32)
    return reduce_sum(x, axis=axis, keepdims=keepdims) > 0


def reduce_all(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Logical and over ``axis`` (True for an empty reduction).

    >>> import finegrad as fg
    >>> fg.reduce_all(fg.constant([[True, False], [True, True]]), axis=1).numpy()
    array([False,  True])
    """
    x = cast(ew.logical_not(_checked(input_tensor, axis, "reduce_all")), dtypes.int32)
    return ew.equal(reduce_sum(x, axis=axis, keepdims=keepdims), 0)


def l2_normalize(x: TensorLike, axis: Any = None, epsilon: float = 1e-12, name: str | None = None,
                 dim: Any = None) -> Tensor:
    """``x / sqrt(max(sum(x^2, axis), epsilon))``.

    >>> import finegrad as fg
    >>> fg.math.l2_normalize(fg.constant([3., 4.])).numpy()
    array([0.6, 0.8], dtype=float32)
    """
    axis = dim if axis is None else axis
    x = convert_to_tensor(x)
    square_sum = reduce_sum(x * x, axis=axis, keepdims=True)
    return x * (1 / ew.sqrt(ar.maximum(square_sum, epsilon)))


def moments(x: TensorLike, axes: Any, shift: Any = None, keepdims: bool = False,
            name: str | None = None) -> tuple[Tensor, ...]:
    """``(mean, variance)`` of ``x`` over ``axes``.

    The variance's gradient is the exact one at every order (TensorFlow stops the mean's
    gradient inside the variance, which gives the same first derivative).

    >>> import finegrad as fg
    >>> m, v = fg.nn.moments(fg.constant([[1., 2.], [3., 6.]]), axes=[0])
    >>> m.numpy(), v.numpy()
    (array([2., 4.], dtype=float32), array([1., 4.], dtype=float32))
    """
    del shift
    axes = tuple(axes) if isinstance(axes, (list, tuple)) else axes
    x = _checked(x, axes, "nn.moments")
    mean = reduce_mean(x, axis=axes, keepdims=True)
    dev = x - mean
    # complex: |dev|^2, complex with a zero imaginary part (TensorFlow's squared_difference)
    variance = reduce_mean(dev * conj_if_complex(dev), axis=axes, keepdims=keepdims)
    if not keepdims:
        mean = reduce_mean(x, axis=axes)
    return mean, variance


def add_n(inputs: TensorLike, name: str | None = None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype.

    >>> import finegrad as fg
    >>> fg.add_n([fg.constant([1., 2.]), fg.constant([3., 4.]), [5., 6.]]).numpy()
    array([ 9., 12.], dtype=float32)

    Raises:
        ValueError: for an empty list, or tensors of different shapes.
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("finegrad.add_n: inputs must be a non-empty list of tensors of one "
                         "shape and dtype")
    ts = [convert_to_tensor(t) for t in inputs]
    shapes = {tuple(t.shape) for t in ts}
    if len(shapes) > 1:
        raise ValueError(f"finegrad.add_n: inputs must all have one shape, got {sorted(shapes)}")
    total = ts[0]
    for t in ts[1:]:
        total = total + t
    return total


def divide_no_nan(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """``x / y``, and 0 where ``y == 0`` (with gradient 0 there, not nan).

    >>> import finegrad as fg
    >>> fg.math.divide_no_nan(fg.constant([1., 2.]), fg.constant([0., 4.])).numpy()
    array([0. , 0.5], dtype=float32)
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype) if not hasattr(y, "dtype") else convert_to_tensor(y)
    zero = ew.equal(y, 0)
    # the inner where keeps the division finite, so the outer one's zero cotangent to the
    # unused branch multiplies finite values (a single where would give 0 * inf = nan)
    quotient = x / ew.where(zero, 1, y)
    return ew.where(zero, zeros_like(quotient), quotient)


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None,
                         global_batch_size: Any = None) -> Tensor:
    """``sum(per_example_loss * sample_weight) / global_batch_size``.

    ``global_batch_size`` defaults to the size of the first axis (one replica, as finegrad
    runs in one process).

    >>> import finegrad as fg
    >>> float(fg.nn.compute_average_loss(fg.constant([1., 2., 3.]), global_batch_size=6))
    1.0

    Raises:
        ValueError: for a scalar ``per_example_loss``.
    """
    loss = convert_to_tensor(per_example_loss)
    if len(loss.shape) == 0:
        raise ValueError("finegrad.nn.compute_average_loss: per_example_loss must have rank at "
                         "least 1 (one loss per example)")
    if sample_weight is not None:
        loss = loss * convert_to_tensor(sample_weight, dtype=loss.dtype) \
            if not hasattr(sample_weight, "dtype") else loss * sample_weight
    if global_batch_size is None:
        global_batch_size = shape(loss)[0]  # an op, so an open batch size works in a trace
    return reduce_sum(loss) / cast(convert_to_tensor(global_batch_size), loss.dtype)
