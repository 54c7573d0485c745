"""gradients(): symbolic gradients inside `finegrad.function`.

Inside a trace, `gradients(ys, xs)` runs the same reverse pass as a tape
(`tape.reverse_pass`) over the ops the graph builder recorded; the VJP rules' ops become
graph nodes: symbolic gradients, one set of rules.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims, nest
from finegrad._src.ad.tape import (UnconnectedGradients, _finish, _ones_seed, _unconnected,
                                   reverse_pass)
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, ones_like, reshape,
                                                stack, zeros_like)
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.reductions import cumsum
from finegrad._src.variables import Variable
from finegrad._src.tensor import Tensor

from typing import Any


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients",
              gate_gradients: bool = False, aggregation_method: Any = None,
              stop_gradients: Any = None,
              unconnected_gradients: Any = UnconnectedGradients.NONE) -> list[Any]:
    """Symbolic gradients inside `finegrad.function`: d(sum of ``ys``)/d``xs``.

    ``grad_ys`` are the initial cotangents (default ones); ``stop_gradients`` are held
    constant (their own gradients are still returned if they are among ``xs``). Integer
    tensors get None. Returns a list, one entry per x.

    >>> import finegrad as fg
    >>> @fg.function
    ... def df(x):
    ...     return fg.gradients(x ** 3, x)[0]
    >>> df(fg.constant(2.)).numpy()
    np.float32(12.0)

    Raises:
        RuntimeError: outside a traced function (use GradientTape there).
    """
    builder = core.current_tracer()
    if builder is None:
        raise RuntimeError("finegrad.gradients works inside a finegrad.function only; in eager "
                           "code use finegrad.GradientTape (or wrap the code in "
                           "@finegrad.function)")
    unconnected = _unconnected(unconnected_gradients)
    ys = [y.read_value() if isinstance(y, Variable) else y for y in nest.flatten(ys)]
    for y in ys:
        if not isinstance(y, Tensor):
            raise TypeError(f"finegrad.gradients: ys must be tensors (or a nested structure "
                            f"of them), got {type(y).__name__} {y!r:.40}")
    xs_list = [xs] if not isinstance(xs, (list, tuple)) else list(xs)
    return _gradients(builder, ys, _seeds(ys, grad_ys), xs_list, unconnected,
                      stop_gradients=stop_gradients)


def _gradients(builder, ys, cts, xs_list, unconnected, stop_gradients=None, batch=()):
    """The reverse pass over ``builder``'s entries from ``ys`` (cotangents ``cts``, with
    leading ``batch`` axes) to ``xs_list``."""
    # a variable's gradient is the sum over the tensors its reads produced in this trace
    keys = [[id(r) for r in builder.var_reads.get(id(x), ())] if isinstance(x, Variable)
            else [id(convert_to_tensor(x))] for x in xs_list]
    xs_t = [x if isinstance(x, Variable) else convert_to_tensor(x) for x in xs_list]
    consts = builder.consts
    watched = {k for k, t in builder.alive.items()
               if t._value.dtype.kind in "fc" and builder.slots[k] not in consts}
    # what a nondifferentiable op made (a count, a shape, a comparison) wants no cotangent
    watched -= {id(o) for prim, _, _, out in builder.entries if prim.nondiff
                and prim.gradient_override is None
                for o in (out if prim.multiple_results else (out,))}
    blocked = {id(convert_to_tensor(s)) for s in nest.flatten(stop_gradients or [])}
    watched |= {k for ks in keys for k in ks}
    # integer sources get None (or zeros), whatever cotangent reached them
    keys = [ks if x.dtype.is_differentiable else [] for x, ks in zip(xs_t, keys, strict=True)]
    grads = reverse_pass(list(builder.entries), watched, ys, cts, keys, blocked=blocked,
                         batch=batch)
    return _finish(grads, xs_t, unconnected)


def _seeds(ys, grad_ys):
    """The initial cotangent of each of ``ys``: ones, or ``grad_ys`` (checked)."""
    if grad_ys is None:
        return [_ones_seed(y) if y.dtype.is_differentiable else None for y in ys]
    gys = nest.flatten(grad_ys) if isinstance(grad_ys, (list, tuple)) else [grad_ys]
    if len(gys) != len(ys):
        raise ValueError(f"finegrad.gradients: {len(ys)} ys but {len(gys)} grad_ys")
    cts = [_ones_seed(y) if g is None else convert_to_tensor(g, dtype_hint=y.dtype)
           for y, g in zip(ys, gys, strict=True)]
    for i, (y, c) in enumerate(zip(ys, cts, strict=True)):
        if c._value.dtype != y._value.dtype:
            raise TypeError(f"finegrad.gradients: grad_ys[{i}] has dtype {c.dtype.name} "
                            f"but its ys has dtype {y.dtype.name}; cast it with "
                            f"finegrad.cast")
    return cts


def hessians(ys: Any, xs: Any, name: str = "hessians", colocate_gradients_with_ops: bool = False,
             gate_gradients: bool = False, aggregation_method: Any = None) -> list[Any]:
    """Inside `finegrad.function`: for each x of ``xs``, the Hessian of sum(``ys``) with
    respect to x, of shape ``x.shape + x.shape`` (one `gradients` pass per element of x, as
    TensorFlow builds it). Returns a list, one entry per x (None where there is no gradient).

    >>> import finegrad as fg
    >>> @fg.function
    ... def h(x):
    ...     return fg.hessians(fg.reduce_sum(x ** 3), x)[0]
    >>> h(fg.constant([1., 2.])).numpy()
    array([[ 6.,  0.],
           [ 0., 12.]], dtype=float32)

    Raises:
        RuntimeError: outside a traced function (use nested GradientTapes there).
    """
    if core.current_tracer() is None:
        raise RuntimeError("finegrad.hessians works inside a finegrad.function only; in eager "
                           "code use nested finegrad.GradientTape (tape.jacobian of a "
                           "gradient)")
    xs_list = [xs] if not isinstance(xs, (list, tuple)) else list(xs)
    out: list[Any] = []
    for x, g in zip(xs_list, gradients(ys, xs_list), strict=True):
        out.append(None if g is None else _hessian(g, x))
    return out


def _hessian(g, x):
    """The Jacobian of gradient ``g`` with respect to ``x``: one batched reverse pass whose
    cotangents are the rows of an identity of size(g), built in the graph, so a graph whose
    sizes are open serves every size (0 and 1 included); one pass per element (the graph
    then kept at its sizes) where a rule on the way takes no batched cotangent."""
    shape = core.shape_of(g)
    n = dims.size_product(shape)
    flat = reshape(g, (n,))
    builder = core.current_tracer()
    if all((p.batch_rule or p.nondiff) and p.gradient_override is None
           for p, *_ in builder.entries):
        eye = reshape(_identity(flat), (n,) + tuple(shape))
        (h,) = _gradients(builder, [g], [eye], [x], UnconnectedGradients.NONE, batch=(n,))
        if h is None:
            h = zeros_like(_identity(flat))
        return reshape(h, tuple(shape) + tuple(shape))
    shape = dims.pin(shape, "hessians of a tensor whose ops take no batched cotangent")
    n = int(np.prod(shape, dtype=np.int64))
    rows = []
    for i in range(n):
        (row,) = gradients(flat[i], [x], unconnected_gradients=UnconnectedGradients.ZERO)
        rows.append(reshape(row, (-1,)))
    return reshape(stack(rows), shape + shape)


def _identity(flat):
    """The identity matrix of ``flat``'s length and dtype, as graph ops that follow an open
    length (positions counted by a cumulative sum, compared pairwise)."""
    i = cumsum(ones_like(flat, dtype="int32"))
    return cast(ew.equal(reshape(i, (-1, 1)), reshape(i, (1, -1))), flat.dtype)
