"""Dense, EinsumDense, Embedding, Lambda: closed forms, finite differences, and Keras 3's
outputs and gradients on the same weights."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers


# --- without Keras ------------------------------------------------------------------------------

def test_dense_closed_form_and_gradient():
    layer = L.Dense(3, activation="relu")
    x = randn(4, 5)
    y = layer(x)
    k, b = (w.numpy() for w in layer.weights)
    np.testing.assert_allclose(y.numpy(), np.maximum(x @ k + b, 0), rtol=1e-6)
    assert [w.name for w in layer.weights] == ["kernel", "bias"]
    assert layer.kernel.shape == (5, 3) and layer.compute_output_shape((None, 5)) == (None, 3)
    with fg.GradientTape() as tape:
        loss = fg.reduce_sum(layer(x))
    gk, gb = tape.gradient(loss, [layer.kernel, layer.bias])
    active = (x @ k + b > 0).astype(np.float32)
    np.testing.assert_allclose(gk.numpy(), x.T @ active, rtol=1e-5)
    np.testing.assert_allclose(gb.numpy(), active.sum(0), rtol=1e-6)


def test_dense_on_rank_3_and_finite_differences():
    layer = L.Dense(2, activation="tanh", dtype="float64")
    x = randn(2, 3, 4, dtype=np.float64)
    assert layer(x).shape == (2, 3, 2)
    fg.testing.check_gradients(lambda t: layer(t), [x])


def test_dense_rejects_bad_units():
    with pytest.raises(ValueError, match="units"):
        L.Dense(0)


def test_einsum_dense_shapes_and_gradient():
    layer = L.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="de",
                          dtype="float64")
    x = randn(2, 4, 5, dtype=np.float64)
    y = layer(x)
    assert y.shape == (2, 4, 2, 3)
    assert layer.kernel.shape == (5, 2, 3) and layer.bias.shape == (2, 3)
    np.testing.assert_allclose(y.numpy(), np.einsum("abc,cde->abde", x, layer.kernel.numpy())
                               + layer.bias.numpy(), rtol=1e-12)
    fg.testing.check_gradients(lambda t: layer(t), [x])


def test_einsum_dense_ellipsis():
    layer = L.EinsumDense("...b,bc->...c", output_shape=4, bias_axes="c")
    assert layer(fg.ones([2, 3, 5])).shape == (2, 3, 4)
    assert layer.kernel.shape == (5, 4)


def test_embedding_gathers_rows_and_masks():
    layer = L.Embedding(6, 3, mask_zero=True)
    idx = np.array([[0, 2, 5]])
    y = layer(idx)
    np.testing.assert_array_equal(y.numpy()[0], layer.embeddings.numpy()[[0, 2, 5]])
    assert layer.compute_mask(fg.constant(idx)).numpy().tolist() == [[False, True, True]]
    with fg.GradientTape() as tape:
        loss = fg.reduce_sum(layer(np.array([[2, 2, 4]])))
    g = fg.convert_to_tensor(tape.gradient(loss, layer.embeddings)).numpy()
    expected = np.zeros((6, 3), np.float32)
    expected[2], expected[4] = 2, 1
    np.testing.assert_array_equal(g, expected)


def test_lambda_calls_the_function_with_arguments():
    layer = L.Lambda(lambda x, k: x * k, arguments={"k": 3.})
    np.testing.assert_array_equal(layer(fg.ones([2])).numpy(), [3., 3.])
    with pytest.raises(TypeError, match="callable"):
        L.Lambda(3)


def test_subclassing_a_built_in_layer_reads_its_kernel():
    class Doubled(L.Dense):
        def call(self, x):
            return 2. * fg.matmul(x, self.kernel)

    layer = Doubled(2, kernel_initializer="ones")
    np.testing.assert_array_equal(layer(fg.ones([1, 3])).numpy(), [[6., 6.]])


# --- against Keras -----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [dict(units=4), dict(units=3, activation="tanh"),
                                    dict(units=2, use_bias=False, activation="sigmoid")])
def test_dense_matches_keras(kwargs):
    keras = keras_module()
    assert_matches_keras(L.Dense(**kwargs), keras.layers.Dense(**kwargs), [randn(3, 5)])
    assert_matches_keras(L.Dense(**kwargs), keras.layers.Dense(**kwargs), [randn(2, 3, 5)])
    assert_config_keys_match(L.Dense(**kwargs), keras.layers.Dense(**kwargs))


@pytest.mark.parametrize("eq,shape,bias", [("ab,bc->ac", 4, "c"),
                                           ("abc,cde->abde", (None, 2, 3), "de"),
                                           ("abcd,cde->abe", (None, 6), "e"),
                                           ("...b,bc->...c", 4, None),
                                           ("ab...,bc->ac...", (4, 3), "c")])
def test_einsum_dense_matches_keras(eq, shape, bias):
    keras = keras_module()
    x = {2: randn(3, 5), 3: randn(2, 4, 5), 4: randn(2, 4, 2, 3)}
    rank = 4 if eq.startswith("abcd") else (2 if eq.startswith("ab,") else 3)
    if eq.startswith("ab..."):
        x[rank] = randn(2, 5, 3)
    ours = L.EinsumDense(eq, output_shape=shape, bias_axes=bias, activation="relu")
    theirs = keras.layers.EinsumDense(eq, output_shape=shape, bias_axes=bias,
                                      activation="relu")
    assert_matches_keras(ours, theirs, [x[rank]])
    assert_config_keys_match(ours, theirs, ignore=("output_shape",))


def test_embedding_matches_keras():
    keras = keras_module()
    idx = np.array([[1, 0, 4], [3, 3, 2]], np.int32)
    assert_matches_keras(L.Embedding(5, 3), keras.layers.Embedding(5, 3), [idx])
    assert_config_keys_match(L.Embedding(5, 3), keras.layers.Embedding(5, 3))


def test_lambda_matches_keras():
    keras = keras_module()
    assert_matches_keras(L.Lambda(lambda x: x * x + 1.), keras.layers.Lambda(lambda x: x * x + 1.),
                         [randn(2, 3)])


def test_masking_zeroes_and_masks_steps():
    x = np.array([[[1., 2.], [0., 0.], [3., 0.]]], np.float32)
    layer = L.Masking()
    np.testing.assert_array_equal(layer(x).numpy(), x)
    assert layer.compute_mask(fg.constant(x)).numpy().tolist() == [[True, False, True]]
    y = L.Masking(mask_value=3.)(np.array([[[3., 3.], [1., 3.]]], np.float32)).numpy()
    np.testing.assert_array_equal(y, [[[0., 0.], [1., 3.]]])


def test_masking_before_an_rnn_matches_keras():
    keras = keras_module()
    x = randn(2, 5, 3)
    x[0, 3:] = 0.
    x[1, 1] = 0.
    ours = fg.keras.Sequential([L.Masking(), L.LSTM(4, return_sequences=True)])
    theirs = keras.Sequential([keras.layers.Masking(), keras.layers.LSTM(4,
                                                                         return_sequences=True)])
    assert_matches_keras(ours, theirs, [x], rtol=1e-4, atol=1e-5)
    assert_config_keys_match(L.Masking(0.5), keras.layers.Masking(0.5))


def test_identity_and_rescaling():
    x = randn(2, 3)
    np.testing.assert_array_equal(L.Identity()(x).numpy(), x)
    np.testing.assert_allclose(L.Rescaling(1 / 255., offset=-1.)(x).numpy(), x / 255. - 1.,
                               rtol=1e-6)


def test_rescaling_matches_keras():
    keras = keras_module()
    assert_matches_keras(L.Rescaling(0.5, offset=0.25), keras.layers.Rescaling(0.5, offset=0.25),
                         [randn(2, 3)])
    assert_config_keys_match(L.Rescaling(2.), keras.layers.Rescaling(2.))


def test_embedding_pretrained_weights_and_argument_checks():
    matrix = randn(4, 2)
    layer = L.Embedding(4, 2, weights=[matrix], trainable=False)
    np.testing.assert_array_equal(layer(np.array([3, 1])).numpy(), matrix[[3, 1]])
    assert layer.trainable_weights == []
    with pytest.raises(ValueError, match="input_dim"):
        L.Embedding(0, 2)
    with pytest.warns(UserWarning, match="input_length"):
        L.Embedding(4, 2, input_length=7)
