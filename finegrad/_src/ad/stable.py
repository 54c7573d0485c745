"""Numerically stable functions, each with a custom gradient that stays finite where the plain
composite's gradient overflows or divides by zero. Each is checked by
`finegrad.testing.check_custom_gradient` over extreme inputs in the test suite.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core
from finegrad._src.ad.custom import custom_gradient
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.array.structural import _t, reshape, reduce_sum, stop_gradient
from finegrad._src.ops.zeros_and_axes import normalize_axes
from finegrad._src.ops.math.reductions import reduce_max
from finegrad._src.ops.math.elementwise import where
from finegrad._src.ops.math.reductions import reduce_logsumexp

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from collections.abc import Callable

    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


@custom_gradient
def log1pexp(x: TensorLike) -> tuple[Tensor, Callable[..., Any]]:
    """log(1 + exp(x)) with the gradient sigmoid(x): exactly 1.0 at x = 100 in float32.

    >>> import finegrad as fg
    >>> x = fg.constant(100.)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.stable.log1pexp(x)
    >>> y.numpy(), t.gradient(y, x).numpy()
    (np.float32(100.0), np.float32(1.0))
    """
    x = _t(x)

    def grad(dy):
        return dy * ew.sigmoid(x)
    return ew.softplus(x), grad


softplus = log1pexp


@custom_gradient
def log_sigmoid(x: Any) -> tuple[Tensor, Callable[..., Any]]:
    """log(sigmoid(x)) = -log1pexp(-x), stable for large |x|; gradient sigmoid(-x).

    >>> import finegrad as fg
    >>> fg.stable.log_sigmoid(fg.constant(-100.)).numpy()
    np.float32(-100.0)
    """
    x = _t(x)

    def grad(dy):
        return dy * ew.sigmoid(-x)
    return -ew.softplus(-x), grad


def logsumexp(x: Any, axis: Any = None, keepdims: Any = False) -> Tensor:
    """log(sum(exp(x))) over ``axis``, stable; the gradient is softmax(x) (finite at +-1e4).

    >>> import finegrad as fg
    >>> float(fg.stable.logsumexp(fg.constant([1e4, 1e4], fg.float64)))
    10000.69314718056
    """
    x = _t(x)
    axes = normalize_axes(axis, x._value.ndim, "finegrad.stable.logsumexp")

    @custom_gradient
    def logsumexp(x):
        out = reduce_logsumexp(x, axes, keepdims=True)

        def grad(dy):
            # softmax along the axes, normalized explicitly: exp(x - out) alone carries the
            # rounding error of out, which at |x| = 1e4 in float32 is 1e-3 relative
            e = ew.exp(x - stop_gradient(reduce_max(x, axes, keepdims=True)))
            p = e / reduce_sum(e, axes, keepdims=True)
            dyk = dy if keepdims else reshape(dy, core.shape_of(out))
            return dyk * p
        result = out if keepdims else reshape(out, tuple(
            s for i, s in enumerate(core.shape_of(x)) if i not in axes))
        return result, grad
    return logsumexp(x)


@custom_gradient
def safe_sqrt(x: Any) -> tuple[Tensor, Callable[..., Any]]:
    """sqrt(x) whose gradient at 0 is 0 instead of inf (elsewhere 0.5 / sqrt(x)).

    >>> import finegrad as fg
    >>> x = fg.constant([0., 4.])
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.stable.safe_sqrt(x)
    >>> t.gradient(y, x).numpy()
    array([0.  , 0.25], dtype=float32)

    Without this function, the double-`where` idiom guards any op whose derivative is inf or
    nan outside the branch a `where` keeps: the inner `where` gives the op an input where its
    derivative is finite, the outer one selects.

    >>> x = fg.constant([-1., 0., 4.])
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.where(x > 0, fg.sqrt(fg.where(x > 0, x, 1.)), 0.)
    >>> t.gradient(y, x).numpy()
    array([0.  , 0.  , 0.25], dtype=float32)

    A single ``where(x > 0, sqrt(x), 0.)`` also gives gradient 0 at x <= 0 (the `where` sends
    a zero cotangent to the branch it drops, and sqrt's gradient is 0 where its cotangent is
    0, as TensorFlow's kernel), but ``where(x > 0, log(x), 0.)`` gives nan at x = 0 (0 times
    the inf derivative, in TensorFlow too): use the double `where` there.
    """
    x = _t(x)
    pos = x > 0
    out = ew.sqrt(x)

    def grad(dy):
        return where(pos, dy * 0.5 / ew.sqrt(where(pos, x, 1)), dy * 0)
    return out, grad


def safe_norm(x: Any, axis: Any = None, keepdims: Any = False) -> Tensor:
    """Euclidean norm whose gradient at 0 is 0 instead of nan (elsewhere x / norm).

    >>> import finegrad as fg
    >>> x = fg.zeros(3)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.stable.safe_norm(x)
    >>> t.gradient(y, x).numpy()
    array([0., 0., 0.], dtype=float32)
    """
    x = _t(x)
    axes = normalize_axes(axis, x._value.ndim, "finegrad.stable.safe_norm")

    @custom_gradient
    def safe_norm(x):
        sq = reduce_sum(x * x, axes, keepdims=True)
        pos = sq > 0
        n = where(pos, ew.sqrt(where(pos, sq, 1)), sq * 0)

        def grad(dy):
            dyk = dy if keepdims else reshape(dy, core.shape_of(n))
            return where(pos, dyk * x / where(pos, n, 1), x * 0)
        result = n if keepdims else reshape(n, tuple(
            s for i, s in enumerate(core.shape_of(x)) if i not in axes))
        return result, grad
    return safe_norm(x)


@custom_gradient
def safe_divide(x: Any, y: Any) -> tuple[Tensor, Callable[..., Any]]:
    """x / y where y != 0, else 0; gradients are 0 where y == 0 (never nan or inf).

    >>> import finegrad as fg
    >>> fg.stable.safe_divide(fg.constant([1., 1.]), fg.constant([2., 0.])).numpy()
    array([0.5, 0. ], dtype=float32)
    """
    x, y = _t(x), _t(y)
    nz = ew.not_equal(y, 0)
    ys = where(nz, y, 1)
    out = where(nz, x / ys, x * 0)

    def grad(dy):
        from finegrad._src.ops.array.structural import unbroadcast
        gx = where(nz, dy / ys, dy * 0)
        gy = where(nz, -dy * x / (ys * ys), dy * 0)
        return unbroadcast(gx, x), unbroadcast(gy, y)
    return out, grad


# where the rule deviates on purpose, read by finegrad.testing.sweep and `finegrad check`
# (the marker of finegrad.testing.intended, written without importing the testing layer)
safe_divide._finegrad_intended = (("y == 0",), "safe: 0 where y == 0, not inf")


def clip_gradient(x: TensorLike, lo: Any, hi: Any) -> Tensor:
    """Identity forward; the gradient is clipped elementwise to [lo, hi].

    >>> import finegrad as fg
    >>> x = fg.constant([1., 2.])
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.reduce_sum(fg.stable.clip_gradient(x, -1., 1.) * 5.)
    >>> t.gradient(y, x).numpy()
    array([1., 1.], dtype=float32)
    """
    @custom_gradient
    def clip_gradient(x):
        def grad(dy):
            return ar.clip_by_value(dy, lo, hi)
        return ar.multiply(x, 1), grad
    return clip_gradient(x)


# Intended deviations with the derivative each rule is meant to give, read by
# finegrad.testing.sweep and `finegrad check` (the marker of finegrad.testing.intended:
# (regions, reason, derivative); no region is everywhere): the rule is checked against it.
clip_gradient._finegrad_intended = (  # type: ignore[attr-defined]
    (), "the upstream gradient is clipped to [lo, hi]",
    lambda x, lo, hi, dy: (np.maximum(np.minimum(dy, hi), lo) / dy, 0.0 * lo, 0.0 * hi))


def scale_gradient(x: TensorLike, scale: Any) -> Tensor:
    """Identity forward; the gradient is multiplied by ``scale``.

    >>> import finegrad as fg
    >>> x = fg.constant(1.)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.stable.scale_gradient(x, 0.1) * 2.
    >>> float(t.gradient(y, x))
    0.2...
    """
    @custom_gradient
    def scale_gradient(x):
        return ar.multiply(x, 1), lambda dy: dy * scale
    return scale_gradient(x)


scale_gradient._finegrad_intended = (  # type: ignore[attr-defined]
    (), "the gradient is scaled by scale", lambda x, scale: (scale + 0.0 * x, 0.0 * scale))


def gradient_reversal(x: TensorLike, scale: float = 1.0) -> Tensor:
    """Identity forward; the gradient is negated (and scaled), as in domain-adversarial
    training.

    >>> import finegrad as fg
    >>> x = fg.constant(1.)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.stable.gradient_reversal(x) * 3.
    >>> t.gradient(y, x).numpy()
    np.float32(-3.0)
    """
    @custom_gradient
    def gradient_reversal(x):
        return ar.multiply(x, 1), lambda dy: -dy * scale
    return gradient_reversal(x)


gradient_reversal._finegrad_intended = (  # type: ignore[attr-defined]
    (), "the gradient is reversed (times -scale, scale 1 by default)",
    lambda x: -np.ones_like(x))


@custom_gradient
def straight_through_round(x: TensorLike) -> tuple[Tensor, Callable[..., Any]]:
    """round(x) forward; identity gradient (the straight-through estimator).

    >>> import finegrad as fg
    >>> x = fg.constant(1.4)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.stable.straight_through_round(x) * 2.
    >>> y.numpy(), t.gradient(y, x).numpy()
    (np.float32(2.0), np.float32(2.0))
    """
    return ew.round(x), lambda dy: dy


straight_through_round._finegrad_intended = (
    (), "straight-through: the gradient of round is taken as 1", lambda x: np.ones_like(x))
