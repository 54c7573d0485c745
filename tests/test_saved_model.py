"""tf.saved_model.save / load: a Module's variables and traced functions, custom gradients
included, saved in finegrad's directory format and loaded in a new process (no user Python
runs at load: the loading script never defines the saved classes)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import finegrad as tf

SAVE = """
import json, sys
import numpy as np
import finegrad as tf

@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)
    return y, backward

class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([1., -2., 3.])
        self.steps = tf.Variable(0, trainable=False)
        self.parts = [tf.Module(), tf.Variable(5.)]

    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, x):           # TensorFlow's advanced-autodiff guide
        return clip_gradients(x)

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def scaled(self, x):
        @tf.custom_gradient
        def times_w(x):
            y = x * self.w
            def grad(dy, variables=None):
                return dy * 10., [tf.reduce_sum(dy * x, axis=0) * 100.]
            return y, grad
        self.steps.assign_add(1)
        return tf.reduce_sum(tf.sin(times_w(x)), axis=1)

module = Scale()
directory, custom = sys.argv[1], sys.argv[2] == "custom"
x = np.linspace(-1., 1., 6, dtype=np.float32).reshape(2, 3)
tf.saved_model.save(module, directory,
                    options=tf.saved_model.SaveOptions(experimental_custom_gradients=custom))
v = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(v)
    g = module.call_custom_grad(v)
    xt = tf.constant(x)
    tape.watch(xt)
    y = tf.reduce_sum(module.scaled(xt))
out = {"clip": float(tape.gradient(g, v).numpy()), "y": float(y.numpy()),
       "dx": tape.gradient(y, xt).numpy().tolist(),
       "dw": tape.gradient(y, module.w).numpy().tolist()}
print(json.dumps(out))
"""

LOAD = """
import json, sys
import numpy as np
import finegrad as tf

loaded = tf.saved_model.load(sys.argv[1])
x = np.linspace(-1., 1., 6, dtype=np.float32).reshape(2, 3)
v = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(v)
    g = loaded.call_custom_grad(v)
    xt = tf.constant(x)
    tape.watch(xt)
    y = tf.reduce_sum(loaded.scaled(xt))
out = {"clip": float(tape.gradient(g, v).numpy()), "y": float(y.numpy()),
       "dx": tape.gradient(y, xt).numpy().tolist(),
       "dw": tape.gradient(y, loaded.w).numpy().tolist(),
       "steps": int(loaded.steps.numpy()), "trainable": [v.name for v in
                                                          loaded.trainable_variables],
       "parts": float(loaded.parts[1].numpy()),
       "batch5": loaded.scaled(np.ones((5, 3), np.float32)).shape.as_list(),
       "classes": "Scale" in dir(sys.modules["__main__"])}
print(json.dumps(out))
"""


def _run(code, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("custom", [True, False])
def test_round_trip_in_a_new_process(tmp_path, custom):
    directory = str(tmp_path / "model")
    want = _run(SAVE, directory, "custom" if custom else "plain")
    got = _run(LOAD, directory)
    assert got["y"] == pytest.approx(want["y"], rel=1e-6)
    assert got["steps"] == 1 and got["parts"] == 5.0 and not got["classes"]
    assert sorted(got["trainable"]) == ["Variable:0", "Variable:0"]   # w and parts[1]
    assert got["batch5"] == [5]        # a None dimension serves any batch size
    x = np.linspace(-1., 1., 6, dtype=np.float32).reshape(2, 3)
    w = np.array([1., -2., 3.], np.float32)
    if custom:   # the saved rules: clip to norm 0.5; dx = 10 dy, dw = 100 sum(dy x)
        assert want["clip"] == got["clip"] == 0.5
        np.testing.assert_allclose(got["dx"], 10 * np.cos(x * w), rtol=1e-6)
        np.testing.assert_allclose(got["dw"], 100 * (np.cos(x * w) * x).sum(0), rtol=1e-5)
    else:        # the recorded forward computation: identity; sin(x w)
        assert got["clip"] == 1.0
        np.testing.assert_allclose(got["dx"], np.cos(x * w) * w, rtol=1e-6)
        np.testing.assert_allclose(got["dw"], (np.cos(x * w) * x).sum(0), rtol=1e-5)
    if custom:   # what the original process gave (there the rules ran as Python)
        np.testing.assert_allclose(got["dx"], want["dx"], rtol=1e-6)
        np.testing.assert_allclose(got["dw"], want["dw"], rtol=1e-6)


class _Signed(tf.Module):
    def __init__(self):
        super().__init__()
        self.b = tf.Variable(1.)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="inp")])
    def serve(self, x):
        return x + self.b

    @tf.function
    def traced(self, x, power=2):
        return x ** power


def test_signatures_traced_calls_and_files(tmp_path):
    m = _Signed()
    m.traced(tf.constant([1., 2.]))                 # traced before saving: saved too
    m.traced(tf.constant([1., 2.]), power=3)
    directory = str(tmp_path / "s")
    assert not tf.saved_model.contains_saved_model(directory)
    tf.saved_model.save(m, directory)
    assert tf.saved_model.contains_saved_model(directory)
    assert sorted(os.listdir(directory)) == ["saved_model.json", "saved_model.npz",
                                             "variables"]
    with np.load(os.path.join(directory, "saved_model.npz"), allow_pickle=False):
        pass                                          # no pickled objects
    loaded = tf.saved_model.load(directory)
    assert list(loaded.signatures) == ["serving_default"]   # the one with a signature
    out = loaded.signatures["serving_default"](inp=tf.constant([1., 2.]))
    assert list(out) == ["output_0"] and out["output_0"].numpy().tolist() == [2., 3.]
    with pytest.raises(TypeError, match="keyword arguments only"):
        loaded.signatures["serving_default"](tf.constant([1.]))
    np.testing.assert_array_equal(loaded.traced(tf.constant([1., 2.]), power=3).numpy(),
                                  [1., 8.])
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.traced(tf.constant([1., 2., 3.]))    # a shape never traced
    explicit = str(tmp_path / "e")
    tf.saved_model.save(m, explicit, signatures={"plus": m.serve})
    assert list(tf.saved_model.load(explicit).signatures) == ["plus"]


def test_python_bodies_and_missing_directories_are_clear_errors(tmp_path):
    class Py(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def f(self, x):
            return tf.numpy_function(np.sin, [x], tf.float32)

    with pytest.raises(ValueError, match="numpy_function"):
        tf.saved_model.save(Py(), str(tmp_path / "py"))
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        tf.saved_model.load(str(tmp_path))


def test_call_function_and_keras_layers_inside(tmp_path):
    class WithLayer(tf.Module):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)
            self.dense.build((None, 3))

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def __call__(self, x):
            return self.dense(x)

    m = WithLayer()
    tf.saved_model.save(m, str(tmp_path / "call"))
    loaded = tf.saved_model.load(str(tmp_path / "call"))
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(loaded(x).numpy(), m(x).numpy())
    assert sorted(tuple(v.shape) for v in loaded.trainable_variables) == [(2,), (3, 2)]
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(loaded(x))
    grads = tape.gradient(y, loaded.trainable_variables)
    assert all(g is not None for g in grads)


def test_control_flow_is_saved_with_its_sub_graphs(tmp_path):
    class Flow(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(1.5)

        @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
        def f(self, x):
            y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2., lambda: x - self.w)
            _, z = tf.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * self.w),
                                 [tf.constant(0), y])
            return z

    m = Flow()
    tf.saved_model.save(m, str(tmp_path / "flow"))
    loaded = tf.saved_model.load(str(tmp_path / "flow"))
    for x in ([1., 2., 3.], [-1., -2., -3.]):   # both branches
        x = tf.constant(x)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            want, got = tf.reduce_sum(m.f(x)), tf.reduce_sum(loaded.f(x))
        assert got.numpy() == want.numpy()
        assert tape.gradient(got, loaded.w).numpy() == tape.gradient(want, m.w).numpy()
        np.testing.assert_array_equal(tape.gradient(got, x).numpy(),
                                      tape.gradient(want, x).numpy())


def test_keras_model_exports_keras_3s_serving_signature(tmp_path):
    # as Keras 3 on TensorFlow: `serving_default`, its input named "inputs", output_0
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile("adam", "mse")
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32), verbose=0)
    directory = str(tmp_path / "keras")
    tf.saved_model.save(model, directory)     # (its train_function is not exported)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "x.npy", x)
    got = _run(f"""
        import json, numpy as np, finegrad as tf
        loaded = tf.saved_model.load({directory!r})
        serve = loaded.signatures["serving_default"]
        out = serve(inputs=np.load({str(tmp_path / 'x.npy')!r}))
        print(json.dumps([sorted(loaded.signatures), serve.input_names, sorted(out),
                          out["output_0"].numpy().tolist()]))
        """)
    assert got[:3] == [["serving_default"], ["inputs"], ["output_0"]]
    np.testing.assert_allclose(got[3], model(x).numpy(), rtol=1e-6)


def test_an_object_reached_twice_is_one_object_after_loading(tmp_path):
    class Shared(tf.Module):
        def __init__(self):
            super().__init__()
            self.inner = tf.Module()
            self.inner.v = tf.Variable([1., 2.])
            self.again = [self.inner]
            self.w = self.inner.v

    m = Shared()
    tf.saved_model.save(m, str(tmp_path / "shared"))
    loaded = tf.saved_model.load(str(tmp_path / "shared"))
    assert loaded.again[0] is loaded.inner and loaded.w is loaded.inner.v
    assert len(loaded.variables) == 1
