"""TensorFlow's ``tf.compat.v1.nn``: `finegrad.nn` with TensorFlow 1's spellings
(``dropout(x, keep_prob)``, ``conv2d(filter=)``, ``softmax(dim=)``, ``max_pool(value=)``,
``softmax_cross_entropy_with_logits_v2``, ``xw_plus_b``)."""
from finegrad._src.v1.ops import (dropout, softmax_cross_entropy_with_logits_v2,
                                  xw_plus_b, conv2d, softmax, log_softmax, max_pool, avg_pool,
                                  in_top_k)

__all__ = ["in_top_k", "dropout", "softmax_cross_entropy_with_logits_v2", "xw_plus_b", "conv2d",
           "softmax",
           "log_softmax", "max_pool", "avg_pool"]


def __getattr__(name):
    # the other names are finegrad.nn's, as TensorFlow's compat.v1.nn holds tf.nn's
    import finegrad.nn
    try:
        return getattr(finegrad.nn, name)
    except AttributeError:
        raise AttributeError(f"module 'finegrad.compat.v1.nn' has no attribute {name!r}") \
            from None
