"""Max and average pooling, channels last (``tf.nn.max_pool2d``, ``avg_pool2d`` and the 1-D
forms; the 3-D forms, written with these primitives, are in `pool3d`, and
``max_pool``/``avg_pool``, which pick one by rank, in `by_rank`).

Max pooling is three primitives closed under differentiation, all piecewise linear:
``max_pool(x)``; ``max_pool_scatter(x, ct)``, which sends each window's cotangent to the
window's maximum (the first one in row-major order on ties, as TensorFlow's MaxPoolGrad);
and ``max_pool_gather(x, g)``, which reads ``g`` at those positions. The positions depend on
``x`` only through comparisons, so no gradient flows into ``x`` from the last two.
Average pooling (TensorFlow's: padding does not count in a window's mean) is the linear pair
``avg_pool(x)`` and ``avg_pool_grad(ct)``, each the other's transpose.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import dims
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.nn import window_geometry as cg
from finegrad._src.ops.array.structural import expand_dims, squeeze
from finegrad._src.ops.batching import merged_vmap
from finegrad._src.ops.zeros_and_axes import instantiate_zeros
from finegrad._src.ops.nn.conv import _float_input

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

_ONE = (1, 1)


_FIXED = "a pooling's spatial or channel axes"


def _pooled_shape(x, *shapes, ksize, strides, pads):
    """Shape rule of a pooling: only the batch axis (0) may stay open in a shape-polymorphic
    trace; the window positions follow from the padded spatial sizes."""
    for s in shapes:
        dims.pin(s[1:], _FIXED)
    h, w, c = dims.pin(x[1:], _FIXED)
    out = cg.out_sizes((h + sum(pads[0]), w + sum(pads[1])), ksize, strides)
    return (x[0],) + out + (c,)


def _scatter_shape(x, ct, **params):
    dims.pin(ct[1:], _FIXED)
    return tuple(x)


def _grad_shape(ct, *, in_hw, **params):
    c = dims.pin(ct[1:], _FIXED)[-1]
    return (ct[0],) + tuple(in_hw) + (c,)


def _lowest(dt):
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min


def argmax_positions(x, ksize, strides, pads):
    """Per output value, the flat index into ``x`` of its window's first maximum (NaN
    counts as the largest), or -1 for a window with nothing above -inf."""
    n, h, w, c = x.shape
    xp = cg.pad(x, pads, _lowest(x.dtype))
    out_hw = cg.out_sizes(xp.shape[1:3], ksize, strides)
    best = np.full((n,) + out_hw + (c,), _lowest(x.dtype), x.dtype)
    pos = np.full(best.shape, -1, np.int64)
    rows = np.arange(out_hw[0]) * strides[0] - pads[0][0]
    cols = np.arange(out_hw[1]) * strides[1] - pads[1][0]
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            v = cg.tap(xp, i, j, strides, _ONE, out_hw)
            take = (v > best) | (np.isnan(v) & ~np.isnan(best))   # strictly: first max wins
            best = np.where(take, v, best)
            at = ((rows + i)[:, None] * w + (cols + j)[None, :])[None, :, :, None]
            pos = np.where(take, at, pos)
    batch = (np.arange(n) * (h * w))[:, None, None, None]
    full = (batch + pos) * c + np.arange(c)
    return np.where(pos >= 0, full, -1)


def _window_jax(x, init, op, ksize, strides, pads):
    """``op`` reduced over each window of ``x`` padded by ``pads`` with ``init`` (XLA)."""
    from jax import lax
    return lax.reduce_window(x, np.asarray(init, x.dtype), op, (1,) + tuple(ksize) + (1,),
                             (1,) + tuple(strides) + (1,),
                             ((0, 0),) + tuple(map(tuple, pads)) + ((0, 0),))


def _argmax_positions_jax(x, ksize, strides, pads):
    """`argmax_positions` in JAX: the same taps in the same order, the same tie rule."""
    import jax.numpy as jnp
    n, h, w, c = x.shape
    low = _lowest(np.dtype(x.dtype))
    xp = jnp.pad(x, ((0, 0),) + tuple(map(tuple, pads)) + ((0, 0),), constant_values=low)
    out_hw = cg.out_sizes(xp.shape[1:3], ksize, strides)
    best = jnp.full((n,) + out_hw + (c,), low, x.dtype)
    pos = jnp.full(best.shape, -1, np.int64)
    rows = np.arange(out_hw[0]) * strides[0] - pads[0][0]
    cols = np.arange(out_hw[1]) * strides[1] - pads[1][0]
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            v = cg.tap(xp, i, j, strides, _ONE, out_hw)
            take = (v > best) | (jnp.isnan(v) & ~jnp.isnan(best))
            best = jnp.where(take, v, best)
            at = ((rows + i)[:, None] * w + (cols + j)[None, :])[None, :, :, None]
            pos = jnp.where(take, at, pos)
    batch = (np.arange(n) * (h * w))[:, None, None, None]
    return jnp.where(pos >= 0, (batch + pos) * c + np.arange(c), -1)


# --- max pooling -------------------------------------------------------------------------------

max_pool_p = Primitive("max_pool", fresh=True, shape_rule=_pooled_shape)


max_pool_p.def_vmap(merged_vmap(max_pool_p, (0,)))   # batch merged with axis 0


@max_pool_p.def_impl
def _max_pool_impl(x, *, ksize, strides, pads):
    xp = cg.pad(x, pads, _lowest(x.dtype))
    out_hw = cg.out_sizes(xp.shape[1:3], ksize, strides)
    out = cg.tap(xp, 0, 0, strides, _ONE, out_hw).copy()
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            if i or j:
                np.maximum(out, cg.tap(xp, i, j, strides, _ONE, out_hw), out=out)
    return out


@max_pool_p.def_lowering
def _max_pool_lower(x, *, ksize, strides, pads):
    # XLA's max propagates NaN, as np.maximum
    from jax import lax
    return _window_jax(x, _lowest(np.dtype(x.dtype)), lax.max, ksize, strides, pads)


@max_pool_p.def_jvp
def _max_pool_jvp(primals, tangents, *, out, **params):
    return bind(max_pool_gather_p, primals[0], tangents[0], **params)


@max_pool_p.def_vjp
def _max_pool_vjp(ct, x, *, out, needs, batch, **params):
    """VJP of max_pool: ct sent to each window's first maximum."""
    return (bind(max_pool_scatter_p, x, ct, **params),)


max_pool_scatter_p = Primitive("max_pool_scatter", fresh=True, shape_rule=_scatter_shape)


max_pool_scatter_p.def_vmap(merged_vmap(max_pool_scatter_p, (0, 1)))   # batch merged with axis 0


@max_pool_scatter_p.def_impl
def _max_pool_scatter_impl(x, ct, *, ksize, strides, pads):
    pos = argmax_positions(x, ksize, strides, pads).ravel()
    keep = pos >= 0
    dx = np.bincount(pos[keep], weights=np.ravel(ct)[keep], minlength=x.size)
    return dx.astype(x.dtype, copy=False).reshape(x.shape)


@max_pool_scatter_p.def_lowering
def _max_pool_scatter_lower(x, ct, *, ksize, strides, pads):
    import jax.numpy as jnp
    pos = _argmax_positions_jax(x, ksize, strides, pads).ravel()
    dx = jnp.zeros(x.size, x.dtype).at[pos].add(ct.ravel().astype(x.dtype), mode="drop",
                                                  wrap_negative_indices=False)
    return dx.reshape(x.shape)


@max_pool_scatter_p.def_jvp
def _max_pool_scatter_jvp(primals, tangents, *, out, **params):
    x, ct = primals
    ct_dot = instantiate_zeros(primals, tangents)[1]
    return bind(max_pool_scatter_p, x, ct_dot, **params)


@max_pool_scatter_p.def_vjp
def _max_pool_scatter_vjp(g, x, ct, *, out, needs, batch, **params):
    """VJP of max_pool_scatter: nothing for x; g read at the maxima for ct."""
    return None, bind(max_pool_gather_p, x, g, **params)


max_pool_gather_p = Primitive("max_pool_gather", fresh=True, shape_rule=_pooled_shape)


max_pool_gather_p.def_vmap(merged_vmap(max_pool_gather_p, (0, 1)))   # batch merged with axis 0


@max_pool_gather_p.def_impl
def _max_pool_gather_impl(x, g, *, ksize, strides, pads):
    pos = argmax_positions(x, ksize, strides, pads)
    return np.where(pos >= 0, np.ravel(g)[np.maximum(pos, 0)], 0).astype(g.dtype, copy=False)


@max_pool_gather_p.def_lowering
def _max_pool_gather_lower(x, g, *, ksize, strides, pads):
    import jax.numpy as jnp
    pos = _argmax_positions_jax(x, ksize, strides, pads)
    return jnp.where(pos >= 0, g.ravel()[jnp.maximum(pos, 0)], jnp.zeros((), g.dtype))


@max_pool_gather_p.def_jvp
def _max_pool_gather_jvp(primals, tangents, *, out, **params):
    x, g = primals
    g_dot = instantiate_zeros(primals, tangents)[1]
    return bind(max_pool_gather_p, x, g_dot, **params)


@max_pool_gather_p.def_vjp
def _max_pool_gather_vjp(ct, x, g, *, out, needs, batch, **params):
    """VJP of max_pool_gather: nothing for x; ct sent to the maxima for g."""
    return None, bind(max_pool_scatter_p, x, ct, **params)


# --- average pooling ---------------------------------------------------------------------------

def _counts(in_hw, ksize, strides, pads, dt):
    """How many input values (padding excluded) each window holds: (1, Ho, Wo, 1)."""
    ones = cg.pad(np.ones((1,) + tuple(in_hw) + (1,), dt), pads)
    out_hw = cg.out_sizes(ones.shape[1:3], ksize, strides)
    total = np.zeros((1,) + out_hw + (1,), dt)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            total += cg.tap(ones, i, j, strides, _ONE, out_hw)
    return total


avg_pool_p = Primitive("avg_pool", fresh=True, shape_rule=_pooled_shape)


avg_pool_p.def_vmap(merged_vmap(avg_pool_p, (0,)))   # batch merged with axis 0


@avg_pool_p.def_impl
def _avg_pool_impl(x, *, ksize, strides, pads):
    xp = cg.pad(x, pads)
    out_hw = cg.out_sizes(xp.shape[1:3], ksize, strides)
    total = np.zeros((x.shape[0],) + out_hw + (x.shape[3],), x.dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            total += cg.tap(xp, i, j, strides, _ONE, out_hw)
    return total / _counts(x.shape[1:3], ksize, strides, pads, x.dtype)


@avg_pool_p.def_lowering
def _avg_pool_lower(x, *, ksize, strides, pads):
    from jax import lax
    counts = _counts(x.shape[1:3], ksize, strides, pads, np.dtype(x.dtype))
    return _window_jax(x, 0, lax.add, ksize, strides, pads) / counts


@avg_pool_p.def_jvp
def _avg_pool_jvp(primals, tangents, *, out, **params):
    return bind(avg_pool_p, tangents[0], **params)


@avg_pool_p.def_vjp
def _avg_pool_vjp(ct, x, *, out, needs, batch, **params):
    """VJP of avg_pool: ct / count spread over each window."""
    return (bind(avg_pool_grad_p, ct, in_hw=tuple(x._value.shape[1:3]), **params),)


avg_pool_grad_p = Primitive("avg_pool_grad", fresh=True, shape_rule=_grad_shape)


avg_pool_grad_p.def_vmap(merged_vmap(avg_pool_grad_p, (0,)))   # batch merged with axis 0


@avg_pool_grad_p.def_impl
def _avg_pool_grad_impl(ct, *, in_hw, ksize, strides, pads):
    g = ct / _counts(in_hw, ksize, strides, pads, ct.dtype)
    padded = (in_hw[0] + sum(pads[0]), in_hw[1] + sum(pads[1]))
    dxp = np.zeros((ct.shape[0],) + padded + (ct.shape[3],), ct.dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            cg.tap(dxp, i, j, strides, _ONE, ct.shape[1:3])[...] += g
    return np.ascontiguousarray(cg.crop(dxp, pads, in_hw))


@avg_pool_grad_p.def_lowering
def _avg_pool_grad_lower(ct, *, in_hw, ksize, strides, pads):
    import jax
    shape = (ct.shape[0],) + tuple(in_hw) + (ct.shape[3],)
    pool = lambda x: _avg_pool_lower(x, ksize=ksize, strides=strides, pads=pads)  # noqa: E731
    return jax.linear_transpose(pool, jax.ShapeDtypeStruct(shape, ct.dtype))(ct)[0]


@avg_pool_grad_p.def_jvp
def _avg_pool_grad_jvp(primals, tangents, *, out, in_hw, **params):
    return bind(avg_pool_grad_p, tangents[0], in_hw=in_hw, **params)


@avg_pool_grad_p.def_vjp
def _avg_pool_grad_vjp(g, ct, *, out, needs, batch, in_hw, **params):
    """VJP of avg_pool_grad: avg_pool(g)."""
    return (bind(avg_pool_p, g, **params),)


# --- the public functions ----------------------------------------------------------------------

def _pool(prim, fn, input, ksize, strides, padding, data_format, n):
    """Check the arguments and run ``prim`` (2-D; 1-D as a height of 1)."""
    cg.check_format(data_format, "NHWC" if n == 2 else "NWC", fn)
    x = _float_input(input, n + 2, fn, "input")
    ksize = cg.spatial(ksize, n, fn, "ksize")
    strides = cg.spatial(strides, n, fn, "strides")
    padding = cg.padding_arg(padding, n, fn)
    if prim is avg_pool_p and not isinstance(padding, str):
        raise ValueError(f"{fn}: padding must be 'SAME' or 'VALID', got {padding!r}")
    _, pads = cg.geometry(tuple(x._value.shape[1:1 + n]), ksize, strides, (1,) * n, padding, fn)
    if n == 1:
        y = bind(prim, expand_dims(x, 1), ksize=(1,) + ksize, strides=(1,) + strides,
                 pads=((0, 0),) + pads)
        return squeeze(y, [1])
    return bind(prim, x, ksize=ksize, strides=strides, pads=pads)


def max_pool2d(input: TensorLike, ksize: Any, strides: Any, padding: Any,
               data_format: str = "NHWC", name: str | None = None) -> Tensor:
    """The maximum of each ``ksize`` window of ``input`` [batch, height, width, channels].

    ``ksize`` and ``strides``: an int or a list of length 1, 2 or 4; ``padding``: "SAME",
    "VALID" or explicit pairs. The gradient goes to the first maximum of each window (in
    row-major order), as TensorFlow's.

    >>> import finegrad as fg
    >>> x = fg.reshape(fg.range(16.), [1, 4, 4, 1])
    >>> fg.nn.max_pool2d(x, 2, 2, "VALID")[0, :, :, 0].numpy()
    array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
    """
    return _pool(max_pool_p, "finegrad.nn.max_pool2d", input, ksize, strides, padding,
                 data_format, 2)


def avg_pool2d(input: TensorLike, ksize: Any, strides: Any, padding: Any,
               data_format: str = "NHWC", name: str | None = None) -> Tensor:
    """The mean of each ``ksize`` window of ``input`` [batch, height, width, channels]; with
    "SAME" padding, padded positions do not count (TensorFlow's).

    >>> import finegrad as fg
    >>> fg.nn.avg_pool2d(fg.ones([1, 3, 3, 1]), 2, 2, "SAME")[0, :, :, 0].numpy()
    array([[1., 1.],
           [1., 1.]], dtype=float32)
    """
    return _pool(avg_pool_p, "finegrad.nn.avg_pool2d", input, ksize, strides, padding,
                 data_format, 2)


def max_pool1d(input: TensorLike, ksize: Any, strides: Any, padding: Any,
               data_format: str = "NWC", name: str | None = None) -> Tensor:
    """`max_pool2d` over [batch, width, channels].

    >>> import finegrad as fg
    >>> fg.nn.max_pool1d(fg.reshape(fg.range(4.), [1, 4, 1]), 2, 2, "VALID").numpy().ravel()
    array([1., 3.], dtype=float32)
    """
    return _pool(max_pool_p, "finegrad.nn.max_pool1d", input, ksize, strides, padding,
                 data_format, 1)


def avg_pool1d(input: TensorLike, ksize: Any, strides: Any, padding: Any,
               data_format: str = "NWC", name: str | None = None) -> Tensor:
    """`avg_pool2d` over [batch, width, channels].

    >>> import finegrad as fg
    >>> fg.nn.avg_pool1d(fg.reshape(fg.range(4.), [1, 4, 1]), 2, 2, "VALID").numpy().ravel()
    array([0.5, 2.5], dtype=float32)
    """
    return _pool(avg_pool_p, "finegrad.nn.avg_pool1d", input, ksize, strides, padding,
                 data_format, 1)
