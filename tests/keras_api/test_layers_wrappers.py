"""Bidirectional and TimeDistributed: closed forms and Keras 3's values and gradients."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_matches_keras, keras_module, randn

L = fg.keras.layers


def test_bidirectional_is_forward_and_reversed_backward():
    layer = L.Bidirectional(L.GRU(3, return_sequences=True), merge_mode=None)
    x = randn(2, 4, 5)
    y, y_rev = layer(x)
    fw, bw = layer.forward_layer, layer.backward_layer
    assert bw.go_backwards and not fw.go_backwards
    assert len(layer.weights) == 6 and fw.name.startswith("forward_")
    np.testing.assert_allclose(y.numpy(), fw(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(y_rev.numpy(), bw(x).numpy()[:, ::-1], rtol=1e-6)
    summed = L.Bidirectional(L.SimpleRNN(2), merge_mode="sum")
    assert summed(x).shape == (2, 2)
    with pytest.raises(ValueError, match="merge_mode"):
        L.Bidirectional(L.LSTM(2), merge_mode="max")


def test_bidirectional_round_trip_and_states():
    layer = L.Bidirectional(L.LSTM(3, return_state=True))
    out = layer(randn(2, 4, 5))
    assert [tuple(o.shape) for o in out] == [(2, 6)] + [(2, 3)] * 4
    clone = L.Bidirectional.from_config(layer.get_config())
    assert clone.get_config()["layer"]["config"]["units"] == 3


def test_time_distributed_applies_per_step():
    dense = L.Dense(2)
    layer = L.TimeDistributed(dense)
    x = randn(3, 4, 5)
    y = layer(x).numpy()
    k, b = (w.numpy() for w in dense.weights)
    np.testing.assert_allclose(y, x @ k + b, rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape((None, 4, 5)) == (None, 4, 2)
    wrapped = L.TimeDistributed(L.Dense(2, dtype="float64"), dtype="float64")
    fg.testing.check_gradients(lambda t: wrapped(t), [randn(2, 3, 4, dtype=np.float64)],
                               order=1)


@pytest.mark.parametrize("rnn,merge", [("LSTM", "concat"), ("GRU", "sum"),
                                       ("SimpleRNN", "ave"), ("LSTM", "mul")])
@pytest.mark.parametrize("sequences", [False, True])
def test_bidirectional_matches_keras(rnn, merge, sequences):
    keras = keras_module()
    ours = L.Bidirectional(getattr(L, rnn)(3, return_sequences=sequences), merge_mode=merge)
    theirs = keras.layers.Bidirectional(getattr(keras.layers, rnn)(3,
                                                                   return_sequences=sequences),
                                        merge_mode=merge)
    theirs.build((2, 5, 4))
    theirs.set_weights([randn(*w.shape, seed=i + 1) * 0.5 for i, w in enumerate(theirs.weights)])
    assert_matches_keras(ours, theirs, [randn(2, 5, 4)], rtol=1e-4, atol=1e-5)


def test_bidirectional_states_and_mask_match_keras():
    keras = keras_module()
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)

    def call(layer, xs, kwargs):
        return layer(xs[0], mask=xs[1])
    ours = L.Bidirectional(L.LSTM(3, return_sequences=True, return_state=True))
    theirs = keras.layers.Bidirectional(keras.layers.LSTM(3, return_sequences=True,
                                                          return_state=True))
    theirs.build((2, 5, 4))
    theirs.set_weights([randn(*w.shape, seed=i + 1) * 0.5 for i, w in enumerate(theirs.weights)])
    assert_matches_keras(ours, theirs, [randn(2, 5, 4), mask], call=call, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("inner", ["Dense", "Conv1D"])
def test_time_distributed_matches_keras(inner):
    keras = keras_module()
    args = (3,) if inner == "Dense" else (2, 2)
    shape = (2, 4, 5) if inner == "Dense" else (2, 4, 5, 3)
    ours = L.TimeDistributed(getattr(L, inner)(*args))
    theirs = keras.layers.TimeDistributed(getattr(keras.layers, inner)(*args))
    theirs.build(shape)
    theirs.set_weights([randn(*w.shape, seed=i + 1) for i, w in enumerate(theirs.weights)])
    assert_matches_keras(ours, theirs, [randn(*shape)])


def test_spectral_normalization_divides_by_the_largest_singular_value():
    dense = L.Dense(3)
    layer = L.SpectralNormalization(dense, power_iterations=30)
    x = randn(2, 4)
    layer(x)
    # a fixed kernel, its singular values apart (the unseeded default's may lie close, and
    # 30 power iterations then stop short of the largest)
    dense.kernel.assign(randn(4, 3, seed=10))   # second singular value / largest: 0.22
    y = layer(x, training=True)
    assert abs(np.linalg.svd(dense.kernel.numpy(), compute_uv=False)[0] - 1.) < 1e-3
    np.testing.assert_allclose(y.numpy(), dense(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(layer(x).numpy(), y.numpy())          # inference: no update
    with pytest.raises(ValueError, match="power_iterations"):
        L.SpectralNormalization(L.Dense(2), power_iterations=0)


@pytest.mark.parametrize("inner", ["Dense", "Conv2D"])
def test_spectral_normalization_matches_keras(inner):
    keras = keras_module()
    args = (3,) if inner == "Dense" else (2, 3)
    shape = (2, 4) if inner == "Dense" else (1, 5, 5, 2)
    ours = L.SpectralNormalization(getattr(L, inner)(*args), power_iterations=2)
    theirs = keras.layers.SpectralNormalization(getattr(keras.layers, inner)(*args),
                                                power_iterations=2)
    out = assert_matches_keras(ours, theirs, [randn(*shape)], rtol=1e-5, atol=1e-6,
                               training=True)
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert out[0].shape[0] == shape[0]
