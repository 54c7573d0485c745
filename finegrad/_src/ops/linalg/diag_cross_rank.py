"""Composites of ``tf.linalg``: ``normalize``, ``cross``, ``set_diag``, ``tensor_diag``,
``tensor_diag_part``, ``matrix_rank`` and ``tridiagonal_matmul``.

Each is a composite of finegrad ops (norms, slices, ``where``, reshapes and ``svd``), so
gradients (where TensorFlow has them), every order, forward mode and traces come from those
ops. Shapes are checked up front; a mismatch raises TensorFlow's
`finegrad.errors.InvalidArgumentError` (a ValueError) naming the function.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims, dtypes
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import cast, expand_dims, reduce_sum, reshape, stack
from finegrad._src.ops.linalg.products import matmul, norm
from finegrad._src.ops.linalg.diag_inv_det import band_part, diag, diag_part
from finegrad._src.ops.array.manipulation import pad
from finegrad._src.ops.math.reductions import reduce_max
from finegrad._src.ops.linalg.svd_qr import svd
from finegrad._src.tensor import Tensor, convert_to_tensor

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _same_dtype(a, b, fn, what):
    if a.dtype != b.dtype:
        raise TypeError(f"{fn}: {what} must have one dtype, got {a.dtype.name} and "
                        f"{b.dtype.name}")


def normalize(tensor: TensorLike, ord: str = "euclidean",  # TF's keyword
              axis: Any = None, name: str | None = None) -> tuple[Tensor, ...]:
    """``(tensor / norm, norm)`` with the norm over ``axis`` kept as axes of length 1 (all
    axes by default): TensorFlow's ``tf.linalg.normalize``. ``ord`` as `finegrad.norm`. A
    zero norm gives nan (as TensorFlow). Differentiable in both outputs.

    >>> import finegrad as fg
    >>> unit, n = fg.linalg.normalize(fg.constant([3., 4.]))
    >>> unit.numpy(), n.numpy()
    (array([0.6, 0.8], dtype=float32), array([5.], dtype=float32))
    """
    x = convert_to_tensor(tensor)
    if x._value.dtype.kind not in "fc":
        raise TypeError(f"finegrad.linalg.normalize: tensor must be a floating or complex "
                        f"tensor, got {x.dtype.name}")
    try:
        n = norm(x, ord=ord, axis=axis, keepdims=True)
    except ValueError as e:   # a bad ord or axis: say which public function was called
        raise ValueError(f"finegrad.linalg.normalize: {e}") from None
    n = cast(n, x.dtype)
    return x / n, n


def cross(a: TensorLike, b: TensorLike, name: str | None = None) -> Tensor:
    """The cross product of 3-vectors along the last axis of ``a`` and ``b`` (one shape,
    ``[..., 3]``). Differentiable in both.

    >>> import finegrad as fg
    >>> fg.linalg.cross(fg.constant([1., 0., 0.]), fg.constant([0., 1., 0.])).numpy()
    array([0., 0., 1.], dtype=float32)

    Raises:
        finegrad.errors.InvalidArgumentError: when ``a`` and ``b`` differ in shape or their
            last axis is not of size 3.
        TypeError: when ``a`` and ``b`` differ in dtype.
    """
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    _same_dtype(a, b, "finegrad.linalg.cross", "a and b")
    sa, sb = list(a._value.shape), list(b._value.shape)
    if sa != sb:
        raise InvalidArgumentError(f"finegrad.linalg.cross: a and b must have one shape, got "
                                   f"{sa} and {sb}")
    if not sa or sa[-1] != 3:
        raise InvalidArgumentError(f"finegrad.linalg.cross: a and b must have a last axis of "
                                   f"size 3 (3-vectors), got shape {sa}")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _single_diagonal(k, m, n):
    """``k`` (an int, or a pair ``(k, k)``) checked against an ``m`` x ``n`` matrix."""
    if isinstance(k, (tuple, list)) and len(k) == 2 and k[0] == k[1]:
        k = k[0]
    if isinstance(k, (tuple, list)):
        raise NotImplementedError(f"finegrad.linalg.set_diag: only one diagonal (an int k) is "
                                  f"supported, got the band k={tuple(k)}")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"finegrad.linalg.set_diag: k must be an int, got "
                        f"{type(k).__name__}")
    if not -m < k < n:
        raise InvalidArgumentError(f"finegrad.linalg.set_diag: k must be in ({-m}, {n}) for "
                                   f"{m} x {n} matrices, got {k}")
    return int(k)


def _placed(d, m, n, k, np_dtype):
    """The diagonal ``d`` (``[..., L]``) laid out as ``[..., M, N]`` matrices: ``d[i]`` at
    ``(i - min(k, 0), i + max(k, 0))``, zero elsewhere (differentiable in ``d``)."""
    if k == 0:
        return expand_dims(d, -1 if m <= n else -2) * Tensor(np.eye(m, n, dtype=np_dtype))
    size, = dims.pin(core.shape_of(d)[-1:], "linalg.diag of an open size off the main "
                     "diagonal (its paddings are sizes)")
    block = expand_dims(d, -1) * Tensor(np.eye(size, dtype=np_dtype))
    top, left = max(-k, 0), max(k, 0)
    edges = [[0, 0]] * (len(d._value.shape) - 1) + [[top, m - top - size],
                                                     [left, n - left - size]]
    return pad(block, edges)


def set_diag(input: TensorLike, diagonal: TensorLike, name: str = "set_diag",
             k: int = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """``input`` with diagonal ``k`` of each matrix (the last two axes, ``[..., M, N]``;
    ``k`` = 0 the main one, > 0 above it, < 0 below) replaced by ``diagonal``
    (``[..., L]``, ``L`` that diagonal's length, ``min(M, N)`` for ``k`` = 0). Gradients:
    ``input`` gets the cotangent off that diagonal, ``diagonal`` the cotangent on it. One
    diagonal only (TensorFlow's bands ``k=(lo, hi)`` with lo < hi are not supported).

    >>> import finegrad as fg
    >>> fg.linalg.set_diag(fg.ones([2, 2]), fg.constant([5., 6.])).numpy()
    array([[5., 1.],
           [1., 6.]], dtype=float32)

    Raises:
        NotImplementedError: for a band of several diagonals.
        TypeError: for a ``k`` that is not an int, or a ``diagonal`` of another dtype.
        finegrad.errors.InvalidArgumentError: when ``input`` has rank < 2, ``k`` is not in
            ``(-M, N)``, or ``diagonal``'s shape is not ``input``'s batch shape and ``L``.
    """
    x = convert_to_tensor(input)
    d = diagonal if isinstance(diagonal, Tensor) else convert_to_tensor(diagonal, x.dtype)
    _same_dtype(x, d, "finegrad.linalg.set_diag", "input and diagonal")
    shape = list(x._value.shape)
    if len(shape) < 2:
        raise InvalidArgumentError(f"finegrad.linalg.set_diag: input must have rank >= 2, got "
                                   f"shape {shape}")
    m, n = shape[-2:]
    k = _single_diagonal(k, m, n)
    want = shape[:-2] + [min(m + min(k, 0), n - max(k, 0))]
    if list(d._value.shape) != want:
        raise InvalidArgumentError(f"finegrad.linalg.set_diag: diagonal must have shape "
                                   f"{want} for input of shape {shape} and k={k}, got "
                                   f"{list(d._value.shape)}")
    mask = Tensor(np.eye(m, n, k, dtype=bool))
    return ew.where(mask, _placed(d, m, n, k, x._value.dtype), x)


def tensor_diag(diagonal: TensorLike, name: str | None = None) -> Tensor:
    """The rank-2k tensor with ``diagonal`` (rank k >= 1) on its diagonal:
    ``out[i1..ik, i1..ik] = diagonal[i1..ik]``, zero elsewhere. Differentiable.

    >>> import finegrad as fg
    >>> fg.linalg.tensor_diag(fg.constant([1., 2.])).numpy()
    array([[1., 0.],
           [0., 2.]], dtype=float32)

    Raises:
        finegrad.errors.InvalidArgumentError: for a scalar ``diagonal``.
    """
    d = convert_to_tensor(diagonal)
    shape = list(d._value.shape)
    if not shape:
        raise InvalidArgumentError("finegrad.linalg.tensor_diag: diagonal must have rank >= 1, "
                                   "got a scalar")
    return reshape(diag(reshape(d, [-1])), shape + shape)


def tensor_diag_part(input: TensorLike,  # TensorFlow's keyword
                     name: str | None = None) -> Tensor:
    """The diagonal of a rank-2k tensor of shape ``s + s``: ``out[i1..ik] =
    input[i1..ik, i1..ik]`` (shape ``s``). Differentiable.

    >>> import finegrad as fg
    >>> fg.linalg.tensor_diag_part(fg.constant([[1., 2.], [3., 4.]])).numpy()
    array([1., 4.], dtype=float32)

    Raises:
        finegrad.errors.InvalidArgumentError: when the rank is not even and positive, or
            the second half of the shape differs from the first.
    """
    x = convert_to_tensor(input)
    shape = list(x._value.shape)
    k = len(shape) // 2
    if not shape or len(shape) % 2:
        raise InvalidArgumentError(f"finegrad.linalg.tensor_diag_part: input's rank must be "
                                   f"even and positive, got shape {shape}")
    if shape[:k] != shape[k:]:
        raise InvalidArgumentError(f"finegrad.linalg.tensor_diag_part: input's shape must be "
                                   f"s + s, got {shape}")
    size = int(np.prod(shape[:k], dtype=np.int64))
    return reshape(diag_part(reshape(x, [size, size])), shape[:k])


def matrix_rank(a: TensorLike, tol: Any = None, validate_args: bool = False,
                name: str | None = None) -> Tensor:
    """The rank of each matrix of ``a`` (``[..., M, N]``), as int32: how many singular
    values exceed ``tol``, by default ``eps * max(M, N) * max(singular value)`` (TensorFlow's
    and NumPy's). Not differentiable.

    >>> import finegrad as fg
    >>> fg.linalg.matrix_rank(fg.constant([[1., 2.], [2., 4.]])).numpy()
    np.int32(1)

    Raises:
        TypeError: when ``a`` is not floating or complex.
        ValueError: when ``a`` has rank < 2.
    """
    a = convert_to_tensor(a)
    if a._value.dtype.kind not in "fc":
        raise TypeError(f"finegrad.linalg.matrix_rank: a must be a floating or complex "
                        f"tensor, got {a.dtype.name}")
    if a._value.ndim < 2:
        raise ValueError(f"finegrad.linalg.matrix_rank: a must have rank >= 2, got shape "
                         f"{list(a._value.shape)}")
    s = svd(a, compute_uv=False)
    if tol is None:
        eps = np.finfo(a._value.dtype).eps
        tol = reduce_max(s, axis=-1, keepdims=True) * (eps * max(a._value.shape[-2:]))
    else:
        tol = convert_to_tensor(tol, dtype=s.dtype)
    return reduce_sum(cast(ew.greater(s, tol), dtypes.int32), axis=-1)


def _tridiagonal_parts(diagonals, diagonals_format, m, fn):
    """(superdiagonal, main diagonal, subdiagonal), each ``[..., M]``, of either format."""
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError(f"{fn}: diagonals in 'sequence' format must be a tuple of 3 "
                             f"tensors (super, main, sub), got {type(diagonals).__name__}")
        parts = [convert_to_tensor(d) for d in diagonals]
    else:
        d = convert_to_tensor(diagonals)
        shape = list(d._value.shape)
        if len(shape) < 2 or shape[-2] != 3:
            raise InvalidArgumentError(f"{fn}: diagonals in 'compact' format must have shape "
                                       f"[..., 3, M], got {shape}")
        parts = [d[..., i, :] for i in range(3)]
    for p in parts:
        if not p._value.ndim or p._value.shape[-1] != m:
            raise InvalidArgumentError(f"{fn}: each diagonal must have rhs's length M = {m} on "
                                       f"its last axis, got shape {list(p._value.shape)}")
    return parts


def tridiagonal_matmul(diagonals: Any, rhs: TensorLike, diagonals_format: str = "compact",
                       name: str | None = None) -> Tensor:
    """The product of tridiagonal matrices and ``rhs`` (``[..., M, N]``). ``diagonals`` is
    ``[..., 3, M]`` ('compact': superdiagonal, main diagonal, subdiagonal; the last
    superdiagonal and first subdiagonal entries are ignored), a tuple of three ``[..., M]``
    tensors ('sequence'), or ``[..., M, M]`` matrices whose tridiagonal band is used
    ('matrix'). Differentiable in both.

    >>> import finegrad as fg
    >>> d = fg.constant([[1., 2., 0.], [4., 5., 6.], [0., 8., 9.]])
    >>> fg.linalg.tridiagonal_matmul(d, fg.constant([[1.], [2.], [3.]])).numpy()
    array([[ 6.],
           [24.],
           [36.]], dtype=float32)

    Raises:
        ValueError: for an unknown ``diagonals_format``, or rhs of rank < 2.
        finegrad.errors.InvalidArgumentError: for diagonals whose shapes do not fit ``rhs``.
    """
    fn = "finegrad.linalg.tridiagonal_matmul"
    if diagonals_format not in ("compact", "sequence", "matrix"):
        raise ValueError(f"{fn}: diagonals_format must be 'compact', 'sequence' or 'matrix', "
                         f"got {diagonals_format!r}")
    rhs = convert_to_tensor(rhs)
    if rhs._value.ndim < 2:
        raise ValueError(f"{fn}: rhs must have rank >= 2 ([..., M, N]), got shape "
                         f"{list(rhs._value.shape)}")
    if diagonals_format == "matrix":
        return matmul(band_part(diagonals, 1, 1), rhs)
    m = rhs._value.shape[-2]
    sup, main, sub = _tridiagonal_parts(diagonals, diagonals_format, m, fn)
    out = expand_dims(main, -1) * rhs
    if m > 1:
        lead = [[0, 0]] * (rhs._value.ndim - 2)
        above = expand_dims(sup[..., :-1], -1) * rhs[..., 1:, :]
        below = expand_dims(sub[..., 1:], -1) * rhs[..., :-1, :]
        out = out + pad(above, lead + [[0, 1], [0, 0]]) + pad(below, lead + [[1, 0], [0, 0]])
    return out
