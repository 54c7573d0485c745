"""``keras.utils``: the progress bar and the structure helpers training code calls."""
from finegrad._src.keras.callbacks.progbar import Progbar
from finegrad._src.keras.data_adapters import (pack_x_y_sample_weight,
                                               unpack_x_y_sample_weight)

__all__ = ["Progbar", "pack_x_y_sample_weight", "unpack_x_y_sample_weight"]
