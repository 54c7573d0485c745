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


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    x = _first(_f(inputs), data_format)
    k = _custom.convert_to_tensor(kernel).to(x.dtype)
    n = x.ndim - 2
    k = k.permute(n + 1, n, *range(n))          # (spatial, in, out) -> (out, in, spatial)
    fn = (tnf.conv1d, tnf.conv2d, tnf.conv3d)[n - 1]
    groups = x.shape[1] // k.shape[1]
    if padding == "same" and (strides != 1 and strides != (1,) * n):
        raise NotImplementedError("finegrad.ops.conv on the 'torch' backend: padding='same' "
                                  "with strides > 1; use the jax or tensorflow backend")
    out = fn(x, k, stride=strides, padding=padding, dilation=dilation_rate, groups=groups)
    return _last(out, data_format)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    k = _custom.convert_to_tensor(kernel)
    k = k.reshape(k.shape[:-2] + (1, k.shape[-2] * k.shape[-1]))
    return conv(inputs, k, strides, padding, data_format, dilation_rate)




def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    x = _first(_f(inputs), data_format)
    fn = (tnf.max_pool1d, tnf.max_pool2d, tnf.max_pool3d)[x.ndim - 3]
    if padding != "valid":
        raise NotImplementedError("finegrad.ops.max_pool on the 'torch' backend: only "
                                  "padding='valid'; use the jax or tensorflow backend")
    return _last(fn(x, pool_size, strides or pool_size), data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    x = _first(_f(inputs), data_format)
    fn = (tnf.avg_pool1d, tnf.avg_pool2d, tnf.avg_pool3d)[x.ndim - 3]
    if padding != "valid":
        raise NotImplementedError("finegrad.ops.average_pool on the 'torch' backend: only "
                                  "padding='valid'; use the jax or tensorflow backend")
    return _last(fn(x, pool_size, strides or pool_size), data_format)


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    output = _f(output)
    if output.dtype in (torch.float16, torch.bfloat16):
        output = output.to(torch.float32)
    as_long = [_custom.convert_to_tensor(v).to(torch.long)
               for v in (target, output_length, target_length)]
    logp = tnf.log_softmax(torch.transpose(output, 1, 0), dim=-1)
    return tnf.ctc_loss(logp, as_long[0], as_long[1], as_long[2], blank=mask_index,
                        reduction="none")
