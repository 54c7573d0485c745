"""Layers are compositions of finegrad ops, so their derivatives of second order, in forward
and reverse mode, match finite differences (float64)."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import randn

L = fg.keras.layers
F64 = dict(dtype="float64")

CASES = [
    (lambda: L.Dense(3, activation="tanh", **F64), (2, 4)),
    (lambda: L.Conv2D(2, 2, padding="same", activation="tanh", **F64), (1, 3, 3, 2)),
    (lambda: L.Conv2DTranspose(2, 2, strides=2, **F64), (1, 2, 2, 2)),
    (lambda: L.DepthwiseConv2D(2, **F64), (1, 3, 3, 2)),
    (lambda: L.Conv3D(2, 2, **F64), (1, 3, 3, 3, 1)),
    (lambda: L.LayerNormalization(**F64), (2, 4)),
    (lambda: L.GroupNormalization(2, **F64), (2, 4)),
    (lambda: L.LSTM(2, **F64), (1, 3, 2)), (lambda: L.GRU(2, **F64), (1, 3, 2)),
    (lambda: L.AveragePooling2D(2, strides=1, padding="same", **F64), (1, 3, 3, 1)),
    (lambda: L.UpSampling2D(interpolation="bilinear", **F64), (1, 2, 2, 1)),
    (lambda: L.Softmax(**F64), (2, 3)), (lambda: L.Attention(**F64), None),
    (lambda: L.MultiHeadAttention(2, 2, **F64), (1, 2, 3)),
]


@pytest.mark.parametrize("make,shape", CASES)
def test_second_order_both_modes(make, shape):
    layer = make()
    if isinstance(layer, L.Attention):
        q, v = randn(1, 2, 3, dtype=np.float64), randn(1, 3, 3, seed=1, dtype=np.float64)
        layer([q, v])
        fg.testing.check_gradients(lambda a, b: layer([a, b]), [q, v], order=2)
        return
    x = randn(*shape, dtype=np.float64)
    call = (lambda a: layer(a, a)) if isinstance(layer, L.MultiHeadAttention) else layer
    call(x)
    fg.testing.check_gradients(call, [x], order=2)


def test_batch_norm_training_second_order():
    bn = L.BatchNormalization(**F64)
    x = randn(4, 3, dtype=np.float64)
    bn(x)
    fg.testing.check_gradients(lambda a: bn(a, training=True), [x], order=2)
