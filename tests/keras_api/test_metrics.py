"""finegrad.keras.metrics: closed forms, state across updates, traced updates, then every
metric against Keras 3 (live) over two weighted and unweighted batches."""
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad.keras import metrics as M

RNG = np.random.default_rng(2)
N = 8
PROBS = RNG.dirichlet(np.ones(5), size=N).astype(np.float32)
ONE_HOT = np.eye(5, dtype=np.float32)[RNG.integers(0, 5, N)]
IDS = RNG.integers(0, 5, N).astype(np.int32)
BIN_T = RNG.integers(0, 2, (N, 3)).astype(np.float32)
BIN_P = RNG.uniform(0, 1, (N, 3)).astype(np.float32)
REG_T = RNG.normal(size=(N, 3)).astype(np.float32)
REG_P = (REG_T + RNG.normal(size=(N, 3))).astype(np.float32)
POS_T, POS_P = np.abs(REG_T) + 0.1, np.abs(REG_P) + 0.1
LOGITS = RNG.normal(size=(N, 5)).astype(np.float32) * 2
SW = RNG.uniform(0, 2, N).astype(np.float32)
INT_T = RNG.integers(0, 3, N).astype(np.float32)
INT_P = RNG.integers(0, 3, N).astype(np.float32)

CASES = {
    "Accuracy": ({}, INT_T, INT_P),
    "BinaryAccuracy": ({"threshold": 0.4}, BIN_T, BIN_P),
    "CategoricalAccuracy": ({}, ONE_HOT, PROBS),
    "SparseCategoricalAccuracy": ({}, IDS, PROBS),
    "SparseCategoricalAccuracy-column": ({}, IDS[:, None], PROBS),
    "TopKCategoricalAccuracy": ({"k": 2}, ONE_HOT, PROBS),
    "SparseTopKCategoricalAccuracy": ({"k": 3}, IDS, PROBS),
    "Precision": ({}, BIN_T, BIN_P),
    "Precision-thresholds": ({"thresholds": [0.2, 0.5, 0.8]}, BIN_T, BIN_P),
    "Precision-top_k": ({"top_k": 2}, BIN_T, BIN_P),
    "Recall": ({}, BIN_T, BIN_P),
    "Recall-class_id": ({"class_id": 1, "thresholds": 0.3}, BIN_T, BIN_P),
    "TruePositives": ({}, BIN_T, BIN_P),
    "FalsePositives": ({"thresholds": [0.3, 0.6]}, BIN_T, BIN_P),
    "TrueNegatives": ({}, BIN_T, BIN_P),
    "FalseNegatives": ({}, BIN_T, BIN_P),
    "AUC": ({}, BIN_T, BIN_P),
    "AUC-PR": ({"curve": "PR", "num_thresholds": 50}, BIN_T, BIN_P),
    "AUC-PR-minoring": ({"curve": "PR", "summation_method": "minoring"}, BIN_T, BIN_P),
    "AUC-majoring": ({"summation_method": "majoring", "thresholds": [0.1, 0.4, 0.7]},
                     BIN_T, BIN_P),
    "AUC-multi": ({"multi_label": True, "label_weights": [1., 2., 0.5]}, BIN_T, BIN_P),
    "AUC-logits": ({"from_logits": True, "curve": "PRGAIN"}, BIN_T, REG_P),
    "MeanSquaredError": ({}, REG_T, REG_P),
    "RootMeanSquaredError": ({}, REG_T, REG_P),
    "MeanAbsoluteError": ({}, REG_T, REG_P),
    "MeanAbsolutePercentageError": ({}, REG_T, REG_P),
    "MeanSquaredLogarithmicError": ({}, POS_T, POS_P),
    "CosineSimilarity": ({}, REG_T, REG_P),
    "LogCoshError": ({}, REG_T, REG_P),
    "BinaryCrossentropy": ({"from_logits": True, "label_smoothing": 0.1}, BIN_T, REG_P),
    "CategoricalCrossentropy": ({}, ONE_HOT, PROBS),
    "SparseCategoricalCrossentropy": ({"from_logits": True}, IDS, LOGITS),
    "KLDivergence": ({}, PROBS[::-1].copy(), PROBS),
    "Poisson": ({}, POS_T, POS_P),
    "Hinge": ({}, BIN_T, REG_P),
    "SquaredHinge": ({}, BIN_T, REG_P),
    "CategoricalHinge": ({}, ONE_HOT, LOGITS),
}


def test_mean_sum_closed_form_and_reset():
    m = M.Mean()
    m.update_state([1., 2.])
    m.update_state([[3., 5.]], sample_weight=[2.])
    assert float(m.result()) == pytest.approx((1 + 2 + 2 * 4) / 4)
    m.reset_state()
    assert float(m.result()) == 0.
    s = M.Sum()
    s.update_state([[1., 2.], [3., 4.]], sample_weight=[1., 0.5])
    assert float(s.result()) == pytest.approx(3 + 3.5)


def test_accuracy_precision_recall_closed_form():
    assert float(M.BinaryAccuracy()([1., 0., 1.], [0.9, 0.6, 0.2])) == pytest.approx(1 / 3)
    p, r = M.Precision(), M.Recall()
    y, s = [1, 1, 0, 0, 1], [0.9, 0.2, 0.8, 0.1, 0.7]
    assert float(p(y, s)) == pytest.approx(2 / 3) and float(r(y, s)) == pytest.approx(2 / 3)
    auc = M.AUC(num_thresholds=1001)
    scores = RNG.uniform(size=200).astype(np.float32)
    labels = (RNG.uniform(size=200) < scores).astype(np.float32)
    pos, neg = scores[labels == 1], scores[labels == 0]
    exact = np.mean(pos[:, None] > neg[None, :])     # Mann-Whitney
    assert float(auc(labels, scores)) == pytest.approx(exact, abs=5e-3)


def test_metric_state_in_a_traced_function():
    m = M.SparseCategoricalAccuracy()
    step = fg.function(lambda y, p: m.update_state(y, p))
    step(fg.constant(IDS[:4]), fg.constant(PROBS[:4]))
    step(fg.constant(IDS[4:]), fg.constant(PROBS[4:]))
    expected = np.mean(np.argmax(PROBS, -1) == IDS)
    assert float(m.result()) == pytest.approx(expected)
    assert all(not v.trainable for v in m.variables)


def test_get_and_config():
    assert isinstance(M.get("accuracy"), M.Accuracy)
    assert isinstance(M.get("mse"), M.MeanSquaredError)
    back = M.deserialize(M.serialize(M.AUC(curve="PR", num_thresholds=10)))
    assert back.curve == "PR" and back.num_thresholds == 10
    with pytest.raises(ValueError, match="could not interpret"):
        M.get("nope")
    with pytest.raises(ValueError, match="curve"):
        M.AUC(curve="XY")


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    return pytest.importorskip("keras")


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_metric_equals_keras(keras, case, weighted):
    kwargs, y_true, y_pred = CASES[case]
    name = case.split("-")[0]
    ours, theirs = getattr(M, name)(**kwargs), getattr(keras.metrics, name)(**kwargs)
    half = N // 2
    for lo, hi in ((0, half), (half, N)):     # two batches: the state accumulates
        sw = SW[lo:hi] if weighted else None
        ours.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
        theirs.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
        np.testing.assert_allclose(np.asarray(ours.result()), np.asarray(theirs.result()),
                                   rtol=2e-5, atol=1e-6)
    ours.reset_state()
    theirs.reset_state()
    np.testing.assert_allclose(np.asarray(ours.result()), np.asarray(theirs.result()))


@pytest.mark.parametrize("case", sorted(CASES))
def test_config_equals_keras(keras, case):
    kwargs, _, _ = CASES[case]
    name = case.split("-")[0]
    ours = getattr(M, name)(**kwargs).get_config()
    theirs = getattr(keras.metrics, name)(**kwargs).get_config()
    ours.pop("name"), theirs.pop("name")
    if theirs.get("label_weights") is not None:
        np.testing.assert_allclose(ours.pop("label_weights"), theirs.pop("label_weights"))
    assert ours == theirs


@pytest.mark.parametrize("case", sorted(CASES))
def test_traced_updates_with_an_open_batch_size_equal_eager(case):
    kwargs, y_true, y_pred = CASES[case]
    name = case.split("-")[0]
    traced, eager = getattr(M, name)(**kwargs), getattr(M, name)(**kwargs)
    update = fg.function(lambda t, p, w: traced.update_state(t, p, sample_weight=w),
                         reduce_retracing=True)
    for lo, hi in ((0, 4), (4, 7), (7, 8)):
        update(fg.constant(y_true[lo:hi]), fg.constant(y_pred[lo:hi]), fg.constant(SW[lo:hi]))
        eager.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=SW[lo:hi])
    np.testing.assert_allclose(np.asarray(traced.result()), np.asarray(eager.result()),
                               rtol=1e-6, atol=1e-7)


SCORE_CASES = {
    "F1Score": ({}, ONE_HOT, PROBS),
    "F1Score-micro": ({"average": "micro", "threshold": 0.3}, ONE_HOT, PROBS),
    "FBetaScore-weighted": ({"average": "weighted", "beta": 2.0}, ONE_HOT, PROBS),
    "FBetaScore-macro": ({"average": "macro", "beta": 0.5, "threshold": 0.2}, BIN_T, BIN_P),
    "R2Score": ({}, REG_T, REG_P),
    "R2Score-variance": ({"class_aggregation": "variance_weighted_average"}, REG_T, REG_P),
    "R2Score-raw": ({"class_aggregation": None, "num_regressors": 2}, REG_T, REG_P),
}


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("case", sorted(SCORE_CASES))
def test_scores_equal_keras(keras, case, weighted):
    kwargs, y_true, y_pred = SCORE_CASES[case]
    name = case.split("-")[0]
    ours, theirs = getattr(M, name)(**kwargs), getattr(keras.metrics, name)(**kwargs)
    for lo, hi in ((0, 5), (5, N)):
        sw = SW[lo:hi] if weighted else None
        ours.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
        theirs.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
    np.testing.assert_allclose(np.asarray(ours.result()), np.asarray(theirs.result()),
                               rtol=2e-5, atol=1e-6)
    c_ours, c_theirs = ours.get_config(), theirs.get_config()
    assert c_ours == c_theirs


def test_r2_closed_form():
    m = M.R2Score()
    m.update_state(REG_T[:, :1], REG_P[:, :1])
    t, p = REG_T[:, 0], REG_P[:, 0]
    expected = 1 - np.sum((t - p) ** 2) / np.sum((t - t.mean()) ** 2)
    assert float(m.result()) == pytest.approx(expected, rel=1e-5)


IOU_CASES = {
    "IoU": ({"num_classes": 5, "target_class_ids": [0, 2, 4]}, IDS, np.argmax(PROBS, -1)),
    "IoU-ignore": ({"num_classes": 5, "target_class_ids": [1, 3], "ignore_class": 2,
                    "sparse_y_pred": False}, IDS, PROBS),
    "MeanIoU": ({"num_classes": 5}, IDS, np.argmax(PROBS, -1)),
    "BinaryIoU": ({"threshold": 0.4}, BIN_T[:, 0], BIN_P[:, 0]),
    "OneHotIoU": ({"num_classes": 5, "target_class_ids": [1, 2]}, ONE_HOT, PROBS),
    "OneHotMeanIoU": ({"num_classes": 5}, ONE_HOT, PROBS),
}


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("case", sorted(IOU_CASES))
def test_iou_equals_keras(keras, case, weighted):
    kwargs, y_true, y_pred = IOU_CASES[case]
    name = case.split("-")[0]
    ours, theirs = getattr(M, name)(**kwargs), getattr(keras.metrics, name)(**kwargs)
    # integer weights: Keras keeps integer counts and truncates fractional weights
    sw = np.round(SW * 2).astype(np.float32) if weighted else None
    for lo, hi in ((0, 5), (5, N)):
        w = None if sw is None else sw[lo:hi]
        ours.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=w)
        theirs.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=w)
    np.testing.assert_allclose(np.asarray(ours.result()), np.asarray(theirs.result()),
                               rtol=1e-6, atol=1e-7)
    assert ours.get_config() == theirs.get_config()


POINT_CASES = {
    "SensitivityAtSpecificity": ({"specificity": 0.6}, BIN_T, BIN_P),
    "SpecificityAtSensitivity": ({"sensitivity": 0.4, "num_thresholds": 20}, BIN_T, BIN_P),
    "PrecisionAtRecall": ({"recall": 0.7, "class_id": 1}, BIN_T, BIN_P),
    "RecallAtPrecision": ({"precision": 0.5, "num_thresholds": 1}, BIN_T, BIN_P),
}


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("case", sorted(POINT_CASES))
def test_operating_point_metrics_equal_keras(keras, case, weighted):
    kwargs, y_true, y_pred = POINT_CASES[case]
    ours, theirs = getattr(M, case)(**kwargs), getattr(keras.metrics, case)(**kwargs)
    for lo, hi in ((0, 5), (5, N)):
        sw = SW[lo:hi] if weighted else None
        ours.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
        theirs.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
    np.testing.assert_allclose(np.asarray(ours.result()), np.asarray(theirs.result()),
                               rtol=1e-6, atol=1e-7)
    assert ours.get_config() == theirs.get_config()


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", ["PearsonCorrelation", "ConcordanceCorrelation"])
def test_correlations_equal_keras(keras, name, weighted):
    ours, theirs = getattr(M, name)(), getattr(keras.metrics, name)()
    for lo, hi in ((0, 5), (5, N)):
        sw = SW[lo:hi] if weighted else None
        ours.update_state(REG_T[lo:hi], REG_P[lo:hi], sample_weight=sw)
        theirs.update_state(REG_T[lo:hi], REG_P[lo:hi], sample_weight=sw)
    np.testing.assert_allclose(np.asarray(ours.result()), np.asarray(theirs.result()),
                               rtol=2e-5, atol=1e-6)
    assert ours.get_config() == theirs.get_config()
