"""CTC: `finegrad.nn.ctc_loss` (TensorFlow's dense-label form) and `finegrad.ops.ctc_loss` /
`ctc_decode` on every backend, against TensorFlow 2.21's tf.nn.ctc_loss and its decoders
(live when installed; the constants below were recorded from TF 2.21 with this test's inputs),
and the loss's derivatives against finite differences (first and second order, both modes)."""
import numpy as np
import pytest

import finegrad as fg
from finegrad import ops
from finegrad.testing import check_gradients

RNG = np.random.default_rng(0)
LOGITS = RNG.normal(size=(3, 7, 5)).astype("float32")
TARGET = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [4, 4, 4, 1]], "int32")
TARGET_LENGTH = np.array([3, 2, 4], "int32")
OUTPUT_LENGTH = np.array([7, 5, 7], "int32")
TF_LOSS = [8.541771, 4.829467, 9.172072]        # tf.nn.ctc_loss(..., logits_time_major=False)
TF_GREEDY = ([[2, 1, 4, 1, 4], [4, 1, 2, 3, 2], [4, 4, 1, 1, -1]],
             [-5.1557665, -6.320131, -9.297605])
TF_BEAM = ([[[2, 1, 4, 3, -1], [4, 2, 3, 2, -1], [4, 2, 1, -1, -1]],
            [[2, 1, 4, 1, 3], [4, 1, 3, 2, -1], [4, 2, 1, 4, -1]]],
           [[-4.3726344, -4.67621], [-3.6868563, -3.7021854], [-3.6721928, -3.7908099]])
BACKENDS = ["finegrad", "jax", "torch", "tensorflow"]


def _scope(name):
    if name != "finegrad":
        pytest.importorskip(name)
    return ops.backend_scope(name)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ctc_loss_equals_tensorflow(backend):
    with _scope(backend):
        loss = ops.ctc_loss(TARGET, ops.convert_to_tensor(LOGITS), TARGET_LENGTH, OUTPUT_LENGTH)
        np.testing.assert_allclose(ops.convert_to_numpy(loss), TF_LOSS, rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ctc_decode_greedy_and_beam_search_equal_tensorflow(backend):
    with _scope(backend):
        x = ops.convert_to_tensor(LOGITS)
        decoded, scores = ops.ctc_decode(x, OUTPUT_LENGTH)
        np.testing.assert_array_equal(ops.convert_to_numpy(decoded)[0, :, :5], TF_GREEDY[0])
        np.testing.assert_allclose(ops.convert_to_numpy(scores)[:, 0], TF_GREEDY[1], rtol=1e-5)
        decoded, scores = ops.ctc_decode(x, OUTPUT_LENGTH, strategy="beam_search",
                                         beam_width=50, top_paths=2)
        assert ops.convert_to_numpy(decoded).shape == (2, 3, 7)
        np.testing.assert_array_equal(ops.convert_to_numpy(decoded)[:, :, :5], TF_BEAM[0])
        np.testing.assert_allclose(ops.convert_to_numpy(scores), TF_BEAM[1], rtol=1e-5)


def test_decode_with_another_blank_and_without_merging():
    x = np.log(np.array([[[0.1, 0.7, 0.2], [0.1, 0.7, 0.2], [0.8, 0.1, 0.1],
                          [0.1, 0.7, 0.2]]], "float32"))
    merged, _ = ops.ctc_decode(x, [4], mask_index=2)
    assert ops.convert_to_numpy(merged)[0, 0].tolist() == [1, 0, 1, -1]
    unmerged, _ = ops.ctc_decode(x, [4], merge_repeated=False, mask_index=2)
    assert ops.convert_to_numpy(unmerged)[0, 0].tolist() == [1, 1, 0, 1]
    with pytest.raises(ValueError, match="Invalid strategy"):
        ops.ctc_decode(x, [4], strategy="best")


def test_ctc_loss_gradient_equals_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = tf.constant(LOGITS)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.nn.ctc_loss(TARGET, x, TARGET_LENGTH, OUTPUT_LENGTH,
                                            logits_time_major=False, blank_index=0))
    want = tape.gradient(loss, x).numpy()
    xf = fg.constant(LOGITS)
    with fg.GradientTape() as tape:
        tape.watch(xf)
        loss = fg.reduce_sum(ops.ctc_loss(TARGET, xf, TARGET_LENGTH, OUTPUT_LENGTH))
    np.testing.assert_allclose(tape.gradient(loss, xf).numpy(), want, atol=2e-6)


def test_tf_nn_ctc_loss_time_major_and_blank_index_equal_tensorflow():
    # the classes reversed: the blank 0 becomes the last class (-1), label l becomes 4 - l
    reversed_ = np.transpose(LOGITS, (1, 0, 2))[..., ::-1].copy()
    got = fg.nn.ctc_loss(4 - TARGET, reversed_, TARGET_LENGTH, OUTPUT_LENGTH, blank_index=-1)
    np.testing.assert_allclose(got.numpy(), TF_LOSS, rtol=1e-5)
    tf = pytest.importorskip("tensorflow")
    ref = tf.nn.ctc_loss(4 - TARGET, reversed_, TARGET_LENGTH, OUTPUT_LENGTH, blank_index=-1)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5)


def test_ctc_loss_derivatives_match_finite_differences():
    logits = RNG.normal(size=(2, 4, 3))
    labels = np.array([[1, 1], [2, 0]])

    def loss(x):
        return fg.nn.ctc_loss(labels, x, [2, 1], [4, 3], logits_time_major=False)
    check_gradients(loss, [logits], order=2)


def test_ctc_loss_traces_with_an_open_batch_size():
    f = fg.function(lambda x: fg.nn.ctc_loss(TARGET, x, TARGET_LENGTH, OUTPUT_LENGTH,
                                             logits_time_major=False),
                    input_signature=[fg.TensorSpec((None, 7, 5), "float32")])
    np.testing.assert_allclose(f(LOGITS).numpy(), TF_LOSS, rtol=1e-5)
