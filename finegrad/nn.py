"""TensorFlow's ``tf.nn`` namespace."""
from finegrad._src.ops.elementwise import relu, sigmoid, tanh, softplus  # noqa: F401
from finegrad._src.ops.nn import (softmax, log_softmax, softmax_cross_entropy_with_logits,  # noqa
                                  sparse_softmax_cross_entropy_with_logits,
                                  sigmoid_cross_entropy_with_logits, l2_loss)
from finegrad._src.activations import (leaky_relu, elu, selu, gelu, silu, swish,  # noqa: F401
                                      relu6)
from finegrad._src.statistics import l2_normalize, moments, compute_average_loss  # noqa: F401
from finegrad._src.ops.dropout import dropout  # noqa: F401
from finegrad._src.ops.conv import (conv1d, conv2d, conv2d_transpose,  # noqa: F401
                                    depthwise_conv2d, convolution)
from finegrad._src.ops.pool import (max_pool2d, avg_pool2d, max_pool1d, avg_pool1d,  # noqa: F401
                                    max_pool, avg_pool)
from finegrad._src.ops.sorting import top_k  # noqa: F401
from finegrad._src.ops.tf_extras import bias_add, embedding_lookup, softsign  # noqa: F401
from finegrad._src.ops.nn_losses import (batch_normalization,  # noqa: F401
                                         weighted_cross_entropy_with_logits, log_poisson_loss)
from finegrad._src.ops.array_extra import space_to_depth, depth_to_space  # noqa: E402,F401
from finegrad._src.ops.math_more import zero_fraction  # noqa: F401
