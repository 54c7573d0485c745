"""TensorFlow's ``tf.random`` namespace: seeded random ops, `Generator`, stateless ops."""
from finegrad._src.ops.random_ops import (set_seed, normal, truncated_normal,  # noqa: F401
                                          uniform, shuffle, categorical, poisson, stateless_normal,
                                          stateless_truncated_normal, stateless_uniform,
                                          stateless_categorical, split, fold_in)
from finegrad._src.ops.random_generator import (Generator, get_global_generator,  # noqa: F401
                                                set_global_generator)
from finegrad._src.ops.random_gamma import (gamma, stateless_gamma,  # noqa: F401
                                           stateless_poisson)
