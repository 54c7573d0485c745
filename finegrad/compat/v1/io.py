"""TensorFlow's ``tf.compat.v1.io``: TF2's ``tf.io`` names and TensorFlow 1's
`tf_record_iterator`."""
from finegrad._src.data.tfrecord_io import TFRecordOptions, TFRecordWriter, tf_record_iterator

__all__ = ["TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]
