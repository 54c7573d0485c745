"""tf.train.Checkpoint / CheckpointManager: keys, numbering, the state file, restore checks
and errors as TensorFlow 2.21 gives them (recorded from TF on the same programs)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import finegrad as tf
from finegrad._src.api.checkpoint import restore_on_creation


class M(tf.Module):
    def __init__(self, n=2):
        super().__init__()
        self.w = tf.Variable(np.arange(1., n + 1, dtype=np.float32))
        self.layers = [tf.Variable(3.), {"b": tf.Variable(4.)}]
        self._p = tf.Variable(5.)


def test_keys_numbering_and_state_file_as_tensorflow(tmp_path):
    m = M()
    ck = tf.train.Checkpoint(step=tf.Variable(7), model=m)
    p = ck.save(str(tmp_path / "ckpt"))
    assert p == str(tmp_path / "ckpt-1")
    assert (tmp_path / "checkpoint").read_text() == \
        'model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_paths: "ckpt-1"\n'
    # TensorFlow lists the same keys, plus its own _CHECKPOINTABLE_OBJECT_GRAPH entry
    assert tf.train.list_variables(p) == [
        ("model/_p/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/layers/0/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/layers/1/b/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/w/.ATTRIBUTES/VARIABLE_VALUE", [2]),
        ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("step/.ATTRIBUTES/VARIABLE_VALUE", [])]
    np.testing.assert_array_equal(tf.train.load_variable(p, "model/w/.ATTRIBUTES/VARIABLE_VALUE"),
                                  [1., 2.])
    assert ck.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-2")
    assert int(ck.save_counter.numpy()) == 2
    assert ck.write(str(tmp_path / "w")) == str(tmp_path / "w")
    assert int(ck.save_counter.numpy()) == 2                  # write counts nothing
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-2")
    assert tf.train.latest_checkpoint(str(tmp_path / "none")) is None
    assert tf.train.load_variable(str(tmp_path), "step") == 7   # a directory: its latest


def test_restore_assigns_by_path_and_its_checks(tmp_path):
    m = M()
    ck = tf.train.Checkpoint(step=tf.Variable(7), model=m)
    p = ck.save(str(tmp_path / "ckpt"))
    m.w.assign([0., 0.])
    m.layers[1]["b"].assign(0.)
    status = ck.restore(p)
    assert type(status).__name__ == "CheckpointLoadStatus"
    status.assert_consumed()
    np.testing.assert_array_equal(m.w.numpy(), [1., 2.])
    assert float(m.layers[1]["b"].numpy()) == 4.
    other = tf.train.Checkpoint(model=M())
    other.model.w.assign([9., 9.])
    st = other.restore(p)
    with pytest.raises(AssertionError, match="step"):
        st.assert_consumed()                 # TF: "Unresolved object in checkpoint (root).step"
    st.assert_existing_objects_matched().assert_nontrivial_match().expect_partial()
    np.testing.assert_array_equal(other.model.w.numpy(), [1., 2.])
    missing = tf.train.Checkpoint(model=M(), extra=tf.Variable(1.)).restore(p)
    with pytest.raises(AssertionError, match="extra"):
        missing.assert_existing_objects_matched()


def test_errors_are_tensorflows(tmp_path):
    p = tf.train.Checkpoint(model=M()).save(str(tmp_path / "ckpt"))
    with pytest.raises(tf.errors.NotFoundError, match="no finegrad checkpoint"):
        tf.train.Checkpoint(model=M()).restore(str(tmp_path / "nope"))
    with pytest.raises(ValueError, match=r"incompatible tensor with shape \(2,\) when attempting "
                                         r"to restore variable with shape \(3,\)"):
        tf.train.Checkpoint(model=M(3)).restore(p)
    status = tf.train.Checkpoint(model=M()).restore(None)
    assert type(status).__name__ == "InitializationOnlyStatus"
    with pytest.raises(AssertionError):
        status.assert_consumed()
    with pytest.raises(ValueError, match="expecting x to be a trackable object .* got int"):
        tf.train.Checkpoint(x=3)


def test_manager_keeps_the_newest_and_numbers_from_the_save_counter(tmp_path):
    ck = tf.train.Checkpoint(v=tf.Variable(1.))
    mgr = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=2)
    paths = [mgr.save() for _ in range(4)]
    assert [os.path.basename(p) for p in paths] == ["ckpt-1", "ckpt-2", "ckpt-3", "ckpt-4"]
    assert mgr.checkpoints == [str(tmp_path / "ckpt-3"), str(tmp_path / "ckpt-4")]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-3.data.npz", "ckpt-3.index",
                                            "ckpt-4.data.npz", "ckpt-4.index"]
    assert mgr.save(checkpoint_number=10) == str(tmp_path / "ckpt-10")
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-10")
    again = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(0.)), str(tmp_path), 2)
    assert again.checkpoints == [str(tmp_path / "ckpt-4"), str(tmp_path / "ckpt-10")]
    assert again.restore_or_initialize() == str(tmp_path / "ckpt-10")
    assert float(again.checkpoint.v.numpy()) == 1.
    ran = []
    fresh = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(0.)),
                                       str(tmp_path / "new"), 2, init_fn=lambda: ran.append(1))
    assert fresh.restore_or_initialize() is None and ran == [1]


def test_interval_saves_only_every_n_steps(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path), 5,
                                     step_counter=step, checkpoint_interval=3)
    saved = []
    for i in range(7):
        step.assign(i)
        saved.append(mgr.save() is not None)
    assert saved == [True, False, False, True, False, False, True]


def test_values_restored_before_their_variable_exists_arrive_at_creation(tmp_path):
    class Lazy(tf.Module):
        def build(self):
            self.kernel = tf.Variable([0., 0.])
            restore_on_creation(self, "kernel", self.kernel)

    saved = Lazy()
    saved.build()
    saved.kernel.assign([3., 4.])
    p = tf.train.Checkpoint(net=saved).save(str(tmp_path / "ckpt"))
    lazy = Lazy()
    status = tf.train.Checkpoint(net=lazy).restore(p)
    lazy.build()
    np.testing.assert_array_equal(lazy.kernel.numpy(), [3., 4.])
    status.assert_consumed()


def test_a_custom_gradient_model_round_trips_in_a_new_process(tmp_path):
    code = f"""
import numpy as np, finegrad as tf
class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([1., 2.])
    @tf.custom_gradient
    def clipped(self, x):
        def grad(dy, variables=None):
            return tf.clip_by_value(dy, -1., 1.), [dy * x]
        return x * self.w, grad
net = Net()
ckpt = tf.train.Checkpoint(net=net)
import sys
if sys.argv[1] == "save":
    net.w.assign([3., -5.])
    print(ckpt.save({str(tmp_path / 'ckpt')!r}))
else:
    ckpt.restore(tf.train.latest_checkpoint({str(tmp_path)!r})).assert_consumed()
    x = tf.constant([10., 10.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(net.clipped(x))
    gx, gw = tape.gradient(y, [x, net.w])
    print(net.w.numpy().tolist(), gx.numpy().tolist(), gw.numpy().tolist())
"""
    script = tmp_path / "net.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = lambda arg: subprocess.run([sys.executable, str(script), arg], capture_output=True,  # noqa: E731
                                     text=True, env=env, timeout=300, check=True).stdout
    assert run("save").strip().endswith("ckpt-1")
    assert run("load").strip() == "[3.0, -5.0] [1.0, 1.0] [10.0, 10.0]"


def test_a_keras_model_built_after_restore_gets_the_saved_weights(tmp_path):
    def model():
        return tf.keras.Sequential([tf.keras.layers.Dense(3, name="d1"),
                                    tf.keras.layers.Dense(1, name="d2")])
    saved = model()
    x = np.ones((2, 4), np.float32)
    want = saved(x).numpy()
    path = tf.train.Checkpoint(model=saved).save(str(tmp_path / "ckpt"))
    fresh = model()                                   # not built: no weights yet
    status = tf.train.Checkpoint(model=fresh).restore(path)
    np.testing.assert_allclose(fresh(x).numpy(), want, rtol=1e-6)   # built by the call
    status.assert_consumed()


def _slot_model():
    return tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, name="d1"),
                                tf.keras.layers.Dense(1, name="d2")])


def _train_step(model, opt, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))


def test_optimizer_slots_restored_before_they_exist_arrive_when_made(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 4)).astype("f4")
    y = rng.normal(size=(8, 1)).astype("f4")
    model, opt = _slot_model(), tf.keras.optimizers.Adam(0.1)
    for _ in range(3):
        _train_step(model, opt, x, y)
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    keys = [k for k, _ in tf.train.list_variables(path)]
    assert "optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE" in keys   # TF's key (a slot)
    fresh, fresh_opt = _slot_model(), tf.keras.optimizers.Adam(0.1)   # no slots yet
    status = tf.train.Checkpoint(model=fresh, optimizer=fresh_opt).restore(path)
    assert int(fresh_opt.iterations.numpy()) == 3
    _train_step(model, opt, x, y)            # uninterrupted
    _train_step(fresh, fresh_opt, x, y)      # restored: slots made now get the saved moments
    for a, b in zip(model.get_weights() + [v.numpy() for v in opt.variables],
                    fresh.get_weights() + [v.numpy() for v in fresh_opt.variables],
                    strict=True):
        np.testing.assert_array_equal(a, b)
    status.assert_consumed()


def test_unbuilt_model_and_optimizer_restore_then_train_bit_for_bit(tmp_path):
    def lazy():   # no input shape: weights made at the first call, slots at the first step
        return tf.keras.Sequential([tf.keras.layers.Dense(3, name="d1"),
                                    tf.keras.layers.Dense(1, name="d2")])
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 4)).astype("f4")
    y = rng.normal(size=(8, 1)).astype("f4")
    model, opt = lazy(), tf.keras.optimizers.RMSprop(0.05, momentum=0.5, centered=True)
    for _ in range(2):
        _train_step(model, opt, x, y)
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    fresh, fresh_opt = lazy(), tf.keras.optimizers.RMSprop(0.05, momentum=0.5, centered=True)
    status = tf.train.Checkpoint(model=fresh, optimizer=fresh_opt).restore(path)
    for _ in range(2):
        _train_step(model, opt, x, y)
        _train_step(fresh, fresh_opt, x, y)
    for a, b in zip(model.get_weights() + [v.numpy() for v in opt.variables],
                    fresh.get_weights() + [v.numpy() for v in fresh_opt.variables],
                    strict=True):
        np.testing.assert_array_equal(a, b)
    status.assert_consumed()
