"""``tf.data``: the part of it training code uses (``Dataset`` and its iterator)."""
from finegrad._src.data.dataset import (
    AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, Iterator)
from finegrad._src.data.options import Options, ThreadingOptions
from finegrad._src.data.regrouping import DatasetSpec
from finegrad._src.data.text_files import FixedLengthRecordDataset, TextLineDataset
from finegrad._src.data.tfrecord_io import TFRecordDataset
from finegrad.data import experimental

__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "FixedLengthRecordDataset",
           "INFINITE_CARDINALITY", "Iterator", "Options", "TFRecordDataset", "TextLineDataset",
           "ThreadingOptions",
           "UNKNOWN_CARDINALITY",
           "experimental"]
