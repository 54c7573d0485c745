"""TensorFlow's ``tf.io`` namespace: TFRecord files (`TFRecordWriter`, `TFRecordOptions`)."""
from finegrad._src.data.tfrecord_io import TFRecordOptions, TFRecordWriter

__all__ = ["TFRecordOptions", "TFRecordWriter"]
