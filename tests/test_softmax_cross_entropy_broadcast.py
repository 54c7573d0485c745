"""``nn.softmax_cross_entropy_with_logits`` broadcasts labels against logits, as TensorFlow
2.21's kernel does (values recorded from it; compared live where it is installed), in eager
code and in a TF1 graph whose batch is a placeholder's None; shapes that do not broadcast
are its InvalidArgumentError. (TensorFlow's own gradient with respect to broadcast labels
fails with a reshape error; finegrad's is the sum over the broadcast rows, checked
against finite differences.)"""
import numpy as np
import pytest

import finegrad as fg
from finegrad.testing import check_gradients

LABELS, LOGITS = [[0., 0., 1.]], [[1., 2., 3.], [1., 2., 4.]]
WANT = [0.40760595, 0.16984604]


def test_labels_broadcast_against_logits():
    got = fg.nn.softmax_cross_entropy_with_logits(labels=LABELS, logits=LOGITS)
    np.testing.assert_allclose(got.numpy(), WANT, rtol=1e-6)
    tf = pytest.importorskip("tensorflow")
    theirs = tf.nn.softmax_cross_entropy_with_logits(labels=LABELS, logits=LOGITS)
    np.testing.assert_allclose(theirs.numpy(), WANT, rtol=1e-6)


def test_in_a_tf1_graph_with_an_open_batch():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        loss = fg.nn.softmax_cross_entropy_with_logits(labels=fg.one_hot([0], 3), logits=x)
        with v1.Session() as sess:
            np.testing.assert_allclose(sess.run(loss, {x: [[1., 2., 3.]]}), [2.4076059],
                                       rtol=1e-6)


def test_shapes_that_do_not_broadcast():
    with pytest.raises(fg.errors.InvalidArgumentError,
                       match=r"must be broadcastable: logits_size=\[2,3\] labels_size=\[1,2\]"):
        fg.nn.softmax_cross_entropy_with_logits(labels=[[0., 1.]], logits=LOGITS)


def test_derivatives_with_broadcast_labels():
    check_gradients(lambda a, b: fg.nn.softmax_cross_entropy_with_logits(labels=a, logits=b),
                    [np.array([[0.2, 0.3, 0.5]]), np.array(LOGITS)])
