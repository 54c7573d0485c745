"""Keras 3.15's "int4" and "float8" quantization against Keras on TensorFlow (live, same
weights): the variables (names, dtypes, shapes, values), the dtype policies and configs, the
outputs and gradients, float8's delayed-scaling updates in training, and `.keras` files both
ways; the errors for what is not there (GPTQ, AWQ, int4 EinsumDense, float8 Embedding)."""
import numpy as np
import pytest

import finegrad as fg

K = fg.keras
L = fg.keras.layers
RNG = np.random.default_rng(24)


@pytest.fixture(scope="module")
def keras():
    pytest.importorskip("tensorflow")
    return pytest.importorskip("keras")


CASES = {   # name: (layer, args, build shape, inputs)
    "dense": ("Dense", (5,), (None, 4), lambda: RNG.normal(1.0, 3.0, (6, 4)).astype("float32")),
    "dense_odd": ("Dense", (3,), (None, 7), lambda: RNG.normal(size=(2, 7)).astype("float32")),
    "einsum": ("EinsumDense", ("abc,cd->abd", (2, 3), None, "d"), (5, 2, 4),
               lambda: RNG.normal(size=(5, 2, 4)).astype("float32")),
    "einsum_wide": ("EinsumDense", ("abc,bcd->ad", 3), (5, 2, 4),
                    lambda: RNG.normal(size=(5, 2, 4)).astype("float32")),
    "einsum_transposed": ("EinsumDense", ("abc,dc->adb", (3, 2)), (5, 2, 4),
                          lambda: RNG.normal(size=(5, 2, 4)).astype("float32")),
    "embedding": ("Embedding", (7, 3), (5, 2),
                  lambda: RNG.integers(0, 7, size=(5, 2)).astype("int32")),
}


def _pair(keras, case):
    name, args, shape, _ = CASES[case]
    ours, theirs = getattr(L, name)(*args), getattr(keras.layers, name)(*args)
    ours.build(shape)
    theirs.build(shape)
    weights = [RNG.normal(size=w.shape).astype("float32") for w in ours.weights]
    ours.set_weights(weights)
    theirs.set_weights(weights)
    return ours, theirs


def _run(layer, x, training, framework):
    """Outputs, and the gradients of a weighted sum of squares with respect to the inputs
    (not for an embedding) and the trainable weights (Keras's under `tf.function`: its
    float8 custom gradients take ``variables=``, which TensorFlow's eager tape refuses)."""
    tf = fg
    if framework == "keras":
        import tensorflow as tf

    def step(xt):
        with tf.GradientTape() as tape:
            if x.dtype.kind == "f":
                tape.watch(xt)
            y = layer(xt, training=training)
            loss = tf.reduce_sum(y * y * np.arange(1, 1 + y.shape[-1], dtype="float32"))
        sources = ([xt] if x.dtype.kind == "f" else []) + \
            [w.value if framework == "keras" else w for w in layer.trainable_weights]
        return y, tape.gradient(loss, sources)
    y, grads = (tf.function(step) if framework == "keras" else step)(tf.constant(x))
    return y.numpy(), [None if g is None else tf.convert_to_tensor(g).numpy() for g in grads]


def _same_weights(ours, theirs):
    assert [w.name for w in ours.weights] == [w.name for w in theirs.weights]
    assert [w.trainable for w in ours.weights] == [w.trainable for w in theirs.weights]
    for w, v in zip(ours.weights, theirs.weights, strict=True):
        assert w.dtype.name == v.dtype, w.name
        np.testing.assert_allclose(w.numpy(), np.asarray(v), rtol=1e-6, atol=1e-7,
                                   err_msg=w.name)


def _same_results(a, b, rtol=1e-5):
    np.testing.assert_allclose(a[0], b[0], rtol=rtol, atol=1e-5)
    assert len(a[1]) == len(b[1])
    for g, h in zip(a[1], b[1], strict=True):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", ["dense", "dense_odd", "embedding", "einsum", "einsum_wide",
                                  "einsum_transposed"])
@pytest.mark.parametrize("block", ["default", -1, None, 2])
@pytest.mark.parametrize("lora", [False, True])
def test_int4_equals_keras(keras, case, block, lora):
    if lora and case == "einsum_transposed":
        pytest.skip("Keras 3.15 applies the equation to the LoRA factors: it raises here")
    ours, theirs = _pair(keras, case)
    if lora:
        ours.enable_lora(2)
        theirs.enable_lora(2)
        lora_weights = [RNG.normal(size=w.shape).astype("float32") for w in ours.weights]
        ours.set_weights(lora_weights)
        theirs.set_weights(lora_weights)
    if block == "default":
        ours.quantize("int4")
        theirs.quantize("int4")
    else:
        ours.quantize("int4", config=K.quantizers.Int4QuantizationConfig(block_size=block))
        theirs.quantize("int4", config=keras.quantizers.Int4QuantizationConfig(
            block_size=block))
    assert ours.dtype_policy.name == theirs.dtype_policy.name
    assert ours.get_config()["dtype"] == theirs.get_config()["dtype"]
    assert ours.get_config()["quantization_config"] == \
        keras.saving.serialize_keras_object(theirs.quantization_config)
    _same_weights(ours, theirs)
    x = CASES[case][3]()
    _same_results(_run(ours, x, None, "fg"), _run(theirs, x, None, "keras"))
    assert ours.compute_output_shape(x.shape) == tuple(theirs.compute_output_shape(x.shape))
    if lora and case != "embedding":     # Keras's property: unpacked values plus the update
        np.testing.assert_allclose(ours.kernel.numpy(), np.asarray(theirs.kernel), rtol=1e-5,
                                   atol=1e-5)


def test_int4_is_close_to_the_float_layer_and_packs_two_per_byte():
    layer = L.Dense(6, kernel_initializer=K.initializers.GlorotUniform(seed=3))
    layer.build((None, 256))
    x = np.random.default_rng(3).normal(size=(64, 256)).astype("float32")
    before = layer(x).numpy()
    layer.quantize("int4")     # two groups of 128 rows
    assert layer._kernel.shape == (256, 3) and layer.kernel_scale.shape == (2, 6)
    assert layer.kernel.shape == (256, 6)      # Keras's property: the unpacked values
    np.testing.assert_array_equal(layer.g_idx.numpy(), np.arange(256) // 128)
    after = layer(x).numpy()
    # 4 bits over each group's range: rounding errors of about range / 15 / sqrt(12) per
    # weight, about 7% of the outputs' root mean square here
    rms = np.sqrt(np.mean(np.square(before)))
    assert np.sqrt(np.mean(np.square(after - before))) < 0.12 * rms
    assert not np.allclose(after, before)


@pytest.mark.parametrize("case", ["dense", "einsum"])
@pytest.mark.parametrize("training", [True, False])
def test_float8_equals_keras(keras, case, training):
    ours, theirs = _pair(keras, case)
    ours.quantize("float8")
    theirs.quantize("float8")
    assert ours.dtype_policy.name == theirs.dtype_policy.name == "float8_from_float32"
    assert ours.get_config()["dtype"] == theirs.get_config()["dtype"]
    _same_weights(ours, theirs)
    x = CASES[case][3]() * 40.0      # past e4m3's precision near its largest values
    for _ in range(3):
        a, b = _run(ours, x, training, "fg"), _run(theirs, x, training, "keras")
        _same_results(a, b)
        # move the scales and histories as an optimizer with overwrite_with_gradient does
        for w, v, g, h in zip(ours.trainable_weights, theirs.trainable_weights, a[1][1:],
                              b[1][1:], strict=True):
            if w.overwrite_with_gradient and g is not None:
                w.assign(g)
                v.assign(h)
    if training:
        assert ours.inputs_scale.numpy() != 1.0 and ours.kernel_amax_history.numpy()[0] > 0


def _float8_model(k, layers_module):
    model = k.Sequential([k.Input((4,)), layers_module.Dense(6, activation="relu"),
                          layers_module.EinsumDense("ab,bc->ac", 2, bias_axes="c")])
    return model


@pytest.mark.parametrize("optimizer", ["sgd", "adam_accumulating", "loss_scaled"])
def test_float8_training_equals_keras(keras, optimizer):
    ours, theirs = _float8_model(K, L), _float8_model(keras, keras.layers)
    theirs.set_weights(ours.get_weights())
    ours.quantize("float8")
    theirs.quantize("float8")

    def make(k):
        if optimizer == "sgd":
            return k.optimizers.SGD(0.01)
        if optimizer == "loss_scaled":
            return k.optimizers.LossScaleOptimizer(k.optimizers.SGD(0.01))
        return k.optimizers.Adam(0.01, gradient_accumulation_steps=2)
    ours.compile(make(K), "mse")
    theirs.compile(make(keras), "mse")
    x = RNG.normal(0.0, 3.0, (8, 4)).astype("float32")
    y = RNG.normal(size=(8, 2)).astype("float32")
    ours.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
    theirs.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
    for layer, other in zip(ours.layers, theirs.layers, strict=True):
        for w, v in zip(layer.weights, other.weights, strict=True):
            np.testing.assert_allclose(w.numpy(), np.asarray(v), rtol=2e-4, atol=1e-5,
                                       err_msg=f"{layer.name}/{w.name}")
    assert ours.layers[0].outputs_grad_amax_history.numpy()[0] > 0
    np.testing.assert_allclose(ours.predict(x, verbose=0), theirs.predict(x, verbose=0),
                               rtol=1e-4, atol=1e-5)


def _mixed_model(k, layers_module, quantizers_module):
    inputs = k.Input((3,), dtype="int32")
    x = layers_module.Embedding(7, 4, name="emb")(inputs)
    x = layers_module.Flatten()(x)
    x = layers_module.Dense(5, name="d4", activation="relu")(x)
    x = layers_module.Dense(4, name="d4b")(x)
    x = layers_module.Dense(3, name="d8")(x)
    x = layers_module.EinsumDense("ab,bc->ac", 4, name="e4")(x)
    x = layers_module.EinsumDense("ab,bc->ac", 2, name="f8")(x)
    model = k.Model(inputs, x)
    return model


def _quantize_mixed(model, quantizers_module):
    model.get_layer("emb").quantize("int4", config=quantizers_module.Int4QuantizationConfig(
        block_size=3))
    model.get_layer("d4").quantize("int4")
    model.get_layer("d4b").quantize("int4", config=quantizers_module.Int4QuantizationConfig(
        block_size=-1))
    model.get_layer("d8").quantize("int8")
    model.get_layer("e4").quantize("int4", config=quantizers_module.Int4QuantizationConfig(
        block_size=2))
    model.get_layer("f8").quantize("float8")


def test_quantized_files_travel_both_ways_with_keras(keras, tmp_path):
    pytest.importorskip("h5py")
    ours = _mixed_model(K, L, K.quantizers)
    theirs = _mixed_model(keras, keras.layers, keras.quantizers)
    theirs.set_weights(ours.get_weights())
    _quantize_mixed(ours, K.quantizers)
    _quantize_mixed(theirs, keras.quantizers)
    ids = RNG.integers(0, 7, size=(4, 3)).astype("int32")
    want = theirs.predict(ids, verbose=0)
    np.testing.assert_allclose(ours.predict(ids, verbose=0), want, rtol=1e-5, atol=1e-6)
    ours.save(str(tmp_path / "ours.keras"))
    theirs.save(str(tmp_path / "theirs.keras"))
    in_keras = keras.saving.load_model(str(tmp_path / "ours.keras"))
    in_ours = K.saving.load_model(str(tmp_path / "theirs.keras"))
    for model in (in_keras, in_ours):
        np.testing.assert_allclose(model.predict(ids, verbose=0), want, rtol=1e-5, atol=1e-6)
        assert [layer.dtype_policy.name for layer in model.layers[1:]] == [
            "int4/3_from_float32", "float32", "int4/128_from_float32", "int4/-1_from_float32",
            "int8_from_float32", "int4/2_from_float32", "float8_from_float32"]
    for layer, other in zip(in_ours.layers, in_keras.layers, strict=True):
        assert [w.dtype.name for w in layer.weights] == [w.dtype for w in other.weights]


def test_lora_is_merged_into_the_saved_weights_as_keras_does(keras, tmp_path):
    pytest.importorskip("h5py")
    import h5py

    def build(k, layers_module, mode):
        model = k.Sequential([k.Input((4,)), layers_module.Dense(3, name="d")])
        return model
    for mode in (None, "int8", "int4"):
        ours, theirs = build(K, L, mode), build(keras, keras.layers, mode)
        if mode:
            theirs.set_weights(ours.get_weights())
            ours.quantize(mode)
            theirs.quantize(mode)
        ours.layers[0].enable_lora(2)
        theirs.layers[0].enable_lora(2)
        weights = [RNG.normal(size=w.shape).astype("float32") if w.trainable or mode is None
                   else w.numpy() for w in ours.weights]     # (the quantized state kept)
        ours.set_weights(weights)
        theirs.set_weights(weights)
        ours.save_weights(str(tmp_path / "ours.weights.h5"))
        theirs.save_weights(str(tmp_path / "theirs.weights.h5"))
        with h5py.File(tmp_path / "ours.weights.h5") as f, \
                h5py.File(tmp_path / "theirs.weights.h5") as g:
            mine, want = f["layers/dense/vars"], g["layers/dense/vars"]
            assert sorted(mine) == sorted(want), mode
            for key in want:
                np.testing.assert_allclose(mine[key][()], want[key][()], rtol=1e-6,
                                           err_msg=f"{mode} {key}")
        ours.load_weights(str(tmp_path / "theirs.weights.h5"))
        assert not ours.layers[0].lora_kernel_b.numpy().any()


def test_model_quantize_filters_and_warnings(keras):
    model = K.Sequential([K.Input((3,), dtype="int32"), L.Embedding(7, 4, name="emb"),
                          L.Flatten(), L.Dense(2, name="head")])
    with pytest.warns(UserWarning, match="Embedding.quantize: Invalid quantization mode"):
        model.quantize("float8")      # the embedding has no float8: skipped with a warning
    assert model.get_layer("emb").quantization_mode is None
    assert model.get_layer("head").quantization_mode == "float8"
    other = K.Sequential([K.Input((3,)), L.Dense(2, name="a"), L.Dense(2, name="b")])
    other.quantize("int4", filters="^b$")
    assert [layer.quantization_mode for layer in other.layers] == [None, "int4"]
    other.quantize("int8", filters=lambda layer: layer.name == "a")
    assert other.get_layer("a").dtype_policy.name == "int8_from_float32"


def test_errors():
    dense = L.Dense(3)
    with pytest.raises(ValueError, match="Dense.quantize: Cannot quantize a layer that isn't "
                                         "yet built"):
        dense.quantize("int4")
    dense.build((None, 4))
    with pytest.raises(ValueError, match=r"Dense.quantize: Invalid quantization mode.*"
                                         r"Received: mode=int2"):
        dense.quantize("int2")
    with pytest.raises(ValueError, match="Contradictory arguments: mode='int8' but "
                                         "config.mode='int4'"):
        dense.quantize("int8", config=K.quantizers.Int4QuantizationConfig())
    with pytest.raises(ValueError, match="Dense.quantize: For AWQ, you must pass an "
                                         "`AWQConfig` object"):
        dense.quantize("awq")
    with pytest.raises(ValueError, match="block_size must be None, -1, or a positive"):
        K.quantizers.Int4QuantizationConfig(block_size=0)
    dense.quantize("float8")
    with pytest.raises(ValueError, match="already quantized with "
                                         "dtype_policy='float8_from_float32'"):
        dense.quantize("int4")
    table = L.Embedding(5, 2)
    table.build()
    with pytest.raises(NotImplementedError, match=r"Embedding.quantize: Invalid quantization "
                                                  r"mode. Expected one of \('int8', 'int4'\). "
                                                  r"Received: quantization_mode=float8"):
        table.quantize("float8")

    class MyDense(L.Dense):
        pass
    mine = MyDense(2)
    mine.build((None, 2))
    with pytest.raises(NotImplementedError, match="does not have a `quantize\\(\\)` method"):
        mine.quantize("int4")
    model = K.Sequential([K.Input((3,)), L.Dense(2)])
    with pytest.raises(ValueError, match="Sequential.quantize: For AWQ, you must pass"):
        model.quantize("awq")
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        model.quantize("int8", dataset=[1])


def test_weight_only_int8_config_equals_keras(keras):
    ours, theirs = _pair(keras, "dense")
    ours.quantize(config=K.quantizers.Int8QuantizationConfig(activation_quantizer=None))
    theirs.quantize(config=keras.quantizers.Int8QuantizationConfig(activation_quantizer=None))
    _same_weights(ours, theirs)
    x = CASES["dense"][3]()
    _same_results(_run(ours, x, None, "fg"), _run(theirs, x, None, "keras"))
    assert ours.get_config()["quantization_config"] == \
        keras.saving.serialize_keras_object(theirs.quantization_config)


# --- GPTQ ------------------------------------------------------------------------------------

GPTQ_SETTINGS = [dict(weight_bits=4, group_size=4), dict(weight_bits=8, group_size=-1),
                 dict(weight_bits=3, group_size=4, symmetric=True),
                 dict(weight_bits=2, group_size=8, activation_order=True),
                 dict(weight_bits=4, group_size=-1, activation_order=True, per_channel=False)]


@pytest.mark.parametrize("settings", GPTQ_SETTINGS)
def test_gptq_algorithm_equals_keras(keras, settings):
    """The Hessian of the calibration inputs and the column-by-column quantization with
    error feedback equal Keras's (``GPTQ.update_hessian_with_batch``,
    ``gptq_quantize_matrix``), blocks of 128 columns crossed."""
    from keras.src.quantizers.gptq import GPTQ, gptq_quantize_matrix
    from keras.src.quantizers.quantizers import GPTQQuantizer
    from finegrad._src.keras import gptq_algorithm
    rows = 136 if settings.get("group_size", -1) > 0 else 12
    w = RNG.normal(size=(rows, 5)).astype("float32")
    theirs_config = keras.quantizers.GPTQConfig(dataset=None, tokenizer=None, **settings)
    dense = keras.layers.Dense(5)
    dense.build((None, rows))
    dense.kernel.assign(w)
    dense.quantize("gptq", config=theirs_config)
    keras_gptq = GPTQ(dense, theirs_config)
    estimate = gptq_algorithm.HessianEstimate(rows)
    for _ in range(2):
        batch = RNG.normal(size=(3, 7, rows)).astype("float32")
        keras_gptq.update_hessian_with_batch(batch.reshape(-1, rows))
        estimate.update(batch)
    np.testing.assert_allclose(estimate.hessian, np.asarray(keras_gptq.hessian), rtol=1e-5,
                               atol=1e-5)
    inverse, diagonal = gptq_algorithm.damped_inverse(estimate.hessian, 0.01)
    want = gptq_quantize_matrix(
        w.T, inv_hessian=inverse, group_size=theirs_config.group_size,
        activation_order=theirs_config.activation_order, order_metric=diagonal,
        compute_scale_zero=GPTQQuantizer(theirs_config).find_params)
    ours = K.quantizers.GPTQConfig(dataset=None, tokenizer=None, **settings)
    got = gptq_algorithm.quantize_matrix(
        w.T, inverse, lambda x: gptq_algorithm.quantization_parameters(
            x, ours.weight_bits, ours.symmetric, ours.per_channel, ours.group_size),
        ours.group_size, ours.activation_order, diagonal)
    values, want_values = got[0], np.asarray(want[0])
    # (float32 sums in another order past the first block: a rare value one level away)
    assert np.abs(values - want_values).max() <= 1
    assert np.mean(values != want_values) <= 0.01
    for a, b in zip(got[1:], want[1:], strict=True):
        np.testing.assert_allclose(a, np.asarray(b).astype(a.dtype), rtol=1e-5, atol=1e-6)


def _gptq_model(k, layers_module):
    table = layers_module.Embedding(20, 8)
    first = k.Sequential([layers_module.Dense(12, activation="relu"), layers_module.Dense(8)])
    second = k.Sequential([layers_module.EinsumDense("abc,cd->abd", (None, 8),
                                                     activation="tanh")])
    return k.Sequential([k.Input((6,), dtype="int32"), table, first, second]), table, \
        [first, second]


def _gptq_config(quantizers_module, table, blocks, **settings):
    return quantizers_module.GPTQConfig(
        dataset=[np.arange(400) * 7 % 20], tokenizer=lambda s: s, num_samples=8,
        sequence_length=6, quantization_layer_structure={"pre_block_layers": [table],
                                                         "sequential_blocks": blocks},
        **settings)


@pytest.mark.parametrize("settings", GPTQ_SETTINGS[:3])
def test_gptq_model_quantize_against_keras(keras, settings, monkeypatch):
    """Variables, policies and configs as Keras's. Keras 3.15 records no Hessian in its
    model-level calibration (its hooks wrap ``layer.call``, which a quantized layer's
    ``__call__`` bypasses for ``quantized_call``), so its result is GPTQ with zero Hessians:
    finegrad's calibration with its Hessians zeroed gives Keras's values exactly; with the
    recorded Hessians (the algorithm Keras documents) the values differ."""
    from finegrad._src.keras import gptq_algorithm
    ours, table, blocks = _gptq_model(K, L)
    theirs, their_table, their_blocks = _gptq_model(keras, keras.layers)
    theirs.set_weights(ours.get_weights())
    ids = RNG.integers(0, 20, size=(5, 6)).astype("int32")
    theirs.quantize("gptq", config=_gptq_config(keras.quantizers, their_table, their_blocks,
                                                **settings))
    keras_out = theirs.predict(ids, verbose=0)
    twin, twin_table, twin_blocks = _gptq_model(K, L)
    twin.set_weights(ours.get_weights())
    with pytest.warns(UserWarning, match="Embedding.quantize"):
        ours.quantize("gptq", config=_gptq_config(K.quantizers, table, blocks, **settings))
    real = ours.predict(ids, verbose=0)
    monkeypatch.setattr(gptq_algorithm.HessianEstimate, "update", lambda self, x: None)
    with pytest.warns(UserWarning, match="Embedding.quantize"):
        twin.quantize("gptq", config=_gptq_config(K.quantizers, twin_table, twin_blocks,
                                                  **settings))
    for block, other in zip(twin_blocks, their_blocks, strict=True):
        for layer, their_layer in zip(block.layers, other.layers, strict=True):
            assert layer.dtype_policy.name == their_layer.dtype_policy.name
            assert layer.get_config()["dtype"] == keras.dtype_policies.serialize(
                their_layer.dtype_policy)
            _same_weights(layer, their_layer)
    np.testing.assert_allclose(twin.predict(ids, verbose=0), keras_out, rtol=1e-5, atol=1e-6)
    assert not np.allclose(real, keras_out)      # the recorded Hessians move the result


def test_gptq_files_travel_both_ways_with_keras(keras, tmp_path):
    pytest.importorskip("h5py")
    ours, table, blocks = _gptq_model(K, L)
    with pytest.warns(UserWarning):
        ours.quantize("gptq", config=_gptq_config(K.quantizers, table, blocks,
                                                  weight_bits=4, group_size=4))
    theirs, their_table, their_blocks = _gptq_model(keras, keras.layers)
    theirs.quantize("gptq", config=_gptq_config(keras.quantizers, their_table, their_blocks,
                                                weight_bits=8, group_size=-1))
    for block in their_blocks:      # (Keras 3.15 cannot save a config holding the layers)
        for layer in block.layers:
            layer.quantization_config.quantization_layer_structure = None
    ids = RNG.integers(0, 20, size=(5, 6)).astype("int32")
    ours.save(str(tmp_path / "ours.keras"))
    theirs.save(str(tmp_path / "theirs.keras"))
    in_keras = keras.saving.load_model(str(tmp_path / "ours.keras"))
    np.testing.assert_allclose(in_keras.predict(ids, verbose=0), ours.predict(ids, verbose=0),
                               rtol=1e-5, atol=1e-6)
    assert in_keras.layers[1].layers[0].dtype_policy.name == "gptq/4/4_from_float32"
    # Keras 3.15 writes no zero points for GPTQ (its save skips "kernel_zero" when it has no
    # merged LoRA zero point): its file cannot give the layer back, and finegrad says so
    with pytest.raises(ValueError, match="expected 5 variables, but received 4"):
        K.saving.load_model(str(tmp_path / "theirs.keras"))


def test_gptq_errors_and_the_float_kernel_before_calibration():
    dense = L.Dense(3)
    dense.build((None, 4))
    with pytest.raises(ValueError, match="For GPTQ, you must pass a `GPTQConfig`"):
        dense.quantize("gptq")
    with pytest.raises(ValueError, match="Unsupported weight_bits 5"):
        K.quantizers.GPTQConfig(dataset=None, tokenizer=None, weight_bits=5)
    x = RNG.normal(size=(2, 4)).astype("float32")
    before = dense(x).numpy()
    dense.quantize("gptq", config=K.quantizers.GPTQConfig(None, None, group_size=2))
    assert dense.dtype_policy.name == "gptq/4/2_from_float32"
    np.testing.assert_allclose(dense(x).numpy(), before)     # not calibrated yet
    with pytest.raises(NotImplementedError, match="lora is not currently supported with GPTQ"):
        dense.enable_lora(2)
    model = K.Sequential([K.Input((4,)), L.Dense(3)])
    with pytest.raises(ValueError, match="a valid quantization structure must be provided"):
        model.quantize("gptq", config=K.quantizers.GPTQConfig([[1]], lambda s: s))
    block = K.Sequential([L.Dense(2)])
    model = K.Sequential([K.Input((3,)), block])
    with pytest.raises(ValueError, match="requires a dataset and a tokenizer"):
        model.quantize("gptq", config=K.quantizers.GPTQConfig(
            None, None, quantization_layer_structure={"sequential_blocks": [block]}))
    with pytest.raises(ValueError, match="For AWQ, you must pass an `AWQConfig`"):
        model.quantize("awq")


@pytest.mark.parametrize("mode", ["int4", "float8"])
def test_mixed_precision_quantized_layers_equal_keras(keras, mode):
    import tensorflow as tf
    ours = L.Dense(4, dtype="mixed_float16")
    theirs = keras.layers.Dense(4, dtype="mixed_float16")
    ours.build((None, 6))
    theirs.build((None, 6))
    weights = [RNG.normal(size=w.shape).astype("float32") for w in ours.weights]
    ours.set_weights(weights)
    theirs.set_weights(weights)
    ours.quantize(mode)
    theirs.quantize(mode)
    want = "int4/128_from_mixed_float16" if mode == "int4" else "float8_from_mixed_float16"
    assert ours.dtype_policy.name == theirs.dtype_policy.name == want
    x = RNG.normal(size=(3, 6)).astype("float32")
    a = ours(fg.constant(x), training=True).numpy()
    b = theirs(tf.constant(x), training=True).numpy()
    assert a.dtype == b.dtype == np.float16
    np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-3)


def test_int8_refuses_a_float16_compute_dtype_as_keras():
    layer = L.Dense(2, dtype="mixed_float16")
    layer.build((None, 3))
    with pytest.raises(ValueError, match="Quantization mode='int8' doesn't work well with "
                                         "compute_dtype='float16'"):
        layer.quantize("int8")
