"""``tf.nn``: softmax and the cross-entropies (`softmax_cross_entropy`, with clip_by_norm and
l2_loss), batch normalization and the weighted losses (`normalization_and_losses`),
convolutions (`conv`) and pools (`pool`) over the window geometry they share
(`window_geometry`), ``dropout``, ``embedding_lookup``/``bias_add``/``softsign``
(`embedding_and_bias`), clipping by the global norm (`clipping`) and the activations
written with ops (`activations`: leaky_relu, elu, selu, gelu, silu, ...; relu, relu6 and
softplus are elementwise primitives of `ops.math.elementwise`).
"""
from finegrad._src.ops.nn import (softmax_cross_entropy, window_geometry, conv, pool,  # noqa: F401
                                  dropout, normalization_and_losses, embedding_and_bias,
                                  clipping, activations)
