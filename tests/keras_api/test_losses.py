"""finegrad.keras.losses: closed forms and gradients, then every loss against Keras 3 (live),
for every reduction, with and without sample weights, logits and label smoothing."""
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad.keras import losses as L

RNG = np.random.default_rng(1)
PROBS = RNG.dirichlet(np.ones(4), size=6).astype(np.float32)            # (6, 4)
ONE_HOT = np.eye(4, dtype=np.float32)[RNG.integers(0, 4, 6)]
IDS = RNG.integers(0, 4, 6).astype(np.int32)
BIN_T = RNG.integers(0, 2, (6, 3)).astype(np.float32)
BIN_P = RNG.uniform(0.02, 0.98, (6, 3)).astype(np.float32)
REG_T = RNG.normal(size=(6, 3)).astype(np.float32)
REG_P = (REG_T + RNG.normal(size=(6, 3)) * 2).astype(np.float32)
POS_T = np.abs(REG_T) + 0.1
POS_P = np.abs(REG_P) + 0.1
LOGITS = RNG.normal(size=(6, 4)).astype(np.float32) * 3
SW = RNG.uniform(0, 2, 6).astype(np.float32)
REDUCTIONS = ["sum_over_batch_size", "sum", "mean", "none", None, "mean_with_sample_weight"]

# name: (constructor kwargs, y_true, y_pred)
CASES = {
    "MeanSquaredError": ({}, REG_T, REG_P),
    "MeanAbsoluteError": ({}, REG_T, REG_P),
    "MeanAbsolutePercentageError": ({}, REG_T, REG_P),
    "MeanSquaredLogarithmicError": ({}, POS_T, POS_P),
    "Huber": ({"delta": 0.7}, REG_T, REG_P),
    "LogCosh": ({}, REG_T, REG_P),
    "BinaryCrossentropy": ({}, BIN_T, BIN_P),
    "BinaryCrossentropy-logits": ({"from_logits": True, "label_smoothing": 0.2}, BIN_T, REG_P),
    "BinaryFocalCrossentropy": ({"gamma": 1.5}, BIN_T, BIN_P),
    "BinaryFocalCrossentropy-balanced": ({"apply_class_balancing": True, "alpha": 0.3,
                                          "from_logits": True, "label_smoothing": 0.1},
                                         BIN_T, REG_P),
    "CategoricalCrossentropy": ({}, ONE_HOT, PROBS),
    "CategoricalCrossentropy-logits": ({"from_logits": True, "label_smoothing": 0.1},
                                       ONE_HOT, LOGITS),
    "CategoricalFocalCrossentropy": ({"from_logits": True}, ONE_HOT, LOGITS),
    "SparseCategoricalCrossentropy": ({}, IDS, PROBS),
    "SparseCategoricalCrossentropy-logits": ({"from_logits": True}, IDS[:, None], LOGITS),
    "SparseCategoricalCrossentropy-ignore": ({"from_logits": True, "ignore_class": 2}, IDS,
                                             LOGITS),
    "KLDivergence": ({}, PROBS[::-1].copy(), PROBS),
    "Poisson": ({}, POS_T, POS_P),
    "Hinge": ({}, BIN_T, REG_P),
    "SquaredHinge": ({}, 2 * BIN_T - 1, REG_P),
    "CategoricalHinge": ({}, ONE_HOT, LOGITS),
    "CosineSimilarity": ({"axis": -1}, REG_T, REG_P),
}


def test_closed_forms():
    np.testing.assert_allclose(float(L.MeanSquaredError()(REG_T, REG_P)),
                               np.mean((REG_T - REG_P) ** 2), rtol=1e-6)
    per_sample = np.mean((REG_T - REG_P) ** 2, -1)
    np.testing.assert_allclose(L.MeanSquaredError(reduction=None)(REG_T, REG_P).numpy(),
                               per_sample, rtol=1e-6)
    np.testing.assert_allclose(float(L.MeanSquaredError(reduction="sum")(REG_T, REG_P, SW)),
                               np.sum(per_sample * SW), rtol=1e-6)
    np.testing.assert_allclose(
        float(L.MeanSquaredError(reduction="mean_with_sample_weight")(REG_T, REG_P, SW)),
        np.sum(per_sample * SW) / SW.sum(), rtol=1e-6)
    ce = -np.log(np.clip(PROBS[np.arange(6), IDS], 1e-7, 1))
    np.testing.assert_allclose(float(L.SparseCategoricalCrossentropy()(IDS, PROBS)),
                               ce.mean(), rtol=1e-5)
    kept = IDS != 2
    np.testing.assert_allclose(
        float(L.SparseCategoricalCrossentropy(ignore_class=2)(IDS, PROBS)), ce[kept].mean(),
        rtol=1e-5)
    smooth = ONE_HOT * 0.8 + 0.2 / 4
    logp = LOGITS - np.log(np.exp(LOGITS).sum(-1, keepdims=True))
    np.testing.assert_allclose(
        float(L.CategoricalCrossentropy(from_logits=True, label_smoothing=0.2)(ONE_HOT, LOGITS)),
        np.mean(-(smooth * logp).sum(-1)), rtol=1e-5)
    assert float(L.Hinge(reduction="sum")([[0.]], [[0.]])) == 1.


def test_gradient_of_a_loss():
    x = fg.constant(LOGITS)
    with fg.GradientTape() as tape:
        tape.watch(x)
        loss = L.CategoricalCrossentropy(from_logits=True)(ONE_HOT, x)
    sm = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), (sm - ONE_HOT) / 6, atol=1e-6)


def test_get_config_and_errors():
    assert L.get("mse") is L.mean_squared_error
    assert isinstance(L.get("BinaryCrossentropy"), L.BinaryCrossentropy)
    loss = L.deserialize(L.serialize(L.Huber(delta=2., reduction="sum")))
    assert loss.get_config() == {"name": "huber_loss", "reduction": "sum", "delta": 2.}
    with pytest.raises(ValueError, match="reduction"):
        L.MeanSquaredError(reduction="avg")
    with pytest.raises(ValueError, match="could not interpret|unknown loss"):
        L.get("nope")


def test_loss_inside_a_traced_function():
    f = fg.function(lambda t, p: L.BinaryCrossentropy()(t, p))
    np.testing.assert_allclose(float(f(fg.constant(BIN_T), fg.constant(BIN_P))),
                               float(L.BinaryCrossentropy()(BIN_T, BIN_P)), rtol=1e-6)


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    return pytest.importorskip("keras")


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_loss_equals_keras(keras, case, reduction, weighted):
    kwargs, y_true, y_pred = CASES[case]
    name = case.split("-")[0]
    sw = SW if weighted else None
    ours = getattr(L, name)(reduction=reduction, **kwargs)(y_true, y_pred, sample_weight=sw)
    theirs = getattr(keras.losses, name)(reduction=reduction, **kwargs)(y_true, y_pred,
                                                                         sample_weight=sw)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("case", sorted(CASES))
def test_function_equals_keras(keras, case):
    kwargs, y_true, y_pred = CASES[case]
    name = case.split("-")[0]
    ours = getattr(L, name)(**kwargs)
    fn_kwargs = {k: v for k, v in kwargs.items()}
    theirs = getattr(keras.losses, ours.fn.__name__)(y_true, y_pred, **fn_kwargs)
    np.testing.assert_allclose(np.asarray(ours.fn(y_true, y_pred, **fn_kwargs)),
                               np.asarray(theirs), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("case", sorted(CASES))
def test_config_equals_keras(keras, case):
    kwargs, _, _ = CASES[case]
    name = case.split("-")[0]
    theirs = getattr(keras.losses, name)(**kwargs).get_config()
    ours = getattr(L, name)(**kwargs).get_config()
    assert {k: ours[k] for k in theirs} == theirs


def test_column_sample_weight_equals_keras(keras):
    sw = RNG.uniform(0, 1, (6, 1)).astype(np.float32)   # a column: squeezed to (6,)
    for reduction in REDUCTIONS:
        ours = L.BinaryCrossentropy(reduction=reduction)(BIN_T, BIN_P, sw)
        theirs = keras.losses.BinaryCrossentropy(reduction=reduction)(BIN_T, BIN_P, sw)
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", None])
@pytest.mark.parametrize("case", sorted(CASES))
def test_traced_with_an_open_batch_size_equals_eager(case, reduction):
    # fit's step is traced with reduce_retracing: the last, smaller batch has an open size
    kwargs, y_true, y_pred = CASES[case]
    loss = getattr(L, case.split("-")[0])(reduction=reduction, **kwargs)
    f = fg.function(lambda t, p, w: loss(t, p, sample_weight=w), reduce_retracing=True)
    for n in (6, 4, 3):
        got = f(fg.constant(y_true[:n]), fg.constant(y_pred[:n]), fg.constant(SW[:n]))
        want = loss(y_true[:n], y_pred[:n], sample_weight=SW[:n])
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-7)


SEGMENTATION = {
    "Dice": ({}, BIN_T, BIN_P),
    "Dice-axis": ({"axis": -1}, BIN_T, BIN_P),
    "Tversky": ({"alpha": 0.3, "beta": 0.7}, BIN_T, BIN_P),
    "Tversky-axis": ({"axis": 1}, BIN_T, BIN_P),
    "CategoricalGeneralizedCrossEntropy": ({"q": 0.3}, IDS, PROBS),
}


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", None])
@pytest.mark.parametrize("case", sorted(SEGMENTATION))
def test_dice_tversky_gce_equal_keras(keras, case, reduction):
    kwargs, y_true, y_pred = SEGMENTATION[case]
    name = case.split("-")[0]
    ours = getattr(L, name)(reduction=reduction, **kwargs)
    theirs = getattr(keras.losses, name)(reduction=reduction, **kwargs)
    np.testing.assert_allclose(np.asarray(ours(y_true, y_pred)),
                               np.asarray(theirs(y_true, y_pred)), rtol=2e-5, atol=1e-6)
    assert ours.get_config() == theirs.get_config()
