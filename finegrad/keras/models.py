"""``keras.models``: the model classes and `clone_model`."""
from finegrad._src.keras.cloning import clone_model
from finegrad._src.keras.model import Functional, Model
from finegrad._src.keras.sequential import Sequential

__all__ = ["Functional", "Model", "Sequential", "clone_model"]
