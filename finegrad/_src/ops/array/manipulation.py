"""Shape manipulation built from differentiable slicing and concatenation: `reverse`, `roll`,
`pad`, `repeat`, and the non-differentiable `one_hot`.

Each is a composite of `getitem`, `concat` and `gather`, so its gradients (and its behaviour
inside `finegrad.function`) are theirs. Along an open (symbolic) axis `pad`, `roll` and
`repeat` by one count stay symbolic: one graph serves every size. It imports
`ops.array.indexing`, `ops.array`, `ops.array.gather`, `ops.math.arithmetic` and
`ops.math.reductions`.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims, dtypes
from finegrad._src import tensor as _tensor
from finegrad._src.ops.array.structural import (_t, broadcast_to, concat, convert_to_tensor,
                                                expand_dims, reshape, squeeze, transpose)
from finegrad._src.ops.array.structural import unstack as _unstack_fixed
from finegrad._src.ops.zeros_and_axes import _normalize_axis, _static, filled
from finegrad._src.ops.math import arithmetic
from finegrad._src.ops.math.reductions import cumsum
from finegrad._src.ops.math.elementwise import equal, where
from finegrad._src.ops.array.gather import take
from finegrad._src.ops.array.indexing import getitem
from finegrad._src.ops.array.scatter_nd import checked_gather_nd
from finegrad._src.ops.array.boolean_mask import mask_indices
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _int_list(values, fn, what):
    """``values`` (an int, a list or an integer tensor) as a list of Python ints."""
    if isinstance(values, Tensor):   # a traced tensor cannot fix the graph's shapes
        values = _static(values, f"{fn}'s {what}")
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"{fn}: {what} must be integers, got {arr.dtype}")
    return [int(v) for v in arr.reshape(-1)]


def _axis_slice(ndim, axis, sl):
    """An index tuple applying slice ``sl`` on ``axis`` only."""
    return tuple(sl if d == axis else slice(None) for d in range(ndim))


def reverse(tensor: TensorLike, axis: Any, name: str | None = None) -> Tensor:
    """Reverse ``tensor`` along each axis in ``axis`` (TensorFlow's ``tf.reverse``).

    A strided slice; its gradient reverses the cotangent along the same axes.

    >>> import finegrad as fg
    >>> fg.reverse(fg.constant([[1., 2.], [3., 4.]]), [1]).numpy()
    array([[2., 1.],
           [4., 3.]], dtype=float32)
    """
    x = _t(tensor)
    ndim = x._value.ndim
    axes = {_normalize_axis(a, ndim, "finegrad.reverse")
            for a in _int_list(axis, "finegrad.reverse", "axis")}
    if not axes:
        return getitem(x, (Ellipsis,))
    return getitem(x, tuple(slice(None, None, -1) if d in axes else slice(None)
                            for d in range(ndim)))


def roll(input: TensorLike, shift: Any, axis: Any,  # TensorFlow's keyword
         name: str | None = None) -> Tensor:
    """Roll elements of ``input`` by ``shift`` along ``axis`` (TensorFlow's ``tf.roll``);
    elements shifted past the end come back at the start. ``shift`` and ``axis`` may be
    lists of equal length; shifts on a repeated axis add up.

    >>> import finegrad as fg
    >>> fg.roll(fg.constant([1., 2., 3., 4.]), shift=1, axis=0).numpy()
    array([4., 1., 2., 3.], dtype=float32)
    """
    x = _t(input)
    ndim = x._value.ndim
    if isinstance(shift, (list, tuple)) and any(type(s) is dims.Dim for s in shift):
        shifts = list(shift)    # a rule's symbolic shifts (fftshift's n // 2 of an open axis)
    else:
        shifts = _int_list(shift, "finegrad.roll", "shift")
    axes = _int_list(axis, "finegrad.roll", "axis")
    if len(shifts) != len(axes):
        raise ValueError(f"finegrad.roll: shift and axis must have the same length, got "
                         f"{len(shifts)} and {len(axes)}")
    total: dict = {}
    for s, a in zip(shifts, axes, strict=True):
        a = _normalize_axis(a, ndim, "finegrad.roll")
        total[a] = total.get(a, 0) + s
    out = x
    for a, s in sorted(total.items()):
        n = core.shape_of(x)[a]
        if type(n) is dims.Dim or type(s) is dims.Dim:
            out = _roll_open(out, a, s, n)
            continue
        k = s % n if n else 0
        if k:
            out = concat([getitem(out, _axis_slice(ndim, a, slice(n - k, None))),
                          getitem(out, _axis_slice(ndim, a, slice(0, n - k)))], axis=a)
    return out if out is not x else getitem(x, (Ellipsis,))


def _roll_open(x, axis, shift, n):
    """``x`` rolled by ``shift`` along ``axis`` of open size ``n``: a gather at the positions
    ``(i - shift) mod n``, computed when the graph runs (a slice's cut would be a size the
    trace decides)."""
    positions = cumsum(filled((n,), 1, np.int64)) - 1
    size = filled((), n, np.int64)
    step = filled((), shift, np.int64) if type(shift) is dims.Dim else shift
    return take(x, arithmetic.mod(positions - step, size), axis=axis)


def _take_checked(x, axis, idx, error):
    """``x``'s slices at positions ``idx`` (a vector) along ``axis``, an index out of range
    of a run's size being TensorFlow's InvalidArgumentError with the message ``error`` of
    the public function (``{size}``: the run's size of ``axis``; ``{index}``: the position
    out of range) (a ``gather_nd``; while a graph is built on example sizes, its indices
    are clipped)."""
    ndim = x._value.ndim
    perm = [axis] + [d for d in range(ndim) if d != axis]
    got = checked_gather_nd(transpose(x, perm) if axis else x, reshape(idx, [-1, 1]), error)
    return transpose(got, [perm.index(d) for d in range(ndim)]) if axis else got


def unstack(value: TensorLike, num: Any = None, axis: int = 0,
            name: str | None = None) -> list[Tensor]:
    """Split ``value`` along ``axis`` into a list of tensors of one rank less (TensorFlow's
    ``tf.unstack``). Along an axis left open (``None``) ``num`` must be given, as in
    TensorFlow (a ValueError otherwise); a run whose size differs from ``num`` is an
    InvalidArgumentError.

    >>> import finegrad as fg
    >>> [t.shape for t in fg.unstack(fg.zeros((2, 3)), axis=1)]
    [TensorShape([2]), TensorShape([2]), TensorShape([2])]
    """
    x = _t(value)
    if num is None and x.shape.rank is None:   # a py_func's result, as TensorFlow's
        raise ValueError("Cannot infer argument `num` from shape <unknown>")
    a = _normalize_axis(axis, x._value.ndim, "finegrad.unstack")
    n = core.shape_of(x)[a]
    if type(n) is not dims.Dim:
        return _unstack_fixed(x, num, a)
    if num is None:
        raise ValueError(f"Cannot infer argument `num` from shape {_shape_text(x)}")
    num = int(num)
    # slice i is read at i + (n - num) * (num + 1): out of range unless n == num
    shift = (filled((), n, np.int64) - num) * (num + 1)
    error = f"finegrad.unstack: axis {a} must have size num={num}, got size {{size}}"
    return [squeeze(_take_checked(x, a, shift + i, error), [a]) for i in range(num)]


def _shape_text(x):
    """``x``'s static shape as TensorFlow prints a TensorShape: ``(None, 3)``."""
    return "(" + ", ".join("None" if d is None else str(d) for d in x.shape) + \
        ("," if x._value.ndim == 1 else "") + ")"


def _mirror_open(x, axis, before, after, n, off):
    """The mirrored blocks before and after ``x`` along ``axis`` of open size ``n`` (``off``
    1 for REFLECT, 0 for SYMMETRIC): a ``gather_nd`` at positions computed from the size
    when the graph runs, so any padding valid for the run's size works, and paddings over
    ``n - off`` are TensorFlow's InvalidArgumentError for that run."""
    error = (f"finegrad.pad: paddings must be less than the dimension size: {before}, "
             f"{after} not less than {{size}}" if off else
             f"finegrad.pad: paddings must be no greater than the dimension size: {before}, "
             f"{after} greater than {{size}}")   # (REFLECT, SYMMETRIC: TensorFlow's words)

    def pick(idx):
        return _take_checked(x, axis, idx, error)
    lo = pick(np.arange(before - 1 + off, off - 1, -1, dtype=np.int64)) if before else None
    hi = None
    if after:
        hi = pick(filled((), n, np.int64) - np.arange(1 + off, 1 + off + after, dtype=np.int64))
    return lo, hi


def _pad_axis(x, axis, before, after, mode, constant_values):
    """``x`` padded on one axis (whose size may be open: the blocks' sizes are constants and
    the slices' bounds count from the ends, so one graph serves every size)."""
    n = core.shape_of(x)[axis]
    if mode == "CONSTANT":
        value = convert_to_tensor(constant_values, dtype=x.dtype)

        def block(k):
            shape = list(core.shape_of(x))
            shape[axis] = k
            return broadcast_to(value, tuple(shape))
        lo, hi = (block(before) if before else None), (block(after) if after else None)
    elif type(n) is dims.Dim:
        lo, hi = _mirror_open(x, axis, before, after, n, 1 if mode == "REFLECT" else 0)
    else:
        off = 1 if mode == "REFLECT" else 0
        if before > n - off or after > n - off:
            raise ValueError(f"finegrad.pad: paddings must be at most {n - off} on an axis of "
                             f"size {n} in {mode} mode, got ({before}, {after})")

        def pick(idx):
            return getitem(x, _axis_slice(x._value.ndim, axis, np.asarray(idx)))
        lo = pick(range(before - 1 + off, off - 1, -1)) if before else None
        hi = pick(range(-1 - off, -1 - off - after, -1)) if after else None
    parts = [p for p in (lo, x, hi) if p is not None]
    return concat(parts, axis=axis) if len(parts) > 1 else x


def pad(tensor: TensorLike, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: str | None = None) -> Tensor:
    """Pad ``tensor`` by ``paddings`` (an ``[ndim, 2]`` list of before/after counts), as
    TensorFlow's ``tf.pad``. ``mode`` is ``"CONSTANT"`` (fill with ``constant_values``),
    ``"REFLECT"`` (mirror, edge excluded) or ``"SYMMETRIC"`` (mirror, edge included).

    The gradient with respect to ``tensor`` sums the cotangent over each element's copies;
    ``constant_values`` gets no gradient path other than its own tensor's.

    >>> import finegrad as fg
    >>> fg.pad(fg.constant([1., 2., 3.]), [[1, 2]], mode="REFLECT").numpy()
    array([2., 1., 2., 3., 2., 1.], dtype=float32)
    """
    x = _t(tensor)
    m = str(mode).upper()
    if m not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"finegrad.pad: mode must be CONSTANT, REFLECT or SYMMETRIC, got {mode!r}")
    flat = _int_list(paddings, "finegrad.pad", "paddings")
    ndim = x._value.ndim
    if len(flat) != 2 * ndim:
        raise ValueError(f"finegrad.pad: paddings must have shape [{ndim}, 2], got "
                         f"{np.shape(getattr(paddings, '_value', paddings))}")
    if any(v < 0 for v in flat):
        raise ValueError(f"finegrad.pad: paddings must be non-negative, got {flat}")
    out = x
    for axis in range(ndim):
        before, after = flat[2 * axis], flat[2 * axis + 1]
        if before or after:
            out = _pad_axis(out, axis, before, after, m, constant_values)
    return out if out is not x else getitem(x, (Ellipsis,))


def repeat(input: TensorLike, repeats: Any, axis: Any = None,  # TensorFlow's keyword
           name: str | None = None) -> Tensor:
    """Repeat each element of ``input`` ``repeats`` times along ``axis`` (TensorFlow's
    ``tf.repeat``); with ``axis=None`` the input is flattened first. A `gather`, whose
    gradient sums the cotangent over each element's copies.

    >>> import finegrad as fg
    >>> fg.repeat(fg.constant([1., 2.]), [2, 3], axis=0).numpy()
    array([1., 1., 2., 2., 2.], dtype=float32)
    """
    x = _t(input)
    if axis is None:
        x = getitem(x, (Ellipsis,)) if x._value.ndim == 1 else _flatten(x)
        axis = 0
    a = _normalize_axis(axis, x._value.ndim, "finegrad.repeat")
    reps = _int_list(repeats, "finegrad.repeat", "repeats")
    sym = core.shape_of(x)
    if len(reps) == 1 and type(sym[a]) is dims.Dim and reps[0] >= 0:
        # an open axis, one count: each slice broadcast along a new axis, then merged
        r = reps[0]
        y = broadcast_to(expand_dims(x, a + 1), tuple(sym[:a + 1]) + (r,) + tuple(sym[a + 1:]))
        return reshape(y, tuple(sym[:a]) + (sym[a] * r,) + tuple(sym[a + 1:]))
    open_axis = type(sym[a]) is dims.Dim   # counts are then checked by each run's size
    n = len(reps) if open_axis else x._value.shape[a]
    if len(reps) == 1:
        reps = reps * n
    if len(reps) != n:
        raise ValueError(f"finegrad.repeat: repeats must be a scalar or have {n} entries "
                         f"(the size of axis {a}), got {len(reps)}")
    if any(r < 0 for r in reps):
        raise ValueError(f"finegrad.repeat: repeats must be non-negative, got {reps}")
    idx = np.repeat(np.arange(n, dtype=np.int64), reps)
    if open_axis:   # as TensorFlow: a run with fewer rows than counts fails where idx needs
        return _take_checked(x, a, idx, f"finegrad.repeat: repeats has {n} entries but "
                             f"axis {a} has {{size}}")   # them (InvalidArgumentError)
    return take(x, idx, axis=a)


def _flatten(x):
    """``x`` as a vector."""
    return reshape(x, [-1])


def _positions(depth, dt):
    """0, 1, ..., depth - 1 as ``dt``: a node of symbolic length for a depth a trace knows as
    a size (``shape(x)[0]``), else a constant."""
    n = _tensor._static_size(depth) if isinstance(depth, Tensor) else None
    if type(n) is dims.Dim:
        return cumsum(filled((n,), 1, dt)) - 1
    depth = int(_int_list(depth, "finegrad.one_hot", "depth")[0])
    if depth < 0:
        raise ValueError(f"finegrad.one_hot: depth must be non-negative, got {depth}")
    return convert_to_tensor(np.arange(depth, dtype=dt))


def one_hot(indices: TensorLike, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: Any = None, dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """One-hot encode integer ``indices`` into a new axis of size ``depth`` (TensorFlow's
    ``tf.one_hot``); indices outside ``[0, depth)`` give an all-``off_value`` row. Not
    differentiable with respect to ``indices``; the result is a constant.

    >>> import finegrad as fg
    >>> fg.one_hot([0, 2], 3).numpy()
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    ind = _t(indices)
    if not ind.dtype.is_integer:
        raise TypeError(f"finegrad.one_hot: indices must be integers, got {ind.dtype.name}")
    dt = dtypes.as_dtype(dtype) if dtype is not None else dtypes.float32
    on = convert_to_tensor(1 if on_value is None else on_value, dtype=dt)
    off = convert_to_tensor(0 if off_value is None else off_value, dtype=dt)
    hot = equal(getitem(ind, (Ellipsis, None)), _positions(depth, ind._value.dtype))
    out = where(hot, on, off)
    if axis is not None and axis != -1:
        a = _normalize_axis(axis, out._value.ndim, "finegrad.one_hot")
        perm = list(range(out._value.ndim - 1))
        perm.insert(a, out._value.ndim - 1)
        out = transpose(out, perm)
    return out


def meshgrid(*args: Any, **kwargs: Any) -> list[Tensor]:
    """Coordinate grids from 1-D ``args`` (TensorFlow's ``tf.meshgrid``); ``indexing`` is
    ``"xy"`` (default: the first two output axes swapped) or ``"ij"``. Each output is a
    reshape and broadcast of one input, whose gradient sums the cotangent back.

    >>> import finegrad as fg
    >>> x, y = fg.meshgrid(fg.constant([1., 2., 3.]), fg.constant([4., 5.]))
    >>> x.numpy()
    array([[1., 2., 3.],
           [1., 2., 3.]], dtype=float32)
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"finegrad.meshgrid: unexpected keyword arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"finegrad.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [reshape(_t(a), [-1]) for a in args]
    pos = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        pos[0], pos[1] = 1, 0
    shape = [0] * len(xs)
    for p, x in zip(pos, xs, strict=True):
        shape[p] = core.shape_of(x)[0]   # an open size stays open: one graph for every size
    outs = []
    for p, x in zip(pos, xs, strict=True):
        target = [1] * len(xs)
        target[p] = -1
        outs.append(broadcast_to(reshape(x, target), tuple(shape)))
    return outs


def boolean_mask(tensor: TensorLike, mask: Any, axis: Any = None,
                 name: str | None = None) -> Tensor:
    """The slices of ``tensor`` where ``mask`` is true (TensorFlow's ``tf.boolean_mask``).

    ``mask`` (bool, rank k >= 1) has the shape of ``tensor``'s axes ``axis .. axis + k``
    (``axis`` defaults to 0); those axes become one, holding the selected slices in row-major
    order. The gradient scatters the cotangent back to the selected positions.

    Inside `finegrad.function` the number of selected slices may change from call to call:
    a call whose mask selects another number than the traced one runs eagerly (correct
    values and gradients; a graph that also assigns variables refuses it instead).

    Raises:
        TypeError: for a mask that is not bool.
        ValueError: for a mask of rank 0 or a shape that does not match ``tensor``'s.

    >>> import finegrad as fg
    >>> fg.boolean_mask(fg.constant([[1., 2.], [3., 4.]]), [True, False]).numpy()
    array([[1., 2.]], dtype=float32)
    """
    fn = "finegrad.boolean_mask"
    t, m = _t(tensor), _t(mask)
    if not m.dtype.is_bool:
        raise TypeError(f"{fn}: mask must be bool, got {m.dtype.name}")
    k, shape = m._value.ndim, t._value.shape
    if k == 0:
        raise ValueError(f"{fn}: mask must have rank >= 1, got a scalar")
    a = 0 if axis is None else _normalize_axis(axis, max(t._value.ndim, 1), fn)
    sym = core.shape_of(t)
    # an open axis of the tensor takes any size of the mask's (TensorFlow's static check)
    opened = [type(d) is dims.Dim and type(e) is not dims.Dim
              for d, e in zip(sym[a:a + k], core.shape_of(m), strict=False)]
    pairs = zip(shape[a:a + k], m._value.shape, opened, strict=False)
    if len(shape[a:a + k]) != k or any(s != e and not o for s, e, o in pairs):
        raise ValueError(f"{fn}: mask of shape {list(m._value.shape)} does not match axes "
                         f"{a}..{a + k - 1} of tensor of shape {list(shape)}")
    flat = reshape(t, tuple(sym[:a]) + (-1,) + tuple(sym[a + k:])) if k != 1 else t
    m1 = reshape(m, (-1,)) if k != 1 else m
    if any(opened):   # a fixed mask over open sizes: the positions it selects, checked
        return _take_checked(flat, a, mask_indices(m1),   # against each run's size
                             f"{fn}: the mask selects position {{index}} of axis {a}, of "
                             f"size {{size}}")
    return take(flat, mask_indices(m1), axis=a)
