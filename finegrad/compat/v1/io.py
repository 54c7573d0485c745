"""TensorFlow's ``tf.compat.v1.io``: TF2's ``tf.io`` names and TensorFlow 1's
`tf_record_iterator`."""
from finegrad._src.data.example_parsing import (FixedLenFeature, FixedLenSequenceFeature,
                                                RaggedFeature, SparseFeature, VarLenFeature,
                                                parse_example, parse_single_example)
from finegrad._src.data.io_ops import (decode_base64, decode_compressed, decode_raw,
                                       encode_base64, matching_files, parse_tensor, read_file,
                                       serialize_tensor, write_file)
from finegrad._src.data.tfrecord_io import TFRecordOptions, TFRecordWriter, tf_record_iterator
from finegrad.io import gfile

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "RaggedFeature", "SparseFeature",
           "TFRecordOptions", "TFRecordWriter", "VarLenFeature", "decode_base64",
           "decode_compressed", "decode_raw", "encode_base64", "gfile", "matching_files",
           "parse_example", "parse_single_example", "parse_tensor", "read_file",
           "serialize_tensor", "tf_record_iterator", "write_file"]
