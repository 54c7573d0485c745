"""``tf.nn``: softmax and the cross-entropies (`softmax_cross_entropy`, with clip_by_norm and
l2_loss), batch normalization and the weighted losses (`normalization_and_losses`),
convolutions (`conv`) and pools (`pool`) over the window geometry they share
(`window_geometry`), ``dropout``, ``embedding_lookup``/``bias_add``/``softsign``
(`embedding_and_bias`) and clipping by the global norm (`clipping`). The activations
(relu, elu, gelu, ...) are elementwise primitives of `ops.math.elementwise`.
"""
from finegrad._src.ops.nn import (softmax_cross_entropy, window_geometry, conv, pool,  # noqa: F401
                                  dropout, normalization_and_losses, embedding_and_bias, clipping)
