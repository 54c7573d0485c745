"""The ``*_no_nan`` products and divisions of ``tf.math``: ``reciprocal_no_nan``,
``multiply_no_nan`` and ``xdivy`` (``divide_no_nan`` is in `ops.math.statistics`). Each is
written with finegrad ops in TensorFlow's formulas, so values and gradients (every order, both
modes) are TensorFlow's.
"""

from __future__ import annotations

from finegrad._src.ops.array.structural import zeros_like
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.tensor import convert_to_tensor

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def reciprocal_no_nan(x: TensorLike, name: str | None = None) -> Tensor:
    """``1 / x``, and 0 where ``x == 0`` (gradient 0 there).

    >>> import finegrad as fg
    >>> fg.math.reciprocal_no_nan(fg.constant([0., 2.])).numpy()
    array([0. , 0.5], dtype=float32)
    """
    x = convert_to_tensor(x)
    zero = ew.equal(x, 0)
    inv = 1 / ew.where(zero, 1, x)
    return ew.where(zero, zeros_like(inv), inv)


def multiply_no_nan(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """``x * y``, and 0 where ``y == 0`` even if ``x`` is inf or nan. Gradients
    TensorFlow's: ``y`` for ``x`` and ``x`` for ``y`` (0 for ``y`` where ``y == 0`` and
    ``x`` is not finite).

    >>> import finegrad as fg
    >>> fg.math.multiply_no_nan(fg.constant([float("inf"), 2.]), fg.constant([0., 3.])).numpy()
    array([0., 6.], dtype=float32)
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    masked = ew.where(ew.logical_and(ew.equal(y, 0), ew.logical_not(ew.is_finite(x))),
                      zeros_like(x), x)
    return masked * y


def xdivy(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """``x / y``, and 0 where ``x == 0`` (even where ``y`` is 0). Gradients TensorFlow's:
    ``1 / y`` for ``x`` and ``-x / y^2`` for ``y``, 0 where ``x == 0``.

    >>> import finegrad as fg
    >>> fg.math.xdivy(fg.constant([0., 3.]), fg.constant([0., 2.])).numpy()
    array([0. , 1.5], dtype=float32)
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    zero = ew.equal(x, 0)
    quotient = x / ew.where(zero, 1, y)
    return ew.where(zero, zeros_like(quotient), quotient)
