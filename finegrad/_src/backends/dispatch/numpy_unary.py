"""`keras.ops.numpy`'s elementwise functions of one tensor.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`). Re-exported by
`finegrad._src.backends.dispatch.numpy_elementwise`.
"""

from typing import Any

from finegrad._src.backends.dispatch.selection import on as _on
from finegrad._src.types import TensorLike


def abs(x: TensorLike) -> Any:
    """Elementwise absolute value.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.abs([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.43 , 1.866, 0.919],
           [1.297, 1.453, 0.166]], dtype=float32)
    """
    return _on(x).abs(x)


def absolute(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.absolute` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.absolute([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.43 , 1.866, 0.919],
           [1.297, 1.453, 0.166]], dtype=float32)
    """
    return _on(x).absolute(x)


def angle(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.angle` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.angle([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[0.       , 3.1415927, 0.       ],
           [3.1415927, 0.       , 0.       ]], dtype=float32)
    """
    return _on(x).angle(x)


def arccos(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.arccos` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.arccos([[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]))
    array([[0.9147357, 1.2492859, 1.437401 ],
           [1.4575545, 0.7212211, 0.5916887]], dtype=float32)
    """
    return _on(x).arccos(x)


def arccosh(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.arccosh` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.arccosh([[1.61, 1.316, 1.133], [1.113, 1.7509999, 1.8299999]]))
    array([[1.0549335 , 0.77541167, 0.5102002 ],
           [0.47102815, 1.1595063 , 1.212718  ]], dtype=float32)
    """
    return _on(x).arccosh(x)


def arcsin(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.arcsin` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.arcsin([[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]))
    array([[0.6560607 , 0.3215105 , 0.13339527],
           [0.11324187, 0.8495753 , 0.9791077 ]], dtype=float32)
    """
    return _on(x).arcsin(x)


def arcsinh(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.arcsinh` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.arcsinh([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.1552963 , -1.3820511 ,  0.822923  ],
           [-1.0766206 ,  1.1684062 ,  0.16524692]], dtype=float32)
    """
    return _on(x).arcsinh(x)


def arctan(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.arctan` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.arctan([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.9605399 , -1.0788385 ,  0.7432138 ],
           [-0.9139839 ,  0.96801263,  0.16449995]], dtype=float32)
    """
    return _on(x).arctan(x)


def arctanh(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.arctanh` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.arctanh([[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]))
    array([[0.7089214 , 0.3271971 , 0.13379264],
           [0.11348468, 0.9752447 , 1.1881363 ]], dtype=float32)
    """
    return _on(x).arctanh(x)


def cbrt(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.cbrt` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.cbrt([[1.61, 1.316, 1.133], [1.113, 1.7509999, 1.8299999]]))
    array([[1.1720387, 1.0958521, 1.0425013],
           [1.0363308, 1.2053006, 1.2231611]], dtype=float32)
    """
    return _on(x).cbrt(x)


def ceil(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.ceil` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.ceil([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 2., -1.,  1.],
           [-1.,  2.,  1.]], dtype=float32)
    """
    return _on(x).ceil(x)


def conj(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.conj` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.conj([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43 , -1.866,  0.919],
           [-1.297,  1.453,  0.166]], dtype=float32)
    """
    return _on(x).conj(x)


def conjugate(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.conjugate` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.conjugate([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43 , -1.866,  0.919],
           [-1.297,  1.453,  0.166]], dtype=float32)
    """
    return _on(x).conjugate(x)


def copy(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.copy` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.copy([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43 , -1.866,  0.919],
           [-1.297,  1.453,  0.166]], dtype=float32)
    """
    return _on(x).copy(x)


def cos(x: TensorLike) -> Any:
    """Elementwise cosine.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.cos([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.14033166, -0.29093477,  0.6066154 ],
           [ 0.27038825,  0.11752414,  0.9862536 ]], dtype=float32)
    """
    return _on(x).cos(x)


def cosh(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.cosh` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.cosh([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[2.209004 , 3.3085685, 1.4528501],
           [1.9658281, 2.2548954, 1.0138096]], dtype=float32)
    """
    return _on(x).cosh(x)


def deg2rad(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.deg2rad` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.deg2rad([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.02495821, -0.03256784,  0.01603958],
           [-0.02263692,  0.02535963,  0.00289725]], dtype=float32)
    """
    return _on(x).deg2rad(x)


def exp(x: TensorLike) -> Any:
    """Elementwise e**x.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.exp([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[4.178699  , 0.15474139, 2.5067825 ],
           [0.2733506 , 4.2759233 , 1.1805732 ]], dtype=float32)
    """
    return _on(x).exp(x)


def exp2(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.exp2` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.exp2([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[2.694467  , 0.27433297, 1.8908043 ],
           [0.40697157, 2.7377675 , 1.1219435 ]], dtype=float32)
    """
    return _on(x).exp2(x)


def expm1(x: TensorLike) -> Any:
    """Elementwise e**x - 1.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.expm1([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 3.178699  , -0.84525865,  1.5067824 ],
           [-0.7266494 ,  3.2759228 ,  0.18057309]], dtype=float32)
    """
    return _on(x).expm1(x)


def fabs(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.fabs` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.fabs([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.43 , 1.866, 0.919],
           [1.297, 1.453, 0.166]], dtype=float32)
    """
    return _on(x).fabs(x)


def floor(x: TensorLike) -> Any:
    """Elementwise floor.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.floor([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1., -2.,  0.],
           [-2.,  1.,  0.]], dtype=float32)
    """
    return _on(x).floor(x)


def i0(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.i0` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.i0([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.5803951, 2.0792818, 1.2225503],
           [1.4668897, 1.6016679, 1.0069009]], dtype=float32)
    """
    return _on(x).i0(x)


def imag(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.imag` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.imag([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0., -0.,  0.],
           [-0.,  0.,  0.]], dtype=float32)
    """
    return _on(x).imag(x)


def isfinite(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.isfinite` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.isfinite([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ True,  True,  True],
           [ True,  True,  True]])
    """
    return _on(x).isfinite(x)


def isinf(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.isinf` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.isinf([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[False, False, False],
           [False, False, False]])
    """
    return _on(x).isinf(x)


def isnan(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.isnan` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.isnan([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[False, False, False],
           [False, False, False]])
    """
    return _on(x).isnan(x)


def isneginf(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.isneginf` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.isneginf([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[False, False, False],
           [False, False, False]])
    """
    return _on(x).isneginf(x)


def isposinf(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.isposinf` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.isposinf([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[False, False, False],
           [False, False, False]])
    """
    return _on(x).isposinf(x)


def isreal(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.isreal` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.isreal([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ True,  True,  True],
           [ True,  True,  True]])
    """
    return _on(x).isreal(x)


def log(x: TensorLike) -> Any:
    """Elementwise natural logarithm.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.log([[1.61, 1.316, 1.133], [1.113, 1.7509999, 1.8299999]]))
    array([[0.4762342 , 0.27459684, 0.124869  ],
           [0.1070591 , 0.560187  , 0.60431594]], dtype=float32)
    """
    return _on(x).log(x)


def log10(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.log10` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.log10([[1.61, 1.316, 1.133], [1.113, 1.7509999, 1.8299999]]))
    array([[0.20682588, 0.11925589, 0.05422992],
           [0.04649518, 0.24328612, 0.26245108]], dtype=float32)
    """
    return _on(x).log10(x)


def log1p(x: TensorLike) -> Any:
    """Elementwise log(1 + x).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.log1p([[1.61, 1.316, 1.133], [1.113, 1.7509999, 1.8299999]]))
    array([[0.9593502 , 0.83984154, 0.75752944],
           [0.74810874, 1.0119644 , 1.0402766 ]], dtype=float32)
    """
    return _on(x).log1p(x)


def log2(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.log2` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.log2([[1.61, 1.316, 1.133], [1.113, 1.7509999, 1.8299999]]))
    array([[0.6870607 , 0.3961595 , 0.18014789],
           [0.15445364, 0.80817896, 0.8718436 ]], dtype=float32)
    """
    return _on(x).log2(x)


def logical_not(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.logical_not` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.logical_not([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[False, False, False],
           [False, False, False]])
    """
    return _on(x).logical_not(x)


def ndim(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.ndim` on the active backend.

    >>> from finegrad import ops
    >>> ops.ndim([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]])
    2
    """
    return _on(x).ndim(x)


def negative(x: TensorLike) -> Any:
    """Elementwise -x.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.negative([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[-1.43 ,  1.866, -0.919],
           [ 1.297, -1.453, -0.166]], dtype=float32)
    """
    return _on(x).negative(x)


def nonzero(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.nonzero` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.nonzero([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]])]
    [(6,), (6,)]
    """
    return _on(x).nonzero(x)


def rad2deg(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.rad2deg` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.rad2deg([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[  81.93296 , -106.91393 ,   52.654823],
           [ -74.31263 ,   83.25076 ,    9.511099]], dtype=float32)
    """
    return _on(x).rad2deg(x)


def ravel(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.ravel` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.ravel([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([ 1.43 , -1.866,  0.919, -1.297,  1.453,  0.166], dtype=float32)
    """
    return _on(x).ravel(x)


def real(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.real` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.real([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43 , -1.866,  0.919],
           [-1.297,  1.453,  0.166]], dtype=float32)
    """
    return _on(x).real(x)


def reciprocal(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.reciprocal` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.61, 1.316, 1.133], [1.113, 1.7509999, 1.8299999]]
    >>> ops.convert_to_numpy(ops.reciprocal(x))
    array([[0.621118  , 0.75987846, 0.8826125 ],
           [0.89847255, 0.57110226, 0.5464481 ]], dtype=float32)
    """
    return _on(x).reciprocal(x)


def sign(x: TensorLike) -> Any:
    """Elementwise sign (-1, 0 or 1).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sign([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1., -1.,  1.],
           [-1.,  1.,  1.]], dtype=float32)
    """
    return _on(x).sign(x)


def signbit(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.signbit` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.signbit([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[False,  True, False],
           [ True, False, False]])
    """
    return _on(x).signbit(x)


def sin(x: TensorLike) -> Any:
    """Elementwise sine.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sin([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.99010456, -0.9567429 ,  0.7949954 ],
           [-0.9627514 ,  0.99307   ,  0.16523866]], dtype=float32)
    """
    return _on(x).sin(x)


def sinc(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.sinc` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sinc([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[-0.21723354, -0.06970898,  0.08719105],
           [-0.1971807 , -0.21668707,  0.9552846 ]], dtype=float32)
    """
    return _on(x).sinc(x)


def sinh(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.sinh` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sinh([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.969695  , -3.153827  ,  1.0539323 ],
           [-1.6924775 ,  2.0210276 ,  0.16676342]], dtype=float32)
    """
    return _on(x).sinh(x)


def size(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.size` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.size([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(6, dtype=int32)
    """
    return _on(x).size(x)


def sqrt(x: TensorLike) -> Any:
    """Elementwise square root.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sqrt([[1.61, 1.316, 1.133], [1.113, 1.7509999, 1.8299999]]))
    array([[1.2688577, 1.1471704, 1.0644248],
           [1.0549881, 1.3232535, 1.3527749]], dtype=float32)
    """
    return _on(x).sqrt(x)


def square(x: TensorLike) -> Any:
    """Elementwise x**2.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.square([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[2.0449    , 3.4819562 , 0.84456104],
           [1.6822091 , 2.111209  , 0.027556  ]], dtype=float32)
    """
    return _on(x).square(x)


def tan(x: TensorLike) -> Any:
    """Elementwise tangent.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.tan([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 7.055461  ,  3.2885132 ,  1.3105427 ],
           [-3.5606258 ,  8.4499235 ,  0.16754176]], dtype=float32)
    """
    return _on(x).tan(x)


def tanh(x: TensorLike) -> Any:
    """Elementwise hyperbolic tangent.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.tanh([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.8916666 , -0.9532301 ,  0.725424  ],
           [-0.8609489 ,  0.8962845 ,  0.16449186]], dtype=float32)
    """
    return _on(x).tanh(x)


def trunc(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.trunc` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.trunc([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1., -1.,  0.],
           [-1.,  1.,  0.]], dtype=float32)
    """
    return _on(x).trunc(x)
