"""With seeded initializers, built-in layers start from Keras 3's exact weights: the shapes,
the fans (EinsumDense's input and output axes) and the initializers reach Keras's draws."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import keras_module

L = fg.keras.layers


def _make(module, name):
    init = module.initializers.GlorotUniform(seed=3)
    rec = module.initializers.Orthogonal(seed=4)
    bias = module.initializers.RandomNormal(seed=5)
    layers = module.layers
    return {
        "Dense": lambda: layers.Dense(4, kernel_initializer=init, bias_initializer=bias),
        "EinsumDense": lambda: layers.EinsumDense("abc,cde->abde", (None, 2, 3),
                                                  bias_axes="de", kernel_initializer=init),
        "Conv2D": lambda: layers.Conv2D(3, 2, kernel_initializer=init, bias_initializer=bias),
        "SeparableConv2D": lambda: layers.SeparableConv2D(3, 2, depthwise_initializer=init,
                                                          pointwise_initializer=init),
        "LSTM": lambda: layers.LSTM(3, kernel_initializer=init, recurrent_initializer=rec),
        "GRU": lambda: layers.GRU(3, kernel_initializer=init, recurrent_initializer=rec,
                                  bias_initializer=bias),
        "Embedding": lambda: layers.Embedding(6, 3, embeddings_initializer=bias),
        "MultiHeadAttention": lambda: layers.MultiHeadAttention(2, 3, kernel_initializer=init),
    }[name]()


SHAPES = {"Dense": (2, 5), "EinsumDense": (2, 4, 5), "Conv2D": (1, 4, 4, 2),
          "SeparableConv2D": (1, 4, 4, 2), "LSTM": (2, 3, 4), "GRU": (2, 3, 4),
          "Embedding": (2, 3), "MultiHeadAttention": (1, 3, 4)}


@pytest.mark.parametrize("name", list(SHAPES))
def test_seeded_weights_equal_keras(name):
    keras = keras_module()
    ours, theirs = _make(fg.keras, name), _make(keras, name)
    shape = SHAPES[name]
    if name == "MultiHeadAttention":
        ours.build(shape, shape)
        theirs.build(shape, shape)
    else:
        ours.build(shape)
        theirs.build(shape)
    mine, keras_weights = ours.get_weights(), theirs.get_weights()
    assert [w.shape for w in mine] == [w.shape for w in keras_weights]
    for a, b in zip(mine, keras_weights, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)   # Orthogonal: QR rounding
