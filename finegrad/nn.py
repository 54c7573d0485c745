"""TensorFlow's ``tf.nn`` namespace."""
from finegrad._src.ops.math.elementwise import relu, sigmoid, tanh, softplus  # noqa: F401
from finegrad._src.ops.nn.softmax_cross_entropy import (softmax, log_softmax,  # noqa
                                                        softmax_cross_entropy_with_logits,
                                                        sparse_softmax_cross_entropy_with_logits,
                                                        sigmoid_cross_entropy_with_logits, l2_loss)
from finegrad._src.activations import (leaky_relu, elu, selu, gelu, silu, swish,  # noqa: F401
                                      relu6)
from finegrad._src.statistics import l2_normalize, moments, compute_average_loss  # noqa: F401
from finegrad._src.ops.nn.dropout import dropout  # noqa: F401
from finegrad._src.ops.nn.conv import (conv1d, conv2d, conv2d_transpose,  # noqa: F401
                                       depthwise_conv2d, convolution)
from finegrad._src.ops.nn.pool import (max_pool2d, avg_pool2d, max_pool1d,  # noqa: F401
                                       avg_pool1d, max_pool, avg_pool)
from finegrad._src.ops.math.sorting import top_k  # noqa: F401
from finegrad._src.ops.nn.embedding_and_bias import (bias_add, embedding_lookup,  # noqa: F401
                                                     softsign)
from finegrad._src.ops.nn.normalization_and_losses import (batch_normalization,  # noqa: F401
                                                           weighted_cross_entropy_with_logits,
                                                           log_poisson_loss)
from finegrad._src.ops.array.sequences_and_blocks import (space_to_depth,  # noqa: E402,F401
                                                          depth_to_space)
from finegrad._src.ops.math.counts_and_casts import zero_fraction  # noqa: F401
