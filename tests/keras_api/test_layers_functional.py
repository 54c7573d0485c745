"""Every built-in layer called on symbolic `Input`s (unknown batch size): the output's
static shape equals ``compute_output_shape``, and the functional `Model` computes what the
layer computes eagerly."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import randn

L = fg.keras.layers

CASES = [
    (lambda: L.Dense(3), (4,)), (lambda: L.EinsumDense("ab,bc->ac", 3), (4,)),
    (lambda: L.Activation("relu"), (4,)), (lambda: L.ReLU(), (4,)),
    (lambda: L.LeakyReLU(), (4,)), (lambda: L.PReLU(), (3, 4)), (lambda: L.ELU(), (4,)),
    (lambda: L.Softmax(), (4,)), (lambda: L.Dropout(0.5), (4,)),
    (lambda: L.SpatialDropout1D(0.5), (3, 4)), (lambda: L.SpatialDropout2D(0.5), (3, 3, 2)),
    (lambda: L.Flatten(), (3, 4)), (lambda: L.Reshape((2, -1)), (3, 4)),
    (lambda: L.Permute((2, 1)), (3, 4)), (lambda: L.RepeatVector(2), (4,)),
    (lambda: L.Lambda(lambda x: x * 2.), (4,)), (lambda: L.Conv1D(2, 2), (5, 3)),
    (lambda: L.Conv2D(2, 2, padding="same"), (4, 4, 3)), (lambda: L.Conv3D(2, 2), (3, 3, 3, 2)),
    (lambda: L.Conv1DTranspose(2, 3, strides=2), (4, 3)),
    (lambda: L.Conv2DTranspose(2, 3, strides=2, padding="same"), (3, 3, 2)),
    (lambda: L.DepthwiseConv2D(2), (4, 4, 3)), (lambda: L.SeparableConv2D(2, 2), (4, 4, 3)),
    (lambda: L.MaxPooling1D(), (4, 3)), (lambda: L.MaxPooling2D(), (4, 4, 3)),
    (lambda: L.AveragePooling1D(2), (4, 3)), (lambda: L.AveragePooling2D(2), (4, 4, 3)),
    (lambda: L.GlobalAveragePooling1D(), (4, 3)), (lambda: L.GlobalMaxPooling1D(), (4, 3)),
    (lambda: L.GlobalAveragePooling2D(), (4, 4, 3)), (lambda: L.GlobalMaxPooling2D(), (4, 4, 3)),
    (lambda: L.ZeroPadding1D(), (4, 3)), (lambda: L.ZeroPadding2D(), (4, 4, 3)),
    (lambda: L.Cropping2D(1), (4, 4, 3)), (lambda: L.UpSampling1D(), (4, 3)),
    (lambda: L.UpSampling2D(), (4, 4, 3)), (lambda: L.BatchNormalization(), (4, 3)),
    (lambda: L.LayerNormalization(), (4, 3)), (lambda: L.GroupNormalization(3), (4, 3)),
    (lambda: L.SimpleRNN(3), (4, 3)), (lambda: L.LSTM(3, return_sequences=True), (4, 3)),
    (lambda: L.GRU(3), (4, 3)),
]


@pytest.mark.parametrize("make,shape", CASES)
def test_symbolic_call_and_model(make, shape):
    layer = make()
    inp = fg.keras.Input(shape)
    out = layer(inp)
    expected = tuple(layer.compute_output_shape((None,) + shape))
    assert tuple(out.shape) == expected
    model = fg.keras.Model(inp, out)
    x = randn(2, *shape)
    np.testing.assert_allclose(model(x).numpy(), layer(x).numpy(), rtol=1e-6, atol=1e-6)


def test_merging_and_attention_in_a_model():
    a, b = fg.keras.Input((3, 4)), fg.keras.Input((5, 4))
    att = L.MultiHeadAttention(2, 3)(a, b)
    dot = L.Dot(axes=2)([a, b])
    merged = L.Concatenate()([L.Add()([att, a]), L.Attention()([a, b]), dot])
    model = fg.keras.Model([a, b], merged)
    x, y = randn(2, 3, 4), randn(2, 5, 4, seed=1)
    assert model([x, y]).shape == (2, 3, 13)


def test_rnn_state_outputs_and_mask_in_a_model():
    inp = fg.keras.Input((5,), dtype="int32")
    e = L.Embedding(10, 4, mask_zero=True)(inp)
    seq, h, c = L.LSTM(3, return_sequences=True, return_state=True)(e)
    model = fg.keras.Model(inp, [seq, h, c])
    ids = np.array([[1, 2, 3, 0, 0]])
    seq, h, c = model(ids)
    np.testing.assert_allclose(h.numpy(), seq.numpy()[:, 2], rtol=1e-6)


def test_sequences_of_unknown_length_seq2seq():
    enc_in = fg.keras.Input((None, 5))
    _, h, c = L.LSTM(8, return_state=True)(enc_in)
    dec_in = fg.keras.Input((None, 6))
    seq, _, _ = L.LSTM(8, return_sequences=True, return_state=True)(dec_in,
                                                                  initial_state=[h, c])
    out = L.TimeDistributed(L.Dense(6, activation="softmax"))(seq)
    bi = L.Bidirectional(L.GRU(3, return_sequences=True))(dec_in)
    assert tuple(out.shape) == (None, None, 6) and tuple(bi.shape) == (None, None, 6)
    assert tuple(enc_in.shape) == (None, None, 5) and tuple(h.shape) == (None, 8)
    model = fg.keras.Model([enc_in, dec_in], [out, bi])
    y, b = model([randn(2, 7, 5), randn(2, 4, 6, seed=1)])
    assert y.shape == (2, 4, 6) and b.shape == (2, 4, 6)
    np.testing.assert_allclose(y.numpy().sum(-1), np.ones((2, 4)), rtol=1e-5)


def test_conv3d_transpose_in_a_model():
    inp = fg.keras.Input((2, 3, 2, 2))
    layer = L.Conv3DTranspose(2, 2, strides=2, padding="same")
    out = layer(inp)
    assert tuple(out.shape) == (None, 4, 6, 4, 2) == layer.compute_output_shape((None, 2, 3, 2, 2))
    x = randn(2, 2, 3, 2, 2)
    np.testing.assert_allclose(fg.keras.Model(inp, out)(x).numpy(), layer(x).numpy(), rtol=1e-6)


def test_embedding_masks_flow_like_keras():
    from layer_parity import keras_module
    keras = keras_module()

    def make(m):
        layers = m.layers
        inp = m.Input((5,), dtype="int32")
        e = layers.Embedding(10, 4, mask_zero=True)(inp)
        a = layers.GlobalAveragePooling1D()(layers.MultiHeadAttention(2, 2)(e, e))
        s = layers.LSTM(3)(e)
        att = layers.GlobalAveragePooling1D()(layers.Attention()([e, e]))
        return m.Model(inp, [a, s, att])
    theirs, ours = make(keras), make(fg.keras)
    ours.set_weights(theirs.get_weights())
    ids = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0]])
    for a, b in zip(ours(ids), theirs(ids), strict=True):
        np.testing.assert_allclose(a.numpy(), np.asarray(b), rtol=1e-5, atol=1e-6)
