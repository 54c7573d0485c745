"""TensorFlow's ``tf.strings`` namespace: elementwise functions of string tensors."""
from finegrad._src.data.string_ops import (as_string, join, length, lower, reduce_join,
                                           regex_full_match, regex_replace, strip, substr,
                                           to_number, upper)

__all__ = ["as_string", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "strip", "substr", "to_number", "upper"]
