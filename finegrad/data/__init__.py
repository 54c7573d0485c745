"""``tf.data``: the part of it training code uses (``Dataset`` and its iterator)."""
from finegrad._src.data.dataset import (
    AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, Iterator)
from finegrad.data import experimental

__all__ = ["AUTOTUNE", "Dataset", "INFINITE_CARDINALITY", "Iterator", "UNKNOWN_CARDINALITY",
           "experimental"]
