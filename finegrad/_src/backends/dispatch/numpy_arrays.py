"""`keras.ops.numpy`'s functions of arrays: shapes, sorting, indexing; its constructors
(`numpy_creation`) and reductions (`numpy_reductions`) are re-exported here.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from typing import Any

from finegrad._src.types import TensorLike

from finegrad._src.backends.dispatch.selection import on as _on
from finegrad._src.backends.dispatch.numpy_reductions import (  # noqa: F401
    all, amax, amin, any, argmax, argmin, average, count_nonzero, cumprod, cumsum, max, mean,
    median, min, nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmedian,
    nanmin, nanpercentile, nanprod, nanquantile, nanstd, nansum, nanvar, percentile, prod, ptp,
    quantile, std, sum, var)
from finegrad._src.backends.dispatch.numpy_creation import (  # noqa: F401
    arange, diag, diagflat, empty, empty_like, eye, full, full_like, geomspace, identity,
    linspace, logspace, meshgrid, ones, ones_like, tri, tril, triu, zeros, zeros_like)


def allclose(
    x1: TensorLike,
    x2: TensorLike,
    rtol: Any = 1e-05,
    atol: Any = 1e-08,
    equal_nan: Any = False,
) -> Any:
    """Keras 3's `keras.ops.allclose` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.allclose(x, y))
    array(False)
    """
    return _on(x1, x2).allclose(x1, x2, rtol, atol, equal_nan)


def append(x1: TensorLike, x2: TensorLike, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.append` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.append(x, y).shape
    TensorShape([12])
    """
    return _on(x1, x2).append(x1, x2, axis)


def argpartition(x: TensorLike, kth: Any, axis: Any = -1) -> Any:
    """Keras 3's `keras.ops.argpartition` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.argpartition([0.3, 0.1, 0.7, 0.2], 1))
    array([1, 3, 0, 2], dtype=int32)
    """
    return _on(x, kth).argpartition(x, kth, axis)


def argsort(x: TensorLike, axis: Any = -1) -> Any:
    """Keras 3's `keras.ops.argsort` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.argsort([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1, 2, 0],
           [0, 2, 1]], dtype=int32)
    """
    return _on(x).argsort(x, axis)


def array(x: TensorLike, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.array` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.array([1.0, 2.0]))
    array([1., 2.], dtype=float32)
    """
    return _on(x).array(x, dtype)


def array_split(x: TensorLike, indices_or_sections: Any, axis: Any = 0) -> Any:
    """Keras 3's `keras.ops.array_split` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.array_split([0.3, 0.1, 0.7, 0.2], 3)]
    [(2,), (1,), (1,)]
    """
    return _on(x, indices_or_sections).array_split(x, indices_or_sections, axis)


def bincount(
    x: TensorLike,
    weights: TensorLike | None = None,
    minlength: Any = 0,
    sparse: Any = False,
) -> Any:
    """Keras 3's `keras.ops.bincount` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.bincount([0, 2, 2, 5]))
    array([1, 0, 2, 0, 0, 1], dtype=int32)
    """
    return _on(x, weights).bincount(x, weights, minlength, sparse)


def clip(x: TensorLike, x_min: TensorLike, x_max: TensorLike) -> Any:
    """``x`` limited to ``[x_min, x_max]``.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.clip([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], -1.0, 1.0))
    array([[ 1.   , -1.   ,  0.919],
           [-1.   ,  1.   ,  0.166]], dtype=float32)
    """
    return _on(x, x_min, x_max).clip(x, x_min, x_max)


def concatenate(xs: TensorLike, axis: Any = 0) -> Any:
    """The tensors ``xs`` joined along the existing ``axis``.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.concatenate([[1.0, 2.0], [3.0]]))
    array([1., 2., 3.], dtype=float32)
    """
    return _on(xs).concatenate(xs, axis)


def correlate(x1: TensorLike, x2: TensorLike, mode: Any = "valid") -> Any:
    """Keras 3's `keras.ops.correlate` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.correlate([0.3, 0.1, 0.7, 0.2], [0.3, 0.1]))
    array([0.1 , 0.1 , 0.23], dtype=float32)
    """
    return _on(x1, x2).correlate(x1, x2, mode)


def cross(
    x1: TensorLike,
    x2: TensorLike,
    axisa: Any = -1,
    axisb: Any = -1,
    axisc: Any = -1,
    axis: Any = None,
) -> Any:
    """Keras 3's `keras.ops.cross` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.cross(x, y))
    array([[ 3.805113 ,  1.9622908, -1.9365361],
           [ 0.742605 ,  0.514435 ,  1.2993048]], dtype=float32)
    """
    return _on(x1, x2).cross(x1, x2, axisa, axisb, axisc, axis)


def diagonal(x: TensorLike, offset: TensorLike = 0, axis1: Any = 0, axis2: Any = 1) -> Any:
    """Keras 3's `keras.ops.diagonal` on the active backend.

    >>> from finegrad import ops
    >>> x = [[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]
    >>> ops.convert_to_numpy(ops.diagonal(x, offset=1))
    array([0.5, 0.2], dtype=float32)
    """
    return _on(x).diagonal(x, offset, axis1, axis2)


def diff(a: TensorLike, n: Any = 1, axis: Any = -1) -> Any:
    """Keras 3's `keras.ops.diff` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.diff([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[-3.296,  2.785],
           [ 2.75 , -1.287]], dtype=float32)
    """
    return _on(a).diff(a, n, axis)


def einsum(subscripts: Any, *operands: Any, **kwargs: Any) -> Any:
    """Einstein summation of ``operands`` as ``subscripts`` says (e.g. ``"ij,jk->ik"``).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.einsum('ij,kj->ik', x, y))
    array([[-2.302989  , -2.8806107 ],
           [ 0.27667806,  3.0381112 ]], dtype=float32)
    """
    return _on(*operands).einsum(subscripts, *operands, **kwargs)


def flip(x: TensorLike, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.flip` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.flip([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], axis=1))
    array([[ 0.919, -1.866,  1.43 ],
           [ 0.166,  1.453, -1.297]], dtype=float32)
    """
    return _on(x).flip(x, axis)


def histogram(x: TensorLike, bins: Any = 10, range: Any = None) -> Any:
    """Keras 3's `keras.ops.histogram` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.histogram([0.3, 0.1, 0.7, 0.2], bins=3)]
    [(3,), (4,)]
    """
    return _on(x, range).histogram(x, bins, range)


def isclose(
    x1: TensorLike,
    x2: TensorLike,
    rtol: Any = 1e-05,
    atol: Any = 1e-08,
    equal_nan: Any = False,
) -> Any:
    """Keras 3's `keras.ops.isclose` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.isclose(x, y))
    array([[False, False, False],
           [False, False, False]])
    """
    return _on(x1, x2).isclose(x1, x2, rtol, atol, equal_nan)


def isin(x1: TensorLike, x2: TensorLike, assume_unique: Any = False, invert: Any = False) -> Any:
    """Keras 3's `keras.ops.isin` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.isin([[1, 5, 2], [4, 0, 3]], [1, 4]))
    array([[ True, False, False],
           [ True, False, False]])
    """
    return _on(x1, x2).isin(x1, x2, assume_unique, invert)


def moveaxis(x: TensorLike, source: Any, destination: Any) -> Any:
    """Keras 3's `keras.ops.moveaxis` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> ops.moveaxis(np.linspace(0.1, 0.9, 30, dtype='float32').reshape((2, 5, 3)), 0, -1).shape
    TensorShape([5, 3, 2])
    """
    return _on(x, source, destination).moveaxis(x, source, destination)


def nan_to_num(x: TensorLike, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    """Keras 3's `keras.ops.nan_to_num` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nan_to_num([float('nan'), float('inf'), -1.0]))
    array([ 0.0000000e+00,  3.4028235e+38, -1.0000000e+00], dtype=float32)
    """
    return _on(x, posinf, neginf).nan_to_num(x, nan, posinf, neginf)


def pad(x: TensorLike, pad_width: Any, mode: Any = "constant", constant_values: Any = None) -> Any:
    """Keras 3's `keras.ops.pad` on the active backend.

    >>> from finegrad import ops
    >>> ops.pad([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], ((1, 0), (0, 2))).shape
    TensorShape([3, 5])
    """
    return _on(x, pad_width, constant_values).pad(x, pad_width, mode, constant_values)


def repeat(x: TensorLike, repeats: Any, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.repeat` on the active backend.

    >>> from finegrad import ops
    >>> ops.repeat([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 2, axis=0).shape
    TensorShape([4, 3])
    """
    return _on(x, repeats).repeat(x, repeats, axis)


def roll(x: TensorLike, shift: Any, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.roll` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.roll([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 1, axis=1))
    array([[ 0.919,  1.43 , -1.866],
           [ 0.166, -1.297,  1.453]], dtype=float32)
    """
    return _on(x, shift).roll(x, shift, axis)


def rot90(array: TensorLike, k: Any = 1, axes: Any = (0, 1)) -> Any:
    """Keras 3's `keras.ops.rot90` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.rot90([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.919,  0.166],
           [-1.866,  1.453],
           [ 1.43 , -1.297]], dtype=float32)
    """
    return _on(array).rot90(array, k, axes)


def round(x: TensorLike, decimals: TensorLike = 0) -> Any:
    """Keras 3's `keras.ops.round` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.round([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1., -2.,  1.],
           [-1.,  1.,  0.]], dtype=float32)
    """
    return _on(x).round(x, decimals)


def searchsorted(sorted_sequence: Any, values: TensorLike, side: Any = "left") -> Any:
    """Keras 3's `keras.ops.searchsorted` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.searchsorted([0.1, 0.4, 0.9], [0.3, 0.1, 0.7, 0.2]))
    array([1, 0, 2, 1], dtype=int32)
    """
    return _on(sorted_sequence, values).searchsorted(sorted_sequence, values, side)


def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """Keras 3's `keras.ops.select` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.select([[True, False], [False, True]], [[1, 2], [3, 4]], 0))
    array([1, 4], dtype=int32)
    """
    return _on(condlist, choicelist).select(condlist, choicelist, default)


def sort(x: TensorLike, axis: Any = -1) -> Any:
    """Keras 3's `keras.ops.sort` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sort([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[-1.866,  0.919,  1.43 ],
           [-1.297,  0.166,  1.453]], dtype=float32)
    """
    return _on(x).sort(x, axis)


def split(x: TensorLike, indices_or_sections: Any, axis: Any = 0) -> Any:
    """Keras 3's `keras.ops.split` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 30, dtype='float32').reshape((2, 5, 3))
    >>> [tuple(t.shape) for t in ops.split(x, 5, 1)]
    [(2, 1, 3), (2, 1, 3), (2, 1, 3), (2, 1, 3), (2, 1, 3)]
    """
    return _on(x, indices_or_sections).split(x, indices_or_sections, axis)


def squeeze(x: TensorLike, axis: Any = None) -> Any:
    """``x`` without its axes of length 1 (or only ``axis``).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.squeeze([[[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]]))
    array([[ 1.43 , -1.866,  0.919],
           [-1.297,  1.453,  0.166]], dtype=float32)
    """
    return _on(x).squeeze(x, axis)


def stack(x: TensorLike, axis: Any = 0) -> Any:
    """The tensors ``x`` joined along a new ``axis``.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.stack([[1.0, 2.0], [3.0, 4.0]], axis=1))
    array([[1., 3.],
           [2., 4.]], dtype=float32)
    """
    return _on(x).stack(x, axis)


def swapaxes(x: TensorLike, axis1: Any, axis2: Any) -> Any:
    """Keras 3's `keras.ops.swapaxes` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> ops.swapaxes(np.linspace(0.1, 0.9, 30, dtype='float32').reshape((2, 5, 3)), 0, 2).shape
    TensorShape([3, 5, 2])
    """
    return _on(x, axis1, axis2).swapaxes(x, axis1, axis2)


def take(x: TensorLike, indices: TensorLike, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.take` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [2, 0]
    >>> ops.convert_to_numpy(ops.take(x, y, axis=1))
    array([[ 0.919,  1.43 ],
           [ 0.166, -1.297]], dtype=float32)
    """
    return _on(x, indices).take(x, indices, axis)


def take_along_axis(x: TensorLike, indices: TensorLike, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.take_along_axis` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[1, 2, 0], [0, 2, 1]]
    >>> ops.convert_to_numpy(ops.take_along_axis(x, y, axis=1))
    array([[-1.866,  0.919,  1.43 ],
           [-1.297,  0.166,  1.453]], dtype=float32)
    """
    return _on(x, indices).take_along_axis(x, indices, axis)


def tensordot(x1: TensorLike, x2: TensorLike, axes: Any = 2) -> Any:
    """Keras 3's `keras.ops.tensordot` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -1.503], [-0.309, 0.682], [-1.887, 0.589]]
    >>> ops.convert_to_numpy(ops.tensordot(x, y, axes=1))
    array([[-2.302989  , -2.880611  ],
           [ 0.27667812,  3.0381112 ]], dtype=float32)
    """
    return _on(x1, x2).tensordot(x1, x2, axes)


def trace(x: TensorLike, offset: TensorLike = 0, axis1: Any = 0, axis2: Any = 1) -> Any:
    """Keras 3's `keras.ops.trace` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.trace([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]))
    array(6.5, dtype=float32)
    """
    return _on(x).trace(x, offset, axis1, axis2)


def transpose(x: TensorLike, axes: Any = None) -> Any:
    """``x`` with its axes permuted by ``axes`` (reversed when None).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.transpose([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43 , -1.297],
           [-1.866,  1.453],
           [ 0.919,  0.166]], dtype=float32)
    """
    return _on(x).transpose(x, axes)


def trapezoid(y: TensorLike, x: TensorLike | None = None, dx: Any = 1.0, axis: Any = -1) -> Any:
    """Keras 3's `keras.ops.trapezoid` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.trapezoid([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([-0.69150007,  0.8874999 ], dtype=float32)
    """
    return _on(y, x).trapezoid(y, x, dx, axis)


def unique(
    x: TensorLike,
    sorted: Any = True,
    return_index: Any = False,
    return_inverse: Any = False,
    return_counts: Any = False,
    axis: Any = None,
    size: Any = None,
    fill_value: Any = None,
) -> Any:
    """Keras 3's `keras.ops.unique` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.unique([3, 1, 3, 2]))
    array([1, 2, 3], dtype=int32)
    """
    return _on(x, size, fill_value).unique(
        x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value
    )


def vander(x: TensorLike, N: Any = None, increasing: Any = False) -> Any:
    """Keras 3's `keras.ops.vander` on the active backend.

    >>> from finegrad import ops
    >>> ops.vander([0.3, 0.1, 0.7, 0.2], N=3).shape
    TensorShape([4, 3])
    """
    return _on(x, N).vander(x, N, increasing)


def vectorize(pyfunc: Any, *, excluded: Any = None, signature: Any = None) -> Any:
    """Keras 3's `keras.ops.vectorize` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.vectorize(lambda a, b: a + b)([1.0, 2.0], [10.0, 20.0]))
    array([11., 22.], dtype=float32)
    """
    return _on().vectorize(pyfunc, excluded=excluded, signature=signature)


def view(x: TensorLike, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.view` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.view([[1, 5, 2], [4, 0, 3]], 'float32'))
    array([[1.e-45, 7.e-45, 3.e-45],
           [6.e-45, 0.e+00, 4.e-45]], dtype=float32)
    """
    return _on(x).view(x, dtype)


def where(condition: TensorLike, x1: TensorLike | None = None, x2: TensorLike | None = None) -> Any:
    """Elementwise ``x1`` where ``condition`` holds, else ``x2`` (broadcasting).

    >>> from finegrad import ops
    >>> x = [[True, False, True], [False, True, True]]
    >>> y = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> z = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.where(x, y, z))
    array([[ 1.43 , -0.309,  0.919],
           [-1.503,  1.453,  0.166]], dtype=float32)
    """
    return _on(condition, x1, x2).where(condition, x1, x2)


