"""``tf.nn``'s moments from weights or from sums: `weighted_moments`, `sufficient_statistics`
and `normalize_moments`, composed of differentiable ops (gradients at every order), with
TensorFlow's values and output shapes."""
from __future__ import annotations

from typing import Any

from finegrad._src.ops.array.structural import broadcast_to, cast, convert_to_tensor, \
    reduce_sum
from finegrad._src.ops.array.shape_queries import shape
from finegrad._src.ops.math.statistics import divide_no_nan
from finegrad._src.ops.math.reductions import reduce_prod
from finegrad._src.tensor import Tensor


def _axes(axes: Any) -> Any:
    return list(axes) if isinstance(axes, (list, tuple)) else axes


def weighted_moments(x: Any, axes: Any, frequency_weights: Any, keepdims: bool = False,
                     name: str | None = None) -> tuple[Tensor, Tensor]:
    """``(mean, variance)`` of ``x`` over ``axes``, each element counted
    ``frequency_weights`` times (broadcast against ``x``); 0 where the weights sum to 0.

    >>> import finegrad as fg
    >>> m, v = fg.nn.weighted_moments(fg.constant([[1., 2.], [3., 5.]]), [0],
    ...                               fg.constant([[1., 0.], [2., 1.]]))
    >>> m.numpy(), v.numpy()
    (array([2.3333333, 5.       ], dtype=float32), array([0.88888884, 0.        ], dtype=float32))
    """
    x = convert_to_tensor(x)
    w = cast(convert_to_tensor(frequency_weights), x.dtype)
    axes = _axes(axes)
    total = reduce_sum(broadcast_to(w, shape(x)), axis=axes, keepdims=True)
    mean = divide_no_nan(reduce_sum(w * x, axis=axes, keepdims=True), total)
    dev = x - mean
    variance = divide_no_nan(reduce_sum(w * dev * dev, axis=axes, keepdims=True), total)
    if not keepdims:
        mean = reduce_sum(mean, axis=axes)
        variance = reduce_sum(variance, axis=axes)
    return mean, variance


def sufficient_statistics(x: Any, axes: Any, shift: Any = None, keepdims: bool = False,
                          name: str | None = None) -> tuple[Any, Tensor, Tensor, Any]:
    """``(count, sum of x - shift, sum of (x - shift)^2, shift)`` over ``axes``: what
    `normalize_moments` turns into a mean and a variance.

    >>> import finegrad as fg
    >>> c, s, ss, _ = fg.nn.sufficient_statistics(fg.constant([[1., 2.], [3., 5.]]), [0])
    >>> float(c), s.numpy(), ss.numpy()
    (2.0, array([4., 7.], dtype=float32), array([10., 29.], dtype=float32))
    """
    x = convert_to_tensor(x)
    axes = _axes(axes)
    dims = cast(shape(x), x.dtype)
    count = reduce_prod(cast(convert_to_tensor([dims[a] for a in
                                                ([axes] if isinstance(axes, int) else axes)]),
                             x.dtype))
    if shift is not None:
        shift = cast(convert_to_tensor(shift), x.dtype)
        m_ss, v_ss = x - shift, (x - shift) * (x - shift)
    else:
        m_ss, v_ss = x, x * x
    return (count, reduce_sum(m_ss, axis=axes, keepdims=keepdims),
            reduce_sum(v_ss, axis=axes, keepdims=keepdims), shift)


def normalize_moments(counts: Any, mean_ss: Any, variance_ss: Any, shift: Any,
                      name: str | None = None) -> tuple[Tensor, Tensor]:
    """``(mean, variance)`` from `sufficient_statistics`' sums over ``counts`` elements.

    >>> import finegrad as fg
    >>> m, v = fg.nn.normalize_moments(2., fg.constant([4., 7.]), fg.constant([10., 29.]),
    ...                                None)
    >>> m.numpy(), v.numpy()
    (array([2. , 3.5], dtype=float32), array([1.  , 2.25], dtype=float32))
    """
    mean_ss = convert_to_tensor(mean_ss)
    divisor = 1. / cast(convert_to_tensor(counts), mean_ss.dtype)
    shifted_mean = mean_ss * divisor
    variance = variance_ss * divisor - shifted_mean * shifted_mean
    mean = shifted_mean if shift is None else shifted_mean + cast(convert_to_tensor(shift),
                                                                  mean_ss.dtype)
    return mean, variance

