"""Keras 3's API on finegrad's engine (``tf.keras``)."""
from finegrad.keras import (activations, constraints, initializers, losses,  # noqa: F401
                            optimizers, regularizers)
