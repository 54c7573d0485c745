"""``tf.data``: the part of it training code uses (``Dataset`` and its iterator)."""
from finegrad._src.data.dataset import (  # noqa: F401
    AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, Iterator)
from finegrad.data import experimental  # noqa: F401

__all__ = ["AUTOTUNE", "Dataset", "INFINITE_CARDINALITY", "Iterator", "UNKNOWN_CARDINALITY",
           "experimental"]
