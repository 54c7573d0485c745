"""Reductions over axes: mean, max, min, prod, logsumexp (reduce_sum lives in array.py)."""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import (_t, expand_reduced, reduce_sum, reshape, cast,
                                                transpose, concat, ones_like, stop_gradient,
                                                zeros_like)
from finegrad._src.ops.array.indexing import getitem
from finegrad._src.ops.array.gather import take
from finegrad._src.ops.zeros_and_axes import (normalize_axes, shape_with, count, no_strings,
                                              axis_vmap, filled)
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.math.complex_numbers import conj_if_complex, no_order

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from collections.abc import Callable
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def no_bools(fn, x):
    """TypeError naming ``fn`` for a bool tensor: TensorFlow has no bool kernel for sums,
    products, means, extrema or scans (NumPy would give a logical or/and, not a count)."""
    if x._value.dtype == np.bool_:
        raise TypeError(f"{fn}: not defined for bool tensors (as in TensorFlow); cast first, "
                        f"e.g. finegrad.cast(x, finegrad.int32) to count the true entries, or "
                        f"use finegrad.reduce_any / finegrad.reduce_all")


def reduce_mean(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
                name: str | None = None) -> Tensor:
    """Mean over ``axis`` (all axes by default); integer tensors give an integer mean, as in TF.

    >>> import finegrad as fg
    >>> fg.reduce_mean(fg.constant([[1., 2.], [3., 4.]]), axis=1).numpy()
    array([1.5, 3.5], dtype=float32)
    """
    x = _t(input_tensor)
    no_bools("finegrad.reduce_mean", x)
    axes = normalize_axes(axis, x._value.ndim, "finegrad.reduce_mean", reduction=True)
    if x.dtype.is_integer:
        return _integer_mean(x, axes, keepdims)
    s = reduce_sum(x, axes, keepdims)
    n = dims.size_product(core.shape_of(x)[a] for a in axes)
    if type(n) is dims.Dim:   # a symbolic count: resolved at each call
        return s / count(x, axes, x._value.dtype)
    return s / n if n else s * np.nan


def _integer_mean(x, axes, keepdims):
    """TensorFlow's integer mean: the sum in a wide type (no wrap-around of a narrow one),
    divided rounding toward zero (C's division: -8 / 6 is -1), in ``x``'s dtype."""
    wide = np.int64 if x._value.dtype.kind == "i" else np.uint64
    s = reduce_sum(cast(x, wide), axes, keepdims)
    n = ar.maximum(count(x, axes, wide), 1)
    q = s // n
    if wide is np.int64:   # floor -> toward zero where a negative sum leaves a remainder
        q = ew.where(ew.logical_and(s < 0, ew.not_equal(q * n, s)), q + 1, q)
    return cast(q, x._value.dtype)


def _identity(name, dtype):
    """The value of reduce_max (reduce_min) over nothing: the lowest (highest) of the dtype."""
    low = name == "reduce_max"
    if dtype.kind == "f":
        return -np.inf if low else np.inf
    if dtype.kind == "b":
        return not low
    info = np.iinfo(dtype)
    return info.min if low else info.max


def _extremum(name: Any, impl: Any, doc: Any) -> tuple[Primitive, Callable[..., Tensor]]:
    prim = Primitive(name, batch_rule=True, fresh=True, shape_rule=core.reduction_shape_rule)

    @prim.def_impl
    def _impl(x, *, axis, keepdims):
        if x.dtype.kind == "c":
            no_order(name, x)
        no_strings(name, x)
        if x.size == 0:   # TensorFlow's identities: -inf for a max, inf for a min (ints: limits)
            return impl(x, axis=axis, keepdims=keepdims, initial=_identity(name, x.dtype))
        return impl(x, axis=axis, keepdims=keepdims)

    def _mask(x, out, axis, keepdims):
        # ties share the gradient equally, as in TensorFlow's reduce_max gradient
        o = out if keepdims else reshape(out, shape_with(x, ones=axis))
        eq = cast(ew.equal(x, o), x.dtype)
        return eq / reduce_sum(eq, axis, keepdims=True)

    @prim.def_lowering
    def _lower(x, *, axis, keepdims):
        import jax.numpy as jnp
        fn = jnp.max if name == "reduce_max" else jnp.min   # NaN propagates, as in NumPy
        initial = _identity(name, np.dtype(x.dtype)) if x.size == 0 else None
        return fn(x, axis=axis, keepdims=keepdims, initial=initial)

    prim.def_vmap(axis_vmap(prim, "axis"))

    @prim.def_jvp
    def _jvp(primals, tangents, *, out, axis, keepdims):
        x, = primals
        return reduce_sum(tangents[0] * _mask(x, out, axis, keepdims), axis, keepdims)

    @prim.def_vjp
    def _vjp(ct, x, *, out, needs, batch, axis, keepdims):
        return (expand_reduced(ct, x, axis, keepdims, batch) * _mask(x, out, axis, keepdims),)

    def op(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
           name: str | None = None) -> Tensor:
        x = _t(input_tensor)
        no_bools(f"finegrad.{prim.name}", x)
        axes = normalize_axes(axis, x._value.ndim, f"finegrad.{prim.name}", reduction=True)
        return bind(prim, x, axis=axes, keepdims=bool(keepdims))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + f"\n\n    Primitive ``{name}``; ties share the gradient equally.\n"
    return prim, op


reduce_max_p, reduce_max = _extremum("reduce_max", np.max, """Maximum over ``axis``.

    >>> import finegrad as fg
    >>> fg.reduce_max(fg.constant([[1., 5.], [3., 4.]]), axis=0).numpy()
    array([3., 5.], dtype=float32)""")
reduce_min_p, reduce_min = _extremum("reduce_min", np.min, """Minimum over ``axis``.

    >>> import finegrad as fg
    >>> fg.reduce_min(fg.constant([[1., 5.], [3., 4.]]), axis=0).numpy()
    array([1., 4.], dtype=float32)""")


reduce_prod_p = Primitive("reduce_prod", batch_rule=True, fresh=True,
                          shape_rule=core.reduction_shape_rule)


def reduce_prod(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
                name: str | None = None) -> Tensor:
    """Product over ``axis``. Primitive ``reduce_prod``; exact gradient with zeros in the input.

    >>> import finegrad as fg
    >>> fg.reduce_prod(fg.constant([1., 2., 3.])).numpy()
    np.float32(6.0)
    """
    x = _t(input_tensor)
    no_bools("finegrad.reduce_prod", x)
    axes = normalize_axes(axis, x._value.ndim, "finegrad.reduce_prod", reduction=True)
    return bind(reduce_prod_p, x, axis=axes, keepdims=bool(keepdims))


@reduce_prod_p.def_impl
def _reduce_prod_impl(x, *, axis, keepdims):
    return np.prod(x, axis=axis, keepdims=keepdims).astype(x.dtype)


@reduce_prod_p.def_lowering
def _reduce_prod_lower(x, *, axis, keepdims):
    import jax.numpy as jnp
    return jnp.prod(x, axis=axis, keepdims=keepdims).astype(x.dtype)


def _prod_others(x, axis):
    """prod of all other elements along ``axis`` for each element (exact with zeros)."""
    # move reduced axes to the end, flatten them, use exclusive cumulative products
    nd = x._value.ndim
    keep = [i for i in range(nd) if i not in axis]
    perm = keep + list(axis)
    xt = _transpose(x, perm)
    shp = tuple(core.shape_of(xt))
    n = dims.size_product(core.shape_of(x)[a] for a in axis)
    flat = reshape(xt, shp[:len(keep)] + (n,))
    left = _cumprod_exclusive(flat, reverse=False)
    right = _cumprod_exclusive(flat, reverse=True)
    others = reshape(left * right, shp)
    return _transpose(others, list(np.argsort(perm)))


def _transpose(x, perm):
    return transpose(x, tuple(int(p) for p in perm))


def _scan_prep(x, axis, exclusive, reverse, identity, fn):
    """Reduce exclusive/reverse scans to an inclusive forward scan along ``axis``."""
    x = _t(x)
    no_bools(fn, x)
    if x._value.ndim == 0:   # TensorFlow: "Expected scan axis in the range [0, 0)"
        raise InvalidArgumentError(f"{fn}: a scan needs a tensor of rank >= 1; axis {axis} is "
                                   f"out of range for a scalar (shape ()); reshape it to [1]")
    ax = normalize_axes(axis, x._value.ndim, fn)[0]
    if reverse:
        x = _flip(x, ax)
    if exclusive and type(core.shape_of(x)[ax]) is dims.Dim:
        x = _shift_open(x, ax, identity)
    elif exclusive:
        first = getitem_axis(x, ax, slice(0, 1))
        x = concat([ones_like(first) * identity, getitem_axis(x, ax, slice(0, -1))], ax)
    return x, ax


def _positions(x, axis):
    """0, 1, ... n - 1 (int64) for axis ``axis`` of open size n, broadcastable against x."""
    n = core.shape_of(x)[axis]
    iota = bind(cumsum_p, filled((n,), 1, np.int64), axis=0) - 1
    return reshape(iota, [-1] + [1] * (x._value.ndim - 1 - axis))


def _shift_open(x, axis, identity):
    """``x`` moved one place on along ``axis`` of open size, ``identity`` first: a gather at
    ``max(i - 1, 0)`` (a slice's cut would be a size the trace decides)."""
    i = _positions(x, axis)
    flat_i = reshape(i, [-1])
    moved = take(x, ar.maximum(flat_i - 1, 0), axis=axis)
    return ew.where(ew.equal(i, 0), ones_like(x) * identity, moved)


def getitem_axis(x, axis, sl):
    return getitem(x, (slice(None),) * axis + (sl,))


def _flip(x, axis):
    return getitem_axis(x, axis, slice(None, None, -1))


cumsum_p = Primitive("cumsum", batch_rule=True, fresh=True, shape_rule=core.same_shape_rule)


def cumsum(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Tensor:
    """Cumulative sum along ``axis``. Primitive ``cumsum``.

    >>> import finegrad as fg
    >>> fg.math.cumsum(fg.constant([1., 2., 3.])).numpy()
    array([1., 3., 6.], dtype=float32)
    """
    y, ax = _scan_prep(x, axis, exclusive, reverse, 0, "finegrad.cumsum")
    out = bind(cumsum_p, y, axis=ax)
    return _flip(out, ax) if reverse else out


@cumsum_p.def_lowering
def _cumsum_lower(x, *, axis):
    import jax.numpy as jnp
    return jnp.cumsum(x, axis=axis, dtype=x.dtype)


@cumsum_p.def_impl
def _cumsum_impl(x, *, axis):
    return np.cumsum(x, axis=axis, dtype=x.dtype)


cumsum_p.def_vmap(axis_vmap(cumsum_p, "axis"))


@cumsum_p.def_jvp
def _cumsum_jvp(primals, tangents, *, out, axis):
    return bind(cumsum_p, tangents[0], axis=axis)


@cumsum_p.def_vjp
def _cumsum_vjp(ct, x, *, out, needs, batch, axis):
    """VJP of cumsum: the reversed cumulative sum of the cotangent."""
    return (_reverse_cumsum(ct, axis, batch),)


def _reverse_cumsum(ct, axis, batch):
    """sum over j >= i along ``axis`` (``batch``: the leading axes of a Jacobian's
    cotangents)."""
    a = axis + len(batch)
    return _flip(bind(cumsum_p, _flip(ct, a), axis=a), a)


cumprod_p = Primitive("cumprod", batch_rule=True, fresh=True, shape_rule=core.same_shape_rule)


def cumprod(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False,
            name: str | None = None) -> Tensor:
    """Cumulative product along ``axis``. Primitive ``cumprod``.

    Its gradient is exact where elements are 0, to any order, in both modes:
    ``reduce_sum(cumprod([2., 0., 3.]))`` has gradient ``[1., 8., 0.]``. (TensorFlow's
    gradient divides by ``x`` and returns ``[1., 0., 0.]`` there: the products that skip the
    zero are lost.)

    >>> import finegrad as fg
    >>> fg.math.cumprod(fg.constant([1., 2., 3.])).numpy()
    array([1., 2., 6.], dtype=float32)
    """
    y, ax = _scan_prep(x, axis, exclusive, reverse, 1, "finegrad.cumprod")
    out = bind(cumprod_p, y, axis=ax)
    return _flip(out, ax) if reverse else out


@cumprod_p.def_lowering
def _cumprod_lower(x, *, axis):
    import jax.numpy as jnp
    return jnp.cumprod(x, axis=axis, dtype=x.dtype)


@cumprod_p.def_impl
def _cumprod_impl(x, *, axis):
    return np.cumprod(x, axis=axis, dtype=x.dtype)


def _div_no_nan(a, b):
    """``a / b``, 0 where ``b`` is 0 (finite on both branches, so its gradient is too)."""
    zero = ew.equal(b, 0)
    q = a / ew.where(zero, ones_like(b), b)
    return ew.where(zero, zeros_like(q), q)


def _product_scan(x, axis):
    """The levels of a Hillis-Steele product scan along ``axis``: ``[x, y1, y2, ...]``, where
    level k+1 multiplies each element of level k by the one 2**k before it; the last level is
    cumprod(x). Only multiplications, never a division: the derivatives of cumprod written
    over these levels are exact where x holds zeros, to any order (as JAX's associative scan)."""
    dims.pin(core.shape_of(x)[axis:axis + 1], "the derivative of cumprod along a dynamic axis")
    n = x._value.shape[axis]
    levels, d = [x], 1
    while d < n:
        y = levels[-1]
        levels.append(concat([getitem_axis(y, axis, slice(0, d)),
                              getitem_axis(y, axis, slice(d, None)) *
                              getitem_axis(y, axis, slice(0, n - d))], axis))
        d *= 2
    return levels


cumprod_p.def_vmap(axis_vmap(cumprod_p, "axis"))


@cumprod_p.def_jvp
def _cumprod_jvp(primals, tangents, *, out, axis):
    """JVP of cumprod: the product rule through each level of `_product_scan`."""
    (x,), (t,) = primals, tangents
    if type(core.shape_of(x)[axis]) is dims.Dim:   # TensorFlow's rule (see the VJP's)
        return out * cumsum(_div_no_nan(t, x), axis)
    levels = _product_scan(x, axis)
    n, d = x._value.shape[axis], 1
    for y in levels[:-1]:
        head = getitem_axis(t, axis, slice(0, d))
        tail = (getitem_axis(t, axis, slice(d, None)) * getitem_axis(y, axis, slice(0, n - d)) +
                getitem_axis(y, axis, slice(d, None)) * getitem_axis(t, axis, slice(0, n - d)))
        t = concat([head, tail], axis)
        d *= 2
    return t


@cumprod_p.def_vjp
def _cumprod_vjp(ct, x, *, out, needs, batch, axis):
    """VJP of cumprod: the transposed product rule through the levels of `_product_scan`,
    last level first (no division by x, so exact at zeros); complex x: TensorFlow's
    convention, the conjugate products. Along an open axis, whose number of levels is not
    known, TensorFlow's own rule: ``div_no_nan(reverse_cumsum(ct * out), x)`` (0 where x is
    0, as TensorFlow's: not the exact derivative there)."""
    if type(core.shape_of(x)[axis]) is dims.Dim:
        a = axis + len(batch)
        return (_div_no_nan(cumsum(ct * conj_if_complex(out), a, reverse=True),
                            conj_if_complex(x)),)
    levels = _product_scan(conj_if_complex(x), axis)
    n, a = x._value.shape[axis], axis + len(batch)
    d = 2 ** (len(levels) - 2) if len(levels) > 1 else 1
    for y in reversed(levels[:-1]):
        # level k+1: z[j] = y[j] * y[j - d] for j >= d, z[j] = y[j] before
        tail = getitem_axis(ct, a, slice(d, None))
        own = concat([getitem_axis(ct, a, slice(0, d)),
                      tail * getitem_axis(y, axis, slice(0, n - d))], a)
        other = tail * getitem_axis(y, axis, slice(d, None))
        ct = own + concat([other, zeros_like(getitem_axis(ct, a, slice(0, d)))], a)
        d //= 2
    return (ct,)


def _cumprod_exclusive(flat, reverse):
    return cumprod(flat, axis=-1, exclusive=True, reverse=reverse)


reduce_prod_p.def_vmap(axis_vmap(reduce_prod_p, "axis"))


@reduce_prod_p.def_jvp
def _reduce_prod_jvp(primals, tangents, *, out, axis, keepdims):
    x, = primals
    return reduce_sum(tangents[0] * _prod_others(x, axis), axis, keepdims)


@reduce_prod_p.def_vjp
def _reduce_prod_vjp(ct, x, *, out, needs, batch, axis, keepdims):
    """VJP of reduce_prod: ct times the product of the other elements (no division by x)."""
    return (expand_reduced(ct, x, axis, keepdims, batch) *
            conj_if_complex(_prod_others(x, axis)),)


def reduce_logsumexp(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
                     name: str | None = None) -> Tensor:
    """log(sum(exp(x))) over ``axis``, computed stably (shifted by the max).

    Its gradient is softmax(x) along the axis; the shift carries no gradient.

    >>> import finegrad as fg
    >>> float(fg.reduce_logsumexp(fg.constant([1000., 1000.])))
    1000.6931762695312
    """
    x = _t(input_tensor)
    axes = normalize_axes(axis, x._value.ndim, "finegrad.reduce_logsumexp", reduction=True)
    m = stop_gradient(reduce_max(x, axes, keepdims=True))
    # an infinite max would give inf - inf = nan; shift by 0 then (0 * m would be nan too)
    m = ew.where(ew.is_finite(m), m, zeros_like(m))
    out = ew.log(reduce_sum(ew.exp(x - m), axes, keepdims=True)) + m
    if not keepdims:
        out = reshape(out, tuple(s for i, s in enumerate(shape_with(x, ones=axes))
                                 if i not in axes))
    return out
