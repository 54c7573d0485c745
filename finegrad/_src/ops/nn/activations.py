"""Activation functions of ``tf.nn`` written with existing ops, so every mode and order of
differentiation comes from the ops' own rules.

At each kink the subgradient is TensorFlow's: ``leaky_relu`` and ``elu`` take the negative
side's slope at 0 (TensorFlow's kernels test ``x > 0``).
"""

from __future__ import annotations

import math

from finegrad._src import dtypes
from finegrad._src.ops.array.structural import cast, concat
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.special.error_and_gamma import erfc
from finegrad._src.tensor import convert_to_tensor

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def leaky_relu(features: TensorLike, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * x``.

    >>> import finegrad as fg
    >>> fg.nn.leaky_relu(fg.constant([-2., 3.])).numpy()
    array([-0.4,  3. ], dtype=float32)

    Integer features are cast to float32 first, as TensorFlow does (no gradient reaches the
    integers).
    """
    x = convert_to_tensor(features)
    if x.dtype.is_integer:
        x = cast(x, dtypes.float32)
    return ew.where(x > 0, x, x * alpha)


def elu(features: TensorLike, name: str | None = None) -> Tensor:
    """``x`` where ``x > 0``, else ``exp(x) - 1``.

    >>> import finegrad as fg
    >>> fg.nn.elu(fg.constant([0., 2.])).numpy()
    array([0., 2.], dtype=float32)
    """
    x = convert_to_tensor(features)
    # expm1 of the clipped value: exp of a large positive x would overflow, and its inf times
    # the zero cotangent `where` sends to the unused branch would be nan
    return ew.where(x > 0, x, ew.expm1(ar.minimum(x, 0)))


def selu(features: TensorLike, name: str | None = None) -> Tensor:
    """``scale * elu(x)`` with ``alpha * scale`` on the negative side (self-normalizing).

    >>> import finegrad as fg
    >>> float(fg.nn.selu(fg.constant(1.)))  # doctest: +ELLIPSIS
    1.05070...
    """
    x = convert_to_tensor(features)
    return _SELU_SCALE * ew.where(x > 0, x, _SELU_ALPHA * ew.expm1(ar.minimum(x, 0)))


def gelu(features: TensorLike, approximate: bool = False, name: str | None = None) -> Tensor:
    """The Gaussian error linear unit ``x * Phi(x)``.

    With ``approximate=True``, TensorFlow's tanh approximation
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``; otherwise the exact form
    ``0.5 x (1 + erf(x / sqrt(2)))`` (TensorFlow's default), computed as
    ``0.5 x erfc(-x / sqrt(2))``, accurate also for large negative x.

    >>> import finegrad as fg
    >>> round(float(fg.nn.gelu(fg.constant(1.), approximate=True)), 5)
    0.84119
    >>> round(float(fg.nn.gelu(fg.constant(1.))), 5)
    0.84134
    """
    x = convert_to_tensor(features)
    if approximate:
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1 + ew.tanh(inner))
    # 1 + erf(t) written erfc(-t): no cancellation for large negative x
    return 0.5 * x * erfc(x * (-1 / math.sqrt(2)))


def silu(features: TensorLike, beta: float = 1.0, name: str | None = None) -> Tensor:
    """``x * sigmoid(beta * x)`` (also called swish).

    >>> import finegrad as fg
    >>> round(float(fg.nn.silu(fg.constant(1.))), 5)
    0.73106
    """
    x = convert_to_tensor(features)
    return x * ew.sigmoid(x * beta if beta != 1.0 else x)


swish = silu


def crelu(features: TensorLike, name: str | None = None, axis: int = -1) -> Tensor:
    """``concat([relu(x), relu(-x)], axis)``: the positive and negative parts side by side
    (signed integers too, in their dtype, as TensorFlow).

    >>> import finegrad as fg
    >>> fg.nn.crelu(fg.constant([[-1., 2.]])).numpy()
    array([[0., 2., 1., 0.]], dtype=float32)
    """
    x = convert_to_tensor(features)
    return concat([ew.relu(x), ew.relu(ar.negative(x))], axis)


def relu6(features: TensorLike, name: str | None = None) -> Tensor:
    """``min(max(x, 0), 6)``.

    >>> import finegrad as fg
    >>> fg.nn.relu6(fg.constant([-1., 3., 9.])).numpy()
    array([0., 3., 6.], dtype=float32)
    """
    x = convert_to_tensor(features)
    return ar.minimum(ew.relu(x), 6)
