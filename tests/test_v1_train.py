"""TF1 optimizers in sessions: values after three steps, slots and their names, global step.

The expected values were recorded from TensorFlow 2.21's tf.compat.v1.train optimizers running
this same program with eager execution disabled (they agree to the last float32 bit); the live
comparison below reruns TensorFlow when it is installed."""
import numpy as np
import pytest

import finegrad as tf

v1 = tf.compat.v1

CASES = {
    "sgd": (lambda m: m.GradientDescentOptimizer(0.1), [0.5119999647140503, -0.4320000112056732],
            []),
    "momentum": (lambda m: m.MomentumOptimizer(0.1, 0.9),
                 [0.062000006437301636, 1.0799999237060547], ["w/Momentum:0"]),
    "nesterov": (lambda m: m.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                 [-0.10835197567939758, 0.8665918707847595], ["w/Momentum:0"]),
    "adam": (lambda m: m.AdamOptimizer(0.1), [0.7015873193740845, -1.7006244659423828],
             ["beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0"]),
    "rmsprop": (lambda m: m.RMSPropOptimizer(0.1), [0.5745230317115784, -1.3382186889648438],
                ["w/RMSProp:0", "w/RMSProp_1:0"]),
    "rmsprop_centered": (lambda m: m.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
                         [0.3683229386806488, -0.9537225961685181],
                         ["w/RMSProp:0", "w/RMSProp_1:0", "w/RMSProp_2:0"]),
    "adagrad": (lambda m: m.AdagradOptimizer(0.1), [0.7822992205619812, -1.7759406566619873],
                ["w/Adagrad:0"]),
}


def _train(tf_module, make, steps=3):
    v1m = tf_module.compat.v1
    with tf_module.Graph().as_default():
        w = v1m.get_variable("w", initializer=np.array([1., -2.], np.float32))
        x = v1m.placeholder(tf_module.float32, [2])
        loss = tf_module.reduce_sum(w * w * x)
        step = v1m.train.get_or_create_global_step()
        train = make(v1m.train).minimize(loss, global_step=step)
        with v1m.Session() as sess:
            sess.run(v1m.global_variables_initializer())
            for _ in range(steps):
                assert sess.run(train, {x: [1., 2.]}) is None
            return (sess.run(w), int(sess.run(step)),
                    [v.name for v in v1m.global_variables()])


@pytest.mark.parametrize("case", sorted(CASES))
def test_optimizer_matches_tensorflow_recorded(case):
    make, expected, slots = CASES[case]
    w, step, names = _train(tf, make)
    np.testing.assert_array_equal(w, np.array(expected, np.float32))   # bit for bit
    assert step == 3 and names == ["w:0", "global_step:0"] + slots


@pytest.mark.parametrize("case", ["adam", "nesterov", "rmsprop_centered"])
def test_optimizer_matches_tensorflow_live(case):
    real = pytest.importorskip("tensorflow")
    make = CASES[case][0]
    w_tf, _, names_tf = _train(real, make, steps=5)   # in a Graph block: eager mode stays on
    w, _, names = _train(tf, make, steps=5)
    np.testing.assert_array_equal(w, w_tf)
    assert sorted(names) == sorted(names_tf)


def test_compute_and_apply_gradients_and_slots():
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=np.float32(2.))
        u = v1.get_variable("u", initializer=np.float32(1.))
        opt = v1.train.MomentumOptimizer(0.5, 0.5)
        gvs = opt.compute_gradients(w * w)
        assert [(g is None, v) for g, v in gvs] == [(False, w), (True, u)]
        clipped = [(tf.clip_by_value(g, -1., 1.), v) for g, v in gvs if g is not None]
        train = opt.apply_gradients(clipped)
        assert opt.get_slot_names() == ["momentum"] and opt.get_slot(u, "momentum") is None
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(train)
            sess.run(train)
            # accum 1 then 1.5: w = 2 - 0.5 - 0.75
            assert sess.run([w, opt.get_slot(w, "momentum")]) == [0.75, 1.5]
        with pytest.raises(ValueError, match="No gradients provided"):
            opt.minimize(u * 0. + tf.constant(1.), var_list=[w])


def test_global_step_helpers():
    with tf.Graph().as_default():
        assert v1.train.get_global_step() is None
        step = v1.train.get_or_create_global_step()
        assert step is v1.train.get_or_create_global_step()
        assert step.dtype == tf.int64 and not step.trainable
        with pytest.raises(ValueError):
            v1.train.create_global_step()


def test_optimizer_eagerly():
    w = tf.Variable(1.)
    opt = v1.train.GradientDescentOptimizer(0.25)
    opt.minimize(lambda: w * w)
    assert float(w.numpy()) == 0.5


def test_saver_round_trip_and_latest_checkpoint(tmp_path):
    with tf.Graph().as_default():
        with v1.variable_scope("dense"):
            w = v1.get_variable("w", initializer=np.array([1., 2.], np.float32))
        step = v1.train.get_or_create_global_step()
        bump = w.assign_add([1., 1.])
        saver = v1.train.Saver(max_to_keep=2)
        assert v1.train.latest_checkpoint(str(tmp_path)) is None
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            paths = []
            for i in range(3):
                sess.run(bump)
                paths.append(saver.save(sess, str(tmp_path / "model"), global_step=i))
        assert paths[-1] == str(tmp_path / "model-2")
        assert not (tmp_path / "model-0.npz").exists()          # max_to_keep
        with np.load(tmp_path / "model-2.npz") as data:        # the documented format
            assert sorted(data) == ["dense/w", "global_step"]
            np.testing.assert_array_equal(data["dense/w"], [4., 5.])
        latest = v1.train.latest_checkpoint(str(tmp_path))
        assert latest == str(tmp_path / "model-2")
        with v1.Session() as sess:
            saver.restore(sess, latest)
            np.testing.assert_array_equal(sess.run(w), [4., 5.])
            saver.restore(sess, paths[1])
            np.testing.assert_array_equal(sess.run(w), [3., 4.])
            with pytest.raises(ValueError, match="not a valid checkpoint"):
                saver.restore(sess, str(tmp_path / "nothing"))
        with v1.Session() as sess, pytest.raises(ValueError, match="doesn't exist"):
            sess.run(v1.global_variables_initializer())
            saver.save(sess, str(tmp_path / "missing" / "model"))
        other = v1.train.Saver({"dense/w": step})
        with v1.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            other.restore(sess, latest)
