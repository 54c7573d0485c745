"""Keras 3.15's "awq" mode, GPTQ/AWQ of three-axis kernels (attention projections), custom
weight and activation quantizers, and ``layer.kernel`` of quantized layers, against Keras on
TensorFlow (live, same weights and calibration data); the errors for bad input."""
import numpy as np
import pytest

import finegrad as fg

K = fg.keras
L = fg.keras.layers
RNG = np.random.default_rng(2024)


@pytest.fixture(scope="module")
def keras():
    pytest.importorskip("tensorflow")
    return pytest.importorskip("keras")


def _same_weights(ours, theirs, atol=1e-7):
    assert [w.name for w in ours.weights] == [w.name for w in theirs.weights]
    for w, v in zip(ours.weights, theirs.weights, strict=True):
        assert w.dtype.name == v.dtype, w.name
        np.testing.assert_allclose(w.numpy(), np.asarray(v), rtol=1e-6, atol=atol,
                                   err_msg=w.name)


def _pair(keras, name, args, shape):
    ours, theirs = getattr(L, name)(*args), getattr(keras.layers, name)(*args)
    ours.build(shape)
    theirs.build(shape)
    rng = np.random.default_rng(7)     # (each test's draws independent of the order)
    weights = [rng.normal(size=w.shape).astype("float32") for w in ours.weights]
    ours.set_weights(weights)
    theirs.set_weights(weights)
    return ours, theirs


# --- AWQ -------------------------------------------------------------------------------------

@pytest.mark.parametrize("group_size,grid", [(-1, 20), (4, 20), (3, 5)])
def test_awq_algorithm_equals_keras(keras, group_size, grid):
    from keras.src.quantizers.awq import AWQ, awq_quantize_matrix
    from finegrad._src.keras import awq_algorithm
    rng = np.random.default_rng(11)
    w = rng.normal(size=(6, 10)).astype("float32")
    dense = keras.layers.Dense(6)
    dense.build((None, 10))
    estimate = awq_algorithm.MagnitudeEstimate(10)
    keras_awq = AWQ(dense, keras.quantizers.AWQConfig(None, None))
    for scale in (1.0, 4.0):
        batch = (rng.normal(size=(3, 5, 10)) * scale * np.linspace(0.05, 3, 10)).astype(
            "float32")
        batch[..., 4] = 0.0     # a dead channel: its magnitude counts as 1
        estimate.update(batch)
        keras_awq.update_activation_magnitudes(batch)
    np.testing.assert_array_equal(estimate.magnitudes,
                                  np.asarray(keras_awq.activation_magnitudes))
    want = awq_quantize_matrix(w, estimate.magnitudes, num_grid_points=grid,
                               group_size=group_size)
    got = awq_algorithm.quantize_matrix(w, estimate.magnitudes, grid, group_size)
    assert not np.allclose(got[3], 1.0)      # the search moved the scales
    np.testing.assert_array_equal(got[0], np.asarray(want[0]).astype("uint8"))
    for a, b in zip(got[1:], want[1:], strict=True):
        np.testing.assert_allclose(a, np.asarray(b).astype(a.dtype), rtol=1e-6, atol=1e-7)


LAYER_CASES = {   # name: (layer, args, build shape)
    "dense": ("Dense", (6,), (None, 10)),
    "einsum": ("EinsumDense", ("abc,cd->abd", (None, 5), None, "d"), (None, 3, 10)),
    "qkv": ("EinsumDense", ("abc,cde->abde", (None, 2, 3), None, "de"), (None, 4, 8)),
    "attention_output": ("EinsumDense", ("abcd,cde->abe", (None, 9), None, "e"), (None, 4, 2, 3)),
}


def _calibrated_pair(keras, case, mode, config_args, inputs):
    """The layer quantized and calibrated on ``inputs`` by Keras's own per-layer objects
    (``GPTQ`` / ``AWQ``) and by finegrad's."""
    from keras.src.quantizers.awq import AWQ
    from keras.src.quantizers.gptq import GPTQ
    from finegrad._src.keras import awq_algorithm, gptq_algorithm
    from finegrad._src.keras.layers import calibrated_layers
    ours, theirs = _pair(keras, *LAYER_CASES[case])
    config_class = "AWQConfig" if mode == "awq" else "GPTQConfig"
    theirs_config = getattr(keras.quantizers, config_class)(None, None, **config_args)
    ours_config = getattr(K.quantizers, config_class)(None, None, **config_args)
    theirs.quantize(mode, config=theirs_config)
    ours.quantize(mode, config=ours_config)
    keras_object = (AWQ if mode == "awq" else GPTQ)(theirs, theirs_config)
    rows = calibrated_layers.rows_of(ours)
    estimate = (awq_algorithm.MagnitudeEstimate if mode == "awq" else
                gptq_algorithm.HessianEstimate)(rows)
    for x in inputs:
        flat = x.reshape(-1, rows)
        estimate.update(flat)
        if mode == "awq":
            keras_object.update_activation_magnitudes(flat)
        else:
            keras_object.update_hessian_with_batch(flat)
    (keras_object.quantize_layer if mode == "awq" else
     keras_object.quantize_and_correct_layer)()
    calibrated_layers.quantize_layer(
        ours, estimate.magnitudes if mode == "awq" else estimate.hessian, ours_config)
    return ours, theirs


@pytest.mark.parametrize("case", list(LAYER_CASES))
@pytest.mark.parametrize("mode,config_args", [
    ("awq", dict(group_size=-1)), ("awq", dict(group_size=4, num_grid_points=8)),
    ("gptq", dict(weight_bits=4, group_size=4)), ("gptq", dict(weight_bits=8, group_size=-1))])
def test_calibrated_layers_equal_keras(keras, case, mode, config_args):
    """A calibrated GPTQ/AWQ layer (three-axis attention kernels included) holds Keras's
    variables and values, computes Keras's outputs, and ``layer.kernel`` is Keras's (the
    unpacked quantized values)."""
    shape = LAYER_CASES[case][2]
    rng = np.random.default_rng(13)
    inputs = [(rng.normal(size=(2,) + shape[1:]) * np.linspace(0.1, 2, shape[-1])).astype(
        "float32") for _ in range(3)]
    ours, theirs = _calibrated_pair(keras, case, mode, config_args, inputs)
    assert ours.dtype_policy.name == theirs.dtype_policy.name
    assert ours.get_config()["dtype"] == keras.dtype_policies.serialize(theirs.dtype_policy)
    _same_weights(ours, theirs, atol=1e-6)
    np.testing.assert_array_equal(ours.kernel.numpy(), np.asarray(theirs.kernel))
    x = inputs[0]
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-5, atol=1e-5)


JAX_SCRIPT = """
import numpy as np
from keras.src.quantizers.awq import awq_quantize_matrix
from finegrad._src.keras import awq_algorithm
rng = np.random.default_rng(0)
w = rng.normal(size=(8, 8)).astype("float32")
magnitudes = np.abs(rng.normal(size=8)).astype("float32")
want = awq_quantize_matrix(w, magnitudes, num_grid_points=20, group_size=-1)
got = awq_algorithm.quantize_matrix(w, magnitudes, 20, -1)
print(max(float(np.abs(np.asarray(a, "float64") - b.astype("float64")).max())
          for a, b in zip(want, got)))
"""


def test_awq_of_a_square_kernel_equals_keras_on_jax(keras):
    """A square kernel quantized per output unit: Keras 3.15 on TensorFlow adds the
    [units, 1] zero points to the [units, units] matrix as a bias along its last axis (its
    ``ops.add`` turns such an add into ``tf.nn.bias_add``), so its values there are not the
    documented broadcast; Keras on JAX broadcasts, and finegrad equals it."""
    pytest.importorskip("jax")
    import os
    import pathlib
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parents[2]
    env = dict(os.environ, KERAS_BACKEND="jax", PYTHONPATH=str(root),
               TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, "-c", JAX_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=600, check=True).stdout.split()
    assert float(out[-1]) < 1e-6


def _block_model(k, layers_module):
    table = layers_module.Embedding(20, 8)
    first = k.Sequential([layers_module.Dense(12, activation="relu"), layers_module.Dense(8)])
    second = k.Sequential([layers_module.EinsumDense("abc,cd->abd", (None, 5),
                                                     activation="tanh")])
    return k.Sequential([k.Input((6,), dtype="int32"), table, first, second]), table, \
        [first, second]


def _awq_config(quantizers_module, table, blocks, **settings):
    return quantizers_module.AWQConfig(
        dataset=[np.arange(400) * 7 % 20], tokenizer=lambda s: s, num_samples=8,
        sequence_length=6, quantization_layer_structure={"pre_block_layers": [table],
                                                         "sequential_blocks": blocks},
        **settings)


@pytest.mark.parametrize("settings", [dict(group_size=4), dict(group_size=-1,
                                                                num_grid_points=6)])
@pytest.mark.parametrize("seed", [0, 3])
def test_awq_model_quantize_against_keras(keras, settings, seed, monkeypatch):
    """Variables, policies, configs and outputs as Keras's. Keras 3.15 records no activation
    magnitudes in its model-level calibration (its hooks wrap ``layer.call``, which a
    quantized layer's ``__call__`` bypasses), so its AWQ scales stay ones: finegrad's with
    the magnitudes left at zero gives Keras's values exactly; with the recorded magnitudes
    (the algorithm Keras documents, compared layer by layer above) the scales move."""
    from finegrad._src.keras import awq_algorithm
    ours, table, blocks = _block_model(K, L)
    theirs, their_table, their_blocks = _block_model(keras, keras.layers)
    rng = np.random.default_rng(seed)
    ours.set_weights([rng.normal(size=w.shape).astype("float32") for w in ours.weights])
    theirs.set_weights(ours.get_weights())
    ids = rng.integers(0, 20, size=(5, 6)).astype("int32")
    theirs.quantize("awq", config=_awq_config(keras.quantizers, their_table, their_blocks,
                                              **settings))
    twin, twin_table, twin_blocks = _block_model(K, L)
    twin.set_weights(ours.get_weights())
    with pytest.warns(UserWarning, match="Embedding.quantize"):
        ours.quantize("awq", config=_awq_config(K.quantizers, table, blocks, **settings))
    # (the search may keep ones for a layer, here not for all)
    assert any(not np.allclose(layer.awq_scales.numpy(), 1.0) for block in blocks
               for layer in block.layers)
    monkeypatch.setattr(awq_algorithm.MagnitudeEstimate, "update", lambda self, x: None)
    with pytest.warns(UserWarning, match="Embedding.quantize"):
        twin.quantize("awq", config=_awq_config(K.quantizers, twin_table, twin_blocks,
                                                **settings))
    for block, other in zip(twin_blocks, their_blocks, strict=True):
        for layer, their_layer in zip(block.layers, other.layers, strict=True):
            assert layer.dtype_policy.name == their_layer.dtype_policy.name
            _same_weights(layer, their_layer)
            np.testing.assert_array_equal(layer.kernel.numpy(), np.asarray(their_layer.kernel))
    np.testing.assert_allclose(twin.predict(ids, verbose=0), theirs.predict(ids, verbose=0),
                               rtol=1e-5, atol=1e-6)
    config = blocks[0].layers[0].get_config()["quantization_config"]
    their_layer = their_blocks[0].layers[0]
    their_layer.quantization_config.quantization_layer_structure = None
    assert config == keras.saving.serialize_keras_object(their_layer.quantization_config)


def test_awq_files_travel_both_ways_with_keras(keras, tmp_path):
    pytest.importorskip("h5py")
    ours, table, blocks = _block_model(K, L)
    with pytest.warns(UserWarning):
        ours.quantize("awq", config=_awq_config(K.quantizers, table, blocks, group_size=4))
    ids = RNG.integers(0, 20, size=(5, 6)).astype("int32")
    want = ours.predict(ids, verbose=0)
    ours.save(str(tmp_path / "ours.keras"))
    again = K.saving.load_model(str(tmp_path / "ours.keras"))
    np.testing.assert_array_equal(again.predict(ids, verbose=0), want)
    assert again.layers[1].layers[0].dtype_policy.name == "awq/4/4_from_float32"
    assert again.layers[1].layers[0].quantization_config.group_size == 4
    in_keras = keras.saving.load_model(str(tmp_path / "ours.keras"))
    np.testing.assert_allclose(in_keras.predict(ids, verbose=0), want, rtol=1e-5, atol=1e-6)
    theirs, their_table, their_blocks = _block_model(keras, keras.layers)
    theirs.quantize("awq", config=_awq_config(keras.quantizers, their_table, their_blocks))
    for block in their_blocks:      # (Keras 3.15 cannot save a config holding the layers)
        for layer in block.layers:
            layer.quantization_config.quantization_layer_structure = None
    theirs.save(str(tmp_path / "theirs.keras"))
    # as for GPTQ, Keras 3.15 writes no zero points: its file cannot give the layer back
    with pytest.raises(ValueError, match="expected 6 variables, but received 5"):
        K.saving.load_model(str(tmp_path / "theirs.keras"))


def _attention_model(k, layers_module):
    table = layers_module.Embedding(20, 8)
    inputs = k.Input((6, 8))
    attended = layers_module.MultiHeadAttention(num_heads=2, key_dim=3)(inputs, inputs)
    block = k.Model(inputs, layers_module.Add()([inputs, attended]))
    return k.Sequential([k.Input((6,), dtype="int32"), table, block]), table, [block]


@pytest.mark.parametrize("mode", ["gptq", "awq"])
def test_attention_blocks_quantize_as_keras(keras, mode, monkeypatch):
    """GPTQ and AWQ of a MultiHeadAttention block (its EinsumDense kernels have three
    axes): with the statistics Keras 3.15's model-level calibration records (none), the
    same variables and outputs as Keras."""
    from finegrad._src.keras import awq_algorithm, gptq_algorithm
    ours, table, blocks = _attention_model(K, L)
    theirs, their_table, their_blocks = _attention_model(keras, keras.layers)
    theirs.set_weights(ours.get_weights())
    config_class = "AWQConfig" if mode == "awq" else "GPTQConfig"

    def config(module, table, blocks):
        return getattr(module, config_class)(
            dataset=[np.arange(300) * 3 % 20], tokenizer=lambda s: s, num_samples=4,
            sequence_length=6, group_size=4,
            quantization_layer_structure={"pre_block_layers": [table],
                                          "sequential_blocks": blocks})
    theirs.quantize(mode, config=config(keras.quantizers, their_table, their_blocks))
    estimate = awq_algorithm.MagnitudeEstimate if mode == "awq" else \
        gptq_algorithm.HessianEstimate
    monkeypatch.setattr(estimate, "update", lambda self, x: None)
    with pytest.warns(UserWarning, match="Embedding.quantize"):
        ours.quantize(mode, config=config(K.quantizers, table, blocks))
    attention = blocks[0].layers[1]
    their_attention = their_blocks[0].layers[1]
    for name in ("query_dense", "key_dense", "value_dense", "output_dense"):
        layer, other = getattr(attention, f"_{name}"), getattr(their_attention, f"_{name}")
        assert len(layer.original_kernel_shape) == 3
        assert layer.dtype_policy.name == other.dtype_policy.name == f"{mode}/4/4_from_float32"
        _same_weights(layer, other)
    ids = RNG.integers(0, 20, size=(3, 6)).astype("int32")
    np.testing.assert_allclose(ours.predict(ids, verbose=0), theirs.predict(ids, verbose=0),
                               rtol=1e-5, atol=1e-5)


# --- layer.kernel of an int4 layer -------------------------------------------------------------

@pytest.mark.parametrize("name,args,shape", [
    ("Dense", (5,), (None, 7)), ("EinsumDense", ("abc,cde->abde", (2, 3, 3)), (None, 2, 4)),
    ("EinsumDense", ("abc,dc->adb", (3, 2)), (None, 2, 4)), ("Embedding", (7, 3), None)])
@pytest.mark.parametrize("block", [-1, 2])
def test_int4_kernel_property_is_the_unpacked_values(keras, tmp_path, name, args, shape,
                                                     block):
    ours, theirs = _pair(keras, name, args, shape)
    config = dict(block_size=block)
    ours.quantize("int4", config=K.quantizers.Int4QuantizationConfig(**config))
    theirs.quantize("int4", config=keras.quantizers.Int4QuantizationConfig(**config))
    attribute = "embeddings" if name == "Embedding" else "kernel"
    got, want = getattr(ours, attribute), np.asarray(getattr(theirs, attribute))
    assert got.dtype.name == want.dtype == "int8" and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    assert tuple(ours.__dict__[f"_{attribute}"].shape) != want.shape or want.shape[-1] == 1
    # saving still writes the packed bytes, and loading them gives the layer back
    pytest.importorskip("h5py")
    first = K.Input((2,), dtype="int32") if shape is None else K.Input(shape[1:])
    path = str(tmp_path / "m.weights.h5")
    K.Sequential([first, ours]).save_weights(path)
    other = getattr(L, name)(*args, dtype=ours.dtype_policy.name)
    second = K.Input((2,), dtype="int32") if shape is None else K.Input(shape[1:])
    K.Sequential([second, other]).load_weights(path)
    np.testing.assert_array_equal(getattr(other, attribute).numpy(), want)


# --- custom weight and activation quantizers ---------------------------------------------------

def _power_of_two_class(base, register, ops):
    """A custom quantizer (abs-max with the scale rounded down to a power of two), written
    once for Keras and once for finegrad (``ops``: the framework's ops, for activations)."""
    @register(package="fgtest", name="PowerOfTwo")
    class PowerOfTwo(base):
        def __init__(self, axis=None, value_range=(-127, 127), output_dtype="int8"):
            super().__init__(output_dtype=output_dtype)
            self.axis = axis
            self.value_range = tuple(value_range)

        def __call__(self, x, axis=None, to_numpy=False):
            axis = self.axis if axis is None else axis
            axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
            top = float(self.value_range[1])
            if to_numpy:
                x = np.asarray(x)
                scale = np.exp2(np.floor(np.log2(top / (np.abs(x).max(axis, keepdims=True)
                                                        + 1e-6)))).astype(x.dtype)
                values = np.clip(np.round(x * scale), *self.value_range)
                return values.astype(self.output_dtype), scale
            peak = ops["max"](ops["abs"](x), axis, True) + 1e-6
            scale = ops["exp2"](ops["floor"](ops["log2"](top / peak)))
            values = ops["clip"](ops["round"](x * scale), *self.value_range)
            return ops["cast"](values, self.output_dtype), scale

        def get_config(self):
            return {"axis": self.axis, "value_range": self.value_range,
                    "output_dtype": self.output_dtype}
    return PowerOfTwo


@pytest.fixture(scope="module")
def power_of_two(keras):
    o = keras.ops
    theirs = _power_of_two_class(keras.quantizers.Quantizer,
                                 keras.saving.register_keras_serializable, dict(
                                     max=lambda x, a, k: o.max(x, axis=a, keepdims=k),
                                     abs=o.abs, exp2=lambda x: o.power(2.0, x), floor=o.floor,
                                     log2=o.log2, round=o.round, clip=o.clip, cast=o.cast))
    ours = _power_of_two_class(K.quantizers.Quantizer, K.saving.register_keras_serializable,
                               dict(max=lambda x, a, k: fg.reduce_max(
                                   x, axis=list(a) if isinstance(a, tuple) else a,
                                   keepdims=k), abs=fg.abs, exp2=lambda x: fg.pow(2.0, x),
                                   floor=fg.floor,
                                   log2=lambda x: fg.math.log(x) / np.log(2.0).astype("float32"),
                                   round=fg.round, clip=fg.clip_by_value, cast=fg.cast))
    return ours, theirs


def _quantizer_cases(q, power_of_two):
    """(layer, args, build shape, mode, config arguments) with quantizers from ``q``."""
    return [
        ("Dense", (5,), (None, 7), "int8",
         dict(weight_quantizer=power_of_two(axis=0), activation_quantizer=power_of_two())),
        ("Dense", (5,), (None, 7), "int8",
         dict(weight_quantizer=q.AbsMaxQuantizer(axis=0, value_range=(-100, 100)),
              activation_quantizer=None)),
        ("EinsumDense", ("abc,cd->abd", (None, 4)), (None, 3, 6), "int8",
         dict(weight_quantizer=q.AbsMaxQuantizer(axis=0, value_range=(-90, 90)),
              activation_quantizer=q.AbsMaxQuantizer(value_range=(-60, 60)))),
        ("Embedding", (9, 4), None, "int8",
         dict(weight_quantizer=power_of_two(axis=-1, value_range=(-100, 100)))),
        ("Dense", (5,), (None, 7), "int4",
         dict(weight_quantizer=q.AbsMaxQuantizer(axis=0, value_range=(-8, 7), epsilon=1e-3),
              activation_quantizer=q.AbsMaxQuantizer(value_range=(-127, 127)),
              block_size=-1)),
        ("EinsumDense", ("abc,cd->abd", (None, 4)), (None, 3, 6), "int4",
         dict(activation_quantizer=power_of_two(value_range=(-20, 20)), block_size=None)),
        ("Embedding", (9, 4), None, "int4",
         dict(weight_quantizer=power_of_two(axis=-1, value_range=(-8, 7)), block_size=-1)),
    ]


def _config(q, mode, arguments):
    return (q.Int8QuantizationConfig if mode == "int8" else q.Int4QuantizationConfig)(
        **arguments)


@pytest.mark.parametrize("index", range(7))
def test_custom_quantizers_equal_keras(keras, power_of_two, index):
    import tensorflow as tf
    name, args, shape, mode, _ = _quantizer_cases(K.quantizers, power_of_two[0])[index]
    ours, theirs = _pair(keras, name, args, shape)
    ours.quantize(mode, config=_config(K.quantizers, mode, _quantizer_cases(
        K.quantizers, power_of_two[0])[index][4]))
    theirs.quantize(mode, config=_config(keras.quantizers, mode, _quantizer_cases(
        keras.quantizers, power_of_two[1])[index][4]))
    _same_weights(ours, theirs)
    assert ours.dtype_policy.name == theirs.dtype_policy.name
    assert ours.get_config()["quantization_config"] == \
        keras.saving.serialize_keras_object(theirs.quantization_config)
    if shape is None:
        x = RNG.integers(0, 9, size=(3, 2)).astype("int32")
        np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-6)
        return
    x = (RNG.normal(size=(4,) + shape[1:]) * 3).astype("float32")
    with fg.GradientTape() as tape:
        xt = fg.constant(x)
        tape.watch(xt)
        y = ours(xt)
        loss = y * y
    grad = tape.gradient(loss, xt).numpy()
    with tf.GradientTape() as tape:
        xt = tf.constant(x)
        tape.watch(xt)
        want = theirs(xt)
        loss = want * want
    want_grad = tape.gradient(loss, xt).numpy()
    np.testing.assert_allclose(y.numpy(), np.asarray(want), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-4, atol=1e-4)


def test_custom_quantizers_travel_in_keras_files(keras, power_of_two, tmp_path):
    pytest.importorskip("h5py")
    ours_class, _ = power_of_two
    model = K.Sequential([K.Input((7,)), L.Dense(5, name="a"), L.Dense(3, name="b")])
    model.get_layer("a").quantize(config=K.quantizers.Int8QuantizationConfig(
        weight_quantizer=ours_class(axis=0), activation_quantizer=ours_class()))
    model.get_layer("b").quantize(config=K.quantizers.Int4QuantizationConfig(
        activation_quantizer=K.quantizers.AbsMaxQuantizer(value_range=(-30, 30)),
        block_size=-1))
    x = RNG.normal(size=(4, 7)).astype("float32")
    want = model.predict(x, verbose=0)
    model.save(str(tmp_path / "q.keras"))
    again = K.saving.load_model(str(tmp_path / "q.keras"))
    assert isinstance(again.get_layer("a").inputs_quantizer, ours_class)
    assert again.get_layer("b").inputs_quantizer.value_range == (-30, 30)
    np.testing.assert_array_equal(again.predict(x, verbose=0), want)
    in_keras = keras.saving.load_model(str(tmp_path / "q.keras"))
    np.testing.assert_allclose(in_keras.predict(x, verbose=0), want, rtol=1e-5, atol=1e-6)


def _raises_like_keras(keras, make, error, match):
    """``make(module)`` raises ``error`` (matching ``match``) with finegrad's modules, and
    the same class with Keras's."""
    with pytest.raises(error, match=match):
        make(K, fg.keras.layers)
    with pytest.raises(error):
        make(keras, keras.layers)


def _built(k, layers_module, name="Dense", args=(3,), shape=(None, 4)):
    layer = getattr(layers_module, name)(*args)
    layer.build(shape)
    return layer


def test_bad_quantization_input_raises_as_keras(keras):
    q = "quantizers"
    cases = [
        (lambda k, _: getattr(k, q).AWQConfig(None, None, weight_bits=8), ValueError,
         "AWQConfig: AWQ only supports 4-bit quantization. Received weight_bits=8"),
        (lambda k, _: getattr(k, q).AWQConfig(None, None, num_grid_points=0), ValueError,
         "num_grid_points must be a positive integer"),
        (lambda k, _: getattr(k, q).AWQConfig(None, None, group_size=0), ValueError,
         "Invalid group_size"),
        (lambda k, _: k.dtype_policies.AWQDTypePolicy("awq/8/128", "float32"), ValueError,
         "AWQDTypePolicy: Invalid mode"),
        (lambda k, L_: _built(k, L_).quantize("awq"), ValueError,
         "Dense.quantize: For AWQ, you must pass an `AWQConfig` object"),
        (lambda k, L_: _built(k, L_).quantize("awq", config=getattr(k, q).GPTQConfig(
            None, None)), ValueError, "Contradictory arguments: mode='awq' but "
                                      "config.mode='gptq'"),
        (lambda k, L_: _built(k, L_).quantize(), ValueError,
         "You must provide either `mode` or `config`"),
        (lambda k, _: getattr(k, q).Int8QuantizationConfig(
            weight_quantizer=getattr(k, q).AbsMaxQuantizer(axis=0, output_dtype="int16")),
         ValueError, "requires a weight_quantizer with output_dtype='int8'"),
        (lambda k, _: getattr(k, q).Int4QuantizationConfig(
            weight_quantizer=getattr(k, q).AbsMaxQuantizer(axis=0), block_size=-1),
         ValueError, r"requires a weight_quantizer with value_range=\(-8, 7\)"),
        (lambda k, _: getattr(k, q).Int4QuantizationConfig(
            activation_quantizer=getattr(k, q).AbsMaxQuantizer(), block_size=64),
         ValueError, "sub-channel quantization .* does not support custom quantizers"),
        (lambda k, _: getattr(k, q).AbsMaxQuantizer(value_range=(-200, 100)), ValueError,
         r"requires value_range to be within the interval \[-128, 127\]"),
    ]
    for make, error, match in cases:
        _raises_like_keras(keras, make, error, match)
    # (Keras 3.15 returns the class name, a string, for a class it cannot find)
    with pytest.raises(TypeError, match="Could not locate class 'NoSuchQuantizer'"):
        K.quantizers.deserialize({"module": "keras.quantizers", "class_name": "NoSuchQuantizer",
                                  "config": {}, "registered_name": None})


def test_calibrated_modes_refuse_kernels_of_four_axes():
    """Keras 3.15 fails on them (AWQ: ValueError; GPTQ: an UnboundLocalError); finegrad
    raises ValueError for both."""
    for config in (K.quantizers.GPTQConfig(None, None, group_size=-1),
                   K.quantizers.AWQConfig(None, None, group_size=-1)):
        layer = L.EinsumDense("abcd,cdef->abef", (None, 2, 3))
        layer.build((None, 5, 4, 2))
        with pytest.raises(ValueError, match=r"EinsumDense.quantize: GPTQ and AWQ quantization "
                                             r"only support 2D or 3D kernels; got a kernel of "
                                             r"shape \(4, 2, 2, 3\)"):
            layer.quantize(config.mode, config=config)
    block = K.Sequential([L.Dense(2)])
    model = K.Sequential([K.Input((3,)), block])
    with pytest.raises(ValueError, match="AWQ quantization requires a dataset and a tokenizer"):
        model.quantize("awq", config=K.quantizers.AWQConfig(
            None, None, quantization_layer_structure={"sequential_blocks": [block]}))
    with pytest.raises(ValueError, match="For mode='awq', a valid quantization structure"):
        K.Sequential([K.Input((3,)), L.Dense(2)]).quantize(
            "awq", config=K.quantizers.AWQConfig([[1]], lambda s: s))


def test_quantizers_get_as_keras():
    q = fg.keras.quantizers
    assert q.get(None) is None
    made = q.AbsMaxQuantizer(axis=1)
    assert q.get(made) is made
    assert q.get("abs_max_quantizer", axis=0).axis == (0,)
    assert q.get("AbsMaxQuantizer", axis=-1).axis == (-1,)
    assert q.get(q.serialize(made)).axis == (1,)
    for bad in ("nope", q.Int8QuantizationConfig(), {"class_name": "Int8QuantizationConfig",
                                                      "config": {}}):
        with pytest.raises(ValueError, match="Could not interpret quantizer identifier"):
            q.get(bad)
