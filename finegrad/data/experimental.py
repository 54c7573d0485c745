"""``tf.data.experimental``: the constants training code still reads from it."""
from finegrad._src.data.dataset import (  # noqa: F401
    AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY)

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"]
