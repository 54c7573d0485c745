"""Structural primitives: conversion, casting, reshaping, broadcasting, summation,
transposing, joining and splitting.

These are the ops every other rule is written with (`reduce_sum`, `reshape`, `broadcast_to`
undo broadcasting in the VJPs of binary ops). Their VJP rules accept cotangents with extra
leading batch axes (of the shape their ``batch`` argument gives), which is what lets `jacobian`
run one vectorized reverse pass. This module imports the core modules, `ops.zeros_and_axes` and
`ops.array.indexing` (its VJPs slice); `ops.array.constants`, `ops.array.gather` and
`ops.array.shape_queries` sit above it.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from finegrad._src import core, dims, dtypes
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.lowering import jnp
from finegrad._src import tensor as _tensor
from finegrad._src.ops.zeros_and_axes import (no_strings, _static, _normalize_axis, _shape_arg,
                                              filled, instantiate_zeros, normalize_axes,
                                              symbolic_shape, shape_with, zeros_of, axis_vmap)
from finegrad._src.ops.array.indexing import getitem
from finegrad._src.shapes import as_ints, reshape_target
from finegrad._src.tensor import Tensor

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike, TensorLike


def convert_to_tensor(value: TensorLike, dtype: DTypeLike | None = None, dtype_hint: Any = None,
                      name: str | None = None) -> Tensor:
    """Convert a tensor, Variable, number, NumPy array or nested list to a Tensor.

    Python floats become float32 and ints int32 (TensorFlow's defaults); NumPy values keep
    their dtype; with ``dtype``, Python values are converted to it. A (nested) list holding
    tensors is packed with a recorded `stack` (TensorFlow's auto-packing), so gradients reach
    its elements.

    >>> import finegrad as fg
    >>> x = fg.constant(2.)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = fg.reduce_sum(fg.convert_to_tensor([x, 3. * x]))
    >>> t.gradient(y, x).numpy()
    np.float32(4.0)

    Raises:
        TypeError: for strings and other non-numeric objects, or a dtype mismatch.
    """
    if isinstance(value, (list, tuple)) and _tensor._has_tensor(value):
        return _pack(value, dtype)
    return _tensor.convert_to_tensor(value, dtype, dtype_hint, name)


def _pack(value, dtype):
    """A nested list holding tensors, as one tensor built by a recorded stack."""
    items = [_pack(v, dtype) if isinstance(v, (list, tuple)) else convert_to_tensor(v, dtype)
             if dtype is not None or not isinstance(v, (int, float)) else v for v in value]
    if not items:
        return convert_to_tensor([], dtype)
    return stack(items)


def _t(x):
    return x if type(x) is Tensor else convert_to_tensor(x)


def zeros_like(input: TensorLike, dtype: DTypeLike | None = None,  # TensorFlow's keyword
               name: str | None = None, layout: Any = None) -> Tensor:
    """Zeros with the shape (and, unless given, the dtype) of ``x``; empty strings for strings.

    >>> import finegrad as fg
    >>> fg.zeros_like(fg.constant([1., 2.])).numpy()
    array([0., 0.], dtype=float32)
    """
    x = _t(input)
    dt = x._value.dtype if dtype is None else dtypes.as_dtype(dtype)._np
    return Tensor(np.full(np.shape(x._value), b"", object)) if np.dtype(dt).kind == "O" \
        else zeros_of(x, dt)


def ones_like(input: TensorLike, dtype: DTypeLike | None = None,  # TensorFlow's keyword
              name: str | None = None, layout: Any = None) -> Tensor:
    """Ones with the shape (and, unless given, the dtype) of ``x``.

    >>> import finegrad as fg
    >>> fg.ones_like(fg.constant(3)).numpy()
    np.int32(1)
    """
    x = _t(input)
    dt = x._value.dtype if dtype is None else dtypes.as_dtype(dtype)._np
    no_strings("ones_like", np.empty(0, dt))   # (nor in TensorFlow)
    return filled(core.shape_of(x), 1, dt)


# --- identity, stop_gradient, cast ---------------------------------------------------------

identity_p = Primitive("identity", batch_rule=True, elementwise=True, lower_jax=lambda x: x)


def identity(input: TensorLike,  # TensorFlow's keyword
             name: str | None = None) -> Tensor:
    """Return ``x`` unchanged, as a new tensor (gradient: identity). Primitive ``identity``.

    >>> import finegrad as fg
    >>> fg.identity(fg.constant(2.)).numpy()
    np.float32(2.0)
    """
    return bind(identity_p, input)


identity_p.def_impl(lambda x: x)
identity_p.def_jvp(lambda primals, tangents, *, out: tangents[0])
identity_p.def_vjp(lambda ct, x, *, out, needs, batch: (ct,))


stop_gradient_p = def_nondiff(Primitive("stop_gradient", elementwise=True, lower_jax=lambda x: x))


def stop_gradient(input: TensorLike,  # TensorFlow's keyword
                  name: str | None = None) -> Tensor:
    """Return ``x``, but no gradient flows through it (primitive ``stop_gradient``).

    >>> import finegrad as fg
    >>> x = fg.constant(3.)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = x * fg.stop_gradient(x)
    >>> t.gradient(y, x).numpy()
    np.float32(3.0)
    """
    return bind(stop_gradient_p, input)


stop_gradient_p.def_impl(lambda x: x)


cast_p = Primitive("cast", batch_rule=True, elementwise=True, fresh=True,   # complex to real
                  lower_jax=lambda x, *, dtype: (x.real if x.dtype.kind == "c" != dtype.kind
                                                 else x).astype(dtype))   # (real part)


def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Convert ``x`` to ``dtype``; gradients flow between floating dtypes (primitive ``cast``).

    >>> import finegrad as fg
    >>> fg.cast(fg.constant([1.7, -1.7]), fg.int32).numpy()
    array([ 1, -1], dtype=int32)
    """
    x = _t(x)
    dt = dtypes.as_dtype(dtype)
    if x._value.dtype == dt._np:
        return identity(x)
    if "O" in (x._value.dtype.kind, dt._np.kind):   # TensorFlow: use tf.strings functions
        raise TypeError(f"finegrad.cast: cannot cast {x.dtype.name} to {dt.name}: casts to or "
                        f"from string are not supported")
    return bind(cast_p, x, dtype=dt._np)


@cast_p.def_impl
def _cast_impl(x, *, dtype):
    if x.dtype.kind == "c" and dtype.kind != "c":   # complex to real keeps the real part
        x = x.real
    return x.astype(dtype)


@cast_p.def_jvp
def _cast_jvp(primals, tangents, *, out, dtype):
    return cast(tangents[0], dtype) if dtype.kind in "fc" else None


@cast_p.def_vjp
def _cast_vjp(ct, x, *, out, needs, batch, dtype):
    """VJP of cast: the cotangent cast back to the input dtype (none for integer inputs)."""
    return (cast(ct, x._value.dtype) if x.dtype.is_differentiable else None,)


# --- reshape, broadcast_to, reduce_sum, transpose -------------------------------------------

reshape_p = Primitive("reshape", batch_rule=True, lower_jax=lambda x, *, shape: jnp().reshape(
    x, reshape_target(x.shape, shape)))   # (x, shape=): a -1 as TensorFlow's kernel has it


def reshape(tensor: TensorLike, shape: Any, name: str | None = None) -> Tensor:
    """Reshape ``x`` to ``shape`` (one entry may be -1). Primitive ``reshape``.

    >>> import finegrad as fg
    >>> fg.reshape(fg.range(6), (2, -1)).shape
    TensorShape([2, 3])
    """
    x = _t(tensor)
    if dims.has_dims(shape := symbolic_shape(shape) or shape):   # symbolic (a traced size)
        return _reshape_symbolic(x, tuple(shape))
    if isinstance(shape, Tensor):
        shape = _static(shape, "a shape").tolist()
    shape = as_ints(shape, "finegrad.reshape", "shape")
    if shape == x._value.shape:
        return identity(x)
    try:
        new = np.empty(0 if x._value.size == 0 else x._value.shape, dtype=np.bool_).reshape(
            reshape_target(x._value.shape, shape)).shape if -1 in shape else shape
    except ValueError:
        new = None
    if new is None or int(np.prod(new)) != x._value.size:
        raise ValueError(f"finegrad.reshape: cannot reshape a tensor of shape "
                         f"{tuple(x._value.shape)} ({x._value.size} elements) to {shape}")
    if -1 in shape and dims.is_symbolic(core.shape_of(x)):
        return bind(reshape_p, x, shape=shape)   # the graph resolves -1 at each call
    return bind(reshape_p, x, shape=tuple(new))


def _reshape_symbolic(x, shape):
    if dims.same_shape(core.shape_of(x), shape):
        return identity(x)
    if -1 not in shape and dims.size_product(dims.concrete(shape)) != x._value.size:
        raise ValueError(f"finegrad.reshape: cannot reshape a tensor of shape "
                         f"{tuple(x._value.shape)} to {shape}")
    return bind(reshape_p, x, shape=shape)


reshape_p.def_impl(lambda x, *, shape: np.reshape(x, reshape_target(np.shape(x), shape)))

@reshape_p.def_shape
def _reshape_shape(x, *, shape):
    """The target, its -1 the size left of the total (``//`` of the symbolic sizes). Ints
    only are tested for a 0 (``0 in`` symbolic sizes would decide them while tracing)."""
    if all(type(d) is int for d in shape) and -1 in shape and 0 in shape:   # x's zero sizes
        return reshape_target(dims.pin(x, f"reshape to {shape}"), shape)   # left out: TF's
    if -1 in shape:   # the -1: what is left of x's size, shared factors cancelled
        rest = dims.size_quotient(x, [d for d in shape if not (type(d) is int and d == -1)])
        return tuple(rest if type(d) is int and d == -1 else d for d in shape)
    if dims.is_symbolic(x) and not dims.is_symbolic(shape):
        with dims.reason(f"reshape of a tensor with a dynamic axis to the fixed shape "
                         f"{tuple(shape)} (write the dynamic axis as -1)"):
            _ = dims.size_product(x) == dims.size_product(shape)
    return tuple(shape)


@reshape_p.def_vmap
def _reshape_vmap(args, batched, *, shape):
    """Each slice reshaped: the batch axis in front of the target."""
    return bind(reshape_p, args[0], shape=core.shape_of(args[0])[:1] + tuple(shape))


def batch_size(args, batched):
    """The number of slices of a batching rule's batched inputs (its ``args``, ``batched``)."""
    return next(core.shape_of(a)[0] for a, b in zip(args, batched, strict=True) if b)


def expand_after_batch(x, rank):
    """Batched ``x`` with size-1 axes after its batch axis up to per-slice rank ``rank``
    (so that NumPy's broadcasting, which aligns trailing axes, lines the slices up)."""
    shape = tuple(core.shape_of(x))
    k = rank - (len(shape) - 1)
    return x if k <= 0 else bind(reshape_p, x, shape=shape[:1] + (1,) * k + shape[1:])


def batch_all(args, batched):
    """A batching rule's ``args`` all batched: the unbatched ones broadcast to the batch."""
    n = batch_size(args, batched)
    return [a if b else bind(broadcast_to_p, a, shape=(n,) + tuple(core.shape_of(a)))
            for a, b in zip(args, batched, strict=True)]


@reshape_p.def_jvp
def _reshape_jvp(primals, tangents, *, out, shape):
    return reshape(tangents[0], shape)


@reshape_p.def_vjp
def _reshape_vjp(ct, x, *, out, needs, batch, shape):
    """VJP of reshape: the cotangent reshaped back."""
    return (reshape(ct, shape_with(x, batch)),)


broadcast_to_p = Primitive("broadcast_to", batch_rule=True, lower_jax="broadcast_to")


def broadcast_to(input: TensorLike, shape: Any,  # TensorFlow's keyword
                 name: str | None = None) -> Tensor:
    """Broadcast ``x`` to ``shape`` with NumPy's rules. Primitive ``broadcast_to``.

    >>> import finegrad as fg
    >>> fg.broadcast_to(fg.constant([1., 2.]), (2, 2)).numpy()
    array([[1., 2.],
           [1., 2.]], dtype=float32)
    """
    x = _t(input)
    if dims.has_dims(shape):    # a rule's symbolic shape (inside a shape-polymorphic trace)
        if dims.same_shape(core.shape_of(x), shape):
            return identity(x)
        np.broadcast_shapes(x._value.shape, dims.concrete(shape))
        return bind(broadcast_to_p, x, shape=tuple(shape))
    shape = _shape_arg(shape, "finegrad.broadcast_to")
    if shape == x._value.shape:
        return identity(x)
    try:
        if np.broadcast_shapes(x._value.shape, shape) != shape:
            raise ValueError
    except ValueError:
        raise ValueError(f"finegrad.broadcast_to: cannot broadcast shape "
                         f"{tuple(x._value.shape)} to {shape}") from None
    return bind(broadcast_to_p, x, shape=shape)


broadcast_to_p.def_shape(lambda x, *, shape: tuple(shape))


@broadcast_to_p.def_impl
def _broadcast_to_impl(x, *, shape):
    return np.broadcast_to(x, shape)


@broadcast_to_p.def_vmap
def _broadcast_to_vmap(args, batched, *, shape):
    """Each slice broadcast: ranks aligned after the batch axis, the batch in front."""
    x = expand_after_batch(args[0], len(shape))
    return bind(broadcast_to_p, x, shape=core.shape_of(x)[:1] + tuple(shape))


@broadcast_to_p.def_jvp
def _broadcast_to_jvp(primals, tangents, *, out, shape):
    return broadcast_to(tangents[0], shape)


@broadcast_to_p.def_vjp
def _broadcast_to_vjp(ct, x, *, out, needs, batch, shape):
    """VJP of broadcast_to: sum over the broadcast axes."""
    return (unbroadcast(ct, x, batch),)


def unbroadcast(g, like, batch=()):
    """Sum ``g`` down to the shape of tensor ``like`` (or to a shape), undoing NumPy
    broadcasting; the leading ``batch`` axes (a VJP rule's ``batch`` argument) are kept.
    Shapes are `core.shape_of`'s: symbolic inside a shape-polymorphic trace."""
    bs = tuple(batch)
    shape = core.shape_of(like) if isinstance(like, Tensor) else tuple(like)
    gshape = core.shape_of(g)
    target = bs + shape if bs else shape
    if core.same_shape(gshape, target):
        return g
    if len(gshape) < len(target) or gshape[:len(bs)] != bs:
        return broadcast_to(g, target)
    axes = _broadcast_axes(gshape, shape, len(bs))
    if axes:
        g = reduce_sum(g, axis=axes)
    return g if core.same_shape(core.shape_of(g), target) else reshape(g, target)


def _broadcast_axes(gshape, shape, nbatch):
    """The axes of ``gshape`` (``nbatch`` batch axes first) broadcasting added to ``shape``:
    leading ones, and where ``shape`` has 1 (a static 1 summed against any size: no guard)."""
    lead = len(gshape) - nbatch - len(shape)
    one = lambda d: type(d) is not dims.Dim and d == 1   # noqa: E731
    pairs = enumerate(zip(shape, gshape[nbatch + lead:], strict=True), nbatch + lead)
    return tuple(range(nbatch, nbatch + lead)) + tuple(i for i, (s, g) in pairs if (
        (one(s) and not one(g)) if type(s) is not dims.Dim else (not s == g and s == 1)))


def broadcast_as(g, like, nbatch=0):
    """Broadcast ``g`` to its ``nbatch`` leading axes plus the shape of tensor ``like`` (the
    inverse of `unbroadcast`)."""
    gshape = core.shape_of(g)
    target = gshape[:nbatch] + core.shape_of(like) if nbatch else core.shape_of(like)
    return g if core.same_shape(gshape, target) else broadcast_to(g, target)


reduce_sum_p = Primitive("reduce_sum", batch_rule=True, fresh=True, reducer=np.add,
                         shape_rule=core.reduction_shape_rule,   # bools: any, as the impl
                         lower_jax=lambda x, *, axis, keepdims: (jnp().any if x.dtype == bool
                                    else jnp().sum)(x, axis, keepdims=keepdims).astype(x.dtype))


def reduce_sum(input_tensor: TensorLike, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Sum over ``axis`` (all axes by default). Primitive ``reduce_sum``.

    >>> import finegrad as fg
    >>> fg.reduce_sum(fg.constant([[1., 2.], [3., 4.]]), axis=0).numpy()
    array([4., 6.], dtype=float32)
    """
    x = input_tensor
    x = _t(x)
    if x._value.dtype == np.bool_:   # NumPy would give a logical or; TensorFlow refuses
        raise TypeError("finegrad.reduce_sum: not defined for bool tensors (as in TensorFlow); "
                        "cast first, e.g. finegrad.cast(x, finegrad.int32) to count the true "
                        "entries, or use finegrad.reduce_any")
    axes = normalize_axes(axis, x._value.ndim, "finegrad.reduce_sum", reduction=True)
    return bind(reduce_sum_p, x, axis=axes, keepdims=bool(keepdims))


@reduce_sum_p.def_impl
def _reduce_sum_impl(x, *, axis, keepdims):
    no_strings("reduce_sum", x)
    out = np.sum(x, axis=axis, keepdims=keepdims)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


reduce_sum_p.def_vmap(axis_vmap(reduce_sum_p, "axis"))


@reduce_sum_p.def_jvp
def _reduce_sum_jvp(primals, tangents, *, out, axis, keepdims):
    return reduce_sum(tangents[0], axis=axis, keepdims=keepdims)


@reduce_sum_p.def_vjp
def _reduce_sum_vjp(ct, x, *, out, needs, batch, axis, keepdims):
    """VJP of reduce_sum: the cotangent broadcast back over the summed axes."""
    return (expand_reduced(ct, x, axis, keepdims, batch),)


def expand_reduced(ct, x, axis, keepdims, batch=()):
    """Broadcast a reduction's cotangent (leading ``batch`` axes first) back to the shape of
    input ``x``."""
    bs = tuple(batch)
    if not keepdims:
        ct = reshape(ct, shape_with(x, bs, ones=axis))
    return broadcast_as(ct, x, len(bs))


transpose_p = Primitive("transpose", batch_rule=True, lower_jax=lambda x, *, perm, conjugate=False:
                        jnp().transpose(jnp().conjugate(x) if conjugate else x, perm))


def transpose(a: TensorLike, perm: Any = None, conjugate: bool = False,
              name: str | None = None) -> Tensor:
    """Permute the axes of ``x`` (reverse them by default); with ``conjugate``, also take
    the complex conjugate (a no-op for real tensors), as TensorFlow. Primitive ``transpose``.

    >>> import finegrad as fg
    >>> fg.transpose(fg.zeros((2, 3, 4)), perm=(1, 0, 2)).shape
    TensorShape([3, 2, 4])
    """
    x = _t(a)
    n = x._value.ndim
    perm = tuple(range(n))[::-1] if perm is None else as_ints(
        _static(perm, "a permutation").tolist() if isinstance(perm, Tensor) else perm,
        "finegrad.transpose", "perm")
    if any(not -n <= p < max(n, 1) for p in perm) or \
            sorted(p % n if n else p for p in perm) != list(range(n)):
        raise ValueError(f"finegrad.transpose: perm {perm} is not a permutation of the "
                         f"{n} axes of a tensor of shape {tuple(x._value.shape)}")
    perm = tuple(p % n for p in perm)
    if conjugate and x._value.dtype.kind == "c":
        return bind(transpose_p, x, perm=perm, conjugate=True)
    return bind(transpose_p, x, perm=perm)


@transpose_p.def_impl
def _transpose_impl(x, *, perm, conjugate=False):
    return np.conjugate(np.transpose(x, perm)) if conjugate else np.transpose(x, perm)


transpose_p.def_shape(lambda x, *, perm, conjugate=False: tuple(x[p] for p in perm))


@transpose_p.def_vmap
def _transpose_vmap(args, batched, *, perm, conjugate=False):
    return bind(transpose_p, args[0], perm=(0,) + tuple(p + 1 for p in perm),
                **({"conjugate": True} if conjugate else {}))


@transpose_p.def_jvp
def _transpose_jvp(primals, tangents, *, out, perm, conjugate=False):
    return transpose(tangents[0], perm, conjugate)


@transpose_p.def_vjp
def _transpose_vjp(ct, x, *, out, needs, batch, perm, conjugate=False):
    """VJP of transpose: transpose by the inverse permutation (conjugating back if it
    conjugated: conj's VJP is conj)."""
    b = len(batch)
    inv = tuple(int(i) for i in np.argsort(perm))
    return (transpose(ct, tuple(range(b)) + tuple(b + i for i in inv), conjugate),)


def expand_dims(input: TensorLike, axis: Any,  # TensorFlow's keyword
                name: str | None = None) -> Tensor:
    """Insert a length-1 axis at ``axis`` (a reshape).

    >>> import finegrad as fg
    >>> fg.expand_dims(fg.zeros((2, 3)), -1).shape
    TensorShape([2, 3, 1])
    """
    x = _t(input)
    shape = list(shape_with(x))
    a = _normalize_axis(axis, len(shape) + 1, "finegrad.expand_dims")
    shape.insert(a, 1)
    return reshape(x, shape)


def squeeze(input: TensorLike, axis: Any = None,  # TensorFlow's keyword
            name: str | None = None) -> Tensor:
    """Remove length-1 axes (all of them, or those in ``axis``), as a reshape.

    >>> import finegrad as fg
    >>> fg.squeeze(fg.zeros((1, 2, 1))).shape
    TensorShape([2])
    """
    x = _t(input)
    shape = x._value.shape
    # an open (symbolic) size is compared with 1 at its traced value, and the comparison is a
    # guard of the graph: a call whose size gives another answer is traced again, so each
    # call squeezes the axes its own sizes make 1 (TensorFlow decides when the graph runs)
    target = shape_with(x)
    axes = [i for i, s in enumerate(target) if s == 1] if axis is None \
        else normalize_axes(axis, len(shape), "finegrad.squeeze")
    for a in axes:
        if target[a] != 1:
            raise ValueError(f"finegrad.squeeze: cannot squeeze axis {a} of size {shape[a]} "
                             f"in a tensor of shape {tuple(shape)}")
    return reshape(x, [s for i, s in enumerate(target) if i not in axes])


# --- concat, stack, split, tile -------------------------------------------------------------

concat_p = Primitive("concat", batch_rule=True, fresh=True,
                     lower_jax=lambda *xs, axis: jnp().concatenate(xs, axis=axis))


def concat(values: Any, axis: Any, name: str | None = None) -> Tensor:
    """Join tensors along an existing ``axis``. Primitive ``concat``.

    >>> import finegrad as fg
    >>> fg.concat([fg.ones((1, 2)), fg.zeros((1, 2))], axis=0).shape
    TensorShape([2, 2])
    """
    if isinstance(values, Tensor) or not len(values):
        raise ValueError("finegrad.concat: values must be a non-empty list of tensors")
    ts = core.unify_args(concat_p, list(values))
    nd = ts[0]._value.ndim
    if nd == 0:
        raise ValueError("finegrad.concat: cannot concatenate scalars (shape ()); use stack")
    a = _normalize_axis(axis, nd, "finegrad.concat")
    for t in ts:
        s = t._value.shape
        if len(s) != nd or s[:a] + s[a + 1:] != ts[0]._value.shape[:a] + ts[0]._value.shape[a + 1:]:
            raise ValueError(f"finegrad.concat: shapes {[tuple(t._value.shape) for t in ts]} "
                             f"differ outside axis {a}")
    return bind(concat_p, *ts, axis=a)


@concat_p.def_impl
def _concat_impl(*xs, axis):
    return np.concatenate(xs, axis=axis)


@concat_p.def_shape
def _concat_shape(*shapes, axis):
    """The pieces' sizes added along ``axis`` (n + m); elsewhere the first symbolic size."""
    out = []
    for i in range(len(shapes[0])):
        sizes = [s[i] for s in shapes]
        out.append(sum(sizes[1:], sizes[0]) if i == axis else
                   next((d for d in sizes if type(d) is dims.Dim), sizes[0]))
    return tuple(out)


concat_p.def_vmap(lambda args, batched, *, axis: bind(concat_p, *batch_all(args, batched),
                                                      axis=axis + 1))


@concat_p.def_jvp
def _concat_jvp(primals, tangents, *, out, axis):
    tangents = instantiate_zeros(primals, tangents)
    return concat(list(tangents), axis)


@concat_p.def_vjp
def _concat_vjp(ct, *xs, out, needs, batch, axis):
    """VJP of concat: the cotangent sliced back into the pieces."""
    b = len(batch)
    pieces, start = [], 0
    for x in xs:   # symbolic sizes (n, m) give bounds resolved at each call
        n = core.shape_of(x)[axis]
        idx = (slice(None),) * (b + axis) + (slice(start, start + n),)
        pieces.append(getitem(ct, idx))
        start = start + n
    return tuple(pieces)


def stack(values: Any, axis: Any = 0, name: str | None = None) -> Tensor:
    """Stack tensors of one shape along a new ``axis``.

    >>> import finegrad as fg
    >>> fg.stack([fg.ones(2), fg.zeros(2)], axis=1).shape
    TensorShape([2, 2])
    """
    if isinstance(values, Tensor) or not len(values):
        raise ValueError("finegrad.stack: values must be a non-empty list of tensors")
    ts = core.unify_args(concat_p, list(values))
    shapes = {t._value.shape for t in ts}
    if len(shapes) > 1:
        raise ValueError(f"finegrad.stack: all tensors need one shape, got "
                         f"{[tuple(t._value.shape) for t in ts]}")
    a = _normalize_axis(axis, ts[0]._value.ndim + 1, "finegrad.stack")
    return concat([expand_dims(t, a) for t in ts], a)


def unstack(value: TensorLike, num: Any = None, axis: int = 0,
            name: str | None = None) -> list[Tensor]:
    """Split ``value`` along ``axis`` into a list of tensors of one rank less.

    >>> import finegrad as fg
    >>> [t.shape for t in fg.unstack(fg.zeros((2, 3)), axis=1)]
    [TensorShape([2]), TensorShape([2]), TensorShape([2])]
    """
    x = _t(value)
    a = _normalize_axis(axis, x._value.ndim, "finegrad.unstack")
    dims.pin(core.shape_of(x)[a:a + 1],
             "unstack along a dynamic axis (its size is the number of results)")
    return [getitem(x, (slice(None),) * a + (i,)) for i in range(x._value.shape[a])]


def split(value: TensorLike, num_or_size_splits: Any, axis: int = 0, num: Any = None,
          name: str | None = None) -> list[Tensor]:
    """Split ``value`` along ``axis`` into equal parts or parts of the given sizes.

    >>> import finegrad as fg
    >>> [t.shape for t in fg.split(fg.zeros((5, 2)), [2, 3])]
    [TensorShape([2, 2]), TensorShape([3, 2])]
    """
    x = _t(value)
    a = _normalize_axis(axis, x._value.ndim, "finegrad.split")
    n = core.shape_of(x)[a]   # an open axis: a symbolic size (its parts' sizes follow it)
    if isinstance(num_or_size_splits, numbers.Integral):
        k = int(num_or_size_splits)
        if k <= 0 or n % k:   # symbolic: decided at the built size, a guard each run checks
            raise InvalidArgumentError(f"finegrad.split: cannot split axis {a} of size {n} "
                                       f"into {k} equal parts")
        sizes = [n // k] * k
    else:
        given = num_or_size_splits   # sizes known symbolically stay symbolic
        sizes = list(symbolic_shape(given) or as_ints(_static(given, "split sizes").tolist() if
                     isinstance(given, Tensor) else given, "finegrad.split", "num_or_size_splits"))
        rest = [i for i, s in enumerate(sizes) if type(s) is not dims.Dim and s == -1]
        if len(rest) == 1:
            sizes[rest[0]] = n - (sum(sizes) + 1)
        if sum(sizes) != n or any(s < 0 for s in sizes):   # TF's class (a ValueError)
            raise InvalidArgumentError(f"finegrad.split: sizes {sizes} do not add up to {n}, "
                                       f"the size of axis {a}")
    out, start = [], 0
    for s in sizes:
        out.append(getitem(x, (slice(None),) * a + (slice(start, start + s),)))
        start += s
    return out


tile_p = Primitive("tile", batch_rule=True, fresh=True,
                   lower_jax=lambda x, *, multiples: jnp().tile(x, multiples))


def tile(input: TensorLike, multiples: Any,  # TensorFlow's keyword
         name: str | None = None) -> Tensor:
    """Repeat ``x`` ``multiples[i]`` times along each axis ``i``. Primitive ``tile``.

    >>> import finegrad as fg
    >>> fg.tile(fg.constant([1., 2.]), [2]).numpy()
    array([1., 2., 1., 2.], dtype=float32)
    """
    x = _t(input)
    m = symbolic_shape(multiples) or _shape_arg(multiples, "finegrad.tile", "multiples")
    if len(m) != x._value.ndim:
        raise ValueError(f"finegrad.tile: multiples {m} need one entry per axis of a tensor "
                         f"of shape {tuple(x._value.shape)}")
    return bind(tile_p, x, multiples=m)


@tile_p.def_impl
def _tile_impl(x, *, multiples):
    return np.tile(x, multiples)


tile_p.def_shape(lambda x, *, multiples: tuple(d * m for d, m in zip(x, multiples, strict=True)))


tile_p.def_vmap(lambda args, batched, *, multiples: bind(tile_p, args[0],
                                                        multiples=(1,) + tuple(multiples)))


@tile_p.def_jvp
def _tile_jvp(primals, tangents, *, out, multiples):
    return tile(tangents[0], multiples)


@tile_p.def_vjp
def _tile_vjp(ct, x, *, out, needs, batch, multiples):
    """VJP of tile: view the cotangent as (m0, s0, m1, s1, ...) and sum over the m axes."""
    bs = tuple(batch)
    shape = core.shape_of(x)
    split_shape = bs + tuple(d for m, s in zip(multiples, shape, strict=True) for d in (m, s))
    b = len(bs)
    g = reduce_sum(reshape(ct, split_shape), axis=tuple(b + 2 * i for i in range(len(multiples))))
    return (reshape(g, bs + tuple(shape)),)
