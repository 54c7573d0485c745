"""Keras ops written once with other ops (each function takes the backend first): the lowest
layer of every backend (`finegrad._src.backends.assemble`)."""
from finegrad._src.backends.composite import arrays, core, ctc, image, math, nn, numpy
from finegrad._src.backends.composite import selection

LAYERS = (numpy, arrays, selection, nn, math, core, image, ctc)
