"""get_config / from_config round trips of every built-in layer: the rebuilt layer has the
same configuration, and with the same weights computes the same values."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import randn

L = fg.keras.layers

CASES = [
    (lambda: L.Dense(3, activation="relu", kernel_regularizer="l2"), (2, 4)),
    (lambda: L.EinsumDense("abc,cd->abd", (None, 3), bias_axes="d"), (2, 5, 4)),
    (lambda: L.Embedding(6, 2, mask_zero=True), None),
    (lambda: L.Activation("tanh"), (2, 4)), (lambda: L.ReLU(max_value=2.), (2, 4)),
    (lambda: L.LeakyReLU(0.1), (2, 4)), (lambda: L.PReLU(shared_axes=[1]), (2, 3, 4)),
    (lambda: L.ELU(0.5), (2, 4)), (lambda: L.Softmax(axis=1), (2, 4)),
    (lambda: L.Dropout(0.3, seed=2), (2, 4)), (lambda: L.SpatialDropout1D(0.3), (2, 3, 4)),
    (lambda: L.Flatten(), (2, 3, 4)), (lambda: L.Reshape((4, 3)), (2, 3, 4)),
    (lambda: L.Permute((2, 1)), (2, 3, 4)), (lambda: L.RepeatVector(2), (2, 4)),
    (lambda: L.Conv1D(2, 3, padding="causal", dilation_rate=2), (2, 6, 3)),
    (lambda: L.Conv2D(4, 3, strides=2, groups=2, padding="same"), (2, 5, 5, 2)),
    (lambda: L.Conv3D(2, 2), (1, 3, 3, 3, 2)),
    (lambda: L.Conv2DTranspose(2, 3, strides=2, output_padding=1), (1, 3, 3, 2)),
    (lambda: L.Conv1DTranspose(2, 3), (1, 4, 2)),
    (lambda: L.DepthwiseConv2D(2, depth_multiplier=2), (1, 4, 4, 2)),
    (lambda: L.SeparableConv2D(3, 2, depth_multiplier=2), (1, 4, 4, 2)),
    (lambda: L.MaxPooling2D(3, strides=1, padding="same"), (1, 4, 4, 2)),
    (lambda: L.AveragePooling1D(2), (1, 4, 2)), (lambda: L.GlobalMaxPooling1D(), (1, 4, 2)),
    (lambda: L.GlobalAveragePooling2D(keepdims=True), (1, 4, 4, 2)),
    (lambda: L.ZeroPadding2D(((1, 0), (2, 1))), (1, 3, 3, 2)),
    (lambda: L.Cropping2D(((1, 0), (0, 1))), (1, 3, 3, 2)),
    (lambda: L.UpSampling2D((2, 1)), (1, 3, 3, 2)), (lambda: L.UpSampling1D(3), (1, 3, 2)),
    (lambda: L.BatchNormalization(momentum=0.9, epsilon=0.01), (4, 3)),
    (lambda: L.LayerNormalization(axis=[1, 2]), (2, 3, 4)),
    (lambda: L.GroupNormalization(2), (2, 3, 4)),
    (lambda: L.SimpleRNN(3, return_sequences=True), (2, 4, 3)),
    (lambda: L.LSTM(3, return_state=True, unit_forget_bias=False), (2, 4, 3)),
    (lambda: L.GRU(3, reset_after=False, go_backwards=True), (2, 4, 3)),
    (lambda: L.MultiHeadAttention(2, 3, output_shape=5), (2, 3, 4)),
    (lambda: L.Attention(use_scale=True, score_mode="concat"), None),
    (lambda: L.Concatenate(axis=1), None), (lambda: L.Dot(axes=2, normalize=True), None),
]


def _inputs(layer, shape):
    if isinstance(layer, L.Embedding):
        return np.array([[1, 0, 5]])
    if isinstance(layer, (L.Attention, L.Concatenate, L.Dot)):
        return [randn(2, 3, 4), randn(2, 3, 4, seed=1)]
    return randn(*shape)


def _call(layer, x):
    if isinstance(layer, L.MultiHeadAttention):
        return layer(x, x)
    return layer(x)


@pytest.mark.parametrize("make,shape", CASES)
def test_round_trip(make, shape):
    layer = make()
    x = _inputs(layer, shape)
    out = _call(layer, x)
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    _call(clone, x)
    clone.set_weights(layer.get_weights())
    for a, b in zip(fg.nest.flatten(_call(clone, x)), fg.nest.flatten(out), strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_keras_written_configs_with_quantization_options_load():
    config = L.Dense(3).get_config()
    config.update(quantization_config=None, lora_rank=None)
    assert L.Dense.from_config(config).units == 3
    assert L.Embedding(4, 2, quantization_config=None).input_dim == 4
    layer = L.EinsumDense("ab,bc->ac", 2, lora_rank=4)     # LoRA from the config
    layer.build((None, 3))
    assert layer.lora_enabled and layer.lora_kernel_a.shape == (3, 4)
    int4 = {"module": "keras.quantizers", "class_name": "Int4QuantizationConfig",
            "config": {"weight_quantizer": None, "activation_quantizer": None,
                       "block_size": 64}, "registered_name": None}
    assert L.Dense(3, quantization_config=int4).quantization_config.block_size == 64
    awq = {"module": "keras.quantizers", "class_name": "AWQConfig",
           "config": {"dataset": None, "tokenizer": None, "group_size": 32,
                      "num_grid_points": 5}, "registered_name": None}
    assert L.Dense(3, quantization_config=awq).quantization_config.num_grid_points == 5
    with pytest.raises(TypeError, match="Could not locate class 'NoSuchConfig'"):
        L.Dense(3, quantization_config={"class_name": "NoSuchConfig", "config": {}})


def test_keras_3_configs_rebuild_our_layers():
    from layer_parity import keras_module
    keras = keras_module()
    for theirs in (keras.layers.Dense(3, activation="relu"), keras.layers.Embedding(5, 2),
                   keras.layers.EinsumDense("ab,bc->ac", 4, bias_axes="c"),
                   keras.layers.Conv2D(2, 3, padding="same"), keras.layers.LSTM(3),
                   keras.layers.MultiHeadAttention(2, 3), keras.layers.BatchNormalization()):
        config = {k: v for k, v in theirs.get_config().items() if k != "dtype"}
        ours = getattr(L, type(theirs).__name__).from_config(config)
        assert ours.get_config()["name"] == config["name"]


@pytest.mark.parametrize("make,shape", CASES)
def test_configs_travel_both_ways_with_keras(make, shape):
    from layer_parity import keras_module
    keras = keras_module()
    ours = make()
    config = {k: v for k, v in ours.get_config().items() if k != "dtype"}
    theirs = getattr(keras.layers, type(ours).__name__).from_config(config)
    back = {k: v for k, v in theirs.get_config().items() if k != "dtype"}
    again = type(ours).from_config(back)
    assert type(again) is type(ours)
