"""Attention and MultiHeadAttention: closed forms, masks, finite differences, and Keras 3's
outputs and gradients on the same weights."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_attention_closed_form_and_masks():
    q, v = randn(2, 3, 4), randn(2, 5, 4, seed=1)
    out, w = L.Attention()([q, v], return_attention_scores=True)
    expected_w = _softmax(q @ v.transpose(0, 2, 1))
    np.testing.assert_allclose(w.numpy(), expected_w, rtol=1e-5)
    np.testing.assert_allclose(out.numpy(), expected_w @ v, rtol=1e-5, atol=1e-6)
    vmask = np.array([[True] * 3 + [False] * 2] * 2)
    qmask = np.array([[True, False, True]] * 2)
    out, w = L.Attention()([q, v], mask=[fg.constant(qmask), fg.constant(vmask)],
                           return_attention_scores=True)
    assert np.abs(w.numpy()[..., 3:]).max() < 1e-6
    assert not out.numpy()[:, 1].any()
    causal = L.Attention()([q, q], use_causal_mask=True, return_attention_scores=True)[1]
    assert np.abs(np.triu(causal.numpy()[0], 1)).max() < 1e-6


def test_multi_head_attention_closed_form():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=2)
    q, v = randn(1, 4, 5), randn(1, 6, 5, seed=1)
    out, scores = mha(q, v, return_attention_scores=True)
    (wq, bq, wk, bk, wv, bv, wo, bo) = (w.numpy() for w in mha.weights)
    assert wq.shape == (5, 2, 3) and wo.shape == (2, 2, 5)
    qp = np.einsum("btd,dnh->btnh", q, wq) + bq
    kp = np.einsum("bsd,dnh->bsnh", v, wk) + bk
    vp = np.einsum("bsd,dnh->bsnh", v, wv) + bv
    s = _softmax(np.einsum("btnh,bsnh->bnts", qp / np.sqrt(3), kp))
    np.testing.assert_allclose(scores.numpy(), s, rtol=1e-5, atol=1e-6)
    o = np.einsum("bnts,bsnh->btnh", s, vp)
    np.testing.assert_allclose(out.numpy(), np.einsum("btnh,nhd->btd", o, wo) + bo, rtol=1e-4,
                               atol=1e-5)


def test_multi_head_attention_finite_differences():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=2, dtype="float64")
    q, v = randn(1, 3, 4, dtype=np.float64), randn(1, 2, 4, seed=1, dtype=np.float64)
    mha(q, v)
    fg.testing.check_gradients(lambda a, b: mha(a, b, use_causal_mask=False), [q, v],
                               order=1)


@pytest.mark.parametrize("kwargs", [{}, dict(use_scale=True), dict(score_mode="concat"),
                                    dict(score_mode="concat", use_scale=True)])
def test_attention_matches_keras(kwargs):
    keras = keras_module()
    ours, theirs = L.Attention(**kwargs), keras.layers.Attention(**kwargs)
    inputs = [randn(2, 3, 4), randn(2, 5, 4, seed=1), randn(2, 5, 4, seed=2)]
    theirs(inputs)
    if theirs.weights:
        theirs.set_weights([np.float32(1.3 + i) for i in range(len(theirs.weights))])
    assert_matches_keras(ours, theirs, inputs)
    assert_config_keys_match(ours, theirs)


def test_attention_masks_match_keras():
    keras = keras_module()
    qm = np.array([[1, 0, 1], [1, 1, 1]], bool)
    vm = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 1]], bool)

    def call(layer, xs, kwargs):
        return layer([xs[0], xs[1]], mask=[xs[2], xs[3]], return_attention_scores=True)
    assert_matches_keras(L.Attention(), keras.layers.Attention(),
                         [randn(2, 3, 4), randn(2, 5, 4, seed=1), qm, vm], call=call)


def test_attention_causal_matches_keras():
    keras = keras_module()

    def call(layer, xs, kwargs):
        return layer([xs[0], xs[1]], use_causal_mask=True)
    assert_matches_keras(L.Attention(), keras.layers.Attention(),
                         [randn(2, 4, 3), randn(2, 4, 3, seed=1)], call=call)


MHA = [dict(num_heads=2, key_dim=3), dict(num_heads=3, key_dim=2, value_dim=4, use_bias=False),
       dict(num_heads=2, key_dim=2, output_shape=6), dict(num_heads=1, key_dim=4, use_gate=True)]


@pytest.mark.parametrize("scores", [False, True])
@pytest.mark.parametrize("kwargs", MHA)
def test_multi_head_attention_matches_keras(kwargs, scores):
    keras = keras_module()
    ours, theirs = L.MultiHeadAttention(**kwargs), keras.layers.MultiHeadAttention(**kwargs)
    q, v, k = randn(2, 3, 5), randn(2, 4, 5, seed=1), randn(2, 4, 5, seed=2)

    def call(layer, xs, kw):
        return layer(xs[0], xs[1], key=xs[2], return_attention_scores=scores)
    call(theirs, [q, v, k], {})
    theirs.set_weights([randn(*w.shape, seed=i + 1) * 0.5 for i, w in enumerate(theirs.weights)])
    assert_matches_keras(ours, theirs, [q, v, k], call=call, rtol=1e-4, atol=1e-5)
    assert_config_keys_match(ours, theirs, ignore=("sliding_window",))


@pytest.mark.parametrize("masks", ["attention", "causal", "both"])
def test_multi_head_attention_masks_match_keras(masks):
    keras = keras_module()
    kwargs = dict(num_heads=2, key_dim=3)
    ours, theirs = L.MultiHeadAttention(**kwargs), keras.layers.MultiHeadAttention(**kwargs)
    q, v = randn(2, 4, 5), randn(2, 4, 5, seed=1)
    am = np.random.default_rng(3).random((2, 4, 4)) > 0.3
    am[:, :, 0] = True

    def call(layer, xs, kw):
        return layer(xs[0], xs[1], attention_mask=None if masks == "causal" else xs[2],
                     use_causal_mask=masks != "attention", return_attention_scores=True)
    call(theirs, [q, v, am], {})
    theirs.set_weights([randn(*w.shape, seed=i + 1) * 0.5 for i, w in enumerate(theirs.weights)])
    assert_matches_keras(ours, theirs, [q, v, am], call=call, rtol=1e-4, atol=1e-5)


def test_multi_head_attention_over_two_axes_matches_keras():
    keras = keras_module()
    kwargs = dict(num_heads=2, key_dim=2, attention_axes=(1, 2))
    ours, theirs = L.MultiHeadAttention(**kwargs), keras.layers.MultiHeadAttention(**kwargs)
    q, v = randn(2, 3, 2, 4), randn(2, 2, 3, 4, seed=1)

    def call(layer, xs, kw):
        return layer(xs[0], xs[1])
    call(theirs, [q, v], {})
    theirs.set_weights([randn(*w.shape, seed=i + 1) * 0.5 for i, w in enumerate(theirs.weights)])
    assert_matches_keras(ours, theirs, [q, v], call=call, rtol=1e-4, atol=1e-5)


def test_additive_attention_closed_form():
    layer = L.AdditiveAttention()
    q, v = randn(2, 3, 4), randn(2, 5, 4, seed=1)
    out, w = layer([q, v], return_attention_scores=True)
    s = (np.tanh(q[:, :, None] + v[:, None]) * layer.scale.numpy()).sum(-1)
    np.testing.assert_allclose(w.numpy(), _softmax(s), rtol=1e-5)
    np.testing.assert_allclose(out.numpy(), _softmax(s) @ v, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("use_scale", [True, False])
def test_additive_attention_matches_keras(use_scale):
    keras = keras_module()
    ours = L.AdditiveAttention(use_scale=use_scale)
    theirs = keras.layers.AdditiveAttention(use_scale=use_scale)
    qm = np.array([[1, 0, 1], [1, 1, 1]], bool)
    vm = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 1]], bool)

    def call(layer, xs, kwargs):
        return layer([xs[0], xs[1]], mask=[xs[2], xs[3]])
    assert_matches_keras(ours, theirs, [randn(2, 3, 4), randn(2, 5, 4, seed=1), qm, vm],
                         call=call)
    assert_config_keys_match(ours, theirs)
