"""Models built from the layers, trained with ``fit`` from Keras's initial weights, follow
Keras 3's training step for step: losses and final weights agree within float32 rounding."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import keras_module


def _conv_net(m):
    layers = m.layers
    return m.Sequential([m.Input((6, 6, 2)), layers.Conv2D(4, 3, padding="same"),
                         layers.BatchNormalization(), layers.ReLU(), layers.MaxPooling2D(),
                         layers.Flatten(), layers.Dense(3)])


def _recurrent_net(m):
    layers = m.layers
    inp = m.Input((5, 4))
    x = layers.Bidirectional(layers.GRU(3, return_sequences=True))(inp)
    x = layers.LayerNormalization()(layers.MultiHeadAttention(2, 2)(x, x))
    x = layers.LSTM(4)(x)
    return m.Model(inp, layers.Dense(3)(x))


@pytest.mark.parametrize("make,shape", [(_conv_net, (48, 6, 6, 2)),
                                        (_recurrent_net, (48, 5, 4))])
def test_fit_follows_keras(make, shape):
    keras = keras_module()
    rng = np.random.default_rng(0)
    x = rng.normal(size=shape).astype("float32")
    y = rng.integers(0, 3, size=(shape[0],))
    theirs, ours = make(keras), make(fg.keras)
    ours.set_weights(theirs.get_weights())
    for module, model in ((keras, theirs), (fg.keras, ours)):
        model.compile(optimizer=module.optimizers.SGD(0.1, momentum=0.9),
                      loss=module.losses.SparseCategoricalCrossentropy(from_logits=True))
    k = theirs.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0).history["loss"]
    f = ours.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0).history["loss"]
    np.testing.assert_allclose(f, k, rtol=1e-5)
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
