"""SimpleRNN, LSTM, GRU (and RNN over their cells): step-by-step NumPy references, masks,
finite differences, and Keras 3's outputs and gradients on the same weights."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers


def _sig(x):
    return 1 / (1 + np.exp(-x))


def test_lstm_matches_a_numpy_step_loop():
    layer = L.LSTM(3, return_sequences=True, return_state=True)
    x = randn(2, 4, 5)
    seq, h_last, c_last = layer(x)
    k, rk, b = (w.numpy() for w in layer.weights)
    np.testing.assert_array_equal(b[3:6], np.ones(3))       # unit_forget_bias
    h = c = np.zeros((2, 3), np.float32)
    for t in range(4):
        z = x[:, t] @ k + h @ rk + b
        i, f, g, o = np.split(z, 4, axis=-1)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        h = _sig(o) * np.tanh(c)
        np.testing.assert_allclose(seq.numpy()[:, t], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h_last.numpy(), h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c_last.numpy(), c, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_matches_a_numpy_step_loop(reset_after):
    layer = L.GRU(3, reset_after=reset_after, bias_initializer="random_normal")
    x = randn(2, 4, 5)
    out = layer(x).numpy()
    k, rk, b = (w.numpy() for w in layer.weights)
    assert b.shape == ((2, 9) if reset_after else (9,))
    bx, bh = (b[0], b[1]) if reset_after else (b, np.zeros(9, np.float32))
    h = np.zeros((2, 3), np.float32)
    for t in range(4):
        xz, xr, xh = np.split(x[:, t] @ k + bx, 3, axis=-1)
        inner = h @ rk + bh
        z, r = _sig(xz + inner[:, :3]), _sig(xr + inner[:, 3:6])
        rec = r * inner[:, 6:] if reset_after else (r * h) @ rk[:, 6:]
        h = z * h + (1 - z) * np.tanh(xh + rec)
    np.testing.assert_allclose(out, h, rtol=1e-5, atol=1e-6)


def test_simple_rnn_mask_keeps_the_state_and_go_backwards():
    layer = L.SimpleRNN(2, return_sequences=True, return_state=True)
    x = randn(1, 4, 3)
    mask = fg.constant([[True, True, False, False]])
    seq, h = layer(fg.constant(x), mask=mask)
    s = seq.numpy()
    np.testing.assert_array_equal(s[0, 2], s[0, 1])
    np.testing.assert_array_equal(s[0, 3], s[0, 1])
    np.testing.assert_array_equal(h.numpy(), s[:, 1])
    rev = L.SimpleRNN(2, go_backwards=True)
    rev(x)
    rev.set_weights(layer.get_weights())
    fwd = L.SimpleRNN(2)
    fwd(x)
    fwd.set_weights(layer.get_weights())
    np.testing.assert_allclose(rev(x).numpy(), fwd(x[:, ::-1]).numpy(), rtol=1e-6)


@pytest.mark.parametrize("make", [lambda: L.SimpleRNN(2, dtype="float64"),
                                  lambda: L.LSTM(2, dtype="float64"),
                                  lambda: L.GRU(2, dtype="float64")])
def test_finite_differences(make):
    layer = make()
    x = randn(2, 3, 3, dtype=np.float64)
    layer(x)
    fg.testing.check_gradients(lambda t: layer(t), [x], order=1)


def test_dropout_only_in_training():
    layer = L.LSTM(3, dropout=0.5, recurrent_dropout=0.5, seed=1)
    x = randn(2, 4, 5)
    a, b = layer(x).numpy(), layer(x).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(layer(x, training=True).numpy(), a)


def test_initial_state_and_cells():
    cell = L.GRUCell(3)
    rnn = L.RNN(cell, return_state=True)
    x = randn(2, 4, 5)
    h0 = randn(2, 3, seed=9)
    out, h = rnn(fg.constant(x), initial_state=[fg.constant(h0)])
    state = fg.constant(h0)
    for t in range(4):
        _, [state] = cell(fg.constant(x[:, t]), [state])
    np.testing.assert_allclose(h.numpy(), state.numpy(), rtol=1e-6)


def test_state_outputs_are_a_tuple_as_in_keras():
    out = L.LSTM(2, return_state=True)(randn(2, 3, 4))
    assert isinstance(out, tuple) and len(out) == 3
    assert isinstance(L.Bidirectional(L.GRU(2, return_state=True))(randn(2, 3, 4)), tuple)


def test_stateful_carries_states_across_calls():
    x = randn(2, 6, 3)
    whole = L.LSTM(4)
    expected = whole(x).numpy()
    layer = L.LSTM(4, stateful=True)
    layer(x[:, :3])
    layer.set_weights(whole.get_weights())
    layer.reset_states()
    layer(x[:, :3])
    np.testing.assert_allclose(layer(x[:, 3:]).numpy(), expected, rtol=1e-5, atol=1e-6)
    layer.reset_state()
    np.testing.assert_allclose(layer(x[:, :3]).numpy(), whole(x[:, :3]).numpy(), rtol=1e-5,
                               atol=1e-6)
    assert len(layer.weights) == 3          # the states are not weights
    with pytest.raises(ValueError, match="static batch size"):
        L.GRU(2, stateful=True)(fg.keras.Input((3, 2)))


def test_stateful_matches_keras():
    keras = keras_module()
    ours, theirs = L.GRU(3, stateful=True), keras.layers.GRU(3, stateful=True)
    x = randn(2, 6, 4)
    theirs(x[:, :3])
    theirs.set_weights([randn(*w.shape, seed=i + 1) * 0.5 for i, w in enumerate(theirs.weights)])
    theirs.reset_state()
    ours(x[:, :3])
    ours.set_weights(theirs.get_weights())
    ours.reset_state()
    for part in (x[:, :3], x[:, 3:]):
        np.testing.assert_allclose(ours(part).numpy(), np.asarray(theirs(part)), rtol=1e-5,
                                   atol=1e-6)


CASES = [("SimpleRNN", dict(units=3)), ("SimpleRNN", dict(units=3, return_sequences=True,
                                                          activation="relu")),
         ("LSTM", dict(units=3)), ("LSTM", dict(units=4, return_sequences=True,
                                                return_state=True)),
         ("LSTM", dict(units=3, go_backwards=True, unit_forget_bias=False)),
         ("GRU", dict(units=3)), ("GRU", dict(units=3, return_sequences=True,
                                              return_state=True)),
         ("GRU", dict(units=3, reset_after=False)), ("GRU", dict(units=2, use_bias=False))]


@pytest.mark.parametrize("name,kwargs", CASES)
def test_matches_keras(name, kwargs):
    keras = keras_module()
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    theirs.build((2, 5, 4))
    theirs.set_weights([randn(*w.shape, seed=i + 1) * 0.5 for i, w in enumerate(theirs.weights)])
    assert_matches_keras(ours, theirs, [randn(2, 5, 4)], rtol=1e-4, atol=1e-5)
    assert_config_keys_match(ours, theirs)


@pytest.mark.parametrize("name", ["SimpleRNN", "LSTM", "GRU"])
def test_mask_matches_keras(name):
    keras = keras_module()
    mask = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 0]], bool)

    def call(layer, xs, kwargs):
        return layer(xs[0], mask=xs[1])
    kwargs = dict(units=3, return_sequences=True, return_state=True)
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    theirs.build((2, 5, 4))
    theirs.set_weights([randn(*w.shape, seed=i + 1) * 0.5 for i, w in enumerate(theirs.weights)])
    assert_matches_keras(ours, theirs, [randn(2, 5, 4), mask], call=call, rtol=1e-4, atol=1e-5)


def test_stacked_cells_equal_stacked_layers():
    x = randn(2, 5, 4)
    rnn = L.RNN([L.LSTMCell(3), L.GRUCell(2)], return_sequences=True, return_state=True)
    seq, (h1, c1), (h2,) = rnn(x)
    lstm, gru = L.LSTM(3, return_sequences=True), L.GRU(2, return_sequences=True)
    mid = lstm(x)
    gru(mid)
    lstm.set_weights(rnn.get_weights()[:3])
    gru.set_weights(rnn.get_weights()[3:])
    mid = lstm(x)
    np.testing.assert_allclose(seq.numpy(), gru(mid).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h1.numpy(), mid.numpy()[:, -1], rtol=1e-5, atol=1e-6)
    clone = L.RNN.from_config(rnn.get_config())
    assert [type(c).__name__ for c in clone.cell.cells] == ["LSTMCell", "GRUCell"]


def test_stacked_cells_match_keras():
    keras = keras_module()
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)

    def call(layer, xs, kwargs):
        return layer(xs[0], mask=xs[1])

    def make(m):
        return m.layers.RNN([m.layers.SimpleRNNCell(3), m.layers.LSTMCell(2)],
                            return_sequences=True, return_state=True)
    ours, theirs = make(fg.keras), make(keras)
    theirs.build((2, 5, 4))
    theirs.set_weights([randn(*w.shape, seed=i + 1) * 0.5 for i, w in enumerate(theirs.weights)])

    def flat(layer, xs, kwargs):
        return fg.nest.flatten(list(call(layer, xs, kwargs)))
    assert_matches_keras(ours, theirs, [randn(2, 5, 4), mask], call=flat, rtol=1e-4, atol=1e-5)
