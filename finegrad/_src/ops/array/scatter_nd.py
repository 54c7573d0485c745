"""N-dimensional gathers and scatters: `gather_nd` (primitive ``gather_nd``), `scatter_nd`
(primitive ``scatter_nd``, its transpose) and the ``tensor_scatter_nd_*`` family.

The last axis of ``indices`` holds coordinates into a prefix of the indexed tensor's axes
(after ``batch_dims`` batch axes). Both primitives take ``nlead`` extra leading axes that
the index does not touch: that is how each one's VJP handles a batch of cotangents
(``batch_rule=True``) and how each is the other's transpose. It imports the core modules and
`ops.zeros_and_axes`, `ops.array`, `ops.math.elementwise` and `ops.math.arithmetic`.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims
from finegrad._src.core import Primitive, bind
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.math.arithmetic import add, divide, multiply, subtract
from finegrad._src.ops.array.structural import _t, cast, ones_like, batch_all
from finegrad._src.ops.zeros_and_axes import _shape_arg, instantiate_zeros
from finegrad._src.ops.math.elementwise import equal, not_equal, where

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from collections.abc import Callable
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def _nd_index(ind, bd, nlead):
    """The NumPy index selecting ``x[lead..., b..., ind[b..., i..., :]]``: ``nlead`` full
    slices, one broadcast arange per batch axis, then one integer array per coordinate."""
    rest = ind.ndim - 1 - bd
    ar = tuple(np.arange(n).reshape((1,) * j + (n,) + (1,) * (bd - j - 1 + rest))
               for j, n in enumerate(ind.shape[:bd]))
    return (slice(None),) * nlead + ar + tuple(ind[..., k] for k in range(ind.shape[-1]))


def _check_indices(fn, ind, shape, what, error=None):
    """TensorFlow's CPU check: every coordinate in range of ``shape`` (the indexed axes).
    ``error``: the message of the public function whose gather this is (``{size}``, the
    indexed axis's size, and ``{index}``, the first coordinate out of range, filled in)."""
    k = ind.shape[-1]
    if not ind.size or not k:
        return ind
    bad = (ind < 0) | (ind >= np.asarray(shape[:k]))
    if not bad.any():
        return ind
    tracer = core.current_tracer()
    if tracer is not None and tracer.examples and all(shape[:k]):
        return np.clip(ind, 0, np.asarray(shape[:k]) - 1)  # made-up values of a TensorSpec
    pos = tuple(int(i) for i in np.argwhere(bad.any(axis=-1))[0])
    if error is not None:
        raise InvalidArgumentError(None, None, error.format(size=shape[0],
                                                            index=ind[pos].tolist()[0]))
    raise InvalidArgumentError(None, None, f"{fn}: indices{list(pos)} = {ind[pos].tolist()} "
                                           f"does not index into {what} of shape {list(shape)}")


def _run(z, ind, bd, nlead, values, mode):
    """``z`` (a fresh array) with ``values`` written at the index: added (summing
    duplicates), assigned (the last duplicate wins, as NumPy assigns) or combined by a ufunc."""
    if ind.shape[-1] == 0:   # no coordinates: every index row names the whole tensor
        z = np.expand_dims(z, nlead + bd)
        idx = _nd_index(ind, bd, nlead)[:nlead + bd] + (np.zeros(ind.shape[:-1], np.intp),)
    else:
        idx = _nd_index(ind, bd, nlead)
    if mode == "assign":
        z[idx] = values
    else:
        mode.at(z, idx, values)
    return z[(slice(None),) * (nlead + bd) + (0,)] if ind.shape[-1] == 0 else z


def _nd_index_jax(ind, bd, nlead):
    """`_nd_index` for a JAX ``ind`` (the batch aranges are constants)."""
    return _nd_index(np.zeros(ind.shape[:-1] + (0,), np.intp), bd, nlead)[:nlead + bd] + \
        tuple(ind[..., k] for k in range(ind.shape[-1]))


def _poisoned(out, ind, sizes):
    """XLA cannot raise: where an index is out of range of ``sizes`` (impl raises
    InvalidArgumentError), a float result is all NaN (an integer one keeps what the scatter
    wrote: the out-of-range rows are dropped)."""
    import jax.numpy as jnp
    if not ind.size or not ind.shape[-1] or not jnp.issubdtype(out.dtype, jnp.inexact):
        return out
    bad = jnp.any((ind < 0) | (ind >= np.asarray(sizes[:ind.shape[-1]])))
    return jnp.where(bad, jnp.asarray(np.nan, out.dtype), out)


def _run_jax(z, ind, bd, nlead, values, how):
    """`_run` for JAX values: ``z.at[index]`` combined with ``values`` by ``how`` ("add",
    "set", "max", "min"); out-of-range rows dropped."""
    empty = ind.shape[-1] == 0
    if empty:
        z = z.reshape(z.shape[:nlead + bd] + (1,) + z.shape[nlead + bd:])
        idx = _nd_index_jax(ind, bd, nlead)[:nlead + bd] + (np.zeros(ind.shape[:-1], np.intp),)
    else:
        idx = _nd_index_jax(ind, bd, nlead)
    out = getattr(z.at[idx], how)(values, mode="drop", wrap_negative_indices=False)
    return out[(slice(None),) * (nlead + bd) + (0,)] if empty else out


# ---- gather_nd ----------------------------------------------------------------------------

gather_nd_p = Primitive("gather_nd", unify=False, batch_rule=True, fresh=True)


def gather_nd(params: TensorLike, indices: TensorLike, batch_dims: int = 0,
              name: str | None = None) -> Tensor:
    """Gather slices of ``params`` at the coordinates in the last axis of ``indices``.

    ``indices[..., :]`` indexes the first ``indices.shape[-1]`` axes of ``params`` (after
    ``batch_dims`` batch axes that both share); the result has shape
    ``batch + indices.shape[batch_dims:-1] + params.shape[batch_dims + K:]``. Primitive
    ``gather_nd``; its gradient scatter-adds the cotangent back (primitive ``scatter_nd``).

    Raises:
        InvalidArgumentError: (a ValueError) for a coordinate out of range, as TensorFlow's
            CPU kernel.

    >>> import finegrad as fg
    >>> fg.gather_nd(fg.constant([[1., 2.], [3., 4.]]), [[1, 0], [0, 1]]).numpy()
    array([3., 2.], dtype=float32)
    """
    fn = "finegrad.gather_nd"
    p, ind = _t(params), _indices(indices, fn)
    bd = _batch_dims(batch_dims, p, ind, fn)
    k = ind._value.shape[-1]
    if k > p._value.ndim - bd:
        raise ValueError(f"{fn}: indices.shape[-1] = {k} exceeds the rank of params "
                         f"({p._value.ndim}) minus batch_dims ({bd})")
    _check_indices(fn, ind._value, p._value.shape[bd:], "params")
    return bind(gather_nd_p, p, ind, batch_dims=bd, nlead=0)


def _indices(indices, fn):
    ind = _t(indices)
    if not ind.dtype.is_integer:
        raise TypeError(f"{fn}: indices must be integers, got {ind.dtype.name}")
    if ind._value.ndim < 1:
        raise ValueError(f"{fn}: indices must have rank >= 1 (its last axis holds the "
                         f"coordinates), got a scalar")
    return ind


def _batch_dims(batch_dims, p, ind, fn):
    bd = int(batch_dims)
    if not 0 <= bd < ind._value.ndim or bd > p._value.ndim:
        raise ValueError(f"{fn}: batch_dims must be in [0, {ind._value.ndim - 1}] for indices "
                         f"of rank {ind._value.ndim}, got {batch_dims}")
    if p._value.shape[:bd] != ind._value.shape[:bd]:
        raise ValueError(f"{fn}: the first batch_dims={bd} axes of params "
                         f"{list(p._value.shape)} and indices {list(ind._value.shape)} differ")
    return bd


def checked_gather_nd(params, indices, error):
    """`gather_nd` of ``params`` at ``indices`` (no batch axes) for a public function that
    reads rows through it: a coordinate out of range is TensorFlow's InvalidArgumentError
    with that function's message ``error`` (see `_check_indices`), whenever it runs."""
    p, ind = _t(params), _indices(indices, "finegrad.gather_nd")
    _check_indices("finegrad.gather_nd", ind._value, p._value.shape, "params", error)
    return bind(gather_nd_p, p, ind, batch_dims=0, nlead=0, error=error)


@gather_nd_p.def_impl
def _gather_nd_impl(p, ind, *, batch_dims, nlead, error=None):
    ind = _check_indices("finegrad.gather_nd", ind, p.shape[nlead + batch_dims:], "params",
                         error)
    if ind.shape[-1] == 0:
        p = np.expand_dims(p, nlead + batch_dims)
        idx = _nd_index(ind, batch_dims, nlead)[:nlead + batch_dims]
        return p[idx + (np.zeros(ind.shape[:-1], np.intp),)]
    return p[_nd_index(ind, batch_dims, nlead)]


@gather_nd_p.def_lowering
def _gather_nd_lower(p, ind, *, batch_dims, nlead, error=None):
    # an out-of-range coordinate reads NaN (floats; ints: the dtype's lowest) where impl raises
    if ind.shape[-1] == 0:
        p = p.reshape(p.shape[:nlead + batch_dims] + (1,) + p.shape[nlead + batch_dims:])
        idx = _nd_index_jax(ind, batch_dims, nlead)[:nlead + batch_dims] + \
            (np.zeros(ind.shape[:-1], np.intp),)
    else:
        idx = _nd_index_jax(ind, batch_dims, nlead)
    return p.at[idx].get(mode="fill", wrap_negative_indices=False)


@gather_nd_p.def_shape
def _gather_nd_shape(p, ind, *, batch_dims, nlead, error=None):
    """``lead + indices.shape[:-1] + params.shape[lead + batch + K:]``."""
    k = dims.pin(ind[-1:], "gather_nd's number of coordinates")[0]
    return tuple(p[:nlead]) + tuple(ind[:-1]) + tuple(p[nlead + batch_dims + k:])


@gather_nd_p.def_vmap
def _gather_nd_vmap(args, batched, *, batch_dims, nlead, error=None):
    """Batched params alone: one more leading full slice; batched indices: the batch is one
    more batch dimension of both."""
    if not batched[1]:
        return bind(gather_nd_p, *args, batch_dims=batch_dims, nlead=nlead + 1, error=error)
    if nlead:
        return NotImplemented
    return bind(gather_nd_p, *batch_all(args, batched), batch_dims=batch_dims + 1, nlead=0,
                error=error)


@gather_nd_p.def_jvp
def _gather_nd_jvp(primals, tangents, *, out, batch_dims, nlead, error=None):
    return bind(gather_nd_p, tangents[0], primals[1], batch_dims=batch_dims, nlead=nlead,
                error=error)


@gather_nd_p.def_vjp
def _gather_nd_vjp(ct, p, ind, *, out, needs, batch, batch_dims, nlead, error=None):
    """VJP of gather_nd: scatter-add the cotangent into zeros shaped like ``params``."""
    return (_scatter_like(ct, ind, p, batch_dims, nlead, len(batch)), None)


def _scatter_like(ct, ind, ref, bd, nlead, nbatch, mode="add"):
    """``ct`` scattered into zeros of ``batch + ref.shape`` (symbolic sizes in a
    shape-polymorphic trace)."""
    return bind(scatter_nd_p, ct, ind, shape=tuple(core.shape_of(ref)[nlead:]), batch_dims=bd,
                nlead=nlead + nbatch, mode=mode)


# ---- scatter_nd ---------------------------------------------------------------------------

scatter_nd_p = Primitive("scatter_nd", unify=False, batch_rule=True, fresh=True)
_MODES = {"add": np.add, "assign": "assign"}


def scatter_nd(indices: TensorLike, updates: TensorLike, shape: Any,
               name: str | None = None) -> Tensor:
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates are summed, as in
    TensorFlow). Primitive ``scatter_nd``; its gradient gathers (``gather_nd``).

    >>> import finegrad as fg
    >>> fg.scatter_nd([[1], [1], [3]], fg.constant([1., 2., 5.]), [4]).numpy()
    array([0., 3., 0., 5.], dtype=float32)
    """
    fn = "finegrad.scatter_nd"
    ind, u = _indices(indices, fn), _t(updates)
    shape = tuple(_shape_arg(shape, fn))
    _check_updates(fn, ind, u, shape)
    _check_indices(fn, ind._value, shape, "the output")
    return bind(scatter_nd_p, u, ind, shape=shape, batch_dims=0, nlead=0, mode="add")


def _check_updates(fn, ind, u, shape):
    k = ind._value.shape[-1]
    want = ind._value.shape[:-1] + tuple(shape[k:])
    if k > len(shape) or u._value.shape != want:
        raise ValueError(f"{fn}: updates must have shape indices.shape[:-1] + "
                         f"shape[indices.shape[-1]:] = {list(want)}, got "
                         f"{list(u._value.shape)} (indices {list(ind._value.shape)}, shape "
                         f"{list(shape)})")


@scatter_nd_p.def_impl
def _scatter_nd_impl(u, ind, *, shape, batch_dims, nlead, mode):
    ind = _check_indices("finegrad.scatter_nd", ind, shape[batch_dims:], "the output")
    z = np.zeros(u.shape[:nlead] + tuple(shape), u.dtype)
    return _run(z, ind, batch_dims, nlead, u, _MODES[mode])


@scatter_nd_p.def_lowering
def _scatter_nd_lower(u, ind, *, shape, batch_dims, nlead, mode):
    # "assign" with duplicate indices: XLA's CPU scatter applies the updates in order, so the
    # last one wins as in impl; other backends leave the order undefined (as TensorFlow does)
    import jax.numpy as jnp
    z = jnp.zeros(u.shape[:nlead] + tuple(shape), u.dtype)
    out = _run_jax(z, ind, batch_dims, nlead, u, "add" if mode == "add" else "set")
    return _poisoned(out, ind, tuple(shape)[batch_dims:])


@scatter_nd_p.def_shape
def _scatter_nd_shape(u, ind, *, shape, nlead, **params):
    """``updates.shape[:nlead] + shape``."""
    return tuple(u[:nlead]) + tuple(shape)


@scatter_nd_p.def_vmap
def _scatter_nd_vmap(args, batched, *, shape, batch_dims, nlead, mode):
    """Batched updates alone: one more leading axis; batched indices (each slice scatters
    into its own output): the batch is one more batch dimension."""
    if not batched[1]:
        return bind(scatter_nd_p, *args, shape=shape, batch_dims=batch_dims, nlead=nlead + 1,
                    mode=mode)
    if nlead:
        return NotImplemented
    u, ind = batch_all(args, batched)
    return bind(scatter_nd_p, u, ind, shape=core.shape_of(u)[:1] + tuple(shape),
                batch_dims=batch_dims + 1, nlead=0, mode=mode)


@scatter_nd_p.def_jvp
def _scatter_nd_jvp(primals, tangents, *, out, shape, batch_dims, nlead, mode):
    return bind(scatter_nd_p, tangents[0], *primals[1:], shape=shape, batch_dims=batch_dims,
                nlead=nlead, mode=mode)


@scatter_nd_p.def_vjp
def _scatter_nd_vjp(ct, u, ind, *, out, needs, batch, shape, batch_dims, nlead, mode):
    """VJP of scatter_nd: gather the cotangent at the indices (for ``assign`` with duplicate
    indices, every duplicate gets the cotangent, as TensorFlow's rule gives)."""
    g = bind(gather_nd_p, ct, ind, batch_dims=batch_dims, nlead=nlead + len(batch))
    return (g, None)


# ---- tensor_scatter_nd_* ------------------------------------------------------------------

def _tensor_scatter_args(fn, tensor, indices, updates):
    t, ind, u = _t(tensor), _indices(indices, fn), _t(updates)
    if u.dtype != t.dtype:
        raise TypeError(f"{fn}: updates must have the dtype of tensor ({t.dtype.name}), got "
                        f"{u.dtype.name}")
    _check_updates(fn, ind, u, t._value.shape)
    _check_indices(fn, ind._value, t._value.shape, "tensor")
    return t, ind, u


def tensor_scatter_nd_add(tensor: TensorLike, indices: TensorLike, updates: TensorLike,
                          name: str | None = None) -> Tensor:
    """``tensor`` with ``updates`` added at ``indices`` (duplicates summed).

    Gradient: the cotangent to ``tensor``, the gathered cotangent to ``updates``.

    >>> import finegrad as fg
    >>> fg.tensor_scatter_nd_add(fg.ones([3]), [[0], [2]], fg.constant([5., 7.])).numpy()
    array([6., 1., 8.], dtype=float32)
    """
    t, ind, u = _tensor_scatter_args("finegrad.tensor_scatter_nd_add", tensor, indices, updates)
    return add(t, _scatter_like(u, ind, t, 0, 0, 0))


def tensor_scatter_nd_sub(tensor: TensorLike, indices: TensorLike, updates: TensorLike,
                          name: str | None = None) -> Tensor:
    """``tensor`` with ``updates`` subtracted at ``indices`` (duplicates summed).

    >>> import finegrad as fg
    >>> fg.tensor_scatter_nd_sub(fg.ones([3]), [[0], [0]], fg.constant([5., 7.])).numpy()
    array([-11.,   1.,   1.], dtype=float32)
    """
    t, ind, u = _tensor_scatter_args("finegrad.tensor_scatter_nd_sub", tensor, indices, updates)
    return subtract(t, _scatter_like(u, ind, t, 0, 0, 0))


def tensor_scatter_nd_update(tensor: TensorLike, indices: TensorLike, updates: TensorLike,
                             name: str | None = None) -> Tensor:
    """``tensor`` with the entries (or slices) at ``indices`` replaced by ``updates``.

    Gradient, as TensorFlow's: the cotangent to ``tensor`` with the updated positions zeroed,
    the gathered cotangent to ``updates``. With duplicate indices TensorFlow leaves the order
    of the writes undefined; here the last one wins (NumPy's assignment), and every duplicate
    gets the gathered cotangent (TensorFlow's rule).

    >>> import finegrad as fg
    >>> fg.tensor_scatter_nd_update(fg.zeros([3]), [[2]], fg.constant([5.])).numpy()
    array([0., 0., 5.], dtype=float32)
    """
    t, ind, u = _tensor_scatter_args("finegrad.tensor_scatter_nd_update", tensor, indices,
                                     updates)
    hit = not_equal(_scatter_like(ones_like(u), ind, t, 0, 0, 0, mode="assign"), 0)
    return where(hit, _scatter_like(u, ind, t, 0, 0, 0, mode="assign"), t)


def _scatter_extremum(name: Any, ufunc: Any, doc: Any) -> tuple[Primitive, Callable[..., Tensor]]:
    """``tensor_scatter_nd_max`` or ``_min``: a primitive whose rules are TensorFlow's (the
    cotangent of each output entry is shared equally by the tensor entry and the updates that
    reach the extremum there)."""
    prim = Primitive(name, unify=False, fresh=True)
    fn = f"finegrad.{name}"
    how = "max" if ufunc is np.maximum else "min"

    def op(tensor: TensorLike, indices: TensorLike, updates: TensorLike,
           name: str | None = None) -> Tensor:
        t, ind, u = _tensor_scatter_args(fn, tensor, indices, updates)
        return bind(prim, t, ind, u)

    @prim.def_impl
    def _impl(t, ind, u):
        ind = _check_indices(fn, ind, t.shape, "tensor")
        return _run(np.array(t, copy=True), ind, 0, 0, u, ufunc)

    prim.def_shape(lambda t, ind, u: tuple(t))

    @prim.def_lowering
    def _lower(t, ind, u):
        # XLA's scatter max/min propagate NaN as np.maximum/np.minimum do
        return _poisoned(_run_jax(t, ind, 0, 0, u, how), ind, t.shape)

    def shares(t, ind, u, out):
        """The indicators of the tensor's and the updates' entries that reach the output,
        and the number of them per output entry."""
        x_ind = cast(equal(t, out), out.dtype)
        y_ind = cast(equal(u, bind(gather_nd_p, out, ind, batch_dims=0, nlead=0)), out.dtype)
        return x_ind, y_ind, add(x_ind, _scatter_like(y_ind, ind, t, 0, 0, 0))

    @prim.def_jvp
    def _jvp(primals, tangents, *, out):
        t, ind, u = primals
        t_dot, _, u_dot = instantiate_zeros(primals, tangents)
        x_ind, y_ind, count = shares(t, ind, u, out)
        return divide(add(multiply(t_dot, x_ind),
                          _scatter_like(multiply(u_dot, y_ind), ind, t, 0, 0, 0)), count)

    @prim.def_vjp
    def _vjp(ct, t, ind, u, *, out, needs, batch):
        x_ind, y_ind, count = shares(t, ind, u, out)
        share = divide(ct, count)
        return (multiply(share, x_ind), None,
                multiply(bind(gather_nd_p, share, ind, batch_dims=0, nlead=0), y_ind))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return prim, op


tensor_scatter_nd_max_p, tensor_scatter_nd_max = _scatter_extremum(
    "tensor_scatter_nd_max", np.maximum, """``tensor`` with each entry at ``indices`` the
    largest of itself and the ``updates`` written there.

    Gradient, as TensorFlow's: each output entry's cotangent is shared equally between the
    tensor entry and the updates that reach the largest value there.

    >>> import finegrad as fg
    >>> fg.tensor_scatter_nd_max(fg.constant([1., 5.]), [[0], [1]], fg.constant([3., 3.])).numpy()
    array([3., 5.], dtype=float32)""")
tensor_scatter_nd_min_p, tensor_scatter_nd_min = _scatter_extremum(
    "tensor_scatter_nd_min", np.minimum, """``tensor`` with each entry at ``indices`` the
    smallest of itself and the ``updates`` written there.

    Gradient, as TensorFlow's: each output entry's cotangent is shared equally between the
    tensor entry and the updates that reach the smallest value there.

    >>> import finegrad as fg
    >>> fg.tensor_scatter_nd_min(fg.constant([1., 5.]), [[0], [1]], fg.constant([3., 3.])).numpy()
    array([1., 3.], dtype=float32)""")
