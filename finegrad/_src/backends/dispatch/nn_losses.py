"""`keras.ops.nn`'s losses, normalizations and attention.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`). Re-exported by
`finegrad._src.backends.dispatch.nn`.
"""

from typing import Any

from finegrad._src.backends.dispatch.selection import on as _on
from finegrad._src.types import TensorLike


def batch_normalization(
    x: TensorLike,
    mean: TensorLike,
    variance: TensorLike,
    axis: Any,
    offset: TensorLike | None = None,
    scale: TensorLike | None = None,
    epsilon: Any = 0.001,
) -> Any:
    """Keras 3's `keras.ops.batch_normalization` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [0.3, 0.1, 0.7]
    >>> z = [0.61, 0.316, 0.133]
    >>> ops.convert_to_numpy(ops.batch_normalization(x, y, z, -1, epsilon=0.01))
    array([[ 1.4351014, -3.4432988,  0.5791303],
           [-2.028192 ,  2.369676 , -1.4121253]], dtype=float32)
    """
    return _on(x, mean, variance, offset, scale).batch_normalization(
        x, mean, variance, axis, offset, scale, epsilon
    )


def binary_crossentropy(target: TensorLike, output: TensorLike, from_logits: Any = False) -> Any:
    """Keras 3's `keras.ops.binary_crossentropy` on the active backend.

    >>> from finegrad import ops
    >>> x = [[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]
    >>> y = [[0.585, 0.684, 0.535], [0.848, 0.753, 0.102]]
    >>> ops.convert_to_numpy(ops.binary_crossentropy(x, y))
    array([[0.67004347, 0.90799296, 0.7470674 ],
           [1.6896278 , 0.5612446 , 1.9129989 ]], dtype=float32)
    """
    return _on(target, output).binary_crossentropy(target, output, from_logits)


def categorical_crossentropy(
    target: TensorLike,
    output: TensorLike,
    from_logits: Any = False,
    axis: Any = -1,
) -> Any:
    """Keras 3's `keras.ops.categorical_crossentropy` on the active backend.

    >>> from finegrad import ops
    >>> x = [[0.5760151, 0.2983947, 0.12559018], [0.06670602, 0.4433294, 0.48996457]]
    >>> y = [[0.585, 0.684, 0.535], [0.848, 0.753, 0.102]]
    >>> ops.convert_to_numpy(ops.categorical_crossentropy(x, y))
    array([1.090718 , 1.7876403], dtype=float32)
    """
    return _on(target, output).categorical_crossentropy(target, output, from_logits, axis)


def dot_product_attention(
    query: TensorLike,
    key: TensorLike,
    value: TensorLike,
    bias: TensorLike | None = None,
    mask: TensorLike | None = None,
    scale: TensorLike | None = None,
    is_causal: Any = False,
    flash_attention: Any = None,
    attn_logits_soft_cap: Any = None,
) -> Any:
    """Keras 3's `keras.ops.dot_product_attention` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 24, dtype='float32').reshape((1, 3, 2, 4))
    >>> y = np.linspace(0.1, 0.9, 24, dtype='float32').reshape((1, 3, 2, 4))
    >>> z = np.linspace(0.1, 0.9, 24, dtype='float32').reshape((1, 3, 2, 4))
    >>> ops.dot_product_attention(x, y, z).shape
    TensorShape([1, 3, 2, 4])
    """
    return _on(
        query, key, value, bias, mask, scale, flash_attention, attn_logits_soft_cap
    ).dot_product_attention(
        query, key, value, bias, mask, scale, is_causal, flash_attention, attn_logits_soft_cap
    )


def layer_normalization(
    x: TensorLike,
    gamma: TensorLike | None = None,
    beta: TensorLike | None = None,
    axis: Any = -1,
    epsilon: Any = None,
    **kwargs: Any,
) -> Any:
    """Keras 3's `keras.ops.layer_normalization` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.layer_normalization(x))
    array([[ 0.8761346 , -1.399468  ,  0.52333343],
           [-1.2500197 ,  1.1977996 ,  0.05222017]], dtype=float32)
    """
    return _on(x, gamma, beta, epsilon).layer_normalization(x, gamma, beta, axis, epsilon, **kwargs)


def moments(x: TensorLike, axes: Any, keepdims: Any = False, synchronized: Any = False) -> Any:
    """Keras 3's `keras.ops.moments` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> [tuple(t.shape) for t in ops.moments(x, [1])]
    [(2,), (2,)]
    """
    return _on(x).moments(x, axes, keepdims, synchronized)


def normalize(x: TensorLike, axis: Any = -1, order: Any = 2, epsilon: Any = None) -> Any:
    """Keras 3's `keras.ops.normalize` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.normalize([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.5665236 , -0.73925394,  0.36408058],
           [-0.66351837,  0.7433247 ,  0.08492216]], dtype=float32)
    """
    return _on(x, epsilon).normalize(x, axis, order, epsilon)


def polar(abs_: Any, angle: Any) -> Any:
    """Keras 3's `keras.ops.polar` on the active backend.

    >>> from finegrad import ops
    >>> x = [[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]
    >>> y = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.polar(x, y))
    array([[ 0.08560231+0.6039638j , -0.09193539-0.30233076j,
             0.08067985+0.10573439j],
           [ 0.03055387-0.1087909j ,  0.08826063+0.74579555j,
             0.81859046+0.13714808j]], dtype=complex64)
    """
    return _on(abs_, angle).polar(abs_, angle)


def psnr(x1: TensorLike, x2: TensorLike, max_val: Any) -> Any:
    """Keras 3's `keras.ops.psnr` on the active backend.

    >>> from finegrad import ops
    >>> x = [[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]
    >>> y = [[0.585, 0.684, 0.535], [0.848, 0.753, 0.102]]
    >>> ops.convert_to_numpy(ops.psnr(x, y, 1.0))
    array(6.421077, dtype=float32)
    """
    return _on(x1, x2, max_val).psnr(x1, x2, max_val)


def rms_normalization(
    x: TensorLike,
    scale: TensorLike | None = None,
    axis: Any = -1,
    epsilon: Any = None,
) -> Any:
    """Keras 3's `keras.ops.rms_normalization` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.rms_normalization(x))
    array([[ 0.9812476, -1.2804253,  0.630606 ],
           [-1.1492475,  1.2874762,  0.1470895]], dtype=float32)
    """
    return _on(x, scale, epsilon).rms_normalization(x, scale, axis, epsilon)


def sparse_categorical_crossentropy(
    target: TensorLike,
    output: TensorLike,
    from_logits: Any = False,
    axis: Any = -1,
) -> Any:
    """Keras 3's `keras.ops.sparse_categorical_crossentropy` on the active backend.

    >>> from finegrad import ops
    >>> x = [0, 2]
    >>> y = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.sparse_categorical_crossentropy(x, y, from_logits=True))
    array([0.49282035, 1.5796887 ], dtype=float32)
    """
    return _on(target, output).sparse_categorical_crossentropy(target, output, from_logits, axis)
