"""Linear algebra: matmul (batched, broadcasting), einsum, tensordot, matvec, norm."""

from __future__ import annotations

import string

import numpy as np

from finegrad._src import core, dims
from finegrad._src.core import Primitive, bind
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.tensor import Tensor
from finegrad._src.ops.array.structural import (_t, cast, reduce_sum, reshape, transpose,
                                                unbroadcast, ones_like)
from finegrad._src.ops.batching import aligned_vmap
from finegrad._src.ops.zeros_and_axes import multilinear_jvp, shape_with, normalize_axes
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.math.complex_numbers import conj_if_complex
from finegrad._src.ops.math import reductions as rd

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

# its impl, np.matmul, takes ``out=``: compiled graphs hand it a recycled buffer (into_pool)
matmul_p = Primitive("matmul", batch_rule=True, fresh=True, into_pool=True)


def _swap(x):
    n = x._value.ndim
    return transpose(x, tuple(range(n - 2)) + (n - 1, n - 2))


def matmul(a: Any, b: Any, transpose_a: Any = False, transpose_b: Any = False,
           adjoint_a: Any = False, adjoint_b: Any = False, a_is_sparse: Any = False,
           b_is_sparse: Any = False, output_type: Any = None, grad_a: Any = False,
           grad_b: Any = False, name: str | None = None) -> Tensor:
    """Matrix product over the last two axes; leading (batch) axes broadcast.

    1-D operands follow NumPy's ``@`` (a vector is a row on the left, a column on the right).
    Primitive ``matmul``. TensorFlow's hints ``a_is_sparse``, ``b_is_sparse``, ``grad_a``
    and ``grad_b`` are accepted and ignored; ``output_type`` casts the product.

    >>> import finegrad as fg
    >>> a = fg.constant([[1., 2.], [3., 4.]])
    >>> fg.matmul(a, a, transpose_b=True).numpy()
    array([[ 5., 11.],
           [11., 25.]], dtype=float32)
    """
    if isinstance(a, np.ndarray) and isinstance(b, Tensor) and a.dtype != b._value.dtype and \
            a.dtype.kind in "fc" and (b.dtype.is_floating or b.dtype.is_complex):
        # TensorFlow converts ``a`` on its own (a float64 array stays float64): a mismatch,
        # never a silent cast of the array down to the tensor's dtype
        raise InvalidArgumentError(f"finegrad.matmul: a is a NumPy {a.dtype} array and b a "
                                   f"{b.dtype.name} tensor; cast one (finegrad.cast, or "
                                   f"a.astype(np.{b._value.dtype}))")
    a, b = core.unify_args(matmul_p, [a, b])
    if a._value.ndim == 0 or b._value.ndim == 0:
        raise ValueError(f"finegrad.matmul: operands must have rank >= 1, got shapes "
                         f"{tuple(a._value.shape)} and {tuple(b._value.shape)}")
    if transpose_a or adjoint_a:
        a = _swap(conj_if_complex(a) if adjoint_a else a)
    if transpose_b or adjoint_b:
        b = _swap(conj_if_complex(b) if adjoint_b else b)
    va, vb = a._value.ndim == 1, b._value.ndim == 1
    if va:
        a = reshape(a, (1,) + shape_with(a))
    if vb:
        b = reshape(b, shape_with(b) + (1,))
    if a._value.shape[-1] != b._value.shape[-2]:
        raise ValueError(f"finegrad.matmul: inner dimensions differ: shapes "
                         f"{tuple(a._value.shape)} and {tuple(b._value.shape)}")
    out = bind(matmul_p, a, b)
    if va or vb:
        s = shape_with(out)
        out = reshape(out, s[:-2] + (() if va else s[-2:-1]) + (() if vb else s[-1:]))
    return out if output_type is None else cast(out, output_type)


matmul_p.def_impl(np.matmul)


@matmul_p.def_lowering
def _matmul_lower(a, b):
    # full float32 precision (GPUs would otherwise round float32 operands to TF32)
    import jax.numpy as jnp
    from jax import lax
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


@matmul_p.def_shape
def _matmul_shape(a, b):
    """Broadcast batch axes, then the rows of ``a`` and the columns of ``b``."""
    return dims.broadcast_shape(a[:-2], b[:-2]) + (a[-2], b[-1])


matmul_p.def_jvp(multilinear_jvp(matmul_p))
matmul_p.def_vmap(aligned_vmap(matmul_p))   # rank >= 2 operands: batch axes broadcast


@matmul_p.def_vjp
def _matmul_vjp(ct, a, b, *, out, needs, batch):
    """VJP of matmul: (ct @ b^H, a^H @ ct), summed over broadcast batch axes (^H: the
    conjugate transpose, TensorFlow's convention for complex matrices)."""
    a, b = conj_if_complex(a), conj_if_complex(b)
    return (unbroadcast(bind(matmul_p, ct, _swap(b)), a, batch) if needs[0] else None,
            unbroadcast(bind(matmul_p, _swap(a), ct), b, batch) if needs[1] else None)


def matvec(a: TensorLike, b: TensorLike, transpose_a: bool = False, adjoint_a: bool = False,
           a_is_sparse: bool = False, b_is_sparse: bool = False, name: str | None = None) -> Tensor:
    """Matrix-vector product ``a @ b`` over the last axes (``finegrad.linalg.matvec``); the
    sparsity hints are accepted and ignored, as TensorFlow's dense kernels do.

    >>> import finegrad as fg
    >>> fg.linalg.matvec(fg.eye(2) * 2., fg.constant([1., 3.])).numpy()
    array([2., 6.], dtype=float32)
    """
    b = _t(b)
    out = matmul(a, reshape(b, shape_with(b) + (1,)), transpose_a=transpose_a,
                 adjoint_a=adjoint_a)
    return reshape(out, shape_with(out)[:-1])


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """Sum products over ``axes`` (an int: the last/first ``axes`` axes; or two lists).

    >>> import finegrad as fg
    >>> fg.tensordot(fg.ones((2, 3)), fg.ones((3, 4)), axes=1).shape
    TensorShape([2, 4])
    """
    a, b = core.unify_args(matmul_p, [a, b])
    na, nb = a._value.ndim, b._value.ndim
    ax_a: list[Any]
    ax_b: list[Any]
    if isinstance(axes, (int, np.integer)):
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, (int, np.integer)) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, (int, np.integer)) else list(ax_b)
    ax_a = [x % na for x in ax_a]
    ax_b = [x % nb for x in ax_b]
    for i, j in zip(ax_a, ax_b, strict=True):
        if a._value.shape[i] != b._value.shape[j]:
            raise ValueError(f"finegrad.tensordot: axis {i} of shape {tuple(a._value.shape)} "
                             f"and axis {j} of shape {tuple(b._value.shape)} differ")
    free_a = [i for i in range(na) if i not in ax_a]
    free_b = [i for i in range(nb) if i not in ax_b]
    sa, sb = core.shape_of(a), core.shape_of(b)
    k = dims.size_product(sa[i] for i in ax_a)
    a2 = reshape(transpose(a, free_a + ax_a), (dims.size_product(sa[i] for i in free_a), k))
    b2 = reshape(transpose(b, ax_b + free_b), (k, dims.size_product(sb[i] for i in free_b)))
    out = matmul(a2, b2)
    return reshape(out, [sa[i] for i in free_a] + [sb[i] for i in free_b])


einsum_p = Primitive("einsum", batch_rule=True)


def _parse_einsum(equation, shapes):
    """Explicit form ``ins->out`` without '...', letters assigned to ellipsis axes."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->")
    else:
        lhs, rhs = eq, None
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"finegrad.einsum: equation {equation!r} has {len(ins)} operands, "
                         f"got {len(shapes)} tensors")
    used = set(eq)
    free = [c for c in string.ascii_letters if c not in used]
    ell_n = max((len(s) - len(i.replace("...", ""))
                 for i, s in zip(ins, shapes, strict=True) if "..." in i), default=0)
    ell = "".join(free[:ell_n])
    out_ins = []
    for i, s in zip(ins, shapes, strict=True):
        if "..." in i:
            n = len(s) - len(i.replace("...", ""))
            i = i.replace("...", ell[ell_n - n:])
        if len(i) != len(s):
            raise ValueError(f"finegrad.einsum: operand subscripts {i!r} do not match shape {s}")
        out_ins.append(i)
    if rhs is None:
        counts = {}
        for i in out_ins:
            for c in i:
                counts[c] = counts.get(c, 0) + 1
        rhs = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        rhs = rhs.replace("...", ell)
    _check_einsum_sizes(equation, out_ins, shapes, set(ell))
    return out_ins, rhs


def _check_einsum_sizes(equation, subscripts, shapes, ellipsis):
    """Every letter has one size over the operands (ellipsis axes broadcast, as in TF)."""
    seen = {}
    for k, (sub, shape) in enumerate(zip(subscripts, shapes, strict=True)):
        for c, d in zip(sub, shape, strict=True):
            if c in ellipsis or type(d) is not int and not isinstance(d, np.integer):
                continue
            if c in seen and seen[c][0] != d:
                raise ValueError(f"finegrad.einsum: subscript {c!r} of {equation!r} has size "
                                 f"{seen[c][0]} in operand {seen[c][1]} (shape "
                                 f"{tuple(shapes[seen[c][1]])}) and size {d} in operand {k} "
                                 f"(shape {tuple(shape)})")
            seen.setdefault(c, (d, k))


def einsum(equation: Any, *inputs: Any, name: str | None = None) -> Tensor:
    """Einstein summation, e.g. ``einsum("ij,jk->ik", a, b)``; '...' is supported.

    Primitive ``einsum`` (operands with a repeated subscript, such as ``"ii->i"``, are
    differentiable only in forward mode).

    >>> import finegrad as fg
    >>> fg.einsum("ij,j->i", fg.ones((2, 3)), fg.constant([1., 2., 3.])).numpy()
    array([6., 6.], dtype=float32)
    """
    ts = core.unify_args(einsum_p, list(inputs))
    ins, out = _parse_einsum(equation, [t._value.shape for t in ts])
    return bind(einsum_p, *ts, ins=tuple(ins), spec=out)


@einsum_p.def_impl
def _einsum_impl(*xs, ins, spec):
    return np.einsum(",".join(ins) + "->" + spec, *xs, optimize=len(xs) > 2)


@einsum_p.def_lowering
def _einsum_lower(*xs, ins, spec):
    import jax.numpy as jnp
    from jax import lax
    return jnp.einsum(",".join(ins) + "->" + spec, *xs, precision=lax.Precision.HIGHEST)


@einsum_p.def_shape
def _einsum_shape(*shapes, ins, spec):
    """Each output subscript's size, from an operand that has it (a symbolic one first)."""
    size = {}
    for sub, shape in zip(ins, shapes, strict=True):
        for c, d in zip(sub, shape, strict=True):
            if c not in size or type(d) is dims.Dim and type(size[c]) is not dims.Dim:
                size[c] = d
    return tuple(size[c] for c in spec)


einsum_p.def_jvp(multilinear_jvp(einsum_p))


@einsum_p.def_vmap
def _einsum_vmap(args, batched, *, ins, spec):
    """A fresh subscript for the batch axis, on the batched operands and the output."""
    b = next(c for c in string.ascii_letters if c not in "".join(ins) + spec)
    return bind(einsum_p, *args, ins=tuple(b + i if f else i
                                          for i, f in zip(ins, batched, strict=True)),
                spec=b + spec)


@einsum_p.def_vjp
def _einsum_vjp(ct, *xs, out, needs, batch, ins, spec):
    """VJP of einsum: for operand k, einsum of the cotangent with the other operands."""
    bs = tuple(batch)
    lead = "".join(c for c in string.ascii_letters if c not in "".join(ins) + spec)[:len(bs)]
    grads = []
    for k, sub in enumerate(ins):
        if len(set(sub)) != len(sub):
            raise NotImplementedError(f"finegrad.einsum: no reverse-mode gradient for operand "
                                      f"{sub!r} with a repeated subscript")
        others = [conj_if_complex(x) for j, x in enumerate(xs) if j != k]
        other_subs = [sb for j, sb in enumerate(ins) if j != k]
        # ones of the operand's shape supply the axes that only this operand has; size-1
        # axes that broadcast against the other operands are summed back (unbroadcast)
        g = bind(einsum_p, ct, *others, ones_like(xs[k]),
                 ins=(lead + spec,) + tuple(other_subs) + (sub,), spec=lead + sub)
        grads.append(unbroadcast(g, xs[k], batch))
    return tuple(grads)


def norm(tensor: TensorLike, ord: str = "euclidean", axis: Any = None, keepdims: bool = False,
         name: str | None = None) -> Tensor:
    """Vector or matrix norm: 'euclidean'/'fro'/2, 1, np.inf over ``axis`` (all by default).

    The gradient of the euclidean norm at 0 is nan, as in TensorFlow (see
    finegrad.stable.safe_norm for a finite one).

    >>> import finegrad as fg
    >>> fg.norm(fg.constant([3., 4.])).numpy()
    np.float32(5.0)
    """
    x = _t(tensor)
    if isinstance(axis, (list, tuple)) and len(axis) == 2 and ord not in ("euclidean", "fro"):
        raise ValueError(f"finegrad.norm: only ord='euclidean' or 'fro' is supported for "
                         f"matrix norms, got {ord!r}")
    axes = normalize_axes(axis, x._value.ndim, "finegrad.norm", reduction=True)
    if ord in ("euclidean", "fro", 2, 2.0):
        # complex: sqrt(sum(x * conj(x))), complex with a zero imaginary part, as TensorFlow's
        return ew.sqrt(reduce_sum(x * conj_if_complex(x), axes, keepdims))
    if ord in (1, 1.0):
        return reduce_sum(ew.abs(x), axes, keepdims)
    if ord == np.inf:
        return rd.reduce_max(ew.abs(x), axes, keepdims)
    if isinstance(ord, (int, float)) and ord > 0:
        return ar.pow(reduce_sum(ar.pow(ew.abs(x), float(ord)), axes, keepdims), 1.0 / ord)
    raise ValueError(f"finegrad.norm: ord must be 'euclidean', 'fro', a positive number or "
                     f"np.inf, got {ord!r}")
