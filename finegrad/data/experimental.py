"""``tf.data.experimental``: the constants training code still reads from it."""
from finegrad._src.data.dataset import (
    AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY)

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"]
