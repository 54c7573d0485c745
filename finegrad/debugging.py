"""TensorFlow's ``tf.debugging`` namespace."""
from finegrad._src.api.debugging import (assert_equal, assert_none_equal, assert_less,
                                     assert_less_equal, assert_greater, assert_greater_equal,
                                     assert_positive, assert_non_negative, assert_negative,
                                     assert_non_positive, assert_near, assert_rank,
                                     assert_rank_at_least, assert_scalar, assert_type,
                                     assert_shapes, assert_all_finite, Assert, check_numerics,
                                     assert_integer, assert_rank_in, assert_same_float_dtype,
                                     is_numeric_tensor, enable_check_numerics,
                                     disable_check_numerics)
from finegrad._src.tracebacks import (enable_traceback_filtering, disable_traceback_filtering,
                                      is_traceback_filtering_enabled)

__all__ = ["assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_non_negative",
           "assert_negative", "assert_non_positive", "assert_near", "assert_rank",
           "assert_rank_at_least", "assert_scalar", "assert_type", "assert_shapes",
           "assert_all_finite", "Assert", "check_numerics", "assert_integer", "assert_rank_in",
           "assert_same_float_dtype", "is_numeric_tensor", "enable_check_numerics",
           "disable_check_numerics", "enable_traceback_filtering",
           "disable_traceback_filtering", "is_traceback_filtering_enabled"]
