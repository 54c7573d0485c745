"""`keras.ops.nn`, linalg, math and core on finegrad's own ``nn``, ``linalg``, ``math`` and
control flow (``cond``, ``while_loop``, traceable under `finegrad.function`)."""
from finegrad._src import nest as _nest
from finegrad._src.backends.native import fg_names as fg
from finegrad._src.backends.native import custom as _custom
from finegrad._src.ops.nn.ctc import ctc_loss as _ctc_loss


def _f(x):
    x = _custom.convert_to_tensor(x)
    return x if x.dtype.is_floating or x.dtype.is_complex else fg.cast(x, "float32")


def sigmoid(x):
    return fg.sigmoid(_f(x))


def softplus(x):
    return fg.math.softplus(_f(x))


def relu(x):
    return fg.nn.relu(_f(x))


def softmax(x, axis=-1):
    return fg.nn.softmax(_f(x), axis=axis)


def log_softmax(x, axis=-1):
    return fg.nn.log_softmax(_f(x), axis=axis)


def stop_gradient(variable):
    return fg.stop_gradient(variable)


def cast(x, dtype):
    return fg.cast(x, dtype)


def erf(x):
    return fg.math.erf(_f(x))


def erfinv(x):
    return fg.math.erfinv(_f(x))


def logsumexp(x, axis=None, keepdims=False):
    return fg.reduce_logsumexp(_f(x), axis=axis, keepdims=keepdims)


def top_k(x, k, sorted=True):  # (Keras's name)
    return tuple(fg.math.top_k(x, k, sorted=sorted))


def cholesky(x, upper=False):
    lower = fg.linalg.cholesky(_f(x))
    return fg.linalg.adjoint(lower) if upper else lower


def det(x):
    return fg.linalg.det(_f(x))


def eigh(x):
    return tuple(fg.linalg.eigh(_f(x)))


def inv(x):
    return fg.linalg.inv(_f(x))


def qr(x, mode="reduced"):
    return tuple(fg.linalg.qr(_f(x), full_matrices=mode == "complete"))


def solve(a, b):
    a, b = _f(a), _f(b)
    vec = b.shape.rank == 1
    out = fg.linalg.solve(a, b[:, None] if vec else b)
    return out[:, 0] if vec else out


def solve_triangular(a, b, lower=False):
    a, b = _f(a), _f(b)
    vec = b.shape.rank == 1
    out = fg.linalg.triangular_solve(a, b[:, None] if vec else b, lower=lower)
    return out[:, 0] if vec else out


def svd(x, full_matrices=True, compute_uv=True):
    if not compute_uv:
        return fg.linalg.svd(_f(x), compute_uv=False)
    s, u, v = fg.linalg.svd(_f(x), full_matrices=full_matrices)
    return u, s, fg.linalg.adjoint(v)


def cond(pred, true_fn, false_fn):
    return fg.cond(pred, true_fn, false_fn)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    is_tuple = isinstance(loop_vars, (tuple, list))
    state = tuple(loop_vars) if is_tuple else (loop_vars,)

    def b(*s):
        out = body(*s)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)
    out = fg.while_loop(cond, b, state, maximum_iterations=maximum_iterations)
    return tuple(out) if is_tuple else out[0]


def vectorized_map(function, elements):
    return fg.vectorized_map(function, elements)


def scatter_update(inputs, indices, updates, reduction=None):
    x = _custom.convert_to_tensor(inputs)
    fn = {None: fg.tensor_scatter_nd_update, "add": fg.tensor_scatter_nd_add,
          "max": fg.tensor_scatter_nd_max, "min": fg.tensor_scatter_nd_min}[reduction]
    return fn(x, indices, fg.cast(updates, x.dtype))


def unstack(x, num=None, axis=0):
    return fg.unstack(x, num, axis)


def _fmt(x, data_format):
    n = x.shape.rank - 2
    return ("NC" + "DHW"[-n:]) if data_format == "channels_first" else ("N" + "DHW"[-n:] + "C")


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    x = _f(inputs)
    k = fg.cast(kernel, x.dtype)
    if data_format == "channels_first":     # finegrad's convolutions are channels_last
        last = _moveaxis(x, 1, -1)
        return _moveaxis(conv(last, k, strides, padding, "channels_last", dilation_rate), -1, 1)
    channels, per_group = x.shape[-1], k.shape[-2]
    if channels % per_group or k.shape[-1] % (channels // per_group):
        raise ValueError(f"finegrad.ops.conv: the input's {channels} channels must be a "
                         f"multiple of the kernel's {per_group} input channels, and its "
                         f"{k.shape[-1]} output channels of the {channels // per_group} groups")
    groups = channels // per_group
    if groups == 1:
        return fg.nn.convolution(x, k, strides, padding.upper(), _fmt(x, data_format),
                                 dilation_rate)
    # grouped (feature_group_count): each group of input channels with its own filters
    pieces = [fg.nn.convolution(xg, kg, strides, padding.upper(), _fmt(x, data_format),
                                dilation_rate)
              for xg, kg in zip(fg.split(x, groups, -1), fg.split(k, groups, -1),
                                strict=True)]
    return fg.concat(pieces, -1)


def _moveaxis(x, source, destination):
    perm = list(range(x.shape.rank))
    perm.insert(destination % x.shape.rank, perm.pop(source % x.shape.rank))
    return fg.transpose(x, perm)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    x = _f(inputs)
    if x.shape.rank not in (3, 4):
        raise NotImplementedError("finegrad.ops.depthwise_conv: 1-D and 2-D inputs only (as "
                                  "Keras's tensorflow backend); for 3-D, use conv with groups")
    if data_format == "channels_first":     # finegrad's convolutions are channels_last
        y = depthwise_conv(_moveaxis(x, 1, -1), kernel, strides, padding, "channels_last",
                           dilation_rate)
        return _moveaxis(y, -1, 1)
    k = fg.cast(kernel, x.dtype)
    if x.shape.rank == 3:   # a 2-D one over a height of 1
        y = depthwise_conv(fg.expand_dims(x, 1), fg.expand_dims(k, 0), _pair(strides, 1),
                           padding, data_format, _pair(dilation_rate, 1))
        return fg.squeeze(y, [1])
    s = (strides, strides) if isinstance(strides, int) else tuple(strides)
    d = (dilation_rate,) * 2 if isinstance(dilation_rate, int) else tuple(dilation_rate)
    return fg.nn.depthwise_conv2d(x, k, (1,) + s + (1,), padding.upper(), "NHWC", d)


def _pair(value, first):
    """A 1-D window argument (an int or a 1-tuple) with ``first`` prepended."""
    return (first,) + ((value,) if isinstance(value, int) else tuple(value))


def _pool(fn, inputs, pool_size, strides, padding, data_format):
    x = _f(inputs)
    if data_format == "channels_first":     # finegrad's pools are channels_last
        y = _pool(fn, _moveaxis(x, 1, -1), pool_size, strides, padding, "channels_last")
        return _moveaxis(y, -1, 1)
    n = x.shape.rank - 2
    size = (pool_size,) * n if isinstance(pool_size, int) else tuple(pool_size)
    step = size if strides is None else (strides,) * n if isinstance(strides, int) \
        else tuple(strides)
    return fn(x, size, step, padding.upper(), _fmt(x, data_format))


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool(fg.nn.max_pool, inputs, pool_size, strides, padding, data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool(fg.nn.avg_pool, inputs, pool_size, strides, padding, data_format)


def fft(x):
    real, imag = x
    out = fg.signal.fft(fg.complex(_f(real), _f(imag)))
    return fg.math.real(out), fg.math.imag(out)


def rfft(x, fft_length=None):
    out = fg.signal.rfft(_f(x), None if fft_length is None else [fft_length])
    return fg.math.real(out), fg.math.imag(out)


def irfft(x, fft_length=None):
    real, imag = x
    return fg.signal.irfft(fg.complex(_f(real), _f(imag)),
                           None if fft_length is None else [fft_length])


def eig(x):
    return tuple(fg.linalg.eig(_f(x)))


def lu_factor(x):
    return tuple(fg.linalg.lu(_f(x)))


def view_as_complex(x):
    x = _f(x)
    return fg.complex(x[..., 0], x[..., 1])


def jvp(fun, primals, tangents, has_aux=False):
    if not has_aux:
        return fg.jvp(fun, primals, tangents)
    aux = []

    def first(*args):
        out, extra = fun(*args)
        aux.append(extra)
        return out
    out, tangent = fg.jvp(first, primals, tangents)
    return out, tangent, _nest.map_structure(fg.stop_gradient, aux[0])


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    return _ctc_loss(target, _f(output), target_length, output_length,
                     logits_time_major=False, blank_index=mask_index)
