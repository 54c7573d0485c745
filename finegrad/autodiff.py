"""TensorFlow's ``tf.autodiff`` namespace."""
from finegrad._src.ad.forward import ForwardAccumulator
from finegrad._src.ad.tape import GradientTape

__all__ = ["ForwardAccumulator", "GradientTape"]
