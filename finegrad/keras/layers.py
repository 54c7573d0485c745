"""Keras layers: the `Layer` base class and the built-in layers."""
from finegrad._src.keras.input_layer import Input, InputLayer
from finegrad._src.keras.layer import Layer

__all__ = ["Input", "InputLayer", "Layer"]
