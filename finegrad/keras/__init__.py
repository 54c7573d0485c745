"""Keras 3's API on finegrad's engine (``tf.keras``)."""
from finegrad.keras import (activations, constraints, initializers, losses, metrics,  # noqa
                            optimizers, regularizers)
