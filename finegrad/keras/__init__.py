"""Keras 3's API on finegrad's engine (``tf.keras`` after ``import finegrad as tf``).

>>> import finegrad as tf
>>> tf.keras.layers.Layer.__name__
'Layer'
"""
from finegrad._src.keras.dtype_policies import DTypePolicy
from finegrad._src.keras.input_layer import Input
from finegrad._src.keras.input_spec import InputSpec
from finegrad._src.keras.nodes import KerasTensor
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.model import Model
from finegrad._src.keras.sequential import Sequential
from finegrad._src.keras.dtype_policies import KerasVariable as Variable
from finegrad.keras import (activations, backend, callbacks, config, constraints,
                            dtype_policies, initializers, layers, losses, metrics,
                            mixed_precision, models, optimizers, quantizers, regularizers, saving,
                            utils)

__all__ = ["DTypePolicy", "Input", "InputSpec", "KerasTensor", "Layer", "Model", "Sequential",
           "Variable", "activations", "backend", "callbacks", "config", "constraints",
           "dtype_policies", "initializers", "layers", "losses", "metrics", "mixed_precision",
           "models", "optimizers", "quantizers", "regularizers", "saving", "utils"]
