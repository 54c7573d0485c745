"""TensorFlow's ``tf.compat.v1`` namespace: the names of TensorFlow 1 that finegrad has.

Functions here run eagerly, as in TensorFlow 2, until ``disable_eager_execution()`` (or inside
``with Graph().as_default():``): then ops build a graph that a `Session` runs (see
docs/tf1_graphs.md). As in TensorFlow, the names of the
top-level namespace are also reachable here (``tf.compat.v1.reduce_sum``, ``.nn``, ...).
"""
from finegrad._src.ad.custom import custom_gradient  # noqa: F401
from finegrad._src.ad.register import RegisterGradient, no_gradient  # noqa: F401
from finegrad._src.ad.tape import GradientTape  # noqa: F401
from finegrad._src.api.debugging import (assert_equal, assert_none_equal, assert_less,  # noqa: F401
                                     assert_less_equal, assert_greater, assert_greater_equal,
                                     assert_positive, assert_non_negative, assert_negative,
                                     assert_non_positive, assert_near, assert_rank,
                                     assert_rank_at_least, assert_scalar, assert_type, Assert,
                                     check_numerics)
from finegrad._src.graph.function import function  # noqa: F401
from finegrad._src.v1.gradients import gradients, AggregationMethod  # noqa: F401
from finegrad._src.graph.pyfunc import numpy_function as py_func  # noqa: F401
from finegrad._src.v1.graphs import Graph, Operation, get_default_session  # noqa: F401
from finegrad._src.v1.default_graph import (  # noqa: F401
    get_default_graph, reset_default_graph, disable_eager_execution, enable_eager_execution,
    disable_v2_behavior, enable_v2_behavior, placeholder, placeholder_with_default,
    get_collection, get_collection_ref, add_to_collection, add_to_collections)
from finegrad._src.v1.session import Session, InteractiveSession, IndexedSlicesValue  # noqa: F401
from finegrad.compat.v1 import train, losses, nn, logging, initializers, random  # noqa: F401
from finegrad._src.v1.session_config import (ConfigProto, GPUOptions, GraphOptions,  # noqa: F401
                                             RunOptions, RunMetadata)
from finegrad._src.v1.variable_scope import Variable, tables_initializer  # noqa: F401
from finegrad._src.v1.random_seeds import set_random_seed, get_seed  # noqa: F401
from finegrad._src.v1.ops import (log, random_normal, random_uniform,  # noqa: F401
                                  truncated_normal, random_shuffle, reduce_sum, reduce_mean,
                                  reduce_max, reduce_min, reduce_prod, reduce_logsumexp,
                                  reduce_any, reduce_all, argmax, argmin, arg_max, arg_min,
                                  expand_dims, squeeze, div, mod, multiply, mul, sub, neg, Print)
from finegrad._src.v1.variable_scope import (AUTO_REUSE, GraphKeys, VariableScope,  # noqa: F401
                                             get_variable, get_variable_scope, variable_scope,
                                             global_variables, trainable_variables,
                                             local_variables, model_variables,
                                             variables_initializer, global_variables_initializer,
                                             local_variables_initializer, assign, assign_add,
                                             assign_sub)
from finegrad._src.v1.initializers import (zeros_initializer, ones_initializer,  # noqa: F401
                                           constant_initializer, random_normal_initializer,
                                           truncated_normal_initializer,
                                           random_uniform_initializer,
                                           variance_scaling_initializer,
                                           glorot_uniform_initializer, glorot_normal_initializer)
from finegrad._src.api.scopes import (control_dependencies, no_op, executing_eagerly,  # noqa: F401
                                  executing_eagerly_outside_functions)
from finegrad._src.shapes import (Dimension, TensorShape, dimension_at_index,  # noqa: F401
                                  dimension_value, disable_v2_tensorshape,
                                  enable_v2_tensorshape)
from finegrad._src.api.compat_v1 import (to_float, to_double, to_int32, to_int64,  # noqa: F401
                                          name_scope)


def __getattr__(name):
    # TensorFlow's compat.v1 holds the top-level names too; `finegrad` itself is complete by
    # the time a user reaches this attribute, so it is looked up then, not at import
    import finegrad
    try:
        return getattr(finegrad, name)
    except AttributeError:
        raise AttributeError(f"module 'finegrad.compat.v1' has no attribute {name!r}") from None


__all__ = sorted(n for n in dir() if not n.startswith("_"))
