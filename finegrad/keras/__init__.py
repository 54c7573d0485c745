"""Keras 3's API on finegrad's engine (``tf.keras`` after ``import finegrad as tf``).

>>> import finegrad as tf
>>> tf.keras.layers.Layer.__name__
'Layer'
"""
from finegrad._src.keras.input_layer import Input
from finegrad._src.keras.model import Model
from finegrad._src.keras.sequential import Sequential
from finegrad.keras import activations, constraints, initializers, regularizers  # noqa: F401
from finegrad.keras import layers

__all__ = ["Input", "Model", "Sequential", "activations", "constraints", "initializers",
           "layers", "regularizers"]
