"""The TF1 losses program of tests/test_v1_losses.py, run on finegrad or TensorFlow."""
import numpy as np


def run(tf):
    v1 = tf.compat.v1
    L = v1.losses
    labels = np.array([[0., 1.], [1., 0.], [1., 1.]], np.float32)
    preds = np.array([[0.2, 0.7], [0.9, 0.4], [0.6, 0.3]], np.float32)
    w = np.array([[1.], [0.], [2.]], np.float32)
    out = {}
    with tf.Graph().as_default():
        cases = {
            "mse": L.mean_squared_error(labels, preds),
            "mse_w": L.mean_squared_error(labels, preds, weights=w),
            "mse_sum": L.mean_squared_error(labels, preds, weights=w, reduction=L.Reduction.SUM),
            "mse_mean": L.mean_squared_error(labels, preds, weights=w, reduction=L.Reduction.MEAN),
            "mse_batch": L.mean_squared_error(labels, preds, weights=w,
                                              reduction=L.Reduction.SUM_OVER_BATCH_SIZE),
            "mse_none": L.mean_squared_error(labels, preds, weights=w, reduction=L.Reduction.NONE),
            "abs": L.absolute_difference(labels, preds, weights=w),
            "log": L.log_loss(labels, preds),
            "huber": L.huber_loss(labels, preds * 3., delta=0.5),
            "hinge": L.hinge_loss(labels, preds * 2. - 1.),
            "sig": L.sigmoid_cross_entropy(labels, preds * 3., label_smoothing=0.1),
            "soft": L.softmax_cross_entropy(labels / labels.sum(1, keepdims=True), preds * 3.,
                                            weights=[1., 2., 0.], label_smoothing=0.2),
            "sparse": L.sparse_softmax_cross_entropy(np.array([1, 0, 1], np.int32), preds * 3.),
            "cos": L.cosine_distance(labels / np.linalg.norm(labels, axis=1, keepdims=True),
                                     preds / np.linalg.norm(preds, axis=1, keepdims=True),
                                     axis=1),
            "zero_w": L.mean_squared_error(labels, preds, weights=0.),
        }
        n = len(L.get_losses())
        with v1.Session() as s:
            for k, t in cases.items():
                out[k] = s.run(t)
    return out, n
