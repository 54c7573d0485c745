"""`keras.ops.nn` on ``tf.nn`` (convolutions and pooling by ``tf.nn.convolution`` and
``tf.nn.pool``, channels_last by default as Keras)."""
import tensorflow as tf

from finegrad._src.backends.tensorflow import custom as _custom


def _f(x):
    x = _custom.convert_to_tensor(x)
    return x if x.dtype.is_floating else tf.cast(x, "float32")


def sigmoid(x):
    return tf.sigmoid(_f(x))


def softplus(x):
    return tf.math.softplus(_f(x))


def relu(x):
    return tf.nn.relu(_f(x))


def relu6(x):
    return tf.nn.relu6(_f(x))


def softmax(x, axis=-1):
    return tf.nn.softmax(_f(x), axis=axis)


def log_softmax(x, axis=-1):
    return tf.nn.log_softmax(_f(x), axis=axis)


def stop_gradient(variable):
    return tf.stop_gradient(variable)


def _fmt(x, data_format):
    n = x.shape.rank - 2
    return ("NC" + "DHW"[-n:]) if data_format == "channels_first" else ("N" + "DHW"[-n:] + "C")


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    x = _f(inputs)
    k = tf.cast(kernel, x.dtype)
    n = x.shape.rank - 2
    if n == 3 and data_format == "channels_first":   # TF's CPU Conv3D is NDHWC only
        y = conv(_moveaxis(x, 1, -1), k, strides, padding, "channels_last", dilation_rate)
        return _moveaxis(y, -1, 1)
    channels = x.shape[1] if data_format == "channels_first" else x.shape[-1]
    if n == 3 and channels != k.shape[-2]:   # TF's Conv3D has no groups: one per group
        groups = channels // k.shape[-2]
        return tf.concat([conv(a, b, strides, padding, data_format, dilation_rate)
                          for a, b in zip(tf.split(x, groups, -1), tf.split(k, groups, -1),
                                          strict=True)], -1)
    strides, dilation_rate = ((v,) * n if isinstance(v, int) else tuple(v)
                              for v in (strides, dilation_rate))
    return tf.nn.convolution(x, k, strides, padding.upper(), _fmt(x, data_format),
                             dilation_rate)


def _moveaxis(x, source, destination):
    perm = list(range(x.shape.rank))
    perm.insert(destination % x.shape.rank, perm.pop(source % x.shape.rank))
    return tf.transpose(x, perm)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    k = tf.convert_to_tensor(kernel)
    k = tf.reshape(k, tuple(k.shape[:-2]) + (1, k.shape[-2] * k.shape[-1]))
    return conv(inputs, k, strides, padding, data_format, dilation_rate)


def _pool(kind, inputs, pool_size, strides, padding, data_format):
    x = _f(inputs)
    if data_format == "channels_first":    # TF's CPU pools are channels_last only
        y = _pool(kind, _moveaxis(x, 1, -1), pool_size, strides, padding, "channels_last")
        return _moveaxis(y, -1, 1)
    n = x.shape.rank - 2
    size = (pool_size,) * n if isinstance(pool_size, int) else tuple(pool_size)
    step = size if strides is None else (strides,) * n if isinstance(strides, int) \
        else tuple(strides)
    return tf.nn.pool(x, size, kind, step, padding.upper(), _fmt(x, data_format))


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool("MAX", inputs, pool_size, strides, padding, data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool("AVG", inputs, pool_size, strides, padding, data_format)


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    output = _f(output)
    dtype = "float32" if output.dtype.name in ("float16", "bfloat16", "float64") else \
        output.dtype.name
    loss = tf.nn.ctc_loss(labels=tf.cast(_custom.convert_to_tensor(target), "int32"),
                          logits=tf.cast(output, dtype), label_length=target_length,
                          logit_length=output_length, blank_index=mask_index,
                          logits_time_major=False)
    return tf.cast(loss, "float64" if output.dtype.name == "float64" else loss.dtype)


def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    inputs = tf.transpose(_f(inputs), (1, 0, 2))
    steps, batch, classes = tf.unstack(tf.shape(inputs))
    lengths = tf.cast(_custom.convert_to_tensor(sequence_lengths), "int32")
    if strategy == "greedy":
        decoded, scores = tf.nn.ctc_greedy_decoder(inputs, lengths, merge_repeated,
                                                   blank_index=mask_index)
    elif strategy == "beam_search":
        blank = mask_index % inputs.shape[-1]   # the decoder's blank is the last class
        inputs = tf.concat([inputs[..., :blank], inputs[..., blank + 1:],
                            inputs[..., blank:blank + 1]], axis=-1)
        decoded, scores = tf.nn.ctc_beam_search_decoder(inputs, lengths, beam_width, top_paths)
    else:
        raise ValueError(f"Invalid strategy {strategy}. Supported values are 'greedy' and "
                         f"'beam_search'.")
    dense = tf.stack([tf.sparse.to_dense(tf.SparseTensor(d.indices, d.values, (batch, steps)),
                                         default_value=-1) for d in decoded])
    dense = tf.cast(dense, "int32")
    if strategy == "beam_search":
        dense = tf.where(dense >= blank, dense + 1, dense)
    return dense, scores
