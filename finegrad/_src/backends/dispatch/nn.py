"""`keras.ops.nn`: activations, convolutions, pooling; its losses and normalizations
(`nn_losses`) are re-exported here.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from typing import Any

from finegrad._src.types import TensorLike

from finegrad._src.backends.dispatch.selection import on as _on
from finegrad._src.backends.dispatch.nn_losses import (  # noqa: F401
    batch_normalization, binary_crossentropy, categorical_crossentropy, dot_product_attention,
    layer_normalization, moments, normalize, polar, psnr, rms_normalization,
    sparse_categorical_crossentropy)


def adaptive_average_pool(inputs: TensorLike, output_size: Any, data_format: Any = None) -> Any:
    """Keras 3's `keras.ops.adaptive_average_pool` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> ops.adaptive_average_pool(x, (2, 4)).shape
    TensorShape([1, 2, 4, 3])
    """
    return _on(inputs, output_size).adaptive_average_pool(inputs, output_size, data_format)


def adaptive_max_pool(inputs: TensorLike, output_size: Any, data_format: Any = None) -> Any:
    """Keras 3's `keras.ops.adaptive_max_pool` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> ops.adaptive_max_pool(x, 2).shape
    TensorShape([1, 2, 2, 3])
    """
    return _on(inputs, output_size).adaptive_max_pool(inputs, output_size, data_format)


def average_pool(
    inputs: TensorLike,
    pool_size: Any,
    strides: Any = None,
    padding: Any = "valid",
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.average_pool` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> ops.average_pool(x, 2).shape
    TensorShape([1, 2, 3, 3])
    """
    return _on(inputs, pool_size).average_pool(inputs, pool_size, strides, padding, data_format)


def celu(x: TensorLike, alpha: TensorLike = 1.0) -> Any:
    """Keras 3's `keras.ops.celu` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.celu([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43      , -0.84525865,  0.919     ],
           [-0.7266494 ,  1.453     ,  0.166     ]], dtype=float32)
    """
    return _on(x).celu(x, alpha)


def conv(
    inputs: TensorLike,
    kernel: TensorLike,
    strides: Any = 1,
    padding: Any = "valid",
    data_format: Any = None,
    dilation_rate: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.conv` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 30, dtype='float32').reshape((2, 5, 3))
    >>> y = np.linspace(0.1, 0.9, 24, dtype='float32').reshape((2, 3, 4))
    >>> ops.conv(x, y).shape
    TensorShape([2, 4, 4])
    """
    return _on(inputs, kernel).conv(inputs, kernel, strides, padding, data_format, dilation_rate)


def conv_transpose(
    inputs: TensorLike,
    kernel: TensorLike,
    strides: Any = 1,
    padding: Any = "valid",
    output_padding: Any = None,
    data_format: Any = None,
    dilation_rate: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.conv_transpose` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x, kernel = np.ones((1, 3, 3, 1), 'float32'), np.ones((2, 2, 1, 1), 'float32')
    >>> ops.conv_transpose(x, kernel, 2).shape
    TensorShape([1, 6, 6, 1])
    """
    return _on(inputs, kernel, output_padding).conv_transpose(
        inputs, kernel, strides, padding, output_padding, data_format, dilation_rate
    )


def ctc_decode(
    inputs: TensorLike,
    sequence_lengths: TensorLike,
    strategy: Any = "greedy",
    beam_width: Any = 100,
    top_paths: Any = 1,
    merge_repeated: Any = True,
    mask_index: Any = 0,
) -> Any:
    """Keras 3's `keras.ops.ctc_decode` on the active backend."""
    return _on(inputs, sequence_lengths).ctc_decode(
        inputs, sequence_lengths, strategy, beam_width, top_paths, merge_repeated, mask_index
    )


def ctc_loss(
    target: TensorLike,
    output: TensorLike,
    target_length: Any,
    output_length: Any,
    mask_index: Any = 0,
) -> Any:
    """Keras 3's `keras.ops.ctc_loss` on the active backend."""
    return _on(target, output, target_length, output_length).ctc_loss(
        target, output, target_length, output_length, mask_index
    )


def depth_to_space(x: TensorLike, block_size: Any, data_format: Any = "channels_last") -> Any:
    """Keras 3's `keras.ops.depth_to_space` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 16, dtype='float32').reshape((1, 1, 1, 16))
    >>> ops.depth_to_space(x, 2).shape
    TensorShape([1, 2, 2, 4])
    """
    return _on(x, block_size).depth_to_space(x, block_size, data_format)


def depthwise_conv(
    inputs: TensorLike,
    kernel: TensorLike,
    strides: Any = 1,
    padding: Any = "valid",
    data_format: Any = None,
    dilation_rate: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.depthwise_conv` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> y = np.linspace(0.1, 0.9, 12, dtype='float32').reshape((2, 2, 3, 1))
    >>> ops.depthwise_conv(x, y).shape
    TensorShape([1, 3, 5, 3])
    """
    return _on(inputs, kernel).depthwise_conv(
        inputs, kernel, strides, padding, data_format, dilation_rate
    )


def elu(x: TensorLike, alpha: TensorLike = 1.0) -> Any:
    """Keras 3's `keras.ops.elu` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.elu([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43      , -0.84525865,  0.919     ],
           [-0.7266494 ,  1.453     ,  0.166     ]], dtype=float32)
    """
    return _on(x).elu(x, alpha)


def fold(
    x: TensorLike,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.fold` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> ops.fold(np.ones((1, 4, 4), 'float32'), (3, 3), 2).shape
    TensorShape([1, 1, 3, 3])
    """
    return _on(x, output_size, kernel_size).fold(
        x, output_size, kernel_size, dilation, padding, stride
    )


def gelu(x: TensorLike, approximate: Any = True) -> Any:
    """Keras 3's `keras.ops.gelu` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.gelu([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.3205773 , -0.05789965,  0.75433105],
           [-0.12644838,  1.3465415 ,  0.09394272]], dtype=float32)
    """
    return _on(x).gelu(x, approximate)


def glu(x: TensorLike, axis: Any = -1) -> Any:
    """Keras 3's `keras.ops.glu` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> ops.convert_to_numpy(ops.glu(np.linspace(0.1, 0.9, 12, dtype='float32').reshape((2, 6))))
    array([[0.05788811, 0.10303208, 0.15067877],
           [0.3648176 , 0.42379203, 0.4847383 ]], dtype=float32)
    """
    return _on(x).glu(x, axis)


def hard_shrink(x: TensorLike, threshold: Any = 0.5) -> Any:
    """Keras 3's `keras.ops.hard_shrink` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.hard_shrink([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43 , -1.866,  0.919],
           [-1.297,  1.453,  0.   ]], dtype=float32)
    """
    return _on(x).hard_shrink(x, threshold)


def hard_sigmoid(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.hard_sigmoid` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.hard_sigmoid([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[0.73833334, 0.18899998, 0.65316665],
           [0.28383332, 0.74216664, 0.5276667 ]], dtype=float32)
    """
    return _on(x).hard_sigmoid(x)


def hard_silu(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.hard_silu` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.hard_silu([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.0558167 , -0.35267398,  0.6002602 ],
           [-0.36813185,  1.0783681 ,  0.08759267]], dtype=float32)
    """
    return _on(x).hard_silu(x)


def hard_swish(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.hard_swish` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.hard_swish([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.0558167 , -0.35267398,  0.6002602 ],
           [-0.36813185,  1.0783681 ,  0.08759267]], dtype=float32)
    """
    return _on(x).hard_swish(x)


def hard_tanh(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.hard_tanh` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.hard_tanh([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.   , -1.   ,  0.919],
           [-1.   ,  1.   ,  0.166]], dtype=float32)
    """
    return _on(x).hard_tanh(x)


def leaky_relu(x: TensorLike, negative_slope: Any = 0.2) -> Any:
    """Keras 3's `keras.ops.leaky_relu` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.leaky_relu([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43      , -0.37320003,  0.919     ],
           [-0.2594    ,  1.453     ,  0.166     ]], dtype=float32)
    """
    return _on(x).leaky_relu(x, negative_slope)


def log_sigmoid(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.log_sigmoid` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.log_sigmoid([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[-0.21455392, -2.0098765 , -0.3356989 ],
           [-1.5386517 , -0.21015367, -0.61358774]], dtype=float32)
    """
    return _on(x).log_sigmoid(x)


def log_softmax(x: TensorLike, axis: Any = -1) -> Any:
    """log(softmax(x)) along ``axis``, computed stably.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.log_softmax(x, axis=0))
    array([[-0.06336464, -3.3545494 , -0.3859095 ],
           [-2.7903647 , -0.03554952, -1.1389096 ]], dtype=float32)
    """
    return _on(x).log_softmax(x, axis)


def max_pool(
    inputs: TensorLike,
    pool_size: Any,
    strides: Any = None,
    padding: Any = "valid",
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.max_pool` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> ops.max_pool(np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3)), 2).shape
    TensorShape([1, 2, 3, 3])
    """
    return _on(inputs, pool_size).max_pool(inputs, pool_size, strides, padding, data_format)


def multi_hot(
    inputs: TensorLike,
    num_classes: Any = None,
    axis: Any = -1,
    dtype: Any = None,
    sparse: Any = False,
    **kwargs: Any,
) -> Any:
    """Keras 3's `keras.ops.multi_hot` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.multi_hot([[0, 2], [1, 1]], 3))
    array([[1., 0., 1.],
           [0., 1., 0.]], dtype=float32)
    """
    return _on(inputs, num_classes).multi_hot(inputs, num_classes, axis, dtype, sparse, **kwargs)


def one_hot(
    x: TensorLike,
    num_classes: Any,
    axis: Any = -1,
    dtype: Any = None,
    sparse: Any = False,
) -> Any:
    """Keras 3's `keras.ops.one_hot` on the active backend.

    >>> from finegrad import ops
    >>> ops.one_hot([0, 2, 1], 3).shape
    TensorShape([3, 3])
    """
    return _on(x, num_classes).one_hot(x, num_classes, axis, dtype, sparse)


def relu(x: TensorLike) -> Any:
    """Elementwise max(x, 0).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.relu([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.43 , 0.   , 0.919],
           [0.   , 1.453, 0.166]], dtype=float32)
    """
    return _on(x).relu(x)


def relu6(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.relu6` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.relu6([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.43 , 0.   , 0.919],
           [0.   , 1.453, 0.166]], dtype=float32)
    """
    return _on(x).relu6(x)


def selu(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.selu` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.selu([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.5025024 , -1.4860486 ,  0.9655943 ],
           [-1.2775218 ,  1.5266685 ,  0.17441636]], dtype=float32)
    """
    return _on(x).selu(x)


def separable_conv(
    inputs: TensorLike,
    depthwise_kernel: Any,
    pointwise_kernel: Any,
    strides: Any = 1,
    padding: Any = "valid",
    data_format: Any = None,
    dilation_rate: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.separable_conv` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> y = np.linspace(0.1, 0.9, 12, dtype='float32').reshape((2, 2, 3, 1))
    >>> z = [[[[-0.98, -0.27], [-0.843, 0.305], [-0.452, 0.405]]]]
    >>> ops.separable_conv(x, y, z).shape
    TensorShape([1, 3, 5, 2])
    """
    return _on(inputs, depthwise_kernel, pointwise_kernel).separable_conv(
        inputs, depthwise_kernel, pointwise_kernel, strides, padding, data_format, dilation_rate
    )


def sigmoid(x: TensorLike) -> Any:
    """Elementwise logistic sigmoid 1 / (1 + e**-x).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sigmoid([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[0.8069013 , 0.13400523, 0.71483827],
           [0.21467035, 0.8104597 , 0.5414049 ]], dtype=float32)
    """
    return _on(x).sigmoid(x)


def silu(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.silu` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.silu([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.1538688 , -0.25005376,  0.6569364 ],
           [-0.27842745,  1.1775979 ,  0.08987321]], dtype=float32)
    """
    return _on(x).silu(x)


def soft_shrink(x: TensorLike, threshold: Any = 0.5) -> Any:
    """Keras 3's `keras.ops.soft_shrink` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.soft_shrink([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.92999995, -1.366     ,  0.41900003],
           [-0.79700005,  0.95299995,  0.        ]], dtype=float32)
    """
    return _on(x).soft_shrink(x, threshold)


def softmax(x: TensorLike, axis: Any = -1) -> Any:
    """e**x normalised to sum to 1 along ``axis``.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.softmax([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[0.610901  , 0.02262227, 0.3664767 ],
           [0.04770645, 0.7462544 , 0.20603922]], dtype=float32)
    """
    return _on(x).softmax(x, axis)


def softplus(x: TensorLike) -> Any:
    """Elementwise log(1 + e**x).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.softplus([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.6445539 , 0.1438764 , 1.254699  ],
           [0.24165168, 1.6631536 , 0.77958775]], dtype=float32)
    """
    return _on(x).softplus(x)


def softsign(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.softsign` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.softsign([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.5884774 , -0.6510816 ,  0.47889528],
           [-0.5646496 ,  0.5923359 ,  0.14236706]], dtype=float32)
    """
    return _on(x).softsign(x)


def space_to_depth(x: TensorLike, block_size: Any, data_format: Any = "channels_last") -> Any:
    """Keras 3's `keras.ops.space_to_depth` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 16, dtype='float32').reshape((1, 2, 2, 4))
    >>> ops.space_to_depth(x, 2).shape
    TensorShape([1, 1, 1, 16])
    """
    return _on(x, block_size).space_to_depth(x, block_size, data_format)


def sparse_plus(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.sparse_plus` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sparse_plus([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.43      , 0.        , 0.9206403 ],
           [0.        , 1.453     , 0.33988902]], dtype=float32)
    """
    return _on(x).sparse_plus(x)


def sparse_sigmoid(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.sparse_sigmoid` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sparse_sigmoid([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.    , 0.    , 0.9595],
           [0.    , 1.    , 0.583 ]], dtype=float32)
    """
    return _on(x).sparse_sigmoid(x)


def sparsemax(x: TensorLike, axis: Any = -1) -> Any:
    """Keras 3's `keras.ops.sparsemax` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sparsemax([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[0.75549996, 0.        , 0.24450004],
           [0.        , 1.        , 0.        ]], dtype=float32)
    """
    return _on(x).sparsemax(x, axis)


def squareplus(x: TensorLike, b: TensorLike = 4) -> Any:
    """Keras 3's `keras.ops.squareplus` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.squareplus([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[1.9443188 , 0.43465823, 1.5600183 ],
           [0.54336923, 1.962543  , 1.0864385 ]], dtype=float32)
    """
    return _on(x).squareplus(x, b)


def swish(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.swish` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.swish([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.1538688 , -0.25005376,  0.6569364 ],
           [-0.27842745,  1.1775979 ,  0.08987321]], dtype=float32)
    """
    return _on(x).swish(x)


def tanh_shrink(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.tanh_shrink` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.tanh_shrink([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.53833336, -0.91277   ,  0.19357604],
           [-0.43605113,  0.5567154 ,  0.00150813]], dtype=float32)
    """
    return _on(x).tanh_shrink(x)


def threshold(x: TensorLike, threshold: Any, default_value: Any) -> Any:
    """Keras 3's `keras.ops.threshold` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.threshold(x, 0.5, -1.0))
    array([[ 1.43 , -1.   ,  0.919],
           [-1.   ,  1.453, -1.   ]], dtype=float32)
    """
    return _on(x, threshold, default_value).threshold(x, threshold, default_value)


def unfold(
    x: TensorLike,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.unfold` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> ops.unfold(np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 3, 4, 6)), 2).shape
    TensorShape([1, 12, 15])
    """
    return _on(x, kernel_size).unfold(x, kernel_size, dilation, padding, stride)
