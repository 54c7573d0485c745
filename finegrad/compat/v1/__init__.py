"""TensorFlow's ``tf.compat.v1`` namespace: the names of TensorFlow 1 that finegrad has.

Functions here run eagerly, as in TensorFlow 2, until ``disable_eager_execution()`` (or inside
``with Graph().as_default():``): then ops build a graph that a `Session` runs (see
docs/tf1_graphs.md). As in TensorFlow, the names of the
top-level namespace are also reachable here (``tf.compat.v1.reduce_sum``, ``.nn``, ...).
"""
from finegrad._src.ad.custom import custom_gradient  # noqa: F401
from finegrad._src.ad.register import RegisterGradient, no_gradient  # noqa: F401
from finegrad._src.ad.tape import GradientTape  # noqa: F401
from finegrad._src.debugging import (assert_equal, assert_none_equal, assert_less,  # noqa: F401
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
from finegrad._src.scopes import (control_dependencies, no_op, executing_eagerly,  # noqa: F401
                                  executing_eagerly_outside_functions)
from finegrad._src.shapes import (Dimension, TensorShape, dimension_at_index,  # noqa: F401
                                  dimension_value, disable_v2_tensorshape,
                                  enable_v2_tensorshape)
from finegrad._src.scopes import name_scope as _name_scope
from finegrad._src.ops.array.structural import cast as _cast
from finegrad._src import dtypes as _dtypes


def __getattr__(name):
    # TensorFlow's compat.v1 holds the top-level names too; `finegrad` itself is complete by
    # the time a user reaches this attribute, so it is looked up then, not at import
    import finegrad
    try:
        return getattr(finegrad, name)
    except AttributeError:
        raise AttributeError(f"module 'finegrad.compat.v1' has no attribute {name!r}") from None


def to_float(x, name="ToFloat"):
    """``x`` cast to float32 (TensorFlow 1's ``tf.to_float``).

    >>> import finegrad as fg
    >>> fg.compat.v1.to_float(fg.constant([1, 2])).dtype
    finegrad.float32
    """
    return _cast(x, _dtypes.float32)


def to_double(x, name="ToDouble"):
    """``x`` cast to float64."""
    return _cast(x, _dtypes.float64)


def to_int32(x, name="ToInt32"):
    """``x`` cast to int32."""
    return _cast(x, _dtypes.int32)


def to_int64(x, name="ToInt64"):
    """``x`` cast to int64."""
    return _cast(x, _dtypes.int64)


def name_scope(name, default_name=None, values=None):
    """TensorFlow 1's ``name_scope(name, default_name, values)``: ``default_name`` when
    ``name`` is None; ``values`` is accepted and ignored.

    >>> import finegrad as fg
    >>> with fg.compat.v1.name_scope(None, "layer", []) as scope:
    ...     scope
    'layer/'
    """
    del values
    return _name_scope(default_name if name is None else name)
