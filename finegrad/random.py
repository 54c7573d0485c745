"""TensorFlow's ``tf.random`` namespace: seeded random ops, `Generator`, stateless ops."""
from finegrad._src.ops.random.sampling import (set_seed, normal, truncated_normal,
                                               uniform, shuffle, categorical, poisson,
                                               stateless_normal, stateless_truncated_normal,
                                               stateless_uniform, stateless_categorical, split,
                                               fold_in)
from finegrad._src.ops.random.generator import (Generator, get_global_generator,
                                                set_global_generator)
from finegrad._src.ops.random.gamma import gamma, stateless_gamma, stateless_poisson

__all__ = ["set_seed", "normal", "truncated_normal", "uniform", "shuffle", "categorical",
           "poisson", "stateless_normal", "stateless_truncated_normal", "stateless_uniform",
           "stateless_categorical", "split", "fold_in", "Generator", "get_global_generator",
           "set_global_generator", "gamma", "stateless_gamma", "stateless_poisson"]
