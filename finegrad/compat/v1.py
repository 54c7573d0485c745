"""TensorFlow's ``tf.compat.v1`` namespace: the names of TensorFlow 1 that finegrad has.

Functions here behave as in TensorFlow 2 with eager execution enabled (which is what
``tf.compat.v1`` code gets after ``enable_v2_behavior``). As in TensorFlow, the names of the
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
from finegrad._src.graph.function import gradients, function  # noqa: F401
from finegrad._src.graph.override import get_default_graph  # noqa: F401
from finegrad._src.scopes import (control_dependencies, no_op, executing_eagerly,  # noqa: F401
                                  executing_eagerly_outside_functions)
from finegrad._src.shapes import (Dimension, TensorShape, dimension_at_index,  # noqa: F401
                                  dimension_value)
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


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Nothing to do: finegrad always executes eagerly outside `finegrad.function`.

    >>> import finegrad as fg
    >>> fg.compat.v1.enable_eager_execution()
    """
    del config, device_policy, execution_mode


def enable_v2_behavior():
    """Nothing to do: finegrad always behaves as TensorFlow 2.

    >>> import finegrad as fg
    >>> fg.compat.v1.enable_v2_behavior()
    """
