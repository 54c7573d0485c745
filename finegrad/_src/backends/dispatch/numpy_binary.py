"""`keras.ops.numpy`'s elementwise functions of two tensors: arithmetic, comparisons,
logic and bits.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`). Re-exported by
`finegrad._src.backends.dispatch.numpy_elementwise`.
"""

from typing import Any

from finegrad._src.backends.dispatch.selection import on as _on
from finegrad._src.types import TensorLike


def add(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 + x2 (broadcasting).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.add(x, y))
    array([[ 0.62899995, -2.175     , -0.96799994],
           [-2.8000002 ,  2.135     ,  0.755     ]], dtype=float32)
    """
    return _on(x1, x2).add(x1, x2)


def arctan2(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.arctan2` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.arctan2(x, y))
    array([[ 2.0813913 , -1.734902  ,  2.6883857 ],
           [-2.4296336 ,  1.1319486 ,  0.27470818]], dtype=float32)
    """
    return _on(x1, x2).arctan2(x1, x2)


def bitwise_and(x: TensorLike, y: TensorLike) -> Any:
    """Keras 3's `keras.ops.bitwise_and` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.bitwise_and([[1, 5, 2], [4, 0, 3]], [[2, 2, 7], [1, 3, 3]]))
    array([[0, 0, 2],
           [0, 0, 3]], dtype=int32)
    """
    return _on(x, y).bitwise_and(x, y)


def bitwise_invert(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.bitwise_invert` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.bitwise_invert([[1, 5, 2], [4, 0, 3]]))
    array([[-2, -6, -3],
           [-5, -1, -4]], dtype=int32)
    """
    return _on(x).bitwise_invert(x)


def bitwise_left_shift(x: TensorLike, y: TensorLike) -> Any:
    """Keras 3's `keras.ops.bitwise_left_shift` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1, 5, 2], [4, 0, 3]]
    >>> y = [[2, 2, 7], [1, 3, 3]]
    >>> ops.convert_to_numpy(ops.bitwise_left_shift(x, y))
    array([[  4,  20, 256],
           [  8,   0,  24]], dtype=int32)
    """
    return _on(x, y).bitwise_left_shift(x, y)


def bitwise_not(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.bitwise_not` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.bitwise_not([[1, 5, 2], [4, 0, 3]]))
    array([[-2, -6, -3],
           [-5, -1, -4]], dtype=int32)
    """
    return _on(x).bitwise_not(x)


def bitwise_or(x: TensorLike, y: TensorLike) -> Any:
    """Keras 3's `keras.ops.bitwise_or` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.bitwise_or([[1, 5, 2], [4, 0, 3]], [[2, 2, 7], [1, 3, 3]]))
    array([[3, 7, 7],
           [5, 3, 3]], dtype=int32)
    """
    return _on(x, y).bitwise_or(x, y)


def bitwise_right_shift(x: TensorLike, y: TensorLike) -> Any:
    """Keras 3's `keras.ops.bitwise_right_shift` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1, 5, 2], [4, 0, 3]]
    >>> y = [[2, 2, 7], [1, 3, 3]]
    >>> ops.convert_to_numpy(ops.bitwise_right_shift(x, y))
    array([[0, 1, 0],
           [2, 0, 0]], dtype=int32)
    """
    return _on(x, y).bitwise_right_shift(x, y)


def bitwise_xor(x: TensorLike, y: TensorLike) -> Any:
    """Keras 3's `keras.ops.bitwise_xor` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.bitwise_xor([[1, 5, 2], [4, 0, 3]], [[2, 2, 7], [1, 3, 3]]))
    array([[3, 7, 5],
           [5, 3, 0]], dtype=int32)
    """
    return _on(x, y).bitwise_xor(x, y)


def divide(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 / x2 (broadcasting).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.divide(x, y))
    array([[-1.7852683 ,  6.0388355 , -0.48701644],
           [ 0.8629408 ,  2.1304984 ,  0.28183362]], dtype=float32)
    """
    return _on(x1, x2).divide(x1, x2)


def divide_no_nan(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.divide_no_nan` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[1.0, 0.0, 2.0]]
    >>> ops.convert_to_numpy(ops.divide_no_nan(x, y))
    array([[ 1.43  ,  0.    ,  0.4595],
           [-1.297 ,  0.    ,  0.083 ]], dtype=float32)
    """
    return _on(x1, x2).divide_no_nan(x1, x2)


def equal(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 == x2 (boolean).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.equal(x, y))
    array([[False, False, False],
           [False, False, False]])
    """
    return _on(x1, x2).equal(x1, x2)


def floor_divide(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.floor_divide` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]
    >>> ops.convert_to_numpy(ops.floor_divide(x, y))
    array([[  2.,  -6.,   6.],
           [-12.,   1.,   0.]], dtype=float32)
    """
    return _on(x1, x2).floor_divide(x1, x2)


def fmax(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.fmax` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.fmax(x, y))
    array([[ 1.43 , -0.309,  0.919],
           [-1.297,  1.453,  0.589]], dtype=float32)
    """
    return _on(x1, x2).fmax(x1, x2)


def fmin(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.fmin` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.fmin(x, y))
    array([[-0.801, -1.866, -1.887],
           [-1.503,  0.682,  0.166]], dtype=float32)
    """
    return _on(x1, x2).fmin(x1, x2)


def fmod(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.fmod` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]
    >>> ops.convert_to_numpy(ops.fmod(x, y))
    array([[ 0.20999992, -0.28599998,  0.12100002],
           [-0.05400007,  0.70199996,  0.166     ]], dtype=float32)
    """
    return _on(x1, x2).fmod(x1, x2)


def gcd(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.gcd` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.gcd([[1, 5, 2], [4, 0, 3]], [[2, 2, 7], [1, 3, 3]]))
    array([[1, 1, 1],
           [1, 3, 3]], dtype=int32)
    """
    return _on(x1, x2).gcd(x1, x2)


def greater(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 > x2 (boolean).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.greater(x, y))
    array([[ True, False,  True],
           [ True,  True, False]])
    """
    return _on(x1, x2).greater(x1, x2)


def greater_equal(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 >= x2 (boolean).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.greater_equal(x, y))
    array([[ True, False,  True],
           [ True,  True, False]])
    """
    return _on(x1, x2).greater_equal(x1, x2)


def heaviside(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.heaviside` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.heaviside(x, y))
    array([[1., 0., 1.],
           [0., 1., 1.]], dtype=float32)
    """
    return _on(x1, x2).heaviside(x1, x2)


def hypot(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.hypot` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.hypot(x, y))
    array([[1.6390549, 1.8914114, 2.0988877],
           [1.9852502, 1.6050959, 0.6119453]], dtype=float32)
    """
    return _on(x1, x2).hypot(x1, x2)


def lcm(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.lcm` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.lcm([[1, 5, 2], [4, 0, 3]], [[2, 2, 7], [1, 3, 3]]))
    array([[ 2, 10, 14],
           [ 4,  0,  3]], dtype=int32)
    """
    return _on(x1, x2).lcm(x1, x2)


def left_shift(x: TensorLike, y: TensorLike) -> Any:
    """Keras 3's `keras.ops.left_shift` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.left_shift([[1, 5, 2], [4, 0, 3]], [[2, 2, 7], [1, 3, 3]]))
    array([[  4,  20, 256],
           [  8,   0,  24]], dtype=int32)
    """
    return _on(x, y).left_shift(x, y)


def less(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 < x2 (boolean).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.less(x, y))
    array([[False,  True, False],
           [False, False,  True]])
    """
    return _on(x1, x2).less(x1, x2)


def less_equal(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 <= x2 (boolean).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.less_equal(x, y))
    array([[False,  True, False],
           [False, False,  True]])
    """
    return _on(x1, x2).less_equal(x1, x2)


def logaddexp(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.logaddexp` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.logaddexp(x, y))
    array([[ 1.5320338 , -0.11774562,  0.97768986],
           [-0.70155776,  1.8331816 ,  1.0928485 ]], dtype=float32)
    """
    return _on(x1, x2).logaddexp(x1, x2)


def logaddexp2(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.logaddexp2` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.logaddexp2(x, y))
    array([[ 1.7085927 ,  0.11307915,  1.1118144 ],
           [-0.39632636,  2.1184027 ,  1.3929478 ]], dtype=float32)
    """
    return _on(x1, x2).logaddexp2(x1, x2)


def logical_and(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.logical_and` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.logical_and(x, y))
    array([[ True,  True,  True],
           [ True,  True,  True]])
    """
    return _on(x1, x2).logical_and(x1, x2)


def logical_or(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.logical_or` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.logical_or(x, y))
    array([[ True,  True,  True],
           [ True,  True,  True]])
    """
    return _on(x1, x2).logical_or(x1, x2)


def logical_xor(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.logical_xor` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.logical_xor(x, y))
    array([[False, False, False],
           [False, False, False]])
    """
    return _on(x1, x2).logical_xor(x1, x2)


def maximum(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise maximum (broadcasting).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.maximum(x, y))
    array([[ 1.43 , -0.309,  0.919],
           [-1.297,  1.453,  0.589]], dtype=float32)
    """
    return _on(x1, x2).maximum(x1, x2)


def minimum(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise minimum (broadcasting).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.minimum(x, y))
    array([[-0.801, -1.866, -1.887],
           [-1.503,  0.682,  0.166]], dtype=float32)
    """
    return _on(x1, x2).minimum(x1, x2)


def mod(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.mod` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]
    >>> ops.convert_to_numpy(ops.mod(x, y))
    array([[0.20999992, 0.03000003, 0.12100002],
           [0.05899993, 0.70199996, 0.166     ]], dtype=float32)
    """
    return _on(x1, x2).mod(x1, x2)


def multiply(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 * x2 (broadcasting).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.multiply(x, y))
    array([[-1.14543   ,  0.576594  , -1.734153  ],
           [ 1.9493911 ,  0.99094594,  0.09777399]], dtype=float32)
    """
    return _on(x1, x2).multiply(x1, x2)


def nextafter(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.nextafter` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.nextafter(x, y))
    array([[ 1.4299998 , -1.8659999 ,  0.91899997],
           [-1.2970002 ,  1.4529998 ,  0.16600001]], dtype=float32)
    """
    return _on(x1, x2).nextafter(x1, x2)


def not_equal(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 != x2 (boolean).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.not_equal(x, y))
    array([[ True,  True,  True],
           [ True,  True,  True]])
    """
    return _on(x1, x2).not_equal(x1, x2)


def power(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 ** x2 (broadcasting).

    >>> from finegrad import ops
    >>> x = [[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]
    >>> y = [[0.585, 0.684, 0.535], [0.848, 0.753, 0.102]]
    >>> ops.convert_to_numpy(ops.power(x, y))
    array([[0.7488899 , 0.4547639 , 0.33982915],
           [0.1574021 , 0.8060405 , 0.9811739 ]], dtype=float32)
    """
    return _on(x1, x2).power(x1, x2)


def right_shift(x: TensorLike, y: TensorLike) -> Any:
    """Keras 3's `keras.ops.right_shift` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.right_shift([[1, 5, 2], [4, 0, 3]], [[2, 2, 7], [1, 3, 3]]))
    array([[0, 1, 0],
           [2, 0, 0]], dtype=int32)
    """
    return _on(x, y).right_shift(x, y)


def subtract(x1: TensorLike, x2: TensorLike) -> Any:
    """Elementwise x1 - x2 (broadcasting).

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.subtract(x, y))
    array([[ 2.231     , -1.557     ,  2.806     ],
           [ 0.20599997,  0.77099997, -0.42299998]], dtype=float32)
    """
    return _on(x1, x2).subtract(x1, x2)


def true_divide(x1: TensorLike, x2: TensorLike) -> Any:
    """Keras 3's `keras.ops.true_divide` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.true_divide(x, y))
    array([[-1.7852683 ,  6.0388355 , -0.48701644],
           [ 0.8629408 ,  2.1304984 ,  0.28183362]], dtype=float32)
    """
    return _on(x1, x2).true_divide(x1, x2)
