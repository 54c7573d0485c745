"""TensorFlow's ``tf.compat.v1`` namespace: the names of TensorFlow 1 that finegrad has.

Functions here behave as in TensorFlow 2 with eager execution enabled (which is what
``tf.compat.v1`` code gets after ``enable_v2_behavior``). As in TensorFlow, the names of the
top-level namespace are also reachable here (``tf.compat.v1.reduce_sum``, ``.nn``, ...).
"""
import sys as _sys

from finegrad._src.ad.custom import custom_gradient
from finegrad._src.ad.register import RegisterGradient, no_gradient
from finegrad._src.ad.tape import GradientTape
from finegrad._src.api.debugging import (assert_equal, assert_none_equal, assert_less,
                                     assert_less_equal, assert_greater, assert_greater_equal,
                                     assert_positive, assert_non_negative, assert_negative,
                                     assert_non_positive, assert_near, assert_rank,
                                     assert_rank_at_least, assert_scalar, assert_type, Assert,
                                     check_numerics)
from finegrad._src.graph.tracing.function import gradients, function
from finegrad._src.graph.override import get_default_graph
from finegrad._src.api.scopes import (control_dependencies, no_op, executing_eagerly,
                                  executing_eagerly_outside_functions)
from finegrad._src.shapes import (Dimension, TensorShape, dimension_at_index,
                                  dimension_value)
from finegrad._src.api.compat_v1 import (to_float, to_double, to_int32, to_int64, name_scope,
                                         enable_eager_execution, enable_v2_behavior)

__all__ = ["custom_gradient", "RegisterGradient", "no_gradient", "GradientTape", "assert_equal",
           "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
           "assert_greater_equal", "assert_positive", "assert_non_negative", "assert_negative",
           "assert_non_positive", "assert_near", "assert_rank", "assert_rank_at_least",
           "assert_scalar", "assert_type", "Assert", "check_numerics", "gradients", "function",
           "get_default_graph", "control_dependencies", "no_op", "executing_eagerly",
           "executing_eagerly_outside_functions", "Dimension", "TensorShape", "dimension_at_index",
           "dimension_value", "to_float", "to_double", "to_int32", "to_int64", "name_scope",
           "enable_eager_execution", "enable_v2_behavior"]


def __getattr__(name):
    # TensorFlow's compat.v1 holds the top-level names too: they are looked up on the
    # package, complete by the time a user reaches this attribute (this module is one of its
    # submodules, so it is loaded; no import, which would make the package and its
    # submodule import each other)
    try:
        return getattr(_sys.modules["finegrad"], name)
    except AttributeError:
        raise AttributeError(f"module 'finegrad.compat.v1' has no attribute {name!r}") from None
