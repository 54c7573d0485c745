"""`keras.ops.nn`: activations, convolutions, pooling, normalizations, losses.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from finegrad._src.backends.dispatch.selection import on as _on


def adaptive_average_pool(inputs, output_size, data_format=None):
    """Keras 3's `keras.ops.adaptive_average_pool` on the active backend."""
    return _on(inputs, output_size).adaptive_average_pool(inputs, output_size, data_format)


def adaptive_max_pool(inputs, output_size, data_format=None):
    """Keras 3's `keras.ops.adaptive_max_pool` on the active backend."""
    return _on(inputs, output_size).adaptive_max_pool(inputs, output_size, data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Keras 3's `keras.ops.average_pool` on the active backend."""
    return _on(inputs, pool_size).average_pool(inputs, pool_size, strides, padding, data_format)


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=0.001):
    """Keras 3's `keras.ops.batch_normalization` on the active backend."""
    return _on(x, mean, variance, offset, scale).batch_normalization(
        x, mean, variance, axis, offset, scale, epsilon
    )


def binary_crossentropy(target, output, from_logits=False):
    """Keras 3's `keras.ops.binary_crossentropy` on the active backend."""
    return _on(target, output).binary_crossentropy(target, output, from_logits)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Keras 3's `keras.ops.categorical_crossentropy` on the active backend."""
    return _on(target, output).categorical_crossentropy(target, output, from_logits, axis)


def celu(x, alpha=1.0):
    """Keras 3's `keras.ops.celu` on the active backend."""
    return _on(x).celu(x, alpha)


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Keras 3's `keras.ops.conv` on the active backend."""
    return _on(inputs, kernel).conv(inputs, kernel, strides, padding, data_format, dilation_rate)


def conv_transpose(
    inputs,
    kernel,
    strides=1,
    padding="valid",
    output_padding=None,
    data_format=None,
    dilation_rate=1,
):
    """Keras 3's `keras.ops.conv_transpose` on the active backend."""
    return _on(inputs, kernel, output_padding).conv_transpose(
        inputs, kernel, strides, padding, output_padding, data_format, dilation_rate
    )


def ctc_decode(
    inputs,
    sequence_lengths,
    strategy="greedy",
    beam_width=100,
    top_paths=1,
    merge_repeated=True,
    mask_index=0,
):
    """Keras 3's `keras.ops.ctc_decode` on the active backend."""
    return _on(inputs, sequence_lengths).ctc_decode(
        inputs, sequence_lengths, strategy, beam_width, top_paths, merge_repeated, mask_index
    )


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """Keras 3's `keras.ops.ctc_loss` on the active backend."""
    return _on(target, output, target_length, output_length).ctc_loss(
        target, output, target_length, output_length, mask_index
    )


def depth_to_space(x, block_size, data_format="channels_last"):
    """Keras 3's `keras.ops.depth_to_space` on the active backend."""
    return _on(x, block_size).depth_to_space(x, block_size, data_format)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Keras 3's `keras.ops.depthwise_conv` on the active backend."""
    return _on(inputs, kernel).depthwise_conv(
        inputs, kernel, strides, padding, data_format, dilation_rate
    )


def dot_product_attention(
    query,
    key,
    value,
    bias=None,
    mask=None,
    scale=None,
    is_causal=False,
    flash_attention=None,
    attn_logits_soft_cap=None,
):
    """Keras 3's `keras.ops.dot_product_attention` on the active backend."""
    return _on(
        query, key, value, bias, mask, scale, flash_attention, attn_logits_soft_cap
    ).dot_product_attention(
        query, key, value, bias, mask, scale, is_causal, flash_attention, attn_logits_soft_cap
    )


def elu(x, alpha=1.0):
    """Keras 3's `keras.ops.elu` on the active backend."""
    return _on(x).elu(x, alpha)


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Keras 3's `keras.ops.fold` on the active backend."""
    return _on(x, output_size, kernel_size).fold(
        x, output_size, kernel_size, dilation, padding, stride
    )


def gelu(x, approximate=True):
    """Keras 3's `keras.ops.gelu` on the active backend."""
    return _on(x).gelu(x, approximate)


def glu(x, axis=-1):
    """Keras 3's `keras.ops.glu` on the active backend."""
    return _on(x).glu(x, axis)


def hard_shrink(x, threshold=0.5):
    """Keras 3's `keras.ops.hard_shrink` on the active backend."""
    return _on(x).hard_shrink(x, threshold)


def hard_sigmoid(x):
    """Keras 3's `keras.ops.hard_sigmoid` on the active backend."""
    return _on(x).hard_sigmoid(x)


def hard_silu(x):
    """Keras 3's `keras.ops.hard_silu` on the active backend."""
    return _on(x).hard_silu(x)


def hard_swish(x):
    """Keras 3's `keras.ops.hard_swish` on the active backend."""
    return _on(x).hard_swish(x)


def hard_tanh(x):
    """Keras 3's `keras.ops.hard_tanh` on the active backend."""
    return _on(x).hard_tanh(x)


def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """Keras 3's `keras.ops.layer_normalization` on the active backend."""
    return _on(x, gamma, beta, epsilon).layer_normalization(x, gamma, beta, axis, epsilon, **kwargs)


def leaky_relu(x, negative_slope=0.2):
    """Keras 3's `keras.ops.leaky_relu` on the active backend."""
    return _on(x).leaky_relu(x, negative_slope)


def log_sigmoid(x):
    """Keras 3's `keras.ops.log_sigmoid` on the active backend."""
    return _on(x).log_sigmoid(x)


def log_softmax(x, axis=-1):
    """log(softmax(x)) along ``axis``, computed stably."""
    return _on(x).log_softmax(x, axis)


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Keras 3's `keras.ops.max_pool` on the active backend."""
    return _on(inputs, pool_size).max_pool(inputs, pool_size, strides, padding, data_format)


def moments(x, axes, keepdims=False, synchronized=False):
    """Keras 3's `keras.ops.moments` on the active backend."""
    return _on(x).moments(x, axes, keepdims, synchronized)


def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Keras 3's `keras.ops.multi_hot` on the active backend."""
    return _on(inputs, num_classes).multi_hot(inputs, num_classes, axis, dtype, sparse, **kwargs)


def normalize(x, axis=-1, order=2, epsilon=None):
    """Keras 3's `keras.ops.normalize` on the active backend."""
    return _on(x, epsilon).normalize(x, axis, order, epsilon)


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """Keras 3's `keras.ops.one_hot` on the active backend."""
    return _on(x, num_classes).one_hot(x, num_classes, axis, dtype, sparse)


def polar(abs_, angle):
    """Keras 3's `keras.ops.polar` on the active backend."""
    return _on(abs_, angle).polar(abs_, angle)


def psnr(x1, x2, max_val):
    """Keras 3's `keras.ops.psnr` on the active backend."""
    return _on(x1, x2, max_val).psnr(x1, x2, max_val)


def relu(x):
    """Elementwise max(x, 0)."""
    return _on(x).relu(x)


def relu6(x):
    """Keras 3's `keras.ops.relu6` on the active backend."""
    return _on(x).relu6(x)


def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """Keras 3's `keras.ops.rms_normalization` on the active backend."""
    return _on(x, scale, epsilon).rms_normalization(x, scale, axis, epsilon)


def selu(x):
    """Keras 3's `keras.ops.selu` on the active backend."""
    return _on(x).selu(x)


def separable_conv(
    inputs,
    depthwise_kernel,
    pointwise_kernel,
    strides=1,
    padding="valid",
    data_format=None,
    dilation_rate=1,
):
    """Keras 3's `keras.ops.separable_conv` on the active backend."""
    return _on(inputs, depthwise_kernel, pointwise_kernel).separable_conv(
        inputs, depthwise_kernel, pointwise_kernel, strides, padding, data_format, dilation_rate
    )


def sigmoid(x):
    """Elementwise logistic sigmoid 1 / (1 + e**-x)."""
    return _on(x).sigmoid(x)


def silu(x):
    """Keras 3's `keras.ops.silu` on the active backend."""
    return _on(x).silu(x)


def soft_shrink(x, threshold=0.5):
    """Keras 3's `keras.ops.soft_shrink` on the active backend."""
    return _on(x).soft_shrink(x, threshold)


def softmax(x, axis=-1):
    """e**x normalised to sum to 1 along ``axis``."""
    return _on(x).softmax(x, axis)


def softplus(x):
    """Elementwise log(1 + e**x)."""
    return _on(x).softplus(x)


def softsign(x):
    """Keras 3's `keras.ops.softsign` on the active backend."""
    return _on(x).softsign(x)


def space_to_depth(x, block_size, data_format="channels_last"):
    """Keras 3's `keras.ops.space_to_depth` on the active backend."""
    return _on(x, block_size).space_to_depth(x, block_size, data_format)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Keras 3's `keras.ops.sparse_categorical_crossentropy` on the active backend."""
    return _on(target, output).sparse_categorical_crossentropy(target, output, from_logits, axis)


def sparse_plus(x):
    """Keras 3's `keras.ops.sparse_plus` on the active backend."""
    return _on(x).sparse_plus(x)


def sparse_sigmoid(x):
    """Keras 3's `keras.ops.sparse_sigmoid` on the active backend."""
    return _on(x).sparse_sigmoid(x)


def sparsemax(x, axis=-1):
    """Keras 3's `keras.ops.sparsemax` on the active backend."""
    return _on(x).sparsemax(x, axis)


def squareplus(x, b=4):
    """Keras 3's `keras.ops.squareplus` on the active backend."""
    return _on(x).squareplus(x, b)


def swish(x):
    """Keras 3's `keras.ops.swish` on the active backend."""
    return _on(x).swish(x)


def tanh_shrink(x):
    """Keras 3's `keras.ops.tanh_shrink` on the active backend."""
    return _on(x).tanh_shrink(x)


def threshold(x, threshold, default_value):
    """Keras 3's `keras.ops.threshold` on the active backend."""
    return _on(x, threshold, default_value).threshold(x, threshold, default_value)


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Keras 3's `keras.ops.unfold` on the active backend."""
    return _on(x, kernel_size).unfold(x, kernel_size, dilation, padding, stride)
