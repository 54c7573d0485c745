"""keras.losses.CTC / ctc and Circle / circle against Keras 3.15 (live when installed; the
constants were recorded from Keras 3.15.1 on TensorFlow 2.21 with these inputs): every
reduction, sample weights, configs, gradients, and CTC trained in a model with fit."""
import numpy as np
import pytest

import finegrad as fg

K = fg.keras
RNG = np.random.default_rng(4)
LOGITS = RNG.normal(size=(3, 6, 4)).astype("float32")
LABELS = np.array([[1, 2, 0], [3, 3, 1], [2, 0, 0]], "int32")
EMB = RNG.normal(size=(5, 3)).astype("float32")
EMB /= np.linalg.norm(EMB, axis=1, keepdims=True)
IDS = np.array([0, 1, 0, 2, 1])
WEIGHTS = np.array([0.5, 1.0, 2.0, 0.0, 1.5], "float32")
REDUCTIONS = ["sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", "none", None]


def test_recorded_values():
    np.testing.assert_allclose(K.losses.Circle()(np.array([0, 0, 1]), np.array(
        [[1., 0.], [0.6, 0.8], [0., 1.]], "float32")), 19.200003, rtol=1e-6)
    np.testing.assert_allclose(K.losses.CTC()([[1]], [[[0., 0.]]]), np.log(2), rtol=1e-6)
    with pytest.raises(ValueError, match="y_true.shape"):
        K.losses.ctc([1, 2], LOGITS)
    with pytest.raises(ValueError, match="y_pred.shape"):
        K.losses.ctc(LABELS, LOGITS[0])


@pytest.fixture
def keras():
    pytest.importorskip("tensorflow")
    return pytest.importorskip("keras")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_ctc_equals_keras(keras, reduction, weighted):
    sw = WEIGHTS[:3] if weighted else None
    got = K.losses.CTC(reduction=reduction)(LABELS, LOGITS, sample_weight=sw)
    want = keras.losses.CTC(reduction=reduction)(LABELS, LOGITS, sample_weight=sw)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)
    np.testing.assert_allclose(K.losses.ctc(LABELS, LOGITS), keras.losses.ctc(LABELS, LOGITS),
                               rtol=1e-5)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("options", [{}, {"gamma": 10.0, "margin": 0.25,
                                         "remove_diagonal": False}])
def test_circle_equals_keras(keras, reduction, weighted, options):
    sw = WEIGHTS if weighted else None
    got = K.losses.Circle(reduction=reduction, **options)(IDS, EMB, sample_weight=sw)
    want = keras.losses.Circle(reduction=reduction, **options)(IDS, EMB, sample_weight=sw)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    refs = EMB[::-1].copy()
    np.testing.assert_allclose(
        K.losses.circle(IDS, EMB, ref_labels=IDS[::-1], ref_embeddings=refs, **options),
        keras.losses.circle(IDS, EMB, ref_labels=IDS[::-1].copy(), ref_embeddings=refs,
                            **options), rtol=1e-5, atol=1e-6)


def test_configs_equal_keras(keras):
    for name, kwargs in [("CTC", {}), ("Circle", {"gamma": 3.0, "margin": 0.1})]:
        ours, theirs = getattr(K.losses, name)(**kwargs), getattr(keras.losses, name)(**kwargs)
        assert ours.get_config() == theirs.get_config()
        again = getattr(K.losses, name).from_config(ours.get_config())
        assert again.get_config() == ours.get_config()
        assert type(K.losses.get(name)) is getattr(K.losses, name)


def test_gradients_equal_keras(keras):
    import tensorflow as tf
    for ours, theirs, y, x in [(K.losses.CTC(), keras.losses.CTC(), LABELS, LOGITS),
                               (K.losses.Circle(), keras.losses.Circle(), IDS, EMB)]:
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            loss = theirs(y, xt)
        want = tape.gradient(loss, xt).numpy()
        xf = fg.constant(x)
        with fg.GradientTape() as tape:
            tape.watch(xf)
            loss = ours(y, xf)
        np.testing.assert_allclose(tape.gradient(loss, xf).numpy(), want, rtol=1e-4,
                                   atol=1e-6)


def test_ctc_trains_a_model_with_fit():
    K.backend.clear_session()
    x = K.Input((6, 4))
    model = K.Model(x, K.layers.Dense(4, kernel_initializer=K.initializers.GlorotUniform(0))(x))
    model.compile(K.optimizers.Adam(0.05), K.losses.CTC())
    before = float(K.losses.CTC()(LABELS, model.predict(LOGITS, verbose=0)))
    hist = model.fit(LOGITS, LABELS.astype("float32"), epochs=20, batch_size=3, verbose=0)
    assert hist.history["loss"][0] == pytest.approx(before, rel=1e-5)
    assert hist.history["loss"][-1] < 0.6 * before
