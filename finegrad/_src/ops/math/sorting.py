"""Sorting and selection: argmax, argmin (primitives without gradient), argsort (primitive
``argsort``, no gradient), and sort and top_k, composites that gather the values at the
sorted indices, so their gradients route the upstream gradient back through those indices
(a gather's VJP, a scatter-add) and are differentiable again.

Ties keep their original order (TensorFlow's top_k, on which its sort and argsort build,
is stable); NaN sorts as the largest value (last ascending, first descending, as NumPy and
TensorFlow's top_k place it).
"""

from __future__ import annotations

import collections

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.dtypes import as_dtype
from finegrad._src.ops.array.structural import convert_to_tensor, transpose
from finegrad._src.ops.zeros_and_axes import _normalize_axis, _static, axis_vmap
from finegrad._src.ops.array.gather import take
from finegrad._src.shapes import as_int
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from collections.abc import Callable
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike


def _check_real(fn, x, arg="input"):
    """TypeError naming ``finegrad.<fn>`` unless ``x`` holds real numbers (or booleans)."""
    kind = np.dtype(x._value.dtype).kind
    if kind not in "biuf":
        raise TypeError(f"finegrad.{fn}: {arg} must be a real numeric tensor, got "
                        f"{'a string' if kind == 'O' else np.dtype(x._value.dtype).name}")


def _index_dtype(output_type, fn, allowed=("int32", "int64")):
    dt = as_dtype(output_type)
    if dt.name not in allowed:
        raise TypeError(f"finegrad.{fn}: output_type must be one of {', '.join(allowed)}, got "
                        f"{dt.name}")
    return np.dtype(dt.as_numpy_dtype)


# ---- argmax, argmin ---------------------------------------------------------------------------

def _arg_extreme(name: Any, np_fn: Any, nan_as: Any) -> tuple[Primitive, Callable[..., Tensor]]:
    prim = def_nondiff(Primitive(
        name, unify=False,   # the shape without ``axis`` (open sizes follow)
        shape_rule=lambda shape, *, axis, dtype: tuple(shape[:axis]) + tuple(shape[axis + 1:])))

    @prim.def_impl
    def _impl(x, *, axis, dtype):
        if x.dtype.kind == "f":
            # TensorFlow's kernel never picks a NaN while another value is there
            x = np.where(np.isnan(x), nan_as, x)
        return np.asarray(np_fn(x, axis=axis)).astype(dtype)[()]

    @prim.def_lowering
    def _lower(x, *, axis, dtype):
        import jax.numpy as jnp
        if jnp.issubdtype(x.dtype, jnp.floating):
            x = jnp.where(jnp.isnan(x), jnp.asarray(nan_as, x.dtype), x)
        return getattr(jnp, name)(x, axis=axis).astype(dtype)   # the first one on ties

    prim.def_vmap(axis_vmap(prim, "axis"))

    def op(input: TensorLike, axis: Any = None, output_type: Any = "int64",
           name: str | None = None) -> Tensor:
        x = convert_to_tensor(input)
        _check_real(name_, x)
        if x._value.ndim == 0:
            raise ValueError(f"finegrad.{name_}: input must have rank >= 1, got a scalar")
        if x._value.size == 0:
            raise ValueError(f"finegrad.{name_}: input is empty (shape {x._value.shape})")
        a = _normalize_axis(0 if axis is None else axis, x._value.ndim, f"finegrad.{name_}")
        return bind(prim, x, axis=a, dtype=_index_dtype(output_type, name_))

    name_ = name
    op.__name__ = op.__qualname__ = name
    return prim, op


argmax_p, argmax = _arg_extreme("argmax", np.argmax, -np.inf)
argmax.__doc__ = """The index of the largest value along ``axis`` (0 when None, as TensorFlow),
    the first one on ties; NaN is never picked while another value is there. Not
    differentiable. Primitive ``argmax``.

    Args:
        input: a real tensor of rank >= 1.
        axis: the axis to reduce (default 0).
        output_type: int64 (default) or int32.

    >>> import finegrad as fg
    >>> fg.math.argmax(fg.constant([[1, 5], [4, 2]]), axis=1).numpy()
    array([1, 0])
    """

argmin_p, argmin = _arg_extreme("argmin", np.argmin, np.inf)
argmin.__doc__ = """The index of the smallest value along ``axis`` (0 when None, as
    TensorFlow), the first one on ties; NaN is never picked while another value is there.
    Not differentiable. Primitive ``argmin``.

    Args:
        input: a real tensor of rank >= 1.
        axis: the axis to reduce (default 0).
        output_type: int64 (default) or int32.

    >>> import finegrad as fg
    >>> fg.math.argmin(fg.constant([3., 1., 2.])).numpy()
    np.int64(1)
    """


# ---- argsort (along the last axis), sort, top_k -----------------------------------------------

argsort_p = def_nondiff(Primitive("argsort", unify=False, fresh=True))
# the indices have the input's shape: its open axes stay open
argsort_p.def_shape(core.same_shape_rule)
argsort_p.def_vmap(lambda args, batched, **params: bind(argsort_p, *args, **params))  # last axis


@argsort_p.def_impl
def _argsort_impl(x, *, descending, dtype):
    """Stable argsort along the last axis; NaN largest. Descending keeps ties in order by
    sorting the reversed array ascending and reversing back."""
    if not descending:
        return np.argsort(x, axis=-1, kind="stable").astype(dtype)
    n = x.shape[-1]
    rev = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1 - rev).astype(dtype)


@argsort_p.def_lowering
def _argsort_lower(x, *, descending, dtype):
    # XLA's sort orders -0.0 before 0.0, which NumPy's stable sort keeps in place: + 0.0 turns
    # every zero into +0.0 (NaN sorts last in both)
    import jax.numpy as jnp
    if jnp.issubdtype(x.dtype, jnp.floating):
        x = x + jnp.zeros((), x.dtype)
    if not descending:
        return jnp.argsort(x, axis=-1, stable=True).astype(dtype)
    rev = jnp.argsort(x[..., ::-1], axis=-1, stable=True)[..., ::-1]
    return (x.shape[-1] - 1 - rev).astype(dtype)


def _direction(direction, fn):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"finegrad.{fn}: direction must be 'ASCENDING' or 'DESCENDING', got "
                         f"{direction!r}")
    return direction == "DESCENDING"


def _to_last(x, axis):
    """``x`` with ``axis`` moved last, and the permutation that undoes it."""
    n = x._value.ndim
    if axis == n - 1:
        return x, None
    perm = [a for a in range(n) if a != axis] + [axis]
    return transpose(x, perm), list(np.argsort(perm))


def _take_last(x, idx):
    """``x[..., idx]`` row by row along the last axis: a gather with every leading axis a
    batch axis (its VJP scatters the cotangent back to the gathered positions)."""
    n = x._value.ndim
    if x._value.size == 0 or idx._value.size == 0:    # nothing to gather: an empty slice
        return x[..., :idx._value.shape[-1]]
    return take(x, idx, axis=n - 1, batch_dims=n - 1)


def _sorted_along(fn, values, axis, direction, dtype):
    x = convert_to_tensor(values)
    _check_real(fn, x, "values")
    if x._value.ndim == 0:
        raise ValueError(f"finegrad.{fn}: values must have rank >= 1, got a scalar")
    a = _normalize_axis(axis, x._value.ndim, f"finegrad.{fn}")
    desc = _direction(direction, fn)
    xt, back = _to_last(x, a)
    idx = bind(argsort_p, xt, descending=desc, dtype=dtype)
    return xt, idx, back


def sort(values: TensorLike, axis: int = -1, direction: str = "ASCENDING",
         name: str | None = None) -> Tensor:
    """``values`` sorted along ``axis``. Ties keep their order; NaN sorts as the largest.
    Its gradient sends each upstream value back to the position it came from (a gather at
    the sorting indices), so it is differentiable to any order.

    Args:
        values: a real tensor of rank >= 1.
        axis: the axis to sort along (default the last).
        direction: 'ASCENDING' or 'DESCENDING'.

    >>> import finegrad as fg
    >>> fg.sort(fg.constant([3., 1., 2.]), direction="DESCENDING").numpy()
    array([3., 2., 1.], dtype=float32)
    """
    xt, idx, back = _sorted_along("sort", values, axis, direction, np.dtype(np.int64))
    out = _take_last(xt, idx)
    return out if back is None else transpose(out, back)


def argsort(values: TensorLike, axis: int = -1, direction: str = "ASCENDING", stable: bool = False,
            name: str | None = None) -> Tensor:
    """The indices that sort ``values`` along ``axis`` (int32, as TensorFlow); always stable
    (ties in their original order), which also satisfies ``stable=False``. Not
    differentiable. Primitive ``argsort``.

    >>> import finegrad as fg
    >>> fg.argsort(fg.constant([3., 1., 3.]), direction="DESCENDING").numpy()
    array([0, 2, 1], dtype=int32)
    """
    _, idx, back = _sorted_along("argsort", values, axis, direction, np.dtype(np.int32))
    return idx if back is None else transpose(idx, back)


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input: TensorLike, k: int = 1, sorted: bool = True,  # TF's names
          index_type: str = "int32", name: str | None = None) -> Any:
    """The ``k`` largest entries along the last axis and their indices, as a named tuple
    ``(values, indices)``; on ties the lower index comes first. ``values`` is differentiable
    (the upstream gradient goes back to the chosen positions); ``sorted=False`` also returns
    them sorted (any order is allowed).

    Args:
        input: a real tensor of rank >= 1.
        k: how many entries (0 <= k <= the last axis' size).
        index_type: int32 (default) or int64.

    Raises:
        ValueError: when ``k`` is negative or exceeds the last axis.

    >>> import finegrad as fg
    >>> values, indices = fg.math.top_k(fg.constant([1., 3., 2., 3.]), k=2)
    >>> values.numpy(), indices.numpy()
    (array([3., 3.], dtype=float32), array([1, 3], dtype=int32))
    """
    x = convert_to_tensor(input)
    _check_real("top_k", x)
    if isinstance(k, Tensor):
        k = _static(k, "top_k's k")
    k = as_int(k, "finegrad.top_k", "k")
    if x._value.ndim == 0:
        raise ValueError("finegrad.top_k: input must have rank >= 1, got a scalar")
    n = x._value.shape[-1]
    if not 0 <= k <= n:
        raise ValueError(f"finegrad.top_k: k must be in [0, {n}] (the size of the last axis), "
                         f"got {k}")
    dtype = _index_dtype(index_type, "top_k")
    idx = bind(argsort_p, x, descending=True, dtype=dtype)[..., :k]
    return TopKV2(_take_last(x, idx), idx)


# ---- searchsorted -----------------------------------------------------------------------------

searchsorted_p = def_nondiff(Primitive("searchsorted", unify=True, fresh=True))
# one index per value: the values' shape (its open axes stay open)
searchsorted_p.def_shape(lambda sorted_sequence, values, **params: values)


@searchsorted_p.def_impl
def _searchsorted_impl(sorted_sequence, values, *, right, dtype):
    """Row by row along the leading axes (one row for 1-D inputs)."""
    side = "right" if right else "left"
    s = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    v = values.reshape(-1, values.shape[-1])
    out = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(s, v, strict=True)])
    return out.astype(dtype).reshape(values.shape)


@searchsorted_p.def_lowering
def _searchsorted_lower(sorted_sequence, values, *, right, dtype):
    import jax
    import jax.numpy as jnp
    side = "right" if right else "left"
    s = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    v = values.reshape(-1, values.shape[-1])
    out = jax.vmap(lambda a, b: jnp.searchsorted(a, b, side=side))(s, v)
    return out.astype(dtype).reshape(values.shape)


def searchsorted(sorted_sequence: Any, values: TensorLike, side: str = "left",
                 out_type: DTypeLike = "int32", name: str | None = None) -> Tensor:
    """For each row of ``values``, where its entries would go in the same row (leading axes)
    of ``sorted_sequence``, sorted along its last axis, to keep it sorted: the first such
    place (``side="left"``) or the last (``"right"``). Not differentiable.

    >>> import finegrad as fg
    >>> fg.searchsorted(fg.constant([1., 2., 2., 3.]), fg.constant([2., 5.]), side="right").numpy()
    array([3, 4], dtype=int32)

    Raises:
        ValueError: for a ``side`` other than "left" or "right", scalars, or leading axes
            that differ.
        TypeError: for different dtypes, or ``out_type`` neither int32 nor int64.
    """
    fn = "finegrad.searchsorted"
    s, v = convert_to_tensor(sorted_sequence), convert_to_tensor(values)
    if side not in ("left", "right"):
        raise ValueError(f"{fn}: side must be 'left' or 'right', got {side!r}")
    _check_real("searchsorted", s, "sorted_sequence")
    if s.dtype != v.dtype:
        raise TypeError(f"{fn}: sorted_sequence and values must have one dtype, got "
                        f"{s.dtype.name} and {v.dtype.name}")
    ss, vs = core.shape_of(s), core.shape_of(v)
    if not len(ss) or not len(vs) or tuple(ss[:-1]) != tuple(vs[:-1]):
        raise ValueError(f"{fn}: sorted_sequence and values must have rank >= 1 and the same "
                         f"leading axes, got shapes {tuple(s.shape)} and {tuple(v.shape)}")
    return bind(searchsorted_p, s, v, right=side == "right",
                dtype=_index_dtype(out_type, "searchsorted"))
