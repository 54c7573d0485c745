"""Keras ops written once with other ops (each function takes the backend first): the lowest
layer of every backend (`finegrad._src.backends.assemble`)."""
from finegrad._src.backends.composite import (adjoints, arrays, core, ctc, image, image_filters,
                                              image_warp, math, nn, numpy, selection)

LAYERS = (numpy, arrays, selection, nn, math, core, image, image_filters, image_warp, adjoints,
          ctc)
