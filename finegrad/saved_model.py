"""TensorFlow's ``tf.saved_model``: save a `Module`'s variables and traced functions (with
their custom gradients) and load them in another process, in finegrad's own directory format
(docs/saving.md; TensorFlow's ``saved_model.pb`` is neither written nor read)."""
from finegrad._src.graph.saved_model.load import LoadOptions, contains_saved_model, load
from finegrad._src.graph.saved_model.save import SaveOptions, save

__all__ = ["LoadOptions", "SaveOptions", "contains_saved_model", "load", "save"]
