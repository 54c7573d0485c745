"""``tf.nn``: softmax and the cross-entropies (`softmax_cross_entropy`, with clip_by_norm and
l2_loss), batch normalization and the weighted losses (`normalization_and_losses`),
convolutions (`conv`, 3-D: `conv3d`) and pools (`pool`, 3-D: `pool3d`) over the window
geometry they share (`window_geometry`), picked by rank (`by_rank`), ``dropout``,
``embedding_lookup``/``bias_add``/``softsign`` (`embedding_and_bias`), clipping by the global
norm (`clipping`) and the activations written with ops (`activations`: leaky_relu, elu,
selu, gelu, silu, ...; relu, relu6 and softplus are elementwise primitives of
`ops.math.elementwise`).
"""
from finegrad._src.ops.nn import (softmax_cross_entropy, window_geometry, conv, pool,  # noqa: F401
                                  conv3d, pool3d, by_rank,
                                  dropout, normalization_and_losses, embedding_and_bias,
                                  clipping, activations)
