"""`keras.ops.numpy`'s products, joins, splits, windows and shapes; its elementwise functions
of one tensor (`numpy_unary`) and two (`numpy_binary`) are re-exported here.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from typing import Any

from finegrad._src.types import TensorLike

from finegrad._src.backends.dispatch.selection import on as _on
from finegrad._src.backends.dispatch.numpy_unary import (  # noqa: F401
    abs, absolute, angle, arccos, arccosh, arcsin, arcsinh, arctan, arctanh, cbrt, ceil, conj,
    conjugate, copy, cos, cosh, deg2rad, exp, exp2, expm1, fabs, floor, i0, imag, isfinite,
    isinf, isnan, isneginf, isposinf, isreal, log, log10, log1p, log2, logical_not, ndim,
    negative, nonzero, rad2deg, ravel, real, reciprocal, sign, signbit, sin, sinc, sinh, size,
    sqrt, square, tan, tanh, trunc)
from finegrad._src.backends.dispatch.numpy_binary import (  # noqa: F401
    add, arctan2, bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_not, bitwise_or,
    bitwise_right_shift, bitwise_xor, divide, divide_no_nan, equal, floor_divide, fmax, fmin,
    fmod, gcd, greater, greater_equal, heaviside, hypot, lcm, left_shift, less, less_equal,
    logaddexp, logaddexp2, logical_and, logical_or, logical_xor, maximum, minimum, mod,
    multiply, nextafter, not_equal, power, right_shift, subtract, true_divide)


def bartlett(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.bartlett` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.bartlett(5))
    array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    return _on(x).bartlett(x)


def blackman(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.blackman` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.blackman(5))
    array([-1.3877788e-17,  3.4000000e-01,  1.0000000e+00,  3.4000000e-01,
           -1.3877788e-17], dtype=float32)
    """
    return _on(x).blackman(x)


def broadcast_to(x: TensorLike, shape: Any) -> Any:
    """Keras 3's `keras.ops.broadcast_to` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.broadcast_to([0.3, 0.1, 0.7], (2, 3)))
    array([[0.3, 0.1, 0.7],
           [0.3, 0.1, 0.7]], dtype=float32)
    """
    return _on(x).broadcast_to(x, shape)


def corrcoef(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.corrcoef` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.corrcoef([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.0000001, -0.9147131],
           [-0.9147131,  1.0000001]], dtype=float32)
    """
    return _on(x).corrcoef(x)


def digitize(x: TensorLike, bins: Any) -> Any:
    """Keras 3's `keras.ops.digitize` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.digitize([0.3, 0.1, 0.7, 0.2], [0.0, 0.25, 0.5]))
    array([2, 1, 3, 1], dtype=int32)
    """
    return _on(x, bins).digitize(x, bins)


def dot(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.dot` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -1.503], [-0.309, 0.682], [-1.887, 0.589]]
    >>> ops.convert_to_numpy(ops.dot(x, y))
    array([[-2.302989  , -2.880611  ],
           [ 0.27667812,  3.0381112 ]], dtype=float32)
    """
    return _on(x1, x2).dot(x1, x2)


def dsplit(x: TensorLike, indices_or_sections: Any) -> Any:
    """Keras 3's `keras.ops.dsplit` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 30, dtype='float32').reshape((2, 5, 3))
    >>> [tuple(t.shape) for t in ops.dsplit(x, 3)]
    [(2, 5, 1), (2, 5, 1), (2, 5, 1)]
    """
    return _on(x, indices_or_sections).dsplit(x, indices_or_sections)


def dstack(xs: TensorLike) -> Any:
    """Keras 3's `keras.ops.dstack` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.dstack([[1.0, 2.0], [3.0, 4.0]]))
    array([[[1., 3.],
            [2., 4.]]], dtype=float32)
    """
    return _on(xs).dstack(xs)


def expand_dims(x: TensorLike, axis: Any) -> Any:
    """``x`` with a new axis of length 1 at ``axis``.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.expand_dims([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 1))
    array([[[ 1.43 , -1.866,  0.919]],
    <BLANKLINE>
           [[-1.297,  1.453,  0.166]]], dtype=float32)
    """
    return _on(x).expand_dims(x, axis)


def fliplr(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.fliplr` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.fliplr([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.919, -1.866,  1.43 ],
           [ 0.166,  1.453, -1.297]], dtype=float32)
    """
    return _on(x).fliplr(x)


def flipud(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.flipud` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.flipud([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[-1.297,  1.453,  0.166],
           [ 1.43 , -1.866,  0.919]], dtype=float32)
    """
    return _on(x).flipud(x)


def get_item(x: TensorLike, key: TensorLike) -> Any:
    """Keras 3's `keras.ops.get_item` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.get_item([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 1))
    array([-1.297,  1.453,  0.166], dtype=float32)
    """
    return _on(x, key).get_item(x, key)


def hamming(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.hamming` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.hamming(5))
    array([0.08, 0.54, 1.  , 0.54, 0.08], dtype=float32)
    """
    return _on(x).hamming(x)


def hanning(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.hanning` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.hanning(5))
    array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    return _on(x).hanning(x)


def hsplit(x: TensorLike, indices_or_sections: Any) -> Any:
    """Keras 3's `keras.ops.hsplit` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.hsplit([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 3)]
    [(2, 1), (2, 1), (2, 1)]
    """
    return _on(x, indices_or_sections).hsplit(x, indices_or_sections)


def hstack(xs: TensorLike) -> Any:
    """Keras 3's `keras.ops.hstack` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.hstack([[1.0, 2.0], [3.0, 4.0]]))
    array([1., 2., 3., 4.], dtype=float32)
    """
    return _on(xs).hstack(xs)


def inner(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.inner` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.inner(x, y))
    array([[-2.302989  , -2.880611  ],
           [ 0.27667812,  3.0381112 ]], dtype=float32)
    """
    return _on(x1, x2).inner(x1, x2)


def kaiser(x: TensorLike, beta: TensorLike) -> Any:
    """Keras 3's `keras.ops.kaiser` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.kaiser(5, 2.0))
    array([0.43867627, 0.83476144, 1.        , 0.83476144, 0.43867627],
          dtype=float32)
    """
    return _on(x, beta).kaiser(x, beta)


def kron(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.kron` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.kron(x, y).shape
    TensorShape([4, 9])
    """
    return _on(x1, x2).kron(x1, x2)


def ldexp(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.ldexp` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[2, 2, 7], [1, 3, 3]]
    >>> ops.convert_to_numpy(ops.ldexp(x, y))
    array([[  5.72 ,  -7.464, 117.632],
           [ -2.594,  11.624,   1.328]], dtype=float32)
    """
    return _on(x1, x2).ldexp(x1, x2)


def matmul(x1: TensorLike, x2: TensorLike) -> Any:
    """Matrix product of x1 and x2 (batched over leading axes).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -1.503], [-0.309, 0.682], [-1.887, 0.589]]
    >>> ops.convert_to_numpy(ops.matmul(x, y))
    array([[-2.302989  , -2.880611  ],
           [ 0.27667812,  3.0381112 ]], dtype=float32)
    """
    return _on(x1, x2).matmul(x1, x2)


def outer(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.outer` on the active backend.

    >>> from finegrad import ops
    >>> ops.outer([0.3, 0.1, 0.7, 0.2], [0.3, 0.1, 0.7, 0.2]).shape
    TensorShape([4, 4])
    """
    return _on(x1, x2).outer(x1, x2)


def reshape(x: TensorLike, newshape: Any) -> Any:
    """``x`` with shape ``newshape`` (one size may be -1).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.reshape([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], (3, 2)))
    array([[ 1.43 , -1.866],
           [ 0.919, -1.297],
           [ 1.453,  0.166]], dtype=float32)
    """
    return _on(x, newshape).reshape(x, newshape)


def slogdet(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.slogdet` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.slogdet([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]])]
    [(), ()]
    """
    return _on(x).slogdet(x)


def tile(x: TensorLike, repeats: Any) -> Any:
    """Keras 3's `keras.ops.tile` on the active backend.

    >>> from finegrad import ops
    >>> ops.tile([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], (2, 1)).shape
    TensorShape([4, 3])
    """
    return _on(x, repeats).tile(x, repeats)


def unravel_index(indices: TensorLike, shape: Any) -> Any:
    """Keras 3's `keras.ops.unravel_index` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.unravel_index([1, 5], (2, 3))]
    [(2,), (2,)]
    """
    return _on(indices).unravel_index(indices, shape)


def vdot(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.vdot` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.vdot(x, y))
    array(0.735122, dtype=float32)
    """
    return _on(x1, x2).vdot(x1, x2)


def vsplit(x: TensorLike, indices_or_sections: Any) -> Any:
    """Keras 3's `keras.ops.vsplit` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.vsplit([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 2)]
    [(1, 3), (1, 3)]
    """
    return _on(x, indices_or_sections).vsplit(x, indices_or_sections)


def vstack(xs: TensorLike) -> Any:
    """Keras 3's `keras.ops.vstack` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.vstack([[1.0, 2.0], [3.0, 4.0]]))
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    return _on(xs).vstack(xs)
