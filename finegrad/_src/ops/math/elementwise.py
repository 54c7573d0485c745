"""Elementwise primitives of one input (and `where`, the comparisons and predicates), each
with its JVP and VJP rule; binary arithmetic is in `ops/math/arithmetic.py`, built on these.

Unary ops with a simple derivative are declared in one line each through `declare.unary`, which
takes the derivative ``d(x, out)`` written with finegrad ops: the JVP is ``x_dot * d`` and the
VJP ``ct * d``. `where` undoes broadcasting in its VJP with `unbroadcast`. Subgradients at
kinks are chosen as TensorFlow chooses them and documented beside each rule. For complex
inputs the VJPs multiply by the conjugate derivative, TensorFlow's convention (see
`ops.math.complex_numbers`); the JVPs are unchanged.
"""

from __future__ import annotations

import numpy as np

from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.ops.array.structural import unbroadcast, cast, convert_to_tensor, zeros_like
from finegrad._src.ops.zeros_and_axes import zeros_cotangent, instantiate_zeros
from finegrad._src.ops.declare import unary
from finegrad._src.ops.array.boolean_mask import true_coordinates
from finegrad._src.ops.math.complex_numbers import conj_if_complex, ordered, real
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from collections.abc import Callable
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


exp_p, exp = unary("exp", np.exp, lambda x, out: out, """Elementwise e**x.

    >>> import finegrad as fg
    >>> fg.exp(fg.constant(0.)).numpy()
    np.float32(1.0)""", numexpr="exp({0})")

expm1_p, expm1 = unary("expm1", np.expm1, lambda x, out: out + 1, """Elementwise e**x - 1,
    accurate near 0.

    >>> import finegrad as fg
    >>> float(fg.math.expm1(fg.constant(1e-10, fg.float64)))
    1.00000000005e-10""", numexpr="expm1({0})")

log_p, log = unary("log", np.log, lambda x, out: 1 / x, """Elementwise natural logarithm.

    >>> import finegrad as fg
    >>> fg.math.log(fg.constant(1.)).numpy()
    np.float32(0.0)""", numexpr="log({0})", scale=lambda g, x, out: g / x)

log1p_p, log1p = unary("log1p", np.log1p, lambda x, out: 1 / (1 + x), """Elementwise
    log(1 + x), accurate near 0.

    >>> import finegrad as fg
    >>> float(fg.math.log1p(fg.constant(1e-10, fg.float64)))
    9.99999999950...e-11""", numexpr="log1p({0})")

def _unless_zero(deriv):
    """``g * deriv(x, out)``, but exactly 0 where ``g`` is 0 even if the derivative is inf or
    nan: TensorFlow's gradient kernels of sqrt, rsqrt and reciprocal (mul_no_nan with the
    upstream gradient). With `where`'s zero cotangent for the branch not taken, this is what
    makes ``where(x > 0, sqrt(x), 0.)`` have gradient 0 at x = -1, as in TensorFlow."""
    def scale(g, x, out):
        return where(equal(g, 0), g, g * deriv(x, out))
    return scale


def _rsqrt_lower(x):
    import jax.numpy as jnp
    return 1 / jnp.sqrt(x)   # as the impl (lax.rsqrt may round differently)


def _reciprocal_lower(x):
    return 1 / x


sqrt_p, sqrt = unary("sqrt", np.sqrt, lambda x, out: 0.5 / out, """Elementwise square root.

    Its gradient at 0 is inf, as in TensorFlow; where the upstream gradient is 0 it is 0
    (TensorFlow's kernel), so a `where` that does not take the ``sqrt`` branch gives gradient
    0 even at x < 0. For a finite gradient at 0 use finegrad.stable.safe_sqrt, or the
    double-where idiom ``where(x > 0, sqrt(where(x > 0, x, 1.)), 0.)``.

    >>> import finegrad as fg
    >>> fg.sqrt(fg.constant(4.)).numpy()
    np.float32(2.0)""", numexpr="sqrt({0})", scale=_unless_zero(lambda x, out: 0.5 / out))

rsqrt_p, rsqrt = unary("rsqrt", lambda x: 1 / np.sqrt(x), lambda x, out: -0.5 * out * out * out,
                        """Elementwise 1 / sqrt(x) (gradient 0 where the upstream gradient is
    0, as TensorFlow's kernel).

    >>> import finegrad as fg
    >>> fg.math.rsqrt(fg.constant(4.)).numpy()
    np.float32(0.5)""", scale=_unless_zero(lambda x, out: -0.5 * out * out * out),
                        lower=_rsqrt_lower)

reciprocal_p, reciprocal = unary("reciprocal", lambda x: 1 / x, lambda x, out: -(out * out),
                                  """Elementwise 1 / x (gradient 0 where the upstream gradient
    is 0, as TensorFlow's kernel).

    >>> import finegrad as fg
    >>> fg.math.reciprocal(fg.constant(4.)).numpy()
    np.float32(0.25)""", scale=_unless_zero(lambda x, out: -(out * out)),
                                  lower=_reciprocal_lower)

sin_p, sin = unary("sin", np.sin, lambda x, out: cos(x), """Elementwise sine.

    >>> import finegrad as fg
    >>> fg.sin(fg.constant(0.)).numpy()
    np.float32(0.0)""", numexpr="sin({0})")

cos_p, cos = unary("cos", np.cos, lambda x, out: -sin(x), """Elementwise cosine.

    >>> import finegrad as fg
    >>> fg.cos(fg.constant(0.)).numpy()
    np.float32(1.0)""", numexpr="cos({0})")

tan_p, tan = unary("tan", np.tan, lambda x, out: 1 + out * out, """Elementwise tangent.

    >>> import finegrad as fg
    >>> fg.tan(fg.constant(0.)).numpy()
    np.float32(0.0)""")

tanh_p, tanh = unary("tanh", np.tanh, lambda x, out: 1 - out * out, """Elementwise
    hyperbolic tangent.

    >>> import finegrad as fg
    >>> fg.tanh(fg.constant(0.)).numpy()
    np.float32(0.0)""", numexpr="tanh({0})", scale=lambda g, x, out: tanh_grad(out, g))

sinh_p, sinh = unary("sinh", np.sinh, lambda x, out: cosh(x), """Elementwise hyperbolic sine.

    >>> import finegrad as fg
    >>> fg.math.sinh(fg.constant(0.)).numpy()
    np.float32(0.0)""")

cosh_p, cosh = unary("cosh", np.cosh, lambda x, out: sinh(x), """Elementwise hyperbolic
    cosine.

    >>> import finegrad as fg
    >>> fg.math.cosh(fg.constant(0.)).numpy()
    np.float32(1.0)""")

asin_p, asin = unary("asin", np.arcsin, lambda x, out: rsqrt(1 - x * x), """Elementwise
    arcsine.

    >>> import finegrad as fg
    >>> fg.math.asin(fg.constant(0.)).numpy()
    np.float32(0.0)""")

acos_p, acos = unary("acos", np.arccos, lambda x, out: -rsqrt(1 - x * x), """Elementwise
    arccosine.

    >>> import finegrad as fg
    >>> float(fg.math.acos(fg.constant(0.)))
    1.5707963...""")

atan_p, atan = unary("atan", np.arctan, lambda x, out: 1 / (1 + x * x), """Elementwise
    arctangent.

    >>> import finegrad as fg
    >>> fg.math.atan(fg.constant(0.)).numpy()
    np.float32(0.0)""")

asinh_p, asinh = unary("asinh", np.arcsinh, lambda x, out: rsqrt(x * x + 1), """Elementwise
    inverse hyperbolic sine.

    >>> import finegrad as fg
    >>> fg.math.asinh(fg.constant(0.)).numpy()
    np.float32(0.0)""")


def _sigmoid_impl(x):
    # 1/(1+exp(-x)) is exact in IEEE arithmetic at both ends: exp(-x) = inf gives 0, not nan
    return 1 / (1 + np.exp(-x))


def _sigmoid_lower(x):
    import jax.numpy as jnp
    return 1 / (1 + jnp.exp(-x))


def _softplus_lower(x):
    import jax.numpy as jnp
    return jnp.logaddexp(jnp.zeros((), x.dtype), x)


sigmoid_p, sigmoid = unary("sigmoid", _sigmoid_impl, lambda x, out: out * (1 - out),
                            """Elementwise logistic function 1 / (1 + exp(-x)).

    >>> import finegrad as fg
    >>> fg.sigmoid(fg.constant(0.)).numpy()
    np.float32(0.5)""", scale=lambda g, x, out: sigmoid_grad(out, g),
                            lower=_sigmoid_lower)

softplus_p, softplus = unary("softplus", lambda x: np.logaddexp(x.dtype.type(0), x),
                              lambda x, out: sigmoid(x), """Elementwise log(1 + exp(x)),
    computed without overflow; its gradient is sigmoid(x).

    >>> import finegrad as fg
    >>> fg.math.softplus(fg.constant(100.)).numpy()
    np.float32(100.0)""", features=True, real=True, lower=_softplus_lower)

square_p, square = unary("square", np.square, lambda x, out: 2 * x, """Elementwise x * x.

    >>> import finegrad as fg
    >>> fg.square(fg.constant(3.)).numpy()
    np.float32(9.0)

    Integers are squared in their own dtype (wrapping on overflow, as TensorFlow's kernel);
    they get no gradient.""", numexpr="{0} * {0}", scale=lambda g, x, out: (g * 2) * x,
                         ints=True)
# (g * 2) * x rather than g * (2 * x): the same two passes in general, one when g is a
# broadcast scalar (a scaled seed), since g * 2 then stays a broadcast scalar


def _relu_impl(x):
    return np.maximum(x, x.dtype.type(0))


def _relu_lower(x):
    import jax.numpy as jnp
    return jnp.maximum(x, jnp.zeros((), x.dtype))


# relu's subgradient at 0 is 0, as in TensorFlow's ReluGrad (which tests features > 0)
relu_p, relu = unary("relu", _relu_impl, lambda x, out: cast(x > 0, x.dtype),
                      """Elementwise max(x, 0); the gradient at 0 is 0 (as in TensorFlow).

    >>> import finegrad as fg
    >>> fg.nn.relu(fg.constant([-1., 2.])).numpy()
    array([0., 2.], dtype=float32)

    Integer inputs give their own dtype (as TensorFlow's kernel); they get no gradient.""",
                      features=True, real=True, lower=_relu_lower, ints=True)

# ---- fused derivatives (TensorFlow's TanhGrad and SigmoidGrad): one op, not three ------------

def _tanh_grad_kernel(y, g, out=None):
    """g * (1 - y * y) with one temporary, written into ``out`` when given."""
    t = np.multiply(y, y)
    if type(t) is not np.ndarray:   # a scalar y: no buffer of ours to reuse
        return g * (1 - t) if out is None else np.multiply(g, 1 - t, out=out)
    np.subtract(1, t, out=t)
    return np.multiply(g, t, out=t if out is None and t.shape == np.shape(g) else out)


tanh_grad_p = Primitive("tanh_grad", batch_rule=True, kernel=_tanh_grad_kernel,
                        numexpr="{1} * (1 - {0} * {0})", lower_jax=lambda y, g: g * (1 - y * y))


def tanh_grad(y: TensorLike, g: Any) -> Tensor:
    """g * (1 - y * y), the gradient of tanh given its output ``y`` (primitive ``tanh_grad``).

    >>> import finegrad as fg
    >>> fg.math.tanh_grad(fg.constant(0.5), fg.constant(2.)).numpy()
    np.float32(1.5)
    """
    return bind(tanh_grad_p, y, g)


tanh_grad_p.def_impl(lambda y, g: g * (1 - y * y))


@tanh_grad_p.def_jvp
def _tanh_grad_jvp(primals, tangents, *, out):
    (y, g), (y_dot, g_dot) = primals, instantiate_zeros(primals, tangents)
    return tanh_grad(y, g_dot) - 2 * y * g * y_dot


@tanh_grad_p.def_vjp
def _tanh_grad_vjp(ct, y, g, *, out, needs, batch):
    """VJP of tanh_grad: (-2 y g ct, (1 - y^2) ct) (y, g conjugated if complex), unbroadcast."""
    y, g = conj_if_complex(y), conj_if_complex(g)
    return (unbroadcast(-2 * y * g * ct, y, batch),
            unbroadcast(tanh_grad(y, ct), g, batch))


def _sigmoid_grad_kernel(y, g, out=None):
    """g * (y * (1 - y)) with one temporary, written into ``out`` when given."""
    t = np.subtract(1, y)
    if type(t) is not np.ndarray:   # a scalar y: no buffer of ours to reuse
        return g * (y * t) if out is None else np.multiply(g, y * t, out=out)
    np.multiply(y, t, out=t)
    return np.multiply(g, t, out=t if out is None and t.shape == np.shape(g) else out)


sigmoid_grad_p = Primitive("sigmoid_grad", batch_rule=True, kernel=_sigmoid_grad_kernel,
                           numexpr="{1} * ({0} * (1 - {0}))",
                           lower_jax=lambda y, g: g * (y * (1 - y)))


def sigmoid_grad(y: TensorLike, g: Any) -> Tensor:
    """g * y * (1 - y), the gradient of sigmoid given its output ``y`` (``sigmoid_grad``).

    >>> import finegrad as fg
    >>> fg.math.sigmoid_grad(fg.constant(0.5), fg.constant(2.)).numpy()
    np.float32(0.5)
    """
    return bind(sigmoid_grad_p, y, g)


sigmoid_grad_p.def_impl(lambda y, g: g * (y * (1 - y)))


@sigmoid_grad_p.def_jvp
def _sigmoid_grad_jvp(primals, tangents, *, out):
    (y, g), (y_dot, g_dot) = primals, instantiate_zeros(primals, tangents)
    return sigmoid_grad(y, g_dot) + g * (1 - 2 * y) * y_dot


@sigmoid_grad_p.def_vjp
def _sigmoid_grad_vjp(ct, y, g, *, out, needs, batch):
    """VJP of sigmoid_grad: (g (1 - 2y) ct, y (1 - y) ct) (y, g conjugated if complex),
    unbroadcast."""
    y, g = conj_if_complex(y), conj_if_complex(g)
    return (unbroadcast(g * (1 - 2 * y) * ct, y, batch),
            unbroadcast(sigmoid_grad(y, ct), g, batch))


# ---- abs and sign: kinks at 0 ----------------------------------------------------------------

abs_p = Primitive("abs", batch_rule=True, kernel=np.abs, lower_jax="abs")


def abs(x: TensorLike, name: str | None = None) -> Tensor:  # TensorFlow's public name
    """Elementwise absolute value; the subgradient at 0 is 0 (sign(0)), as in TensorFlow.

    Primitive ``abs``.

    >>> import finegrad as fg
    >>> fg.abs(fg.constant([-2, 3])).numpy()
    array([2, 3], dtype=int32)

    Raises:
        TypeError: for a bool tensor (TensorFlow has no bool kernel).
    """
    value = x._value if isinstance(x, Tensor) else x if isinstance(
        x, (bool, np.bool_, np.ndarray, list, tuple)) else None
    if value is not None and np.asarray(value).dtype == np.bool_:
        raise TypeError("finegrad.abs: not defined for inputs of dtype bool")
    return bind(abs_p, x)


abs_p.def_impl(np.abs)


def _complex_sign(x, out):
    """x / |x|, and 0 at 0 (TensorFlow's ComplexAbs gradient uses div_no_nan); differentiable
    again, so second derivatives of |z| are right away from 0."""
    return x / cast(where(out == 0, 1 + 0 * out, out), x._value.dtype)


@abs_p.def_jvp
def _abs_jvp(primals, tangents, *, out):
    (x,), (x_dot,) = primals, tangents
    if x._value.dtype.kind == "c":
        return real(conj_if_complex(_complex_sign(x, out)) * x_dot)
    return x_dot * sign(x)


@abs_p.def_vjp
def _abs_vjp(ct, x, *, out, needs, batch):
    """VJP of abs: ct * sign(x); for complex x, ct * x / |x| (0 at 0), as TensorFlow's."""
    if x._value.dtype.kind == "c":
        return (cast(ct, x._value.dtype) * _complex_sign(x, out),)
    return (ct * sign(x),)

sign_p = Primitive("sign", batch_rule=True, kernel=np.sign, lower_jax="sign")


def sign(x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise -1, 0 or 1; its gradient is 0 everywhere (TensorFlow's choice).

    Primitive ``sign``.

    >>> import finegrad as fg
    >>> fg.sign(fg.constant([-2., 0., 3.])).numpy()
    array([-1.,  0.,  1.], dtype=float32)
    """
    return bind(sign_p, x)


sign_p.def_impl(np.sign)
sign_p.def_jvp(lambda primals, tangents, *, out: tangents[0] * 0)
sign_p.def_vjp(lambda ct, x, *, out, needs, batch: (zeros_cotangent(x, batch),))


def _rounding(name: Any, impl: Any, doc: Any) -> tuple[Primitive, Callable[..., Tensor]]:
    prim = def_nondiff(Primitive(name, kernel=impl if isinstance(impl, np.ufunc) else None,
                                 elementwise=True, lower_jax=impl.__name__))   # jnp's name
    prim.def_impl(impl)

    def op(x: TensorLike, name: str | None = None) -> Tensor:
        return bind(prim, x)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + f"\n\n    Primitive ``{name}``; not differentiable (gradient None).\n"
    return prim, op


floor_p, floor = _rounding("floor", np.floor, """Elementwise floor.

    >>> import finegrad as fg
    >>> fg.floor(fg.constant(1.5)).numpy()
    np.float32(1.0)""")
ceil_p, ceil = _rounding("ceil", np.ceil, """Elementwise ceiling.

    >>> import finegrad as fg
    >>> fg.math.ceil(fg.constant(1.5)).numpy()
    np.float32(2.0)""")
round_p, round = _rounding("round", np.round, """Elementwise rounding, half to even.

    >>> import finegrad as fg
    >>> fg.round(fg.constant([0.5, 1.5])).numpy()
    array([0., 2.], dtype=float32)""")


# ---- where (select), and the cotangents of a selection -----------------------------------------

where_p = Primitive("select", unify=(1, 2), batch_rule=True, elementwise=True, fresh=True,
                   lower_jax="where")


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Elementwise ``x`` where ``condition`` else ``y``, with broadcasting (primitive ``select``).

    With only ``condition``, the int64 coordinates of its true (for a numeric condition,
    nonzero) entries, shape ``(count, rank)`` (not differentiable). With ``x`` and ``y`` the
    condition must be bool, as TensorFlow's ``SelectV2``. The count depends on the values: inside
    `finegrad.function` a call with another count than the traced one runs eagerly, and a
    TF1 `Session` run raises InvalidArgumentError (it has no Python to run again).

    >>> import finegrad as fg
    >>> fg.where(fg.constant([True, False]), 1., 2.).numpy()
    array([1., 2.], dtype=float32)
    """
    c = condition if type(condition) is Tensor else convert_to_tensor(condition)
    kind = c._value.dtype.kind
    if x is None and y is None:   # its shape depends on the values (see boolean_mask.py)
        if kind not in "biufc":
            raise InvalidArgumentError(f"finegrad.where: condition must be a bool or numeric "
                                       f"tensor, got {c.dtype.name}")
        return true_coordinates(c if kind == "b" else not_equal(c, zeros_like(c)))
    if kind != "b":
        raise InvalidArgumentError(f"finegrad.where: with x and y, condition must be bool "
                                   f"(as TensorFlow's SelectV2), got {c.dtype.name}; compare "
                                   f"it first, e.g. finegrad.not_equal(condition, 0)")
    if x is None or y is None:
        raise ValueError("finegrad.where: give both x and y, or neither")
    try:
        return bind(where_p, c, x, y)
    except ValueError as e:   # named for the public function, not its primitive (select)
        if str(e).startswith("finegrad.select: incompatible inputs"):
            raise ValueError(f"finegrad.where: condition, x and y must broadcast together, "
                             f"got shapes {np.shape(c._value)}, {np.shape(_value_of(x))} and "
                             f"{np.shape(_value_of(y))}") from None
        raise


def _value_of(v):
    return v._value if isinstance(v, Tensor) else np.asarray(v)


where_p.def_impl(np.where)


@where_p.def_jvp
def _where_jvp(primals, tangents, *, out):
    x_dot, y_dot = tangents[1], tangents[2]
    zero = zeros_like(out) if x_dot is None or y_dot is None else None  # 0 * inf would be nan
    return where(primals[0], zero if x_dot is None else x_dot, zero if y_dot is None else y_dot)


@where_p.def_vjp
def _where_vjp(ct, c, x, y, *, out, needs, batch):
    """VJP of select: ct where c to x, ct where not c to y; none for the condition."""
    return (None,) + _route(ct, c, x, y, needs[1:], batch)



def _route(ct, mask, x, y, needs, batch):
    """Cotangents of a selection: ct where ``mask`` to x, elsewhere to y, unbroadcast."""
    zero = zeros_like(ct)  # not ct * 0: an inf cotangent must not send nan to the other side
    return (unbroadcast(where(mask, ct, zero), x, batch) if needs[0] else None,
            unbroadcast(where(mask, zero, ct), y, batch) if needs[1] else None)



# ---- comparisons and predicates (not differentiable) -----------------------------------------

def _predicate(name: Any, impl: Any, doc: Any, nargs: Any = 2,
               compares: Any = False) -> tuple[Primitive, Callable[..., Tensor]]:
    prim = def_nondiff(Primitive(name, kernel=impl, lower_jax=impl.__name__))   # jnp's name
    prim.def_impl(ordered(name, impl) if compares else impl)
    if nargs == 2:
        def op(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
            return bind(prim, x, y)
    else:
        def op(x: TensorLike, name: str | None = None) -> Tensor:  # type: ignore[misc]
            return bind(prim, x)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + f"\n\n    Primitive ``{name}``; not differentiable.\n"
    return prim, op


equal_p, equal = _predicate("equal", np.equal, """Elementwise x == y, as bool.

    >>> import finegrad as fg
    >>> fg.equal(fg.constant([1, 2]), 2).numpy()
    array([False,  True])""")
not_equal_p, not_equal = _predicate("not_equal", np.not_equal, """Elementwise x != y.

    >>> import finegrad as fg
    >>> fg.not_equal(fg.constant([1, 2]), 2).numpy()
    array([ True, False])""")
less_p, less = _predicate("less", np.less, """Elementwise x < y.

    >>> import finegrad as fg
    >>> fg.less(fg.constant([1, 2]), 2).numpy()
    array([ True, False])""", compares=True)
less_equal_p, less_equal = _predicate("less_equal", np.less_equal, """Elementwise x <= y.

    >>> import finegrad as fg
    >>> fg.less_equal(fg.constant([1, 3]), 2).numpy()
    array([ True, False])""", compares=True)
greater_p, greater = _predicate("greater", np.greater, """Elementwise x > y.

    >>> import finegrad as fg
    >>> fg.greater(fg.constant([1, 3]), 2).numpy()
    array([False,  True])""", compares=True)
greater_equal_p, greater_equal = _predicate("greater_equal", np.greater_equal, """Elementwise
    x >= y.

    >>> import finegrad as fg
    >>> fg.greater_equal(fg.constant([1, 2]), 2).numpy()
    array([False,  True])""", compares=True)
logical_and_p, logical_and = _predicate("logical_and", np.logical_and, """Elementwise and.

    >>> import finegrad as fg
    >>> fg.logical_and(fg.constant([True, True]), fg.constant([True, False])).numpy()
    array([ True, False])""")
logical_or_p, logical_or = _predicate("logical_or", np.logical_or, """Elementwise or.

    >>> import finegrad as fg
    >>> fg.logical_or(fg.constant([True, False]), False).numpy()
    array([ True, False])""")
logical_xor_p, logical_xor = _predicate("logical_xor", np.logical_xor, """Elementwise xor.

    >>> import finegrad as fg
    >>> fg.math.logical_xor(fg.constant([True, False]), True).numpy()
    array([False,  True])""")
logical_not_p, logical_not = _predicate("logical_not", np.logical_not, """Elementwise not.

    >>> import finegrad as fg
    >>> fg.logical_not(fg.constant([True, False])).numpy()
    array([False,  True])""", nargs=1)
is_nan_p, is_nan = _predicate("is_nan", np.isnan, """Elementwise test for nan.

    >>> import finegrad as fg
    >>> fg.math.is_nan(fg.constant([1., float("nan")])).numpy()
    array([False,  True])""", nargs=1)
is_inf_p, is_inf = _predicate("is_inf", np.isinf, """Elementwise test for +-inf.

    >>> import finegrad as fg
    >>> fg.math.is_inf(fg.constant([1., float("inf")])).numpy()
    array([False,  True])""", nargs=1)
is_finite_p, is_finite = _predicate("is_finite", np.isfinite, """Elementwise test for finite.

    >>> import finegrad as fg
    >>> fg.math.is_finite(fg.constant([1., float("inf")])).numpy()
    array([ True, False])""", nargs=1)
