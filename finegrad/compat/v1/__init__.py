"""TensorFlow's ``tf.compat.v1`` namespace: the names of TensorFlow 1 that finegrad has.

Functions here run eagerly, as in TensorFlow 2, until ``disable_eager_execution()`` (or inside
``with Graph().as_default():``): then ops build a graph that a `Session` runs (see
docs/tf1_graphs.md). As in TensorFlow, the names of the
top-level namespace are also reachable here (``tf.compat.v1.reduce_sum``, ``.nn``, ...).
"""
import sys as _sys

from finegrad._src.v1 import aliases as _aliases

from finegrad._src.ad.custom import custom_gradient
from finegrad._src.ad.register import RegisterGradient, no_gradient
from finegrad._src.ad.tape import GradientTape
from finegrad._src.api.debugging import (assert_equal, assert_none_equal, assert_less,
                                     assert_less_equal, assert_greater, assert_greater_equal,
                                     assert_positive, assert_non_negative, assert_negative,
                                     assert_non_positive, assert_near, assert_rank,
                                     assert_rank_at_least, assert_scalar, assert_type, Assert,
                                     check_numerics)
from finegrad._src.graph.tracing.function import function
from finegrad._src.v1.gradients import gradients, AggregationMethod
from finegrad._src.graph.pyfunc import numpy_function as py_func
from finegrad._src.v1.graphs import Graph, Operation, get_default_session
from finegrad._src.v1.default_graph import (
    get_default_graph, reset_default_graph, disable_eager_execution, enable_eager_execution,
    disable_v2_behavior, enable_v2_behavior, placeholder, placeholder_with_default,
    get_collection, get_collection_ref, add_to_collection, add_to_collections)
from finegrad._src.v1.session import Session, InteractiveSession, IndexedSlicesValue
from finegrad.compat.v1 import train, losses, nn, logging, initializers, random, io
from finegrad._src.v1.session_config import (ConfigProto, GPUOptions, GraphOptions,
                                             OptimizerOptions, RunOptions, RunMetadata)
from finegrad._src.v1.variable_scope import Variable, tables_initializer
from finegrad._src.v1.random_seeds import set_random_seed, get_seed
from finegrad._src.v1.ops import (log, random_normal, random_uniform,
                                  truncated_normal, random_shuffle, multinomial,
                                  random_gamma, random_poisson, reduce_sum, reduce_mean,
                                  reduce_max, reduce_min, reduce_prod, reduce_logsumexp,
                                  reduce_any, reduce_all, argmax, argmin, arg_max, arg_min,
                                  expand_dims, squeeze, div, mod, multiply, mul, sub, neg, Print,
                                  batch_gather)
from finegrad._src.v1.variable_scope import (AUTO_REUSE, GraphKeys, VariableScope,
                                             get_variable, get_variable_scope, variable_scope,
                                             global_variables, trainable_variables,
                                             local_variables, model_variables,
                                             variables_initializer, global_variables_initializer,
                                             local_variables_initializer, assign, assign_add,
                                             assign_sub)
from finegrad._src.v1.initializers import (zeros_initializer, ones_initializer,
                                           constant_initializer, random_normal_initializer,
                                           truncated_normal_initializer,
                                           random_uniform_initializer,
                                           variance_scaling_initializer,
                                           glorot_uniform_initializer, glorot_normal_initializer)
from finegrad._src.api.scopes import (control_dependencies, no_op, executing_eagerly,
                                  executing_eagerly_outside_functions)
from finegrad._src.shapes import (Dimension, TensorShape, dimension_at_index,
                                  dimension_value, disable_v2_tensorshape,
                                  enable_v2_tensorshape)
from finegrad._src.api.compat_v1 import to_float, to_double, to_int32, to_int64, name_scope

__all__ = ["custom_gradient", "RegisterGradient", "no_gradient", "GradientTape", "assert_equal",
           "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
           "assert_greater_equal", "assert_positive", "assert_non_negative", "assert_negative",
           "assert_non_positive", "assert_near", "assert_rank", "assert_rank_at_least",
           "assert_scalar", "assert_type", "Assert", "check_numerics", "function", "gradients",
           "AggregationMethod", "py_func", "Graph", "Operation", "get_default_session",
           "get_default_graph", "reset_default_graph", "disable_eager_execution",
           "enable_eager_execution", "disable_v2_behavior", "enable_v2_behavior", "placeholder",
           "placeholder_with_default", "get_collection", "get_collection_ref", "add_to_collection",
           "add_to_collections", "Session", "InteractiveSession", "IndexedSlicesValue", "train",
           "io", "losses", "nn", "logging", "initializers", "random", "ConfigProto", "GPUOptions",
           "GraphOptions", "OptimizerOptions", "RunOptions", "RunMetadata", "Variable",
           "tables_initializer",
           "set_random_seed", "get_seed", "log", "random_normal", "random_uniform",
           "truncated_normal", "random_shuffle", "multinomial", "random_gamma",
           "random_poisson", "reduce_sum", "reduce_mean", "reduce_max",
           "reduce_min", "reduce_prod", "reduce_logsumexp", "reduce_any", "reduce_all", "argmax",
           "argmin", "arg_max", "arg_min", "expand_dims", "squeeze", "div", "mod", "multiply",
           "mul", "sub", "neg", "Print", "batch_gather", "AUTO_REUSE", "GraphKeys", "VariableScope",
           "get_variable", "get_variable_scope", "variable_scope", "global_variables",
           "trainable_variables", "local_variables", "model_variables", "variables_initializer",
           "global_variables_initializer", "local_variables_initializer", "assign", "assign_add",
           "assign_sub", "zeros_initializer", "ones_initializer", "constant_initializer",
           "random_normal_initializer", "truncated_normal_initializer",
           "random_uniform_initializer", "variance_scaling_initializer",
           "glorot_uniform_initializer", "glorot_normal_initializer", "control_dependencies",
           "no_op", "executing_eagerly", "executing_eagerly_outside_functions", "Dimension",
           "TensorShape", "dimension_at_index", "dimension_value", "disable_v2_tensorshape",
           "enable_v2_tensorshape", "to_float", "to_double", "to_int32", "to_int64", "name_scope"]


def __getattr__(name):
    # TensorFlow's compat.v1 holds the top-level names too: they are looked up on the
    # package, complete by the time a user reaches this attribute (this module is one of its
    # submodules, so it is loaded; no import, which would make the package and its
    # submodule import each other)
    # (and TensorFlow 1's own names for functions of TF2's namespaces: `v1.aliases`)
    try:
        return _aliases.resolve(name) if name in _aliases.TF1_NAMES else \
            getattr(_sys.modules["finegrad"], name)
    except AttributeError:
        raise AttributeError(f"module 'finegrad.compat.v1' has no attribute {name!r}") from None
