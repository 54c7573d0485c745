"""compat.v1.losses against TensorFlow 2.21's: the same program (tests/v1_losses_case.py) gives
these values under TensorFlow (recorded; identical to the last float32 bit), and the live
comparison reruns TensorFlow when it is installed."""
import numpy as np
import pytest

import finegrad as tf

from v1_losses_case import run

v1 = tf.compat.v1

RECORDED = {   # TensorFlow 2.21, tf.compat.v1.losses in a graph and session
    "mse": 0.15833331644535065, "mse_w": 0.35749998688697815, "mse_sum": 1.4299999475479126,
    "mse_mean": 0.2383333295583725, "mse_batch": 0.2383333295583725,
    "mse_none": [[0.04000000283122063, 0.09000000357627869], [0.0, 0.0],
                 [0.31999996304512024, 0.9799999594688416]],
    "abs": 0.6749999523162842, "log": 0.48513364791870117, "huber": 0.3466666638851166,
    "hinge": 0.699999988079071, "sig": 0.5767441987991333, "soft": 0.5271199941635132,
    "sparse": 0.547993540763855, "cos": 0.05866040661931038, "zero_w": 0.0,
}


def test_losses_match_tensorflow_recorded():
    out, n = run(tf)
    assert n == 15                       # each loss went to the LOSSES collection
    for k, want in RECORDED.items():
        np.testing.assert_array_equal(np.asarray(out[k]), np.asarray(want, np.float32), k)


def test_losses_match_tensorflow_live():
    real = pytest.importorskip("tensorflow")
    want, n_tf = run(real)
    got, n = run(tf)
    assert n == n_tf
    for k in want:
        np.testing.assert_array_equal(got[k], want[k], k)


def test_total_loss_and_reduction_validation():
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=np.float32(2.),
                            regularizer=lambda v: v * v)
        loss = v1.losses.absolute_difference([1.], tf.reshape(w, [1]))
        total = v1.losses.get_total_loss()
        with v1.Session() as sess:
            sess.run(w.initializer)
            assert sess.run([loss, total]) == [1., 5.]
        with pytest.raises(ValueError):
            v1.losses.compute_weighted_loss([1.], reduction="bad")


def test_v1_op_spellings():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        s = v1.reduce_sum(x, reduction_indices=[1], keep_dims=True)
        m = v1.argmax(x, dimension=1)
        d = v1.div(tf.constant(7), 2)
        e = v1.expand_dims(x, dim=0)
        keep = v1.nn.dropout(x, keep_prob=1.0)
        with v1.Session() as sess:
            val = np.array([[1., 5., 2.], [3., 0., 4.]], np.float32)
            rs, rm, rd, re, rk = sess.run([s, m, d, e, keep], {x: val})
    np.testing.assert_array_equal(rs, [[8.], [7.]])
    np.testing.assert_array_equal(rm, [1, 2])
    assert rd == 3 and re.shape == (1, 2, 3)
    np.testing.assert_array_equal(rk, val)
    assert float(v1.log(tf.constant(1.))) == 0.
    with pytest.raises(ValueError):
        v1.reduce_sum(tf.constant([1.]), axis=0, reduction_indices=0)


def test_v1_session_config_logging_variable_and_nn_spellings():
    v1.logging.set_verbosity(v1.logging.ERROR)
    config = v1.ConfigProto(allow_soft_placement=True)
    config.gpu_options.allow_growth = True
    assert config.gpu_options.allow_growth and config.log_device_placement is None
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 4, 4, 1])
        w = v1.Variable(tf.ones([3, 3, 1, 2]), name="conv_w", collections=["mine"])
        assert v1.get_collection("mine") == [w] and v1.global_variables() == []
        h = v1.nn.conv2d(x, filter=w, strides=[1, 1, 1, 1], padding="SAME")
        p = v1.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        s = v1.nn.softmax(tf.reshape(p, [-1, 8]), dim=1)
        with v1.Session(config=config) as sess:
            sess.run([w.initializer, v1.tables_initializer()],
                     options=v1.RunOptions(), run_metadata=v1.RunMetadata())
            out = sess.run(s, {x: np.ones((2, 4, 4, 1), np.float32)})
    np.testing.assert_allclose(out, np.full((2, 8), 1 / 8), rtol=1e-6)
    assert w.name == "conv_w:0"
