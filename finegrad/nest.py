"""TensorFlow's ``tf.nest``: flatten nested structures of lists, tuples, dicts and namedtuples.

The implementation is `finegrad._src.api.nest`.
"""
from finegrad._src.api.nest import (is_nested, flatten, pack_sequence_as, assert_same_structure,
                                    map_structure)

__all__ = ["is_nested", "flatten", "pack_sequence_as", "assert_same_structure", "map_structure"]
