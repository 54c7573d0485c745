"""TensorFlow's ``tf.compat.v1.initializers``: TensorFlow 1's initializers by their short
names (``initializers.random_normal()``, ``initializers.glorot_uniform()``, ...)."""
from finegrad._src.v1.initializers import (
    zeros_initializer as zeros, ones_initializer as ones, constant_initializer as constant,
    random_normal_initializer as random_normal, random_uniform_initializer as random_uniform,
    truncated_normal_initializer as truncated_normal,
    variance_scaling_initializer as variance_scaling,
    glorot_uniform_initializer as glorot_uniform, glorot_normal_initializer as glorot_normal,
    he_normal, he_uniform, lecun_normal, lecun_uniform)
from finegrad._src.v1.variable_scope import (
    global_variables_initializer as global_variables,
    local_variables_initializer as local_variables, variables_initializer as variables,
    tables_initializer as tables_initializer)

__all__ = ["zeros", "ones", "constant", "random_normal", "random_uniform", "truncated_normal",
           "variance_scaling", "glorot_uniform", "glorot_normal", "he_normal", "he_uniform",
           "lecun_normal", "lecun_uniform", "global_variables", "local_variables", "variables",
           "tables_initializer"]
