"""`keras.ops.nn`'s activations, normalizations and losses, written once with other ops for
every backend (Keras's formulas and defaults). Each takes the backend ``b`` first."""
import math as _math

import numpy as _np

from finegrad._src.backends.composite.numpy import _axes, _float, _ndim, _t


def relu6(b, x):
    return b.clip(b.relu(_float(b, x)), 0.0, 6.0)


def elu(b, x, alpha=1.0):
    x = _float(b, x)
    return b.where(b.greater(x, 0), x, b.multiply(b.expm1(b.minimum(x, 0.0)), alpha))


def celu(b, x, alpha=1.0):
    x = _float(b, x)
    return b.add(b.maximum(x, 0.0),
                 b.minimum(b.multiply(b.expm1(b.divide(x, alpha)), alpha), 0.0))


def selu(b, x):
    scale, alpha = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717
    return b.multiply(elu(b, x, alpha), scale)


def gelu(b, x, approximate=True):
    x = _float(b, x)
    if approximate:
        inner = b.multiply(b.add(x, b.multiply(b.power(x, 3.0), 0.044715)),
                           _math.sqrt(2 / _math.pi))
        return b.multiply(b.multiply(x, 0.5), b.add(b.tanh(inner), 1.0))
    return b.multiply(b.multiply(x, 0.5), b.add(b.erf(b.divide(x, _math.sqrt(2.0))), 1.0))


def glu(b, x, axis=-1):
    a, c = b.split(x, 2, axis)
    return b.multiply(a, b.sigmoid(c))


def silu(b, x):
    x = _float(b, x)
    return b.multiply(x, b.sigmoid(x))


def swish(b, x):
    return silu(b, x)


def hard_sigmoid(b, x):
    x = _float(b, x)
    return b.clip(b.add(b.divide(x, 6.0), 0.5), 0.0, 1.0)


def hard_silu(b, x):
    x = _float(b, x)
    return b.multiply(x, hard_sigmoid(b, x))


def hard_swish(b, x):
    return hard_silu(b, x)


def hard_tanh(b, x):
    return b.clip(_float(b, x), -1.0, 1.0)


def hard_shrink(b, x, threshold=0.5):
    x = _float(b, x)
    return b.where(b.greater(b.abs(x), threshold), x, b.zeros_like(x))


def soft_shrink(b, x, threshold=0.5):
    x = _float(b, x)
    return b.where(b.greater(x, threshold), b.subtract(x, threshold),
                   b.where(b.less(x, -threshold), b.add(x, threshold), b.zeros_like(x)))


def tanh_shrink(b, x):
    x = _float(b, x)
    return b.subtract(x, b.tanh(x))


def threshold(b, x, threshold, default_value):
    x = _t(b, x)
    return b.where(b.greater(x, threshold), x, b.cast(b.full_like(x, default_value),
                                                      b.dtype_name(x)))


def leaky_relu(b, x, negative_slope=0.2):
    x = _float(b, x)
    return b.where(b.greater_equal(x, 0), x, b.multiply(x, negative_slope))


def log_sigmoid(b, x):
    return b.negative(b.softplus(b.negative(_float(b, x))))


def softsign(b, x):
    x = _float(b, x)
    return b.divide(x, b.add(b.abs(x), 1.0))


def squareplus(b, x, c=4):
    x = _float(b, x)
    return b.divide(b.add(x, b.sqrt(b.add(b.square(x), c))), 2.0)


def sparse_plus(b, x):
    x = _float(b, x)
    mid = b.multiply(b.square(b.add(x, 1.0)), 0.25)
    return b.where(b.less_equal(x, -1.0), b.zeros_like(x),
                   b.where(b.greater_equal(x, 1.0), x, mid))


def sparse_sigmoid(b, x):
    x = _float(b, x)
    return b.where(b.less_equal(x, -1.0), b.zeros_like(x),
                   b.where(b.greater_equal(x, 1.0), b.ones_like(x),
                           b.multiply(b.add(x, 1.0), 0.5)))


def sparsemax(b, x, axis=-1):
    x = _float(b, x)
    z = b.flip(b.sort(x, axis), axis)
    n = b.static_shape(x)[axis]
    shape = [1] * _ndim(b, x)
    shape[axis] = n
    k = b.reshape(b.arange(1, n + 1, dtype=b.dtype_name(x)), shape)
    cum = b.cumsum(z, axis)
    support = b.greater(b.add(b.multiply(k, z), 1.0), cum)
    k_z = b.sum(b.cast(support, b.dtype_name(x)), axis, True)
    tau = b.divide(b.subtract(b.take_along_axis(cum, b.subtract(b.cast(k_z, "int32"), 1),
                                                axis), 1.0), k_z)
    return b.relu(b.subtract(x, tau))


def normalize(b, x, axis=-1, order=2, epsilon=None):
    x = _float(b, x)
    eps = 1e-12 if epsilon is None else epsilon
    norm = b.norm(x, order, axis, True)
    return b.divide(x, b.maximum(norm, eps))


def moments(b, x, axes, keepdims=False, synchronized=False):
    x = _t(b, x)
    name = b.dtype_name(x)
    xf = b.cast(x, "float32") if name in ("float16", "bfloat16") else _float(b, x)
    mean = b.mean(xf, axes, True)
    variance = b.mean(b.square(b.subtract(xf, b.stop_gradient(mean))), axes, True)
    if not keepdims:
        mean, variance = b.squeeze(mean, tuple(axes)), b.squeeze(variance, tuple(axes))
    if name in ("float16", "bfloat16"):
        mean, variance = b.cast(mean, name), b.cast(variance, name)
    return mean, variance


def batch_normalization(b, x, mean, variance, axis, offset=None, scale=None, epsilon=0.001):
    x = _float(b, x)
    shape = [1] * _ndim(b, x)
    shape[axis] = b.static_shape(x)[axis]

    def along(v):
        return b.reshape(b.cast(_t(b, v), b.dtype_name(x)), shape)
    inv = b.rsqrt(b.add(along(variance), epsilon))
    if scale is not None:
        inv = b.multiply(inv, along(scale))
    out = b.add(b.multiply(x, inv), b.negative(b.multiply(along(mean), inv)))
    return out if offset is None else b.add(out, along(offset))


def layer_normalization(b, x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    x = _float(b, x)
    eps = 1e-7 if epsilon is None else epsilon   # backend.epsilon()
    axes = _axes(axis, _ndim(b, x))
    mean, var = moments(b, x, axes, True)
    out = b.multiply(b.subtract(x, mean), b.rsqrt(b.add(var, eps)))
    if gamma is not None:
        out = b.multiply(out, b.cast(_t(b, gamma), b.dtype_name(x)))
    if beta is not None:
        out = b.add(out, b.cast(_t(b, beta), b.dtype_name(x)))
    return out


def rms_normalization(b, x, scale=None, axis=-1, epsilon=None):
    x = _float(b, x)
    eps = 1e-7 if epsilon is None else epsilon   # backend.epsilon()
    ms = b.mean(b.square(x), axis, True)
    out = b.multiply(x, b.rsqrt(b.add(ms, eps)))
    return out if scale is None else b.multiply(out, b.cast(_t(b, scale), b.dtype_name(x)))


def one_hot(b, x, num_classes, axis=-1, dtype=None, sparse=False):
    x = _t(b, x)
    hot = b.equal(b.expand_dims(x, -1), b.arange(num_classes, dtype=b.dtype_name(x)))
    out = b.cast(hot, dtype or "float32")
    return out if axis == -1 else b.moveaxis(out, -1, axis)


def multi_hot(b, inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    num_classes = kwargs.get("num_tokens", num_classes)
    x = _t(b, inputs)
    reduce_axis = -1 if _ndim(b, x) > 1 else 0
    if _ndim(b, x) == 1:
        x = b.expand_dims(x, 0)
    hot = b.max(one_hot(b, x, num_classes, -1, dtype or "float32"), -2)
    if _ndim(b, _t(b, inputs)) == 1:
        hot = b.squeeze(hot, 0)
    del reduce_axis
    return hot if axis == -1 else b.moveaxis(hot, -1, axis)


def _clip_probs(b, output):
    eps = 1e-7
    return b.clip(output, eps, 1.0 - eps)


def binary_crossentropy(b, target, output, from_logits=False):
    target, output = _float(b, target), _float(b, output)
    if from_logits:
        return b.add(b.subtract(b.relu(output), b.multiply(output, target)),
                     b.log1p(b.exp(b.negative(b.abs(output)))))
    output = _clip_probs(b, output)
    return b.negative(b.add(b.multiply(target, b.log(output)),
                            b.multiply(b.subtract(1.0, target), b.log(b.subtract(1.0, output)))))


def categorical_crossentropy(b, target, output, from_logits=False, axis=-1):
    target, output = _float(b, target), _float(b, output)
    if from_logits:
        return b.negative(b.sum(b.multiply(target, b.log_softmax(output, axis)), axis))
    output = b.divide(output, b.sum(output, axis, True))
    return b.negative(b.sum(b.multiply(target, b.log(_clip_probs(b, output))), axis))


def sparse_categorical_crossentropy(b, target, output, from_logits=False, axis=-1):
    target = _t(b, target)
    if _ndim(b, target) == _ndim(b, _t(b, output)) and b.static_shape(target)[-1] == 1:
        target = b.squeeze(target, -1)
    n = b.static_shape(_t(b, output))[axis]
    return categorical_crossentropy(b, one_hot(b, b.cast(target, "int32"), n, axis), output,
                                    from_logits, axis)


def psnr(b, x1, x2, max_val):
    x1, x2 = _float(b, x1), _float(b, x2)
    mse = b.mean(b.square(b.subtract(x1, x2)))
    return b.subtract(20.0 * _math.log10(max_val), b.multiply(b.log10(mse), 10.0))


def polar(b, abs_, angle):
    r, a = _float(b, abs_), _float(b, angle)
    return b.view_as_complex(b.stack([b.multiply(r, b.cos(a)), b.multiply(r, b.sin(a))], -1))


def depth_to_space(b, x, block_size, data_format="channels_last"):
    x = _t(b, x)
    if data_format == "channels_first":
        x = b.transpose(x, (0, 2, 3, 1))
    n, h, w, c = b.static_shape(x)
    bs = block_size
    y = b.reshape(x, (n, h, w, bs, bs, c // (bs * bs)))
    y = b.reshape(b.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h * bs, w * bs, c // (bs * bs)))
    return b.transpose(y, (0, 3, 1, 2)) if data_format == "channels_first" else y


def space_to_depth(b, x, block_size, data_format="channels_last"):
    x = _t(b, x)
    if data_format == "channels_first":
        x = b.transpose(x, (0, 2, 3, 1))
    n, h, w, c = b.static_shape(x)
    bs = block_size
    y = b.reshape(x, (n, h // bs, bs, w // bs, bs, c))
    y = b.reshape(b.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h // bs, w // bs, c * bs * bs))
    return b.transpose(y, (0, 3, 1, 2)) if data_format == "channels_first" else y


def dot_product_attention(b, query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    """softmax(q k^T * scale + bias, masked) v over (batch, time, heads, head size) inputs."""
    q, k, v = _float(b, query), _float(b, key), _float(b, value)
    if scale is None:
        scale = 1.0 / _math.sqrt(b.static_shape(q)[-1])
    logits = b.multiply(b.einsum("BTNH,BSNH->BNTS", q, k), scale)
    if attn_logits_soft_cap is not None:
        logits = b.multiply(b.tanh(b.divide(logits, attn_logits_soft_cap)),
                            attn_logits_soft_cap)
    if bias is not None:
        logits = b.add(logits, b.cast(_t(b, bias), b.dtype_name(logits)))
    if is_causal:
        t, s = b.static_shape(logits)[-2:]
        causal = b.cast(b.tril(b.ones((t, s), "int32")), "bool")
        mask = causal if mask is None else b.logical_and(b.cast(_t(b, mask), "bool"), causal)
    if mask is not None:
        low = b.full_like(logits, float(_np_finfo_min(b.dtype_name(logits))))
        logits = b.where(b.cast(_t(b, mask), "bool"), logits, low)
    probs = b.softmax(logits, -1)
    return b.einsum("BNTS,BSNH->BTNH", probs, v)


def _np_finfo_min(name):
    return _np.finfo(name).min


def separable_conv(b, inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    out = b.depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format,
                           dilation_rate)
    return b.conv(out, pointwise_kernel, 1, "valid", data_format, 1)


def unfold(b, x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of ``x`` (N, C, H, W) as columns (N, C * kh * kw, blocks), as PyTorch's
    ``unfold``."""
    x = _float(b, x)
    kh, kw = (kernel_size,) * 2 if isinstance(kernel_size, int) else kernel_size
    dh, dw = (dilation,) * 2 if isinstance(dilation, int) else dilation
    ph, pw = (padding,) * 2 if isinstance(padding, int) else padding
    sh, sw = (stride,) * 2 if isinstance(stride, int) else stride
    x = b.pad(x, [(0, 0), (0, 0), (ph, ph), (pw, pw)])
    n, c, h, w = b.static_shape(x)
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (w - dw * (kw - 1) - 1) // sw + 1
    rows = (_np.arange(kh)[:, None] * dh + _np.arange(oh)[None, :] * sh).astype(_np.int32)
    cols = (_np.arange(kw)[:, None] * dw + _np.arange(ow)[None, :] * sw).astype(_np.int32)
    p = b.take(x, b.convert_to_tensor(rows), 2)          # n, c, kh, oh, w
    p = b.take(p, b.convert_to_tensor(cols), 4)          # n, c, kh, oh, kw, ow
    p = b.transpose(p, (0, 1, 2, 4, 3, 5))               # n, c, kh, kw, oh, ow
    return b.reshape(p, (n, c * kh * kw, oh * ow))
