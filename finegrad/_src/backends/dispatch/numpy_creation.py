"""`keras.ops.numpy`'s constructors: ranges, constants, identities, triangles and grids.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`). Re-exported by
`finegrad._src.backends.dispatch.numpy_arrays`.
"""

from typing import Any

from finegrad._src.backends.dispatch.selection import on as _on
from finegrad._src.types import TensorLike


def arange(
    start: TensorLike,
    stop: TensorLike | None = None,
    step: Any = None,
    dtype: Any = None,
) -> Any:
    """Keras 3's `keras.ops.arange` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.arange(5))
    array([0, 1, 2, 3, 4], dtype=int32)
    """
    return _on(start, stop, step).arange(start, stop, step, dtype)


def diag(x: TensorLike, k: Any = 0) -> Any:
    """Keras 3's `keras.ops.diag` on the active backend.

    >>> from finegrad import ops
    >>> ops.diag([0.3, 0.1, 0.7, 0.2]).shape
    TensorShape([4, 4])
    """
    return _on(x).diag(x, k)


def diagflat(x: TensorLike, k: Any = 0) -> Any:
    """Keras 3's `keras.ops.diagflat` on the active backend.

    >>> from finegrad import ops
    >>> ops.diagflat([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]).shape
    TensorShape([6, 6])
    """
    return _on(x).diagflat(x, k)


def empty(shape: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.empty` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.empty((2, 2)))
    array([[0., 0.],
           [0., 0.]], dtype=float32)
    """
    return _on().empty(shape, dtype)


def empty_like(x: TensorLike, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.empty_like` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.empty_like([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[0., 0., 0.],
           [0., 0., 0.]], dtype=float32)
    """
    return _on(x).empty_like(x, dtype)


def eye(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.eye` on the active backend.

    >>> from finegrad import ops
    >>> ops.eye(3).shape
    TensorShape([3, 3])
    """
    return _on(N, M).eye(N, M, k, dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.full` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.full((2, 2), 7.5))
    array([[7.5, 7.5],
           [7.5, 7.5]], dtype=float32)
    """
    return _on(fill_value).full(shape, fill_value, dtype)


def full_like(x: TensorLike, fill_value: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.full_like` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.full_like([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 2.0))
    array([[2., 2., 2.],
           [2., 2., 2.]], dtype=float32)
    """
    return _on(x, fill_value).full_like(x, fill_value, dtype)


def geomspace(
    start: TensorLike,
    stop: TensorLike,
    num: Any = 50,
    endpoint: Any = True,
    dtype: Any = None,
    axis: Any = 0,
) -> Any:
    """Keras 3's `keras.ops.geomspace` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.geomspace(1.0, 8.0, 4))
    array([1., 2., 4., 8.], dtype=float32)
    """
    return _on(start, stop).geomspace(start, stop, num, endpoint, dtype, axis)


def identity(n: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.identity` on the active backend.

    >>> from finegrad import ops
    >>> ops.identity(3).shape
    TensorShape([3, 3])
    """
    return _on(n).identity(n, dtype)


def linspace(
    start: TensorLike,
    stop: TensorLike,
    num: Any = 50,
    endpoint: Any = True,
    retstep: Any = False,
    dtype: Any = None,
    axis: Any = 0,
) -> Any:
    """Keras 3's `keras.ops.linspace` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.linspace(0.0, 1.0, 5))
    array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    return _on(start, stop).linspace(start, stop, num, endpoint, retstep, dtype, axis)


def logspace(
    start: TensorLike,
    stop: TensorLike,
    num: Any = 50,
    endpoint: Any = True,
    base: Any = 10,
    dtype: Any = None,
    axis: Any = 0,
) -> Any:
    """Keras 3's `keras.ops.logspace` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.logspace(0.0, 2.0, 3))
    array([  1.,  10., 100.], dtype=float32)
    """
    return _on(start, stop).logspace(start, stop, num, endpoint, base, dtype, axis)


def meshgrid(*x: Any, indexing: Any = "xy") -> Any:
    """Keras 3's `keras.ops.meshgrid` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.meshgrid([0.3, 0.1], [0.3, 0.1, 0.7, 0.2])]
    [(4, 2), (4, 2)]
    """
    return _on(*x).meshgrid(*x, indexing=indexing)


def ones(shape: Any, dtype: Any = None) -> Any:
    """A tensor of ones of ``shape``.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.ones((2,), dtype='int32'))
    array([1, 1], dtype=int32)
    """
    return _on().ones(shape, dtype)


def ones_like(x: TensorLike, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.ones_like` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.ones_like([[1, 5, 2], [4, 0, 3]]))
    array([[1, 1, 1],
           [1, 1, 1]], dtype=int32)
    """
    return _on(x).ones_like(x, dtype)


def tri(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.tri` on the active backend.

    >>> from finegrad import ops
    >>> ops.tri(3, 4, 1).shape
    TensorShape([3, 4])
    """
    return _on(N, M).tri(N, M, k, dtype)


def tril(x: TensorLike, k: Any = 0) -> Any:
    """Keras 3's `keras.ops.tril` on the active backend.

    >>> from finegrad import ops
    >>> ops.tril([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]).shape
    TensorShape([3, 3])
    """
    return _on(x).tril(x, k)


def triu(x: TensorLike, k: Any = 0) -> Any:
    """Keras 3's `keras.ops.triu` on the active backend.

    >>> from finegrad import ops
    >>> ops.triu([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]], 1).shape
    TensorShape([3, 3])
    """
    return _on(x).triu(x, k)


def zeros(shape: Any, dtype: Any = None) -> Any:
    """A tensor of zeros of ``shape``.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.zeros((2, 3)))
    array([[0., 0., 0.],
           [0., 0., 0.]], dtype=float32)
    """
    return _on().zeros(shape, dtype)


def zeros_like(x: TensorLike, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.zeros_like` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.zeros_like([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[0., 0., 0.],
           [0., 0., 0.]], dtype=float32)
    """
    return _on(x).zeros_like(x, dtype)
