"""TensorFlow's ``tf.autodiff`` namespace."""
from finegrad._src.ad.forward import ForwardAccumulator

__all__ = ["ForwardAccumulator"]
