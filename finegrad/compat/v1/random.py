"""TensorFlow's ``tf.compat.v1.random``: ``set_random_seed`` and ``get_seed`` (TensorFlow 1's
graph-level seeds) and TensorFlow 1's op spellings; the other names are `finegrad.random`'s."""
from finegrad._src.v1.random_seeds import set_random_seed, get_seed
from finegrad._src.v1.ops import (random_normal as normal,
                                  random_uniform as uniform, truncated_normal,
                                  random_shuffle as shuffle, multinomial,
                                  random_poisson as poisson)

__all__ = ["set_random_seed", "get_seed", "normal", "uniform", "truncated_normal", "shuffle",
           "multinomial", "poisson"]


def __getattr__(name):
    # the other names are finegrad.random's, as TensorFlow's compat.v1.random holds tf.random's
    import finegrad.random
    try:
        return getattr(finegrad.random, name)
    except AttributeError:
        raise AttributeError(f"module 'finegrad.compat.v1.random' has no attribute {name!r}") \
            from None
