"""Binary arithmetic with NumPy broadcasting: add, subtract, multiply, divide, floordiv, mod,
pow, maximum, minimum, negative and clip_by_value, each primitive with its JVP and VJP rule.

VJPs undo broadcasting with `unbroadcast`; complex inputs follow TensorFlow's convention (the
cotangent meets the conjugate of the other factor). Built on the unary ops, `where` and the
selection helper of `ops/math/elementwise.py`, which imports nothing from here.
"""

from __future__ import annotations

import operator

import numpy as np

from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.dtypes import INEXACT_SCALARS
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.array.structural import unbroadcast
from finegrad._src.ops.zeros_and_axes import instantiate_zeros
from finegrad._src.ops.declare import sum_tangents
from finegrad._src.ops.math.complex_numbers import conj_if_complex, ordered
from finegrad._src.ops.math.elementwise import _route, equal, floor, log, not_equal, where
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


# ---- binary arithmetic ------------------------------------------------------------------------

add_p = Primitive("add", batch_rule=True, kernel=np.add,
                  numexpr="{0} + {1}", lower_jax="add")


_BOOL = np.dtype(np.bool_)   # (a singleton: an identity check costs nothing on the hot path)


def _no_bools(name, *vals):
    """TensorFlow has no bool kernel for arithmetic; NumPy would give int8 (``//``, ``%``,
    ``**``), float64 (``/``) or a logical and (``*``): refuse, naming the op."""
    if any(getattr(v, "dtype", None) is _BOOL for v in vals):
        raise TypeError(f"finegrad.{name}: not defined for bool tensors (as in TensorFlow); "
                        f"cast them first, e.g. finegrad.cast(x, finegrad.int32), or use "
                        f"finegrad.logical_and / logical_or")


def add(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise x + y with broadcasting. Primitive ``add``.

    >>> import finegrad as fg
    >>> fg.add(fg.constant([1., 2.]), 1.).numpy()
    array([2., 3.], dtype=float32)
    """
    out = bind(add_p, x, y)
    if out._value.dtype is _BOOL:   # NumPy's bool + is a logical or; TensorFlow refuses
        raise TypeError("finegrad.add: not defined for bool tensors (as in TensorFlow); use "
                        "finegrad.logical_or, or cast to a number first")
    return out


add_p.def_impl(operator.add)   # x + y, without a Python frame per call
add_p.def_jvp(lambda primals, tangents, *, out: sum_tangents(tangents, out))


@add_p.def_vjp
def _add_vjp(ct, x, y, *, out, needs, batch):
    """VJP of add: ct to both, summed over broadcast axes."""
    return (unbroadcast(ct, x, batch) if needs[0] else None,
            unbroadcast(ct, y, batch) if needs[1] else None)


subtract_p = Primitive("subtract", batch_rule=True, kernel=np.subtract, lower_jax="subtract",
                       numexpr="{0} - {1}")


def subtract(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise x - y with broadcasting. Primitive ``subtract``.

    >>> import finegrad as fg
    >>> fg.subtract(3., fg.constant([1., 2.])).numpy()
    array([2., 1.], dtype=float32)
    """
    return bind(subtract_p, x, y)


subtract_p.def_impl(operator.sub)   # x - y
@subtract_p.def_jvp
def _subtract_jvp(primals, tangents, *, out):
    x_dot, y_dot = tangents
    if x_dot is not None and y_dot is not None:
        return sum_tangents((x_dot - y_dot,), out)
    return sum_tangents((x_dot, None if y_dot is None else -y_dot), out)


@subtract_p.def_vjp
def _subtract_vjp(ct, x, y, *, out, needs, batch):
    """VJP of subtract: (ct, -ct), unbroadcast."""
    return (unbroadcast(ct, x, batch) if needs[0] else None,
            unbroadcast(-ct, y, batch) if needs[1] else None)


multiply_p = Primitive("multiply", batch_rule=True, kernel=np.multiply, lower_jax="multiply",
                       numexpr="{0} * {1}")


def multiply(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise x * y with broadcasting. Primitive ``multiply``.

    >>> import finegrad as fg
    >>> fg.multiply(fg.constant([1., 2.]), 3.).numpy()
    array([3., 6.], dtype=float32)
    """
    out = bind(multiply_p, x, y)
    if out._value.dtype is _BOOL:   # NumPy's bool * is a logical and; TensorFlow refuses
        _no_bools("multiply", out._value)
    return out


def _is_broadcast_one(a, like):
    """An all-stride-0 array of ones shaped like ``like`` (the default cotangent seed)."""
    return type(a) is np.ndarray and not any(a.strides) and a.shape == np.shape(like) and \
        a.dtype == like.dtype and a.size > 0 and a.flat[0] == 1


@multiply_p.def_impl
def _multiply_impl(x, y):
    # multiplying by a broadcast one (a seed cotangent) is a no-op: skip a pass over memory
    if type(y) is np.ndarray and _is_broadcast_one(y, x):
        return x
    if type(x) is np.ndarray and _is_broadcast_one(x, y):
        return y
    # a broadcast scalar times a scalar stays a broadcast scalar (reverse passes scale the
    # seed by constants: 100 * ones is no reason to fill 10^5 elements)
    if type(x) is np.ndarray and np.ndim(y) == 0 and x.size and not any(x.strides):
        return np.broadcast_to(x.flat[0] * y, x.shape)
    if type(y) is np.ndarray and np.ndim(x) == 0 and y.size and not any(y.strides):
        return np.broadcast_to(x * y.flat[0], y.shape)
    return x * y


@multiply_p.def_jvp
def _multiply_jvp(primals, tangents, *, out):
    (x, y), (x_dot, y_dot) = primals, tangents
    return sum_tangents((None if x_dot is None else x_dot * y,
                          None if y_dot is None else x * y_dot), out)


@multiply_p.def_vjp
def _multiply_vjp(ct, x, y, *, out, needs, batch):
    """VJP of multiply: (ct * conj(y), ct * conj(x)), unbroadcast."""
    return (unbroadcast(ct * conj_if_complex(y), x, batch) if needs[0] else None,
            unbroadcast(ct * conj_if_complex(x), y, batch) if needs[1] else None)


divide_p = Primitive("divide", batch_rule=True, kernel=np.true_divide,
                     numexpr="{0} / {1}")


def divide(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise x / y. Integers divide to float64, as TensorFlow's ``/`` does.

    Primitive ``divide``.

    >>> import finegrad as fg
    >>> fg.divide(fg.constant([1., 2.]), 4.).numpy()
    array([0.25, 0.5 ], dtype=float32)
    """
    return bind(divide_p, x, y)


@divide_p.def_impl
def _divide_impl(x, y):
    if type(x) not in INEXACT_SCALARS and x.dtype.kind in "iub":
        _no_bools("divide", x, y)
        return np.true_divide(x, y, dtype=np.float64)
    return x / y


@divide_p.def_lowering
def _divide_lower(x, y):
    import jax.numpy as jnp
    if x.dtype.kind in "iub":   # as the impl: integers divide as float64
        return jnp.true_divide(x.astype(jnp.float64), y.astype(jnp.float64))
    return x / y


@divide_p.def_jvp
def _divide_jvp(primals, tangents, *, out):
    (_, y), (x_dot, y_dot) = primals, tangents
    num = sum_tangents((x_dot, None if y_dot is None else -(out * y_dot)), None)
    return sum_tangents((num / y,), out)


@divide_p.def_vjp
def _divide_vjp(ct, x, y, *, out, needs, batch):
    """VJP of divide: (ct / conj(y), -ct * conj(out / y)), unbroadcast."""
    g = ct / conj_if_complex(y)
    return (unbroadcast(g, x, batch) if needs[0] else None,
            unbroadcast(-g * conj_if_complex(out), y, batch) if needs[1] else None)


def _checked_int_division(ufunc, name):
    """``ufunc`` (a kernel, with its ``out=``) that refuses an integer division by zero with
    TensorFlow's InvalidArgumentError, where NumPy would silently give 0."""
    def kernel(x, y, out=None):
        _no_bools(name, x, y)
        if getattr(y, "dtype", None) is not None and y.dtype.kind in "iu" and not np.all(y):
            raise InvalidArgumentError(f"finegrad.{name}: integer division by zero (as in "
                                       f"TensorFlow; cast to a float dtype for inf/nan)")
        return ufunc(x, y, out=out)
    kernel.__name__ = f"checked_{ufunc.__name__}"
    return kernel


_floordiv_kernel = _checked_int_division(np.floor_divide, "floordiv")
floordiv_p = def_nondiff(Primitive("floordiv", kernel=_floordiv_kernel))


def floordiv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise floor(x / y) (Python's ``//``); not differentiable. Primitive ``floordiv``.

    An integer division by zero raises `finegrad.errors.InvalidArgumentError`, as in
    TensorFlow (NumPy would return 0); floats follow IEEE (inf or nan). ``x / y`` of integers
    divides as float64 and gives inf there, as TensorFlow's ``truediv``.

    >>> import finegrad as fg
    >>> fg.math.floordiv(fg.constant([7, -7]), 2).numpy()
    array([ 3, -4], dtype=int32)
    """
    return bind(floordiv_p, x, y)


floordiv_p.def_impl(_floordiv_kernel)


@floordiv_p.def_lowering
def _floordiv_lower(x, y):
    import jax.numpy as jnp
    if x.dtype.kind not in "fc":   # an integer division by zero must raise: on the host
        return NotImplemented
    return jnp.floor_divide(x, y)

_mod_kernel = _checked_int_division(np.mod, "floormod")
mod_p = Primitive("floormod", batch_rule=True, kernel=_mod_kernel)


def mod(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise remainder with the sign of ``y`` (Python's ``%``). Primitive ``floormod``.

    Gradient: 1 for x and -floor(x / y) for y, as in TensorFlow. An integer ``y`` of 0 raises
    `finegrad.errors.InvalidArgumentError`, as in TensorFlow.

    >>> import finegrad as fg
    >>> fg.math.floormod(fg.constant([7., -7.]), 3.).numpy()
    array([1., 2.], dtype=float32)
    """
    return bind(mod_p, x, y)


mod_p.def_impl(_mod_kernel)


@mod_p.def_lowering
def _mod_lower(x, y):
    import jax.numpy as jnp
    if x.dtype.kind not in "fc":   # an integer division by zero must raise: on the host
        return NotImplemented
    return jnp.remainder(x, y)


@mod_p.def_jvp
def _mod_jvp(primals, tangents, *, out):
    (x, y), (x_dot, y_dot) = primals, instantiate_zeros(primals, tangents)
    return x_dot - floor(x / y) * y_dot


@mod_p.def_vjp
def _mod_vjp(ct, x, y, *, out, needs, batch):
    """VJP of floormod: (ct, -ct * floor(x / y)), unbroadcast."""
    return unbroadcast(ct, x, batch), unbroadcast(-ct * floor(x / y), y, batch)


pow_p = Primitive("pow", batch_rule=True, elementwise=True, fresh=True)


def pow(x: TensorLike, y: Any,  # TensorFlow's public name
        name: str | None = None) -> Tensor:
    """Elementwise x ** y. Primitive ``pow``; ``pow_scalar`` when ``y`` is a Python number and
    ``x`` is floating (a simpler rule: y * x**(y-1), as JAX's integer_pow).

    Gradient for y is out * log(x) where x > 0 and 0 elsewhere (TensorFlow's choice, which
    keeps ``x ** 2`` finite at negative x).

    >>> import finegrad as fg
    >>> fg.pow(fg.constant([2., 3.]), 2.).numpy()
    array([4., 9.], dtype=float32)
    """
    if type(y) in (int, float) and (type(x) is Tensor and x._value.dtype.kind == "f"):
        return pow_scalar(x, float(y))
    return bind(pow_p, x, y)


pow_scalar_p = Primitive("pow_scalar", batch_rule=True, elementwise=True, fresh=True)


def pow_scalar(x, y):
    """x ** y for a Python-number exponent ``y`` (primitive ``pow_scalar``)."""
    if y == 1.0:
        return x
    return bind(pow_scalar_p, x, y=y)


@pow_scalar_p.def_impl
def _pow_scalar_impl(x, *, y):
    return np.square(x) if y == 2.0 else np.power(x, x.dtype.type(y))


@pow_scalar_p.def_lowering
def _pow_scalar_lower(x, *, y):
    import jax.numpy as jnp
    # an array exponent (lax.pow), as NumPy's power; a Python int would be integer_pow
    return jnp.square(x) if y == 2.0 else jnp.power(x, jnp.asarray(y, x.dtype))


def _pow_scalar_deriv(x, y):
    # d/dx x**y = y * x**(y-1), with the y = 0 and y = 1 cases exact (no 0 * inf at x = 0)
    if y == 0.0:
        return x * 0
    if y == 1.0:
        return None
    return pow_scalar(x, y - 1) * y


@pow_scalar_p.def_jvp
def _pow_scalar_jvp(primals, tangents, *, out, y):
    d = _pow_scalar_deriv(primals[0], y)
    return tangents[0] if d is None else tangents[0] * d


@pow_scalar_p.def_vjp
def _pow_scalar_vjp(ct, x, *, out, needs, batch, y):
    """VJP of pow_scalar: ct * y * x**(y-1)."""
    d = _pow_scalar_deriv(x, y)
    return (ct if d is None else ct * d,)


@pow_p.def_impl
def _pow_impl(x, y):
    _no_bools("pow", x, y)
    if x.dtype.kind in "iu" and np.any(np.asarray(y) < 0):
        raise ValueError("finegrad.pow: integers to negative integer powers are not allowed")
    return np.power(x, y)


@pow_p.def_lowering
def _pow_lower(x, y):
    import jax.numpy as jnp
    if x.dtype.kind in "iu":   # a negative exponent must raise: on the host
        return NotImplemented
    return jnp.power(x, y)


def _pow_dx(x, y):
    # y * x**(y-1), exact at y = 0 (where x**-1 would give 0 * inf = nan at x = 0)
    # (equal, not ==: in a TF1 graph == is identity, as TensorFlow 1's)
    return where(equal(y, 0), 0 * x, y * pow(x, y - 1))


def _pow_dy(x, out):
    if x._value.dtype.kind == "c":   # out * log(x), principal branch; 0 at x = 0
        nonzero = not_equal(x, 0)
        return where(nonzero, out * log(where(nonzero, x, 1 + 0 * x)), 0 * out)
    positive = x > 0
    return where(positive, out * log(where(positive, x, 1)), 0 * out)


@pow_p.def_jvp
def _pow_jvp(primals, tangents, *, out):
    (x, y), (x_dot, y_dot) = primals, instantiate_zeros(primals, tangents)
    return x_dot * _pow_dx(x, y) + y_dot * _pow_dy(x, out)


@pow_p.def_vjp
def _pow_vjp(ct, x, y, *, out, needs, batch):
    """VJP of pow: (ct * y * x**(y-1), ct * out * log(x)), unbroadcast."""
    if not x.dtype.is_differentiable:
        return None, None
    x, y, out = conj_if_complex(x), conj_if_complex(y), conj_if_complex(out)
    return (unbroadcast(ct * _pow_dx(x, y), x, batch) if needs[0] else None,
            unbroadcast(ct * _pow_dy(x, out), y, batch) if needs[1] else None)


maximum_p = Primitive("maximum", batch_rule=True, kernel=np.maximum, lower_jax="maximum")


def maximum(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise max. At ties the gradient goes to ``x`` (TensorFlow: x >= y).

    Primitive ``maximum``.

    >>> import finegrad as fg
    >>> fg.maximum(fg.constant([1., 5.]), 3.).numpy()
    array([3., 5.], dtype=float32)
    """
    return bind(maximum_p, x, y)


maximum_p.def_impl(ordered("maximum", np.maximum))


@maximum_p.def_jvp
def _maximum_jvp(primals, tangents, *, out):
    (x, y), (x_dot, y_dot) = primals, instantiate_zeros(primals, tangents)
    return where(x >= y, x_dot, y_dot)


@maximum_p.def_vjp
def _maximum_vjp(ct, x, y, *, out, needs, batch):
    """VJP of maximum: ct where x >= y to x, elsewhere to y."""
    return _route(ct, x >= y, x, y, needs, batch)


minimum_p = Primitive("minimum", batch_rule=True, kernel=np.minimum, lower_jax="minimum")


def minimum(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise min. At ties the gradient goes to ``x`` (TensorFlow: x <= y).

    Primitive ``minimum``.

    >>> import finegrad as fg
    >>> fg.minimum(fg.constant([1., 5.]), 3.).numpy()
    array([1., 3.], dtype=float32)
    """
    return bind(minimum_p, x, y)


minimum_p.def_impl(ordered("minimum", np.minimum))


@minimum_p.def_jvp
def _minimum_jvp(primals, tangents, *, out):
    (x, y), (x_dot, y_dot) = primals, instantiate_zeros(primals, tangents)
    return where(x <= y, x_dot, y_dot)


@minimum_p.def_vjp
def _minimum_vjp(ct, x, y, *, out, needs, batch):
    """VJP of minimum: ct where x <= y to x, elsewhere to y."""
    return _route(ct, x <= y, x, y, needs, batch)


negative_p = Primitive("negative", batch_rule=True, kernel=np.negative, lower_jax="negative",
                       numexpr="-{0}")


def negative(x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise -x. Primitive ``negative``.

    >>> import finegrad as fg
    >>> fg.negative(fg.constant(2.)).numpy()
    np.float32(-2.0)
    """
    return bind(negative_p, x)


negative_p.def_impl(np.negative)
negative_p.def_jvp(lambda primals, tangents, *, out: -tangents[0])
negative_p.def_vjp(lambda ct, x, *, out, needs, batch: (-ct,))


def clip_by_value(t: TensorLike, clip_value_min: Any, clip_value_max: Any,
                  name: str | None = None) -> Tensor:
    """Clip ``t`` to [min, max], as ``maximum(minimum(t, max), min)`` (TensorFlow's definition).

    The gradient reaches ``t`` where min <= t <= max (ties included) and the bounds elsewhere.

    >>> import finegrad as fg
    >>> fg.clip_by_value(fg.constant([-2., 0.5, 2.]), -1., 1.).numpy()
    array([-1. ,  0.5,  1. ], dtype=float32)
    """
    return maximum(minimum(t, clip_value_max), clip_value_min)
