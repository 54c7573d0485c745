"""`keras.ops.linalg`: decompositions, solvers, norms.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from typing import Any

from finegrad._src.types import TensorLike

from finegrad._src.backends.dispatch.selection import on as _on


def cholesky(x: TensorLike, upper: TensorLike = False) -> Any:
    """Keras 3's `keras.ops.cholesky` on the active backend.

    >>> from finegrad import ops
    >>> ops.cholesky([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]).shape
    TensorShape([3, 3])
    """
    return _on(x).cholesky(x, upper)


def cholesky_inverse(x: TensorLike, upper: TensorLike = False) -> Any:
    """Keras 3's `keras.ops.cholesky_inverse` on the active backend.

    >>> from finegrad import ops
    >>> ops.cholesky_inverse([[2.0, 0.0], [1.0, 1.0]]).shape
    TensorShape([2, 2])
    """
    return _on(x).cholesky_inverse(x, upper)


def det(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.det` on the active backend.

    >>> from finegrad import ops
    >>> ops.det([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]).shape
    TensorShape([])
    """
    return _on(x).det(x)


def eig(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.eig` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.eig([[2.0, 0.0], [0.0, 3.0]])]
    [(2,), (2, 2)]
    """
    return _on(x).eig(x)


def eigh(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.eigh` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.eigh([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]])]
    [(3,), (3, 3)]
    """
    return _on(x).eigh(x)


def inv(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.inv` on the active backend.

    >>> from finegrad import ops
    >>> ops.inv([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]).shape
    TensorShape([3, 3])
    """
    return _on(x).inv(x)


def jvp(fun: Any, primals: Any, tangents: Any, has_aux: Any = False) -> Any:
    """Keras 3's `keras.ops.jvp` on the active backend.

    >>> from finegrad import ops
    >>> x = ops.convert_to_tensor([3.0])
    >>> [tuple(t.shape) for t in ops.jvp(lambda v: v * v, (x,), (ops.ones_like(x),))]
    [(1,), (1,)]
    """
    return _on(fun, primals, tangents).jvp(fun, primals, tangents, has_aux)


def lstsq(a: TensorLike, b: TensorLike, rcond: Any = None) -> Any:
    """Keras 3's `keras.ops.lstsq` on the active backend.

    >>> from finegrad import ops
    >>> ops.lstsq([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]], [0.3, 0.1, 0.7]).shape
    TensorShape([3])
    """
    return _on(a, b, rcond).lstsq(a, b, rcond)


def lu_factor(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.lu_factor` on the active backend.

    >>> from finegrad import ops
    >>> x = [[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]
    >>> [tuple(t.shape) for t in ops.lu_factor(x)]
    [(3, 3), (3,)]
    """
    return _on(x).lu_factor(x)


def matrix_rank(x: TensorLike, tol: Any = None) -> Any:
    """Keras 3's `keras.ops.matrix_rank` on the active backend.

    >>> from finegrad import ops
    >>> ops.matrix_rank([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]).shape
    TensorShape([])
    """
    return _on(x, tol).matrix_rank(x, tol)


def norm(x: TensorLike, ord: Any = None, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.norm` on the active backend.

    >>> from finegrad import ops
    >>> ops.norm([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]).shape
    TensorShape([])
    """
    return _on(x, ord).norm(x, ord, axis, keepdims)


def pinv(x: TensorLike, rcond: Any = None) -> Any:
    """Keras 3's `keras.ops.pinv` on the active backend.

    >>> from finegrad import ops
    >>> ops.pinv([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]).shape
    TensorShape([3, 3])
    """
    return _on(x, rcond).pinv(x, rcond)


def qr(x: TensorLike, mode: Any = "reduced") -> Any:
    """Keras 3's `keras.ops.qr` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.qr([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]])]
    [(3, 3), (3, 3)]
    """
    return _on(x).qr(x, mode)


def solve(a: TensorLike, b: TensorLike) -> Any:
    """Keras 3's `keras.ops.solve` on the active backend.

    >>> from finegrad import ops
    >>> ops.solve([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]], [0.3, 0.1, 0.7]).shape
    TensorShape([3])
    """
    return _on(a, b).solve(a, b)


def solve_triangular(a: TensorLike, b: TensorLike, lower: TensorLike = False) -> Any:
    """Keras 3's `keras.ops.solve_triangular` on the active backend.

    >>> from finegrad import ops
    >>> x = [[2.0, 0.0, 0.0], [0.5, 3.0, 0.0], [0.1, 0.2, 1.5]]
    >>> y = [0.3, 0.1, 0.7]
    >>> ops.solve_triangular(x, y, lower=True).shape
    TensorShape([3])
    """
    return _on(a, b).solve_triangular(a, b, lower)


def svd(x: TensorLike, full_matrices: Any = True, compute_uv: Any = True) -> Any:
    """Keras 3's `keras.ops.svd` on the active backend.

    >>> from finegrad import ops
    >>> ops.svd([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]], compute_uv=False).shape
    TensorShape([3])
    """
    return _on(x).svd(x, full_matrices, compute_uv)
