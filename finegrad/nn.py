"""TensorFlow's ``tf.nn`` namespace."""
from finegrad._src.ops.math.elementwise import relu, sigmoid, tanh, softplus
from finegrad._src.ops.nn.softmax_cross_entropy import (softmax, log_softmax,
                                                        softmax_cross_entropy_with_logits,
                                                        sparse_softmax_cross_entropy_with_logits,
                                                        sigmoid_cross_entropy_with_logits, l2_loss)
from finegrad._src.ops.nn.activations import (leaky_relu, elu, selu, gelu, silu, swish,
                                      relu6, crelu)
from finegrad._src.ops.math.statistics import l2_normalize, moments, compute_average_loss
from finegrad._src.ops.nn.dropout import dropout
from finegrad._src.ops.nn.conv import (conv1d, conv2d, conv2d_transpose,
                                       depthwise_conv2d)
from finegrad._src.ops.nn.conv3d import conv3d, conv3d_transpose
from finegrad._src.ops.nn.pool import (max_pool2d, avg_pool2d, max_pool1d,
                                       avg_pool1d)
from finegrad._src.ops.nn.pool3d import max_pool3d, avg_pool3d
from finegrad._src.ops.nn.by_rank import convolution, max_pool, avg_pool
from finegrad._src.ops.math.sorting import top_k
from finegrad._src.ops.nn.embedding_and_bias import (bias_add, embedding_lookup,
                                                     softsign)
from finegrad._src.ops.nn.normalization_and_losses import (batch_normalization,
                                                           weighted_cross_entropy_with_logits,
                                                           log_poisson_loss)
from finegrad._src.ops.array.sequences_and_blocks import (space_to_depth,
                                                          depth_to_space)
from finegrad._src.ops.math.counts_and_casts import zero_fraction
from finegrad._src.ops.nn.ctc import ctc_loss
from finegrad._src.ops.nn.conv_compositions import (atrous_conv2d, conv1d_transpose,
                                                    separable_conv2d)
from finegrad._src.ops.nn.moments_helpers import (normalize_moments, sufficient_statistics,
                                                  weighted_moments)
from finegrad._src.ops.math.counts_and_casts import in_top_k
from finegrad._src.ops.nn.normalization_and_losses import local_response_normalization

lrn = local_response_normalization

__all__ = ["atrous_conv2d", "conv1d_transpose", "separable_conv2d", "in_top_k",
           "local_response_normalization", "lrn", "normalize_moments",
           "sufficient_statistics", "weighted_moments", "relu", "sigmoid", "tanh", "softplus",
           "softmax", "log_softmax",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits",
           "sigmoid_cross_entropy_with_logits", "l2_loss", "leaky_relu", "elu", "selu", "gelu",
           "silu", "swish", "relu6", "crelu", "l2_normalize", "moments", "compute_average_loss",
           "dropout",
           "conv1d", "conv2d", "conv2d_transpose", "depthwise_conv2d", "convolution", "max_pool2d",
           "avg_pool2d", "max_pool1d", "avg_pool1d", "max_pool", "avg_pool", "conv3d",
           "conv3d_transpose", "max_pool3d", "avg_pool3d", "top_k", "bias_add",
           "embedding_lookup", "softsign", "batch_normalization",
           "weighted_cross_entropy_with_logits", "log_poisson_loss", "space_to_depth",
           "depth_to_space", "zero_fraction", "ctc_loss"]
