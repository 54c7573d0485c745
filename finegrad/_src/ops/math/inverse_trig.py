"""Inverse hyperbolic functions (``acosh``, ``atanh``) and ``atan2``, with three small
elementwise names beside them: ``rint``, ``log_sigmoid`` and ``squared_difference``.

The unary primitives are declared through `ops.declare.unary` (float inputs, derivative
written with finegrad ops); ``rint`` is a rounding, not differentiable, as TensorFlow's;
``log_sigmoid`` is TensorFlow's composite ``-softplus(-x)``; ``squared_difference`` is the
composite ``(x - y) * (x - y)``, whose gradient ``2 (x - y) ct`` is TensorFlow's.
"""

from __future__ import annotations

import numpy as np

from finegrad._src.core import Primitive, bind
from finegrad._src.ops.declare import def_partials, float_only, unary
from finegrad._src.ops.math.arithmetic import multiply, negative, subtract
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.ops.math.complex_numbers import conj_if_complex
from finegrad._src.ops.math.elementwise import _rounding, rsqrt, softplus

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

acosh_p, acosh = unary("acosh", np.arccosh, lambda x, out: rsqrt(x * x - 1), """Elementwise
    inverse hyperbolic cosine (nan below 1); derivative 1 / sqrt(x**2 - 1).

    >>> import finegrad as fg
    >>> fg.math.acosh(fg.constant(1.)).numpy()
    np.float32(0.0)""")

atanh_p, atanh = unary("atanh", np.arctanh, lambda x, out: 1 / (1 - x * x), """Elementwise
    inverse hyperbolic tangent (nan outside [-1, 1]); derivative 1 / (1 - x**2).

    >>> import finegrad as fg
    >>> fg.math.atanh(fg.constant(0.)).numpy()
    np.float32(0.0)""")

rint_p, rint = _rounding("rint", np.rint, """Elementwise rounding to the nearest integer, half to
    even.

    >>> import finegrad as fg
    >>> fg.math.rint(fg.constant([0.5, 1.5, -1.7])).numpy()
    array([ 0.,  2., -2.], dtype=float32)""")


def log_sigmoid(x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise log(sigmoid(x)), computed as TensorFlow does: ``-softplus(-x)``, finite
    for large negative x; its gradient is sigmoid(-x). Real float inputs only (TypeError
    naming ``finegrad.log_sigmoid`` otherwise).

    >>> import finegrad as fg
    >>> fg.math.log_sigmoid(fg.constant(0.)).numpy()
    np.float32(-0.6931472)
    """
    x = convert_to_tensor(x)
    if np.dtype(x.dtype.as_numpy_dtype).kind != "f":
        float_only("log_sigmoid", np.empty(0, x.dtype.as_numpy_dtype), real=True)
    return negative(softplus(negative(x)))


def squared_difference(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise (x - y)**2, with broadcasting; gradient 2 (x - y) for x, -2 (x - y) for y.
    Numeric inputs of one dtype, integers included (as TensorFlow); for complex inputs
    ``(x - y) * conj(x - y)``, as TensorFlow (a complex tensor with real values).

    >>> import finegrad as fg
    >>> fg.math.squared_difference(fg.constant([1., 4.]), fg.constant(2.)).numpy()
    array([1., 4.], dtype=float32)
    """
    d = subtract(x, y)
    return multiply(d, conj_if_complex(d))   # complex: |x - y|^2 (TensorFlow's), not (x - y)^2


# ---- atan2(y, x): the angle of the point (x, y) ----------------------------------------------

atan2_p = Primitive("atan2", kernel=np.arctan2, batch_rule=True, lower_jax="arctan2")


def atan2(y: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise angle of the point ``(x, y)`` in ``[-pi, pi]`` (note the order: ``y``
    first, as TensorFlow and NumPy), with broadcasting; real floats of one dtype. Gradients
    ``x / (x^2 + y^2)`` for ``y`` and ``-y / (x^2 + y^2)`` for ``x`` (nan at the origin, as
    TensorFlow's). Primitive ``atan2``.

    >>> import finegrad as fg
    >>> fg.math.atan2(fg.constant([1., -1.]), fg.constant([0., 0.])).numpy()
    array([ 1.5707964, -1.5707964], dtype=float32)
    """
    return bind(atan2_p, y, x)


@atan2_p.def_impl
def _atan2_impl(y, x):
    for v in (y, x):
        if np.dtype(v.dtype).kind != "f":
            float_only("atan2", v, real=True)
    return np.arctan2(y, x)


@def_partials(atan2_p)
def _atan2_partials(y, x, *, out):
    """x / (x^2 + y^2) for y, -y / (x^2 + y^2) for x."""
    inv = 1 / (x * x + y * y)
    return x * inv, -y * inv
