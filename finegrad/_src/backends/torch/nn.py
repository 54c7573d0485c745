"""`keras.ops.nn` on ``torch.nn.functional`` (channels_last by default, as Keras: inputs are
moved to channels_first for PyTorch's convolutions and pooling and back)."""
import torch
import torch.nn.functional as tnf

from finegrad._src.backends.torch import custom as _custom


def _f(x):
    x = _custom.convert_to_tensor(x)
    return x if x.is_floating_point() else x.to(torch.float32)


def sigmoid(x):
    return torch.sigmoid(_f(x))


def softplus(x):
    return tnf.softplus(_f(x))


def relu(x):
    return torch.relu(_f(x))


def silu(x):
    return tnf.silu(_f(x))


def log_sigmoid(x):
    return tnf.logsigmoid(_f(x))


def softmax(x, axis=-1):
    x = _f(x)
    if axis is None:
        return torch.softmax(x.reshape(-1), 0).reshape(x.shape)
    return torch.softmax(x, dim=axis)


def log_softmax(x, axis=-1):
    x = _f(x)
    if axis is None:
        return torch.log_softmax(x.reshape(-1), 0).reshape(x.shape)
    return torch.log_softmax(x, dim=axis)


def stop_gradient(variable):
    return _custom.convert_to_tensor(variable).detach()


def _first(x, data_format):
    return x if data_format == "channels_first" else torch.movedim(x, -1, 1)


def _last(x, data_format):
    return x if data_format == "channels_first" else torch.movedim(x, 1, -1)


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


def _same(x, kernel, strides, dilation, pooling):
    """Keras's torch 'same' padding: TensorFlow's amounts (the extra one after), given to
    PyTorch when symmetric, else applied first (zeros for convolutions, edge values for
    pooling, as Keras); returns the input and PyTorch's ``padding``."""
    pads = []
    for n, k, s, d in zip(x.shape[2:], kernel, strides, dilation, strict=True):
        span = (k - 1) * d + 1
        total = span - 1 if s == 1 else max(0, (-(-n // s) - 1) * s + span - n)
        pads.append((total // 2, total - total // 2))
    if all(a == b for a, b in pads):
        return x, [a for a, _ in pads]
    flat = [v for pad in reversed(pads) for v in pad]
    return tnf.pad(x, flat, mode="replicate" if pooling else "constant"), 0


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    x = _first(_f(inputs), data_format)
    k = _custom.convert_to_tensor(kernel).to(x.dtype)
    n = x.ndim - 2
    k = k.permute(n + 1, n, *range(n))          # (spatial, in, out) -> (out, in, spatial)
    fn = (tnf.conv1d, tnf.conv2d, tnf.conv3d)[n - 1]
    if x.shape[1] % k.shape[1]:
        raise ValueError(f"finegrad.ops.conv: the input's {x.shape[1]} channels are not a "
                         f"multiple of the kernel's {k.shape[1]} input channels")
    groups = x.shape[1] // k.shape[1]
    strides, dilation = _tuple(strides, n), _tuple(dilation_rate, n)
    pad = 0
    if padding == "same":
        x, pad = _same(x, k.shape[2:], strides, dilation, False)
    out = fn(x, k, stride=strides, padding=pad, dilation=dilation, groups=groups)
    return _last(out, data_format)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    k = _custom.convert_to_tensor(kernel)
    k = k.reshape(k.shape[:-2] + (1, k.shape[-2] * k.shape[-1]))
    return conv(inputs, k, strides, padding, data_format, dilation_rate)


def _pool(kind, inputs, pool_size, strides, padding, data_format):
    x = _first(_f(inputs), data_format)
    n = x.ndim - 2
    size = _tuple(pool_size, n)
    step = size if strides is None else _tuple(strides, n)
    pad = 0
    if padding == "same":
        x, pad = _same(x, size, step, (1,) * n, True)
    if kind == "max":
        out = (tnf.max_pool1d, tnf.max_pool2d, tnf.max_pool3d)[n - 1](x, size, step, pad)
    else:
        out = (tnf.avg_pool1d, tnf.avg_pool2d, tnf.avg_pool3d)[n - 1](
            x, size, step, pad, count_include_pad=False)
    return _last(out, data_format)


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool("max", inputs, pool_size, strides, padding, data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool("average", inputs, pool_size, strides, padding, data_format)


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    output = _f(output)
    if output.dtype in (torch.float16, torch.bfloat16):
        output = output.to(torch.float32)
    as_long = [_custom.convert_to_tensor(v).to(torch.long)
               for v in (target, output_length, target_length)]
    logp = tnf.log_softmax(torch.transpose(output, 1, 0), dim=-1)
    return tnf.ctc_loss(logp, as_long[0], as_long[1], as_long[2], blank=mask_index,
                        reduction="none")
