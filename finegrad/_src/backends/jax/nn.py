"""`keras.ops.nn` on ``jax.nn`` and ``jax.lax`` (convolutions and pooling by
``lax.conv_general_dilated`` and ``lax.reduce_window``)."""
import jax
import jax.numpy as jnp



def _f(x):
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.floating) else x.astype("float32")


def sigmoid(x):
    return jax.nn.sigmoid(_f(x))


def softplus(x):
    return jax.nn.softplus(_f(x))


def relu(x):
    return jax.nn.relu(_f(x))


def relu6(x):
    return jax.nn.relu6(_f(x))


def silu(x):
    return jax.nn.silu(_f(x))


def log_sigmoid(x):
    return jax.nn.log_sigmoid(_f(x))


def softmax(x, axis=-1):
    return jax.nn.softmax(_f(x), axis=axis)


def log_softmax(x, axis=-1):
    return jax.nn.log_softmax(_f(x), axis=axis)


def gelu(x, approximate=True):
    return jax.nn.gelu(_f(x), approximate=approximate)


def stop_gradient(variable):
    return jax.lax.stop_gradient(variable)


def _dims(inputs, data_format):
    n = inputs.ndim - 2
    spatial = "DHW"[-n:] if n <= 3 else None
    lhs = f"N{spatial}C" if data_format != "channels_first" else f"NC{spatial}"
    return lhs, f"{spatial}IO", lhs


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    inputs, kernel = _f(inputs), jnp.asarray(kernel, dtype=_f(inputs).dtype)
    n = inputs.ndim - 2
    dn = jax.lax.conv_dimension_numbers(inputs.shape, kernel.shape, _dims(inputs, data_format))
    channels = inputs.shape[1 if data_format == "channels_first" else -1]
    return jax.lax.conv_general_dilated(
        inputs, kernel, _tuple(strides, n), padding.upper(), rhs_dilation=_tuple(dilation_rate, n),
        dimension_numbers=dn, feature_group_count=channels // kernel.shape[-2])


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    kernel = jnp.asarray(kernel)
    k = kernel.reshape(kernel.shape[:-2] + (1, kernel.shape[-2] * kernel.shape[-1]))
    return conv(inputs, k, strides, padding, data_format, dilation_rate)




def _pool(inputs, pool_size, strides, padding, data_format, init, op):
    x = _f(inputs)
    n = x.ndim - 2
    size, stride = _tuple(pool_size, n), _tuple(strides if strides is not None else pool_size, n)
    if data_format == "channels_first":
        window, steps = (1, 1) + size, (1, 1) + stride
    else:
        window, steps = (1,) + size + (1,), (1,) + stride + (1,)
    return jax.lax.reduce_window(x, init, op, window, steps, padding.upper())


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool(inputs, pool_size, strides, padding, data_format, -jnp.inf, jax.lax.max)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    total = _pool(inputs, pool_size, strides, padding, data_format, 0.0, jax.lax.add)
    ones = jnp.ones_like(_f(inputs))
    count = _pool(ones, pool_size, strides, padding, data_format, 0.0, jax.lax.add)
    return total / count


def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    q, k, v = _f(query), _f(key), _f(value)
    scale = 1.0 / jnp.sqrt(q.shape[-1]).astype(q.dtype) if scale is None else scale
    logits = jnp.einsum("BTNH,BSNH->BNTS", q, k) * scale
    if attn_logits_soft_cap is not None:
        logits = jnp.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
    if bias is not None:
        logits = logits + bias
    if is_causal:
        t, s = logits.shape[-2:]
        causal = jnp.tril(jnp.ones((t, s), bool))
        mask = causal if mask is None else jnp.logical_and(mask, causal)
    if mask is not None:
        logits = jnp.where(mask, logits, jnp.finfo(logits.dtype).min)
    probs = jax.nn.softmax(logits, axis=-1)
    return jnp.einsum("BNTS,BSNH->BTNH", probs, v)


