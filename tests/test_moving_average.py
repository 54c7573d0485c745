"""``tf.train.ExponentialMovingAverage``: shadow values, names and the num_updates decay
eagerly, and the update operation of a TF1 graph, as TensorFlow 2.21 gives them (recorded;
the same script compared live where TensorFlow is installed)."""
import pytest


def _run(tf, v1):
    out = {}
    v = tf.Variable([1., 2.], name="w")
    ema = tf.train.ExponentialMovingAverage(0.9)
    out["apply"] = ema.apply([v])
    out["name"] = (ema.average(v).name, ema.average_name(v), ema.name)
    out["first"] = ema.average(v).numpy().tolist()
    v.assign([3., 4.])
    ema.apply([v])
    out["moved"] = [round(float(x), 5) for x in ema.average(v).numpy()]
    step = tf.Variable(0, dtype=tf.int64)
    ema2 = tf.train.ExponentialMovingAverage(0.99, num_updates=step)
    ema2.apply([v])
    v.assign([5., 5.])
    ema2.apply([v])
    out["num_updates"] = [round(float(x), 5) for x in ema2.average(v).numpy()]
    out["restore"] = sorted(ema.variables_to_restore())
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=[1., 2.])
        e = v1.train.ExponentialMovingAverage(0.5)
        op = e.apply([w])
        out["op"] = op.type
        upd = v1.assign(w, [3., 6.])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(upd)
            sess.run(op)
            out["graph"] = sess.run(e.average(w)).tolist()
    return out


RECORDED = {"apply": None,
            "name": ("w/ExponentialMovingAverage:0", "w/ExponentialMovingAverage",
                     "ExponentialMovingAverage"),
            "first": [1., 2.], "moved": [1.2, 2.2], "num_updates": [4.8, 4.9],
            "restore": ["w/ExponentialMovingAverage"], "op": "NoOp", "graph": [2., 4.]}


def test_as_tensorflow():
    import finegrad as fg
    assert _run(fg, fg.compat.v1) == RECORDED


def test_recorded_values_are_tensorflows():
    tf = pytest.importorskip("tensorflow")
    assert _run(tf, tf.compat.v1) == RECORDED


def test_bad_arguments():
    import finegrad as fg
    ema = fg.train.ExponentialMovingAverage(0.9)
    with pytest.raises(ValueError, match="var_list is needed"):
        ema.apply()
    with pytest.raises(TypeError, match="float dtype"):
        ema.apply([fg.Variable(1)])
    assert ema.average(fg.Variable(1.)) is None
