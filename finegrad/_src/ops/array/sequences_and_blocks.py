"""Sequences, index arithmetic, broadcast shapes and depth/space blocks, written with
finegrad ops: ``shape_n``, ``sequence_mask``,
``unravel_index``, ``reverse_sequence``, ``parallel_stack``, ``broadcast_static_shape``,
``broadcast_dynamic_shape``, and ``nn.space_to_depth`` / ``nn.depth_to_space`` (NHWC).

The differentiable ones (``reverse_sequence``, ``parallel_stack``, the depth rearrangements)
are reshapes, transposes and one ``gather``, so their gradients (every order, both modes) and
traces are those ops'. Arguments that fix the result's structure (``seq_lengths``, ``maxlen``,
``dims``, ``block_size``) are static: inside a `finegrad.function` they must not depend on
the function's inputs.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims, dtypes
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, expand_dims, reshape,
                                                stack, transpose)
from finegrad._src.ops.array.symbolic_constants import iota
from finegrad._src.ops.zeros_and_axes import _static, filled
from finegrad._src.ops.array.constants import range_
from finegrad._src.ops.math.elementwise import less, where
from finegrad._src.ops.array.gather import take
from finegrad._src.ops.array.shape_queries import shape
from finegrad._src.shapes import TensorShape, as_int
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _static_ints(x, fn, arg):
    """The integer values of ``x`` (a tensor that must not be traced, a list or an int)."""
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        raise TypeError(f"{fn}: {arg} must be integers, got {t.dtype.name}")
    return np.asarray(_static(t, f"{fn}'s {arg}"))


def shape_n(input: TensorLike,  # TensorFlow's keyword
            out_type: DTypeLike = dtypes.int32, name: str | None = None) -> list[Tensor]:
    """The shape of each tensor of the list ``input``, as a list of 1-D ``out_type`` tensors.

    >>> import finegrad as fg
    >>> [s.numpy() for s in fg.shape_n([fg.zeros([2, 3]), fg.zeros([])])]
    [array([2, 3], dtype=int32), array([], dtype=int32)]

    Raises:
        TypeError: when ``input`` is not a list or tuple.
    """
    if not isinstance(input, (list, tuple)):
        raise TypeError(f"finegrad.shape_n: input must be a list of tensors, got "
                        f"{type(input).__name__}")
    return [shape(x, out_type=out_type) for x in input]


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool_,
                  name: str | None = None) -> Tensor:
    """``mask[..., j] = j < lengths[...]``, of shape ``lengths.shape + [maxlen]`` (``maxlen``
    None: the largest length, which must then be static), cast to ``dtype``.

    >>> import finegrad as fg
    >>> fg.sequence_mask([1, 3], 4).numpy()
    array([[ True, False, False, False],
           [ True,  True,  True, False]])

    Raises:
        TypeError: for lengths that are not integers.
        ValueError: for a ``maxlen`` that is not a scalar.
    """
    fn = "finegrad.sequence_mask"
    n = convert_to_tensor(lengths)
    if not n.dtype.is_integer:
        raise TypeError(f"{fn}: lengths must be integers, got {n.dtype.name}")
    if maxlen is None:
        v = _static_ints(n, fn, "lengths (maxlen None)")
        m = int(v.max()) if v.size else 0
    else:
        t = convert_to_tensor(maxlen)
        if t._value.ndim:
            raise ValueError(f"{fn}: maxlen must be a scalar, got shape {t._value.shape}")
        m = int(_static(t, f"{fn}'s maxlen"))
    mask = less(range_(max(m, 0), dtype=n.dtype), reshape(n, tuple(core.shape_of(n)) + (1,)))
    return mask if dtypes.as_dtype(dtype) == dtypes.bool_ else cast(mask, dtype)


def unravel_index(indices: TensorLike, dims: Any, name: str | None = None) -> Tensor:
    """The coordinates of flat ``indices`` in an array of shape ``dims`` (row major): shape
    ``[len(dims)] + indices.shape``, of ``indices``' dtype.

    >>> import finegrad as fg
    >>> fg.unravel_index([22, 41, 37], [7, 6]).numpy()
    array([[3, 6, 6],
           [4, 5, 1]], dtype=int32)

    Raises:
        TypeError: for non-integer arguments.
        InvalidArgumentError: for an index out of range, or indices of rank above 1 (a
            ValueError), as TensorFlow.
    """
    fn = "finegrad.unravel_index"
    i = convert_to_tensor(indices)
    if not i.dtype.is_integer:
        raise TypeError(f"{fn}: indices must be integers, got {i.dtype.name}")
    if len(core.shape_of(i)) > 1:
        raise InvalidArgumentError(f"{fn}: indices must be a scalar or a vector, got shape "
                                   f"{tuple(i.shape)}")
    d = _static_ints(dims, fn, "dims")
    if d.ndim != 1 or (d <= 0).any():
        raise ValueError(f"{fn}: dims must be a 1-D vector of positive sizes, got {d.tolist()}")
    if core.current_tracer() is None:
        v = np.asarray(i._value)
        if v.size and (v.min() < 0 or v.max() >= np.prod(d)):
            raise InvalidArgumentError(f"{fn}: indices must be in [0, {int(np.prod(d))}) for "
                                       f"dims {d.tolist()}, got {v.min()}..{v.max()}")
    strides = [int(np.prod(d[k + 1:])) for k in range(len(d))]   # row major
    return stack([(i // int(s)) % int(n) for s, n in zip(strides, d, strict=True)])


def reverse_sequence(input: TensorLike, seq_lengths: Any, seq_axis: Any = None,
                     batch_axis: int = 0, name: str | None = None) -> Tensor:
    """For each ``b`` along ``batch_axis``, the first ``seq_lengths[b]`` entries along
    ``seq_axis`` reversed, the rest kept. Differentiable in ``input`` (one `gather`); the
    lengths are static.

    >>> import finegrad as fg
    >>> fg.reverse_sequence(fg.constant([[1, 2, 3], [4, 5, 6]]), [2, 3], seq_axis=1).numpy()
    array([[2, 1, 3],
           [6, 5, 4]], dtype=int32)

    Raises:
        InvalidArgumentError: (a ValueError, as TensorFlow's) for axes out of range or
            equal, lengths of the wrong size, or a length larger than the sequence axis.
    """
    fn = "finegrad.reverse_sequence"
    x = convert_to_tensor(input)
    shp = core.shape_of(x)   # open sizes: symbolic (the positions are then ops of them)
    r = len(shp)
    if seq_axis is None or not all(isinstance(a, (int, np.integer)) and 0 <= a < r
                                   for a in (seq_axis, batch_axis)):
        raise InvalidArgumentError(f"{fn}: seq_axis and batch_axis must be axes of input, in "
                                   f"[0, {r}) (negative ones are refused, as in TensorFlow), "
                                   f"got {seq_axis!r} and {batch_axis!r}")
    sa, ba = int(seq_axis), int(batch_axis)
    lens = _static_ints(seq_lengths, fn, "seq_lengths").reshape(-1)
    if sa == ba or lens.size != shp[ba] or (lens < 0).any() or lens.max(initial=0) > shp[sa]:
        raise InvalidArgumentError(f"{fn}: needs seq_axis != batch_axis and one length in [0, "
                         f"{shp[sa]}] per batch entry ({shp[ba]}), got seq_axis {sa}, "
                         f"batch_axis {ba}, seq_lengths {lens.tolist()}")
    if dims.is_symbolic(shp):   # (a size decided above is a guard each run checks)
        return _reverse_open(x, lens, sa, ba)
    pos = np.indices(shp)
    t, n = pos[sa], lens[pos[ba]]
    pos[sa] = np.where(t < n, n - 1 - t, t)
    flat = np.ravel_multi_index(tuple(pos), shp) if shp else np.zeros((), np.int64)
    return reshape(take(reshape(x, [-1]), flat.reshape(-1)), shp)


def _reverse_open(x, lens, sa, ba):
    """`reverse_sequence` of a tensor with open sizes: the positions along the sequence axis
    (``len - 1 - t`` below each batch entry's ``len``) are ops of its symbolic size, and one
    gather over the (batch, sequence) rows takes them."""
    shp = core.shape_of(x)
    rest = [k for k in range(len(shp)) if k not in (ba, sa)]
    perm = [ba, sa] + rest
    xt = transpose(x, perm)
    b, n = shp[ba], shp[sa]
    t = expand_dims(iota(n, np.int32, "finegrad.reverse_sequence"), 0)
    lengths = Tensor(lens.astype(np.int32).reshape(-1, 1))
    pos = where(less(t, lengths), lengths - 1 - t, t)
    rows = pos + Tensor(np.arange(lens.size, dtype=np.int32)[:, None]) * filled((), n, np.int32)
    flat = reshape(xt, (b * n,) + tuple(shp[k] for k in rest))
    out = reshape(take(flat, reshape(rows, [-1])), (b, n) + tuple(shp[k] for k in rest))
    return transpose(out, [int(k) for k in np.argsort(perm)])


def parallel_stack(values: TensorLike, name: str | None = None) -> Tensor:
    """``stack(values)`` along a new first axis, in a `finegrad.function` trace. As in
    TensorFlow, it is not compatible with eager execution (use `finegrad.stack`).

    >>> import finegrad as fg
    >>> fg.function(lambda a: fg.parallel_stack([a, a * 2]))(fg.constant([1., 2.])).numpy()
    array([[1., 2.],
           [2., 4.]], dtype=float32)

    Raises:
        RuntimeError: when called eagerly, as TensorFlow.
    """
    if core.current_tracer() is None:
        raise RuntimeError("finegrad.parallel_stack: not compatible with eager execution (as "
                           "in TensorFlow); use finegrad.stack, or call it inside "
                           "finegrad.function")
    return stack(values, axis=0)


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> TensorShape:
    """The `TensorShape` that ``shape_x`` and ``shape_y`` broadcast to (None sizes stay
    unknown where they decide it).

    >>> import finegrad as fg
    >>> fg.broadcast_static_shape(fg.TensorShape([2, 1]), fg.TensorShape([3]))
    TensorShape([2, 3])

    Raises:
        ValueError: when the shapes do not broadcast.
    """
    a, b = TensorShape(shape_x), TensorShape(shape_y)
    xs, ys = list(a), list(b)
    n = max(len(xs), len(ys))
    xs, ys = [1] * (n - len(xs)) + xs, [1] * (n - len(ys)) + ys
    out = []
    for p, q in zip(xs, ys, strict=True):
        if p is not None and q is not None and p != q and 1 not in (p, q):
            raise ValueError(f"finegrad.broadcast_static_shape: incompatible shapes for "
                             f"broadcasting, {a} and {b}: each pair of sizes must be equal or "
                             f"one of them 1")
        out.append(q if p == 1 else p if q == 1 else p if q is None else q if p is None
                   else p)
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Tensor:
    """The shape (a 1-D integer tensor) that the shapes ``shape_x`` and ``shape_y`` (1-D
    integer tensors of one dtype) broadcast to.

    >>> import finegrad as fg
    >>> fg.broadcast_dynamic_shape([2, 1], [3]).numpy()
    array([2, 3], dtype=int32)

    Raises:
        InvalidArgumentError: when the shapes do not broadcast (a ValueError).
        TypeError: for shapes that are not integers.
    """
    fn = "finegrad.broadcast_dynamic_shape"
    x, y = (convert_to_tensor(s) for s in (shape_x, shape_y))
    a, b = _static_ints(x, fn, "shape_x"), _static_ints(y, fn, "shape_y")
    try:
        out = np.broadcast_shapes(tuple(a.tolist()), tuple(b.tolist()))
    except ValueError:
        raise InvalidArgumentError(f"{fn}: incompatible shapes {a.tolist()} and "
                                   f"{b.tolist()}") from None
    return Tensor(np.asarray(out, x._value.dtype).reshape(-1))


def _nhwc(x, block_size, data_format, fn):
    x = convert_to_tensor(x)
    if data_format != "NHWC":
        raise NotImplementedError(f"{fn}: only data_format='NHWC' is supported (TensorFlow's "
                                  f"CPU kernels too), got {data_format!r}")
    bs = as_int(block_size, fn, "block_size")
    if bs < 2:
        raise ValueError(f"{fn}: block_size must be at least 2, got {bs}")
    if len(x.shape) != 4:
        raise ValueError(f"{fn}: input must be 4-D (NHWC), got shape {tuple(x.shape)}")
    return x, bs, tuple(core.shape_of(x))


def space_to_depth(input: TensorLike, block_size: Any, data_format: str = "NHWC",
                   name: str | None = None) -> Tensor:
    """Moves each ``block_size x block_size`` block of the height and width axes into the
    channels: ``[b, h, w, c] -> [b, h/bs, w/bs, bs*bs*c]`` (TensorFlow's order).
    Differentiable (a reshape and a transpose).

    >>> import finegrad as fg
    >>> fg.nn.space_to_depth(fg.reshape(fg.range(4.), [1, 2, 2, 1]), 2).numpy()
    array([[[[0., 1., 2., 3.]]]], dtype=float32)

    Raises:
        ValueError: when height or width is not a multiple of ``block_size``.
    """
    fn = "finegrad.nn.space_to_depth"
    x, bs, (b, h, w, c) = _nhwc(input, block_size, data_format, fn)
    if h % bs or w % bs:
        raise ValueError(f"{fn}: height and width ({h}, {w}) must be multiples of block_size "
                         f"{bs}")
    y = reshape(x, (b, h // bs, bs, w // bs, bs, c))
    return reshape(transpose(y, [0, 1, 3, 2, 4, 5]), (b, h // bs, w // bs, bs * bs * c))


def depth_to_space(input: TensorLike, block_size: Any, data_format: str = "NHWC",
                   name: str | None = None) -> Tensor:
    """Moves channels into ``block_size x block_size`` blocks of height and width:
    ``[b, h, w, c] -> [b, h*bs, w*bs, c/(bs*bs)]``, the inverse of `space_to_depth`.
    Differentiable.

    >>> import finegrad as fg
    >>> fg.nn.depth_to_space(fg.reshape(fg.range(4.), [1, 1, 1, 4]), 2).numpy()[0, :, :, 0]
    array([[0., 1.],
           [2., 3.]], dtype=float32)

    Raises:
        ValueError: when the channels are not a multiple of ``block_size ** 2``.
    """
    fn = "finegrad.nn.depth_to_space"
    x, bs, (b, h, w, c) = _nhwc(input, block_size, data_format, fn)
    if c % (bs * bs):
        raise ValueError(f"{fn}: the channels ({c}) must be a multiple of block_size ** 2 "
                         f"({bs * bs})")
    y = reshape(x, (b, h, w, bs, bs, c // (bs * bs)))
    return reshape(transpose(y, [0, 1, 3, 2, 4, 5]), (b, h * bs, w * bs, c // (bs * bs)))
