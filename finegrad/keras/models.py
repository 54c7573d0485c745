"""``keras.models``: the model classes, `clone_model`, and whole-model files."""
from finegrad._src.keras.cloning import clone_model
from finegrad._src.keras.model import Functional, Model
from finegrad._src.keras.model_files import load_model, model_from_json, save_model
from finegrad._src.keras.sequential import Sequential

__all__ = ["Functional", "Model", "Sequential", "clone_model", "load_model", "model_from_json",
           "save_model"]
