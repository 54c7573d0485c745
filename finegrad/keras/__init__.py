"""Keras 3's API on finegrad's engine (``tf.keras`` after ``import finegrad as tf``).

``finegrad.keras.ops`` holds the names of `finegrad.ops` (Keras 3's ``keras.ops``); it is
imported at its first use, so that ``import finegrad`` alone imports no ops and has no
``tf.ops``.

>>> import finegrad as tf
>>> tf.keras.layers.Layer.__name__
'Layer'
>>> from finegrad.keras import ops
>>> float(ops.add(1.0, 2.0))
3.0
"""
import importlib as _importlib
from typing import Any as _Any

from finegrad._src.keras.dtype_policies import DTypePolicy
from finegrad._src.keras.input_layer import Input
from finegrad._src.keras.input_spec import InputSpec
from finegrad._src.keras.nodes import KerasTensor
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.model import Model
from finegrad._src.keras.quantizers import Quantizer
from finegrad._src.keras.sequential import Sequential
from finegrad._src.keras.dtype_policies import KerasVariable as Variable
from finegrad.keras import (activations, backend, callbacks, config, constraints,
                            dtype_policies, initializers, layers, losses, metrics,
                            mixed_precision, models, optimizers, quantizers, regularizers, saving,
                            utils)

__all__ = ["DTypePolicy", "Input", "InputSpec", "KerasTensor", "Layer", "Model", "Quantizer",
           "Sequential", "Variable", "activations", "backend", "callbacks", "config", "constraints",
           "dtype_policies", "initializers", "layers", "losses", "metrics", "mixed_precision",
           "models", "ops", "optimizers", "quantizers", "regularizers", "saving", "utils"]


def __getattr__(name: str) -> _Any:
    """``ops``: finegrad.keras.ops (`finegrad.ops`'s names), imported now."""
    if name == "ops":
        return _importlib.import_module("finegrad.keras.ops")
    raise AttributeError(f"module 'finegrad.keras' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | {"ops"})
